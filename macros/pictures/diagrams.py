"""Diagrams drawn at build time as frames of device boxes, which a reader steps through.

A diagram is `Frames`: a caption and frames, each a row of devices holding
cells (a chunk of gradients, a shard of the optimizer states, a micro-batch),
with a title and a description in words, which is the frame's text
alternative. `frames_html` draws every frame as an SVG of its own: with
JavaScript off they stand in a row; `frames.js` shows one at a time with
buttons and the arrow keys. Cells take a `state` that course.css colours for
both palettes, and the legend says what each state means, so colour is never
the only cue (cells also carry their text).

Diagram content lives in functions that build `Frames` from the model, such as
`ring_allreduce_frames`, registered by name in `DIAGRAMS`, so that a lesson
draws `{{ diagram("ring_allreduce", devices=4, caption="…") }}` from the same
algorithm its figures use. Nothing here imports MkDocs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from .. import model
from ..model import mixed_precision
from .svg import SEARCH_EXCLUDE, body_size, element, text_width

#: The drawing's units: one row of cells per device, the device's name on the left. Its text is `_FONT` units,
#: which read at body size at the drawing's widest (`plot.body_size`); the name column and each column of cells
#: are as wide as their longest text in any frame (`_Grid`), a column at least `_CELL`.
_CELL, _ROW, _HEAD, _GAP, _FONT = 48, 36, 24, 6, 15


class DiagramError(ValueError):
    """A diagram was asked for wrongly; the message says how to ask."""


@dataclass(frozen=True)
class Cell:
    """What a device holds in one place: its text, and a state that course.css styles (see `Frames.legend`)."""

    text: str
    state: str = ""


@dataclass(frozen=True)
class Device:
    """A device and its cells, in the order of the diagram's columns."""

    name: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Frame:
    """One step of a diagram: a title, what happens in words (the frame's text alternative), and each device."""

    title: str
    description: str
    devices: tuple[Device, ...]
    #: Arrows from device to device, by index, drawn beside the rows (a ring's sends, a pipeline's hand-offs).
    arrows: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Frames:
    """A diagram: its frames, the names of its columns, and what each cell state means."""

    frames: tuple[Frame, ...]
    columns: tuple[str, ...]
    legend: Mapping[str, str]


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def ring_allreduce_frames(devices: int = 4) -> Frames:
    """The ring all-reduce over `devices` GPUs, frame by frame, from `model.ring_allreduce_schedule`.

    GPU 0's gradients are a, GPU 1's b, and so on; a₂ + b₂ is chunk 2 summed
    over GPUs 0 and 1, and Σ₂ chunk 2 summed over every GPU.

    Raises:
        DiagramError: fewer than 2 GPUs, or more than 6, which no longer fit a phone's width.
    """
    if isinstance(devices, bool) or not isinstance(devices, int) or not 2 <= devices <= 6:
        raise DiagramError(f"devices= is a whole number from 2 to 6, got {devices!r}")
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
                    f" Every GPU now holds every chunk summed. Each sent 2(N − 1) = {2 * (devices - 1)} chunks of"
                    f" 1/{devices} of the gradients: 2(N − 1)/N of them."
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


#: The pipeline schedules drawn side by side, with how each names them.
_PIPELINE_SCHEDULES = (("gpipe", "GPipe"), ("1f1b", "1F1B"))


def _microbatch_span(microbatches: tuple[int, ...]) -> str:
    """Microbatches as a cell shows them: "3–6" when they run on, "3" alone, "" for none, else "1,3"."""
    if not microbatches:
        return ""
    first, last = microbatches[0], microbatches[-1]
    if len(microbatches) == 1:
        return str(first)
    if microbatches == tuple(range(first, last + 1)):
        return f"{first}–{last}"
    return ",".join(str(j) for j in microbatches)


