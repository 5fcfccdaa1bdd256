"""The ring all-reduce, frame by frame: each GPU's chunks of gradients as the reduce-scatter sums them and the
all-gather spreads the sums."""

from __future__ import annotations

from ... import model
from .frames import Cell, Device, Frame, Frames, check_devices


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def ring_allreduce_frames(devices: int = 4) -> Frames:
    """The ring all-reduce over `devices` GPUs, frame by frame, from `model.ring_allreduce_schedule`.

    GPU 0's gradients are a, GPU 1's b, and so on; a₂ + b₂ is chunk 2 summed
    over GPUs 0 and 1, and Σ₂ chunk 2 summed over every GPU.

    Raises:
        DiagramError: fewer than 2 GPUs, or more than 6, which no longer fit a phone's width.
    """
    check_devices(devices)
    letters = "abcdef"
    schedule = model.ring_allreduce_schedule(devices)
    frames = []
    phase_steps = {phase: 0 for phase in model.RING_PHASES}
    for number, step in enumerate(schedule):
        received = {(send.receiver, send.chunk) for send in step.sends}
        rows = []
        for device, holding in enumerate(step.holds):
            cells = []
            for chunk, sources in enumerate(holding):
                complete = len(sources) == devices
                text = (
                    f"Σ{_subscript(chunk)}"
                    if complete
                    else "+".join(letters[s] + _subscript(chunk) for s in sorted(sources))
                )
                state = "complete" if complete else "partial" if len(sources) > 1 else "own"
                cells.append(Cell(text, f"{state} received" if (device, chunk) in received else state))
            rows.append(Device(f"GPU {device}", tuple(cells)))
        if step.phase == "start":
            title = "Start"
            description = (
                f"Each GPU holds its own gradients, cut into chunks 0 to {devices - 1}: GPU 0's are a, GPU 1's b, and"
                " so on. The all-reduce must leave every GPU with every chunk summed over all of them."
            )
        else:
            phase_steps[step.phase] += 1
            what = "adds it to its own" if step.phase == "reduce-scatter" else "keeps it, replacing its own"
            sends = "; ".join(f"GPU {s.sender} sends chunk {s.chunk} to GPU {s.receiver}" for s in step.sends)
            title = f"{step.phase.capitalize()}, step {phase_steps[step.phase]} of {devices - 1}"
            description = f"Each GPU sends one chunk to the next GPU round the ring, which {what}: {sends}."
            if step.phase == "reduce-scatter" and phase_steps[step.phase] == devices - 1:
                description += " Now each GPU holds one chunk summed over every GPU (Σ): that is the reduce-scatter."
            if number == len(schedule) - 1:
                description += (
                    f" Every GPU now holds every chunk summed. Each sent 2(N − 1) chunks, here {2 * (devices - 1)},"
                    f" of 1/{devices} of the gradients each: 2(N − 1)/N of them."
                )
        frames.append(Frame(f"{title}.", description, tuple(rows), tuple((s.sender, s.receiver) for s in step.sends)))
    return Frames(
        tuple(frames),
        tuple(f"chunk {chunk}" for chunk in range(devices)),
        {
            "own": "a GPU's own values",
            "partial": "summed over some GPUs",
            "complete": "summed over every GPU (Σ)",
            "received": "outlined: just received",
        },
    )
