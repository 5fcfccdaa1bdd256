"""A layer's training iteration drawn by precision: a row per format, a column per kind of tensor, a frame per step.

The mixed-precision and FP8 diagrams both draw a `model.mixed_precision.IterationStep` sequence this way; each
says which columns its tensors go in, by what symbol, and what each step does in words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...model.mixed_precision import IterationStep
from .frames import Cell, Device, Frame, Frames


def iteration_frames(
    steps: Sequence[IterationStep],
    rows: tuple[str, ...],
    columns: tuple[str, ...],
    cells: Mapping[str, tuple[int, str]],
    words: Mapping[str, tuple[str, str]],
    scaled_means: str,
    scaled_symbol: str = "",
) -> Frames:
    """The frames of `steps`: in each, a row per precision of `rows` holding, in the column `cells` gives each
    tensor, its symbol (after `scaled_symbol` when it is scaled), outlined where the step made it and tinted where
    it is scaled (the legend says what that means, `scaled_means`); an arrow for the step's conversion; the step's
    title and description from `words`."""
    frames = []
    for step in steps:
        devices = []
        for precision in rows:
            row = []
            for column in range(len(columns)):
                here = [k for k in step.held if k.precision == precision and cells[k.tensor][0] == column]
                text = ", ".join((scaled_symbol if k.scaled else "") + cells[k.tensor][1] for k in here)
                made = any(k in step.made for k in here)
                scaled = any(k.scaled for k in here)
                state = " ".join(name for name, on in (("made", made), ("scaled", scaled)) if on)
                row.append(Cell(text, state))
            devices.append(Device(precision, tuple(row)))
        arrows = () if step.converts is None else ((rows.index(step.converts[0]), rows.index(step.converts[1])),)
        title, description = words[step.name]
        frames.append(Frame(title, description, tuple(devices), arrows))
    return Frames(tuple(frames), columns, {"made": "outlined: made or changed in this step", "scaled": scaled_means})