def pipeline_schedules_frames(stages: int = 4, microbatches: int = 8) -> Frames:
    """The GPipe and 1F1B schedules side by side, one frame per time slot, from `model.pipeline.schedule`.

    Each stage's row shows the pass it runs in the slot under each schedule
    (F3 is micro-batch 3's forward pass, B3 its backward pass; blank, idle) and
    the micro-batches whose activations it stashes at the slot's end
    (`model.pipeline.held_microbatches`). Both schedules take 2(m + p − 1) slots.

    Raises:
        DiagramError: stages not from 2 to 8, or micro-batches not from 1 to 16 (more slots than one steps through).
    """
    for name, value, low, high in (("stages", stages, 2, 8), ("microbatches", microbatches, 1, 16)):
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise DiagramError(f"{name}= is a whole number from {low} to {high}, got {value!r}")
    runs = {key: model.pipeline.schedule(key, stages, microbatches) for key, _ in _PIPELINE_SCHEDULES}
    grids = {key: model.pipeline.timeline(schedule) for key, schedule in runs.items()}
    slots = len(grids["gpipe"][0])
    # The slot of each schedule's first backward pass (on the last stage), and where the first stage's stash peaks.
    first_backward = {key: [run and run[0] for run in grid[-1]].index("B") for key, grid in grids.items()}
    most = {key: model.pipeline.stashed_microbatches(schedule, 0) for key, schedule in runs.items()}
    peaks = {
        key: next(t for t in range(slots) if len(model.pipeline.held_microbatches(schedule, 0, t + 1)) == most[key])
        for key, schedule in runs.items()
    }
    frames = []
    for slot in range(slots):
        rows: list[list[Cell]] = [[] for _ in range(stages)]
        sentences = []
        for key, shown in _PIPELINE_SCHEDULES:
            doing, held = [], []
            for stage in range(stages):
                run = grids[key][stage][slot]
                text = f"{run[0]}{run[1]}" if run else ""
                stash = model.pipeline.held_microbatches(runs[key], stage, slot + 1)
                rows[stage] += [
                    Cell(text, {"F": "forward", "B": "backward"}[run[0]] if run else "idle"),
                    Cell(_microbatch_span(stash), "stash"),
                ]
                doing.append(text or "idle")
                held.append(str(len(stash)))
            sentence = f"{shown}, stages 1 to {stages}: {', '.join(doing)}; stashing {', '.join(held)} micro-batches."
            if slot == first_backward[key]:
                sentence += f" Under {shown} the last stage starts the backward passes."
            if slot == peaks[key]:
                sentence += f" Stage 1 now stashes {most[key]} micro-batches, the most it will under {shown}."
            sentences.append(sentence)
        if slot == slots - 1:
            sentences.append(
                f"Both schedules end here, after {slots} slots, 2(m + p − 1). Under either, every stage was idle"
                f" {grids['gpipe'][0].count(None)} of them, 2(p − 1): the bubble. Stage 1 stashed up to"
                f" {most['gpipe']} micro-batches (m) under GPipe, and"
                f" {most['1f1b']} ({'p' if most['1f1b'] == stages else 'm, fewer than p'}) under 1F1B."
            )
        devices = tuple(Device(f"stage {stage + 1}", tuple(cells)) for stage, cells in enumerate(rows))
        frames.append(Frame(f"Slot {slot + 1} of {slots}.", " ".join(sentences), devices))
    return Frames(
        tuple(frames),
        tuple(column for _, shown in _PIPELINE_SCHEDULES for column in (shown, "stashed")),
        {
            "forward": "forward pass: F3 is micro-batch 3's",
            "backward": "backward pass: B3 is micro-batch 3's",
            "idle": "blank: the stage is idle",
            "stash": "stashed: micro-batches whose activations the stage keeps for their backward pass",
        },
    )


def _count_words(count: int) -> str:
    """A small count in words, as a frame's description says it ("two all-gathers")."""
    return ("no", "one", "two", "three", "four")[count] if 0 <= count <= 4 else str(count)


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
    if isinstance(devices, bool) or not isinstance(devices, int) or not 2 <= devices <= 6:
        raise DiagramError(f"devices= is a whole number from 2 to 6, got {devices!r}")
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


