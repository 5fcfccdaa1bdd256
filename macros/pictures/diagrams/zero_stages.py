"""What each GPU holds of the model states under plain data parallelism and each ZeRO-DP stage, a frame per
stage."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from .frames import Cell, Device, Frame, Frames, check_devices


def _times_psi(value: Fraction) -> str:
    """Bytes per parameter times Ψ, as ZeRO §5 writes them: 16Ψ, 5.5Ψ; exact when whole, else to three digits."""
    return f"{value.numerator}Ψ" if value.denominator == 1 else f"{float(value):.3g}Ψ"


#: The letter a ZeRO diagram's cell shows for each role of the model states (`model.ROLES`), and its words.
_ROLE_LETTERS = {"parameters": "P", "gradients": "G", "optimizer_states": "O"}


_ROLE_WORDS = {
    "parameters": "the fp16 parameters (P)",
    "gradients": "the fp16 gradients (G)",
    "optimizer_states": "the optimizer states (O: the fp32 parameters, momentum and variance)",
}


def zero_stages_frames(devices: int = 4) -> Frames:
    """What each of `devices` GPUs holds under plain data parallelism and each ZeRO-DP stage, a frame per stage.

    From `model.STAGES` (the roles each stage partitions) and
    `model.device_bytes_by_role` in ZeRO's mixed-precision Adam: the model's
    parameters are cut into N_d parts, and GPU i keeps the partitioned states of
    part i only (ZeRO §5.1: "the i^th data parallel process only updates the
    optimizer states corresponding to the i^th partition"). A cell is one part
    on one GPU, and names the states the GPU holds of it: P, G and O. Each stage's
    title also gives the short name the libraries use, ZeRO-1 to ZeRO-3 (Hugging
    Face's DeepSpeed guide, https://huggingface.co/docs/transformers/deepspeed, "ZeRO-1"
    to "ZeRO-3"; DeepSpeed's own, https://deepspeed.readthedocs.io/en/stable/zero3.html:
    "ZeRO-3 will automatically collect and partition them").

    Raises:
        DiagramError: fewer than 2 GPUs, or more than 6, which no longer fit a phone's width.
    """
    check_devices(devices)
    per_parameter = model.role_bytes_per_parameter()
    frames = []
    for number, chosen in model.STAGES.items():
        rows = []
        for device in range(devices):
            cells = []
            for part in range(devices):
                held = [role for role in model.ROLES if role not in chosen.sharded or part == device]
                state = "complete" if len(held) == len(model.ROLES) else "partial" if held else "empty"
                cells.append(Cell(" ".join(_ROLE_LETTERS[role] for role in held) or "—", state))
            rows.append(Device(f"GPU {device}", tuple(cells)))
        by_role = model.device_bytes_by_role(1, devices, number)
        terms = " + ".join(
            f"{per_parameter[role]}Ψ/{devices}" if role in chosen.sharded else f"{per_parameter[role]}Ψ"
            for role in model.ROLES
        )
        whole = [_ROLE_WORDS[role] for role in model.ROLES if role not in chosen.sharded]
        split = [_ROLE_WORDS[role] for role in model.ROLES if role in chosen.sharded]
        if number == 0:
            title = "Plain data parallelism (stage 0)."
            held_words = (
                f"Every GPU holds every part of {', '.join(whole[:-1])} and {whole[-1]}, however many GPUs there are."
            )
        else:
            # The stage's short name too (see the docstring): the one readers search for, and meet in later lessons.
            title = f"ZeRO stage {number} (ZeRO-{number}), {chosen.name}: {chosen.words}."
            keeps = (
                f" It keeps every part of {' and '.join(whole)}."
                if whole
                # ZeRO §7.2.2: the parameters are gathered "by spreading it across the entire forward
                # propagation, and discarding the parameters once they have been used", and again backward.
                else " Between steps it holds nothing of the other parts; in the forward and the backward pass"
                " it gathers each part's fp16 parameters in turn, uses them and discards them."
            )
            held_words = (
                f"The model is cut into N_d = {devices} parts, and GPU i keeps {', '.join(split[:-1])}"
                f"{' and ' if len(split) > 1 else ''}{split[-1]} of part i only.{keeps}"
            )
        total = sum(by_role.values(), Fraction(0))
        saving = "" if number == 0 else f", against {_times_psi(Fraction(sum(per_parameter.values())))}"
        description = f"{held_words} Each GPU: {terms} = {_times_psi(total)} bytes{saving}."
        frames.append(Frame(title, description, tuple(rows)))
    return Frames(
        tuple(frames),
        tuple(f"part {part}" for part in range(devices)),
        {
            "complete": "all three of a part: P, G and O",
            "partial": "some of them",
            "empty": "none (—)",
        },
    )
