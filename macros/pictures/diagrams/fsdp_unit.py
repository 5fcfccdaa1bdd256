"""One FSDP unit through a training step on one GPU, a frame per sharding strategy."""

from __future__ import annotations

from collections.abc import Sequence

from ... import model
from .frames import Cell, Device, DiagramError, Frame, Frames


def _count_words(count: int) -> str:
    """A small count in words, as a frame's description says it ("two all-gathers")."""
    return ("no", "one", "two", "three", "four")[count] if 0 <= count <= 4 else str(count)


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