#: A moment of `model.UNIT_MOMENTS` as an FSDP diagram's row names it.
_MOMENT_NAMES = {
    "start": "start",
    "forward": "fwd",
    "after-forward": "after fwd",
    "backward": "bwd",
    "after-backward": "after bwd",
    "step": "step",
}


#: A collective with its article, as a description names it.
_COLLECTIVES = {"reduce-scatter": "a reduce-scatter", "all-reduce": "an all-reduce"}


def _unit_cells(moment: model.UnitMoment) -> tuple[Cell, Cell]:
    """What one GPU holds of a unit's parameters and gradients at a moment, and what just happened to them."""
    whole = moment.parameters == "unsharded"
    if "all-gather" in moment.collectives:
        parameters = Cell("gathered", "complete received")
    elif moment.frees:
        parameters = Cell("freed", "partial")
    elif moment.moment == "step":
        parameters = Cell("stepped", "complete" if whole else "partial")
    else:
        parameters = Cell("whole" if whole else "shard", "complete" if whole else "partial")
    reduced = [c for c in moment.collectives if c != "all-gather"]
    if moment.gradients == "none":
        gradients = Cell("—", "empty")
    elif reduced:
        text = "all-reduced" if reduced == ["all-reduce"] else "reduced"
        gradients = Cell(text, f"{'complete' if moment.gradients == 'unsharded' else 'partial'} received")
    elif moment.moment == "backward":
        gradients = Cell("computed", "complete")
    else:
        gradients = Cell("whole", "complete") if moment.gradients == "unsharded" else Cell("shard", "partial")
    return parameters, gradients


def _unit_story(schedule: tuple[model.UnitMoment, ...]) -> str:
    """A frame's description: the unit's step under a strategy in words, sentence by sentence from its schedule."""
    moments = {m.moment: m for m in schedule}
    sharded = moments["start"].parameters == "sharded"
    sentences = [
        "Between steps the GPU holds only its own shard of the unit's parameters, 1/F of them."
        if sharded
        else "Between steps the GPU holds the whole unit's parameters, as every GPU does."
    ]
    if "all-gather" in moments["forward"].collectives:
        sentences.append(
            "Before the forward pass it all-gathers the other GPUs' shards and computes with the whole unit."
        )
    else:
        sentences.append("The forward pass computes with them as they are.")
    if moments["after-forward"].frees:
        sentences.append("After the forward pass it frees them, keeping its own shard.")
    elif sharded:
        sentences.append("After the forward pass it keeps the whole unit.")
    if "all-gather" in moments["backward"].collectives:
        sentences.append("Before the backward pass it all-gathers them again.")
    sentences.append("The backward pass writes the whole unit's gradients.")
    after = moments["after-backward"]
    if "reduce-scatter" in after.collectives:
        # Averaged, not summed: FSDP1 divides by the data-parallel world size, FSDP2 reduces with ReduceOp.AVG.
        summed = (
            "averaged over every GPU: reduce-scattered within its host, then all-reduced with the same shard on"
            " the other hosts"
            if "all-reduce" in after.collectives
            else "averaged over the GPUs"
        )
        sentences.append(
            f"Then it reduce-scatters them: it keeps only its own shard's gradients, {summed}, and frees the"
            " gathered parameters. The optimizer steps its shard of the parameters with its shard of the gradients."
        )
    else:
        sentences.append("Then it all-reduces them, and the optimizer steps the whole unit on every GPU.")
    gathers = sum(m.collectives.count("all-gather") for m in schedule)
    reductions = [_COLLECTIVES[c] for m in schedule for c in m.collectives if c != "all-gather"]
    sentences.append(
        f"Per step: {_count_words(gathers)} all-gather{'' if gathers == 1 else 's'} of the unit's parameters,"
        f" and {' then '.join(reductions)} of its gradients."
    )
    return " ".join(sentences)


