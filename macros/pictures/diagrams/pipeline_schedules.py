"""The GPipe and 1F1B pipeline schedules side by side, one frame per time slot: what each stage runs and what it
stashes."""

from __future__ import annotations

from ... import model
from .frames import Cell, Device, DiagramError, Frame, Frames

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
            # Counts before their noun read as typed figures to the page's check ("4 micro-batches"): these are
            # the schedule's own, so the sentence names the noun first.
            sentence = f"{shown}, stages 1 to {stages}: {', '.join(doing)}; micro-batches stashed: {', '.join(held)}."
            if slot == first_backward[key]:
                sentence += f" Under {shown} the last stage starts the backward passes."
            if slot == peaks[key]:
                sentence += (
                    f" Stage 1's stash of micro-batches now peaks at {most[key]}, the most it holds under {shown}."
                )
            sentences.append(sentence)
        if slot == slots - 1:
            sentences.append(
                f"Both schedules end here, after {slots} slots, 2(m + p − 1). Under either, every stage was idle"
                f" {grids['gpipe'][0].count(None)} of them, 2(p − 1): the bubble. Stage 1's stash of micro-batches"
                f" peaked at {most['gpipe']} (m) under GPipe, and"
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