def fsdp_unit_frames(strategies: Sequence[str] = ("full-shard", "shard-grad-op")) -> Frames:
    """One FSDP unit through a training step on one GPU, a frame per sharding strategy, from `model.fsdp_unit_schedule`.

    Each row is a moment of the step (`model.UNIT_MOMENTS`), read from top to
    bottom; the cells say what the GPU holds of the unit's parameters and
    gradients then, and what just happened to them.

    Raises:
        DiagramError: fewer than two strategies, an unknown one, or one given twice.
    """
    known = ", ".join(f'"{s}"' for s in model.STRATEGIES)
    if (
        isinstance(strategies, str)
        or not isinstance(strategies, Sequence)
        or not 2 <= len(strategies) <= len(model.STRATEGIES)
        or len(set(strategies)) != len(strategies)
        or any(s not in model.STRATEGIES for s in strategies)
    ):
        raise DiagramError(f"strategies= lists two or more of {known}, each once; got {strategies!r}")
    frames = []
    for strategy_id in strategies:
        chosen = model.fsdp_strategy(strategy_id)
        schedule = model.fsdp_unit_schedule(strategy_id)
        rows = tuple(Device(_MOMENT_NAMES[m.moment], _unit_cells(m)) for m in schedule)
        moments = {m.moment: m for m in schedule}
        if moments["start"].parameters == "unsharded":
            how = "nothing sharded"
        elif moments["after-forward"].frees:
            how = "reshards after the forward"
        else:
            how = "keeps the unit whole from forward to backward"
        frames.append(Frame(f"{chosen.name}: {how}.", _unit_story(schedule), rows))
    return Frames(
        tuple(frames),
        ("parameters", "gradients"),
        {
            "partial": "a shard: this GPU's 1/F of the unit",
            "complete": "the whole unit",
            "received": "outlined: the result of a collective just now",
            "empty": "none (—)",
        },
    )


#: The columns of a mixed-precision iteration's frames, and where each of its tensors is drawn: column and symbol.
_ITERATION_COLUMNS = ("weights", "activations", "gradients", "Adam m, v")


_ITERATION_CELLS: Mapping[str, tuple[int, str]] = {
    "parameters": (0, "W"),
    "activations": (1, "A"),
    "activation_gradients": (2, "∂A"),
    "gradients": (2, "∂W"),
    "momentum": (3, "m"),
    "variance": (3, "v"),
}


#: What each step of the iteration does, in words: its title, then its description.
_ITERATION_WORDS: Mapping[str, tuple[str, str]] = {
    "start": (
        "Between iterations.",
        "The layer's weights W are kept in fp32, the master copy, and so are the two moments m and v that Adam keeps"
        " for each weight. (A stands for the layer's activations, ∂A and ∂W for the gradients of the loss with"
        " respect to the layer's input and to its weights, and S for the loss scale.)",
    ),
    "round": (
        "Round the weights to fp16.",
        "The fp32 master weights are rounded to an fp16 copy, the weights the forward and backward passes use.",
    ),
    "forward": (
        "Forward pass, in fp16.",
        "The forward pass multiplies by the fp16 weights, adding up the products in fp32 and rounding each result to"
        " fp16, and stores the layer's activations A in fp16 for the backward pass.",
    ),
    "backward": (
        "Backward pass, in fp16, from the loss times S.",
        "The loss is multiplied by the loss scale S, so every gradient of the backward pass comes out S times its"
        " true value, which lifts small ones above fp16's floor. The layer makes, in fp16, the gradient of its"
        " input, S∂A, which it passes to the layer below, and the gradient of its weights, S∂W; its activations are"
        " no longer needed.",
    ),
    "update": (
        "Update, in fp32.",
        "The optimizer converts the weight gradients to fp32 and divides them by S, which leaves ∂W as it would be"
        " without scaling, updates Adam's fp32 moments with it, and then the fp32 master weights. ZeRO's"
        " count of the bytes keeps no lasting fp32 copy of the gradients; Megatron-LM's count, with one, is higher."
        " The fp16 copy of the weights is now out of date: the next iteration rounds the master"
        " weights again.",
    ),
}


def mixed_precision_frames() -> Frames:
    """One mixed-precision iteration for a layer (Micikevicius et al., Figure 1, with their loss scaling), frame by
    frame, from `model.mixed_precision_iteration`: a row per precision, a column per kind of tensor."""
    steps = mixed_precision.mixed_precision_iteration()
    rows = (mixed_precision.MASTER, mixed_precision.PASSES)
    frames = []
    for step in steps:
        devices = []
        for precision in rows:
            cells = []
            for column in range(len(_ITERATION_COLUMNS)):
                here = [k for k in step.held if k.precision == precision and _ITERATION_CELLS[k.tensor][0] == column]
                text = ", ".join(("S" if k.scaled else "") + _ITERATION_CELLS[k.tensor][1] for k in here)
                made = any(k in step.made for k in here)
                scaled = any(k.scaled for k in here)
                state = " ".join(name for name, on in (("made", made), ("scaled", scaled)) if on)
                cells.append(Cell(text, state))
            devices.append(Device(precision, tuple(cells)))
        arrows = () if step.converts is None else ((rows.index(step.converts[0]), rows.index(step.converts[1])),)
        title, description = _ITERATION_WORDS[step.name]
        frames.append(Frame(title, description, tuple(devices), arrows))
    return Frames(
        tuple(frames),
        _ITERATION_COLUMNS,
        {"made": "outlined: made or changed in this step", "scaled": "tinted: S times its true value"},
    )


#: Diagrams a lesson can draw, by name: each builds its frames from keyword options.
DIAGRAMS: Mapping[str, Callable[..., Frames]] = {
    "ring_allreduce": ring_allreduce_frames,
    "zero_stages": zero_stages_frames,
    "fsdp_unit": fsdp_unit_frames,
    "pipeline_schedules": pipeline_schedules_frames,
    "mixed_precision": mixed_precision_frames,
}


@dataclass(frozen=True)
class _Grid:
    """The widths a diagram's frames share, so that stepping through them moves nothing: the name column's,
    and each column's, as wide as its longest text in any frame."""

    name: float
    columns: tuple[float, ...]

    @classmethod
    def of(cls, frames: Frames) -> _Grid:
        names = [device.name for frame in frames.frames for device in frame.devices]
        columns = []
        for index, header in enumerate(frames.columns):
            texts = [header] + [d.cells[index].text for frame in frames.frames for d in frame.devices]
            columns.append(max(_CELL, *(text_width(text, _FONT) + 7 for text in texts)))
        return cls(max(text_width(name, _FONT) for name in names) + 6, tuple(columns))

    def left(self, index: int) -> float:
        """Where column `index` starts."""
        return round(self.name + sum(self.columns[:index]), 2)


def _frame_svg(frame: Frame, columns: tuple[str, ...], labelled_by: str, grid: _Grid) -> ET.Element:
    """One frame: a header of column names, a row of cells per device, and its arrows on the right."""
    arrows = 20 if frame.arrows else 0
    width = round(grid.left(len(columns)) + arrows + 4, 2)
    height = _HEAD + _ROW * len(frame.devices) + 4
    svg = element(
        "svg",
        {
            "class": "sbn-frames__svg",
            "viewBox": f"0 0 {width} {height}",
            "role": "img",
            "aria-labelledby": labelled_by,
            **SEARCH_EXCLUDE,
            "font-size": _FONT,
            "style": body_size(width, _FONT),
        },
    )
    for index, name in enumerate(columns):
        x = round(grid.left(index) + grid.columns[index] / 2, 2)
        element("text", {"class": "sbn-frames__column", "x": x, "y": _FONT + 1, "text-anchor": "middle"}, svg, name)
    for row, device in enumerate(frame.devices):
        y = _HEAD + _ROW * row
        element("text", {"class": "sbn-frames__device", "x": 0, "y": y + _ROW / 2 + 5}, svg, device.name)
        for index, cell in enumerate(device.cells):
            group = element(
                "g",
                {"class": " ".join(f"sbn-frames__cell--{s}" for s in cell.state.split()) or "sbn-frames__cell"},
                svg,
            )
            x, cell_width = grid.left(index), grid.columns[index]
            box = {"x": round(x + 2, 2), "y": y + 3, "width": round(cell_width - 4, 2), "height": _ROW - _GAP, "rx": 3}
            element("rect", box, group)
            centre = {"x": round(x + cell_width / 2, 2), "y": y + _ROW / 2 + 5, "text-anchor": "middle"}
            element("text", centre, group, cell.text)
    right = grid.left(len(columns))
    for sender, receiver in frame.arrows:
        y1 = _HEAD + _ROW * sender + _ROW / 2
        y2 = _HEAD + _ROW * receiver + _ROW / 2
        # Down to the next row beside the rows; the ring's way back from the last row to the first, further out.
        x = round(right + (6 if receiver > sender else 15), 2)
        path = f"M{right + 1},{y1} H{x} V{y2 + (-5 if receiver > sender else 5)}"
        group = element("g", {"class": "sbn-frames__arrow"}, svg)
        element("path", {"d": path, "fill": "none"}, group)
        tip = 5 if receiver > sender else -5
        element("path", {"d": f"M{x - 4},{y2 - tip} L{x},{y2} L{x + 4},{y2 - tip} Z"}, group)
    return svg


def frames_html(frames: Frames, ident: str, caption: str, script: str | None) -> str:
    """The diagram's HTML: every frame in a list, controls for `frames.js` (hidden until it runs), the legend.

    `script` is the address of frames.js, given on the first diagram of a page only.
    """
    figure = element("figure", {"class": "sbn-frames", "id": ident, "data-sbn-frames": ""})
    controls = element("div", {"class": "sbn-frames__controls", "hidden": "", **SEARCH_EXCLUDE}, figure)
    element(
        "button", {"type": "button", "class": "sbn-frames__button", "data-sbn-frames-step": "-1"}, controls, "Previous"
    )
    element("button", {"type": "button", "class": "sbn-frames__button", "data-sbn-frames-step": "1"}, controls, "Next")
    element("p", {"class": "sbn-frames__status", "role": "status"}, controls, "")
    listing = element(
        "ol", {"class": "sbn-frames__list", "tabindex": "0", "aria-label": f"The steps of: {caption}"}, figure
    )
    grid = _Grid.of(frames)
    for number, frame in enumerate(frames.frames, start=1):
        item = element("li", {"class": "sbn-frames__frame", "id": f"{ident}-{number}"}, listing)
        text_id = f"{ident}-{number}-text"
        item.append(_frame_svg(frame, frames.columns, text_id, grid))
        text = element("p", {"id": text_id}, item)
        element("strong", {}, text, frame.title).tail = f" {frame.description}"
    legend = element("ul", {"class": "sbn-frames__legend"}, figure)
    for state, meaning in frames.legend.items():
        item = element("li", {}, legend)
        swatch = element(
            "svg",
            {"class": f"sbn-frames__swatch sbn-frames__cell--{state}", "viewBox": "0 0 16 12", "aria-hidden": "true"},
            item,
        )
        element("rect", {"x": 1, "y": 1, "width": 14, "height": 10, "rx": 2}, swatch)
        swatch.tail = f" {meaning}"
    element("figcaption", {}, figure, caption)
    # Every element has an end tag: HTML reads an empty <p/> as a start tag.
    html = ET.tostring(figure, encoding="unicode", short_empty_elements=False)
    if script:
        html += ET.tostring(
            element("script", {"src": script, "defer": ""}), encoding="unicode", short_empty_elements=False
        )
    return html
