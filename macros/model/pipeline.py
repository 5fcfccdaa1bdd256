"""Pipeline parallelism: the GPipe and 1F1B schedules, their bubble, and what crosses a stage boundary.

A schedule here is which microbatch each stage runs, forward or backward, at
which time. `schedule` builds it from the order each stage works in and the
dependencies between stages (a forward pass needs the stage before it, a
backward pass the stage after it), so the bubble and the stashed microbatches
are read off the schedule itself, and the closed forms below are checked
against it:

- Huang et al., "GPipe" (2018, https://arxiv.org/abs/1811.06965), §2.3: the
  bubble is O((K − 1)/(M + K − 1)) for K partitions and M micro-batches, a
  share of the whole schedule's time;
- Narayanan et al., "Efficient Large-Scale Language Model Training on GPU
  Clusters Using Megatron-LM" (2021, https://arxiv.org/abs/2104.04473),
  §2.2.1: t_pb / t_id = (p − 1)/m for p stages and m microbatches, a share of
  the ideal time, for the GPipe schedule and for 1F1B (PipeDream-Flush) alike;
  1F1B stashes activations "for p or fewer microbatches (compared to m
  microbatches for the GPipe schedule)"; §2.2.2: with v model chunks per
  device, (1/v)·(p − 1)/m; §3.2 and §4.1: b·s·h values cross each stage
  boundary per microbatch, b·s·h/t with the scatter/gather optimization.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .checks import check_count as _check_count

#: The schedules `schedule` can build.
SCHEDULES = ("gpipe", "1f1b")
#: What a bubble is a share of: the schedule's whole time (GPipe) or the ideal, bubble-free time (Narayanan et al.).
DENOMINATORS = ("total", "ideal")


@dataclass(frozen=True)
class Run:
    """One stage's forward ("F") or backward ("B") pass of one microbatch, from `start` to `end` (time slots)."""

    stage: int
    microbatch: int
    phase: str
    start: int
    end: int


def _check(schedule_name: str, stages: int, microbatches: int) -> None:
    if schedule_name not in SCHEDULES:
        raise KeyError(f"unknown schedule {schedule_name!r}; known: {', '.join(SCHEDULES)}")
    _check_count("stages", stages)
    _check_count("microbatches", microbatches)
    if isinstance(stages, float) or isinstance(microbatches, float):
        raise TypeError("stages and microbatches are whole numbers")


def stage_order(schedule_name: str, stages: int, microbatches: int, stage: int) -> list[tuple[str, int]]:
    """The passes `stage` (0 to stages − 1) runs, in order, as (phase, microbatch) with microbatches from 1.

    GPipe runs every forward pass, then every backward pass. 1F1B (PipeDream-Flush)
    first runs p − stage − 1 forward passes (the warm-up), then alternates one
    forward and one backward, then finishes the backward passes left.
    """
    _check(schedule_name, stages, microbatches)
    forwards = [("F", j) for j in range(1, microbatches + 1)]
    backwards = [("B", j) for j in range(1, microbatches + 1)]
    if schedule_name == "gpipe":
        return forwards + backwards
    warmup = min(stages - stage - 1, microbatches)
    order = forwards[:warmup]
    for j in range(microbatches - warmup):
        order += [forwards[warmup + j], backwards[j]]
    return order + backwards[microbatches - warmup :]


def schedule(
    schedule_name: str, stages: int, microbatches: int, forward: int = 1, backward: int = 1
) -> tuple[Run, ...]:
    """Every pass of one batch on `stages` stages, each started as soon as its stage and its input are free.

    A forward pass of microbatch j on stage i waits for stage i − 1's forward
    pass of j; a backward pass waits for stage i + 1's backward pass of j (the
    last stage's, for its own forward pass). `forward` and `backward` are the
    passes' durations in time slots.

    Raises:
        KeyError: an unknown schedule. ValueError: a count below 1.
    """
    _check(schedule_name, stages, microbatches)
    _check_count("forward", forward)
    _check_count("backward", backward)
    orders = [stage_order(schedule_name, stages, microbatches, i) for i in range(stages)]
    done: dict[tuple[int, str, int], int] = {}
    free = [0] * stages
    runs: list[Run] = []
    position = [0] * stages
    while len(runs) < 2 * stages * microbatches:
        progressed = False
        for i in range(stages):
            if position[i] == len(orders[i]):
                continue
            phase, j = orders[i][position[i]]
            if phase == "F":
                needed = (i - 1, "F", j) if i > 0 else None
            else:
                needed = (i + 1, "B", j) if i < stages - 1 else (i, "F", j)
            if needed is not None and needed not in done:
                continue
            start = max(free[i], done[needed] if needed is not None else 0)
            end = start + (forward if phase == "F" else backward)
            runs.append(Run(i, j, phase, start, end))
            done[(i, phase, j)] = end
            free[i] = end
            position[i] += 1
            progressed = True
        if not progressed:  # pragma: no cover - every order above is free of deadlock
            raise RuntimeError(f"the {schedule_name} schedule deadlocks")
    return tuple(sorted(runs, key=lambda run: (run.stage, run.start)))


def timeline(runs: tuple[Run, ...]) -> list[list[tuple[str, int] | None]]:
    """The schedule as a grid: for each stage, what it runs in each time slot, (phase, microbatch) or None (idle)."""
    stages = 1 + max(run.stage for run in runs)
    length = max(run.end for run in runs)
    grid: list[list[tuple[str, int] | None]] = [[None] * length for _ in range(stages)]
    for run in runs:
        for slot in range(run.start, run.end):
            grid[run.stage][slot] = (run.phase, run.microbatch)
    return grid


def bubble_share(runs: tuple[Run, ...], denominator: str = "ideal") -> Fraction:
    """A stage's idle time in the schedule, as a share of the whole (`total`) or of its busy time (`ideal`).

    Every stage of these schedules is idle as long as every other; the first stage's share is returned.
    """
    if denominator not in DENOMINATORS:
        raise KeyError(f"unknown denominator {denominator!r}; known: {', '.join(DENOMINATORS)}")
    length = max(run.end for run in runs)
    busy = sum(run.end - run.start for run in runs if run.stage == 0)
    idle = length - busy
    return Fraction(idle, length if denominator == "total" else busy)


def stashed_microbatches(runs: tuple[Run, ...], stage: int = 0) -> int:
    """The most microbatches `stage` holds activations for at once: forward pass done, backward pass not."""
    events = sorted(((run.end, 1) if run.phase == "F" else (run.end, -1)) for run in runs if run.stage == stage)
    held = most = 0
    for _, change in events:
        held += change
        most = max(most, held)
    return most


def bubble_formula(stages: int, microbatches: int, denominator: str = "ideal") -> Fraction:
    """The bubble in closed form: (p − 1)/m of the ideal time (Narayanan), (K − 1)/(M + K − 1) of the total (GPipe)."""
    _check_count("stages", stages)
    _check_count("microbatches", microbatches)
    if denominator not in DENOMINATORS:
        raise KeyError(f"unknown denominator {denominator!r}; known: {', '.join(DENOMINATORS)}")
    if denominator == "ideal":
        return Fraction(stages - 1, microbatches)
    return Fraction(stages - 1, microbatches + stages - 1)


def interleaved_bubble(stages: int, microbatches: int, chunks: int) -> Fraction:
    """The interleaved schedule's bubble, (1/v)·(p − 1)/m of the ideal time, at v times the communication.

    Raises:
        ValueError: m is not a multiple of p, which the schedule requires (Narayanan et al. §2.2.2).
    """
    _check_count("chunks", chunks)
    if microbatches % stages:
        raise ValueError(
            f"the interleaved schedule needs microbatches ({microbatches}), a multiple of stages ({stages})"
        )
    return bubble_formula(stages, microbatches) / chunks


def boundary_bytes(microbatch: int, sequence: int, hidden: int, bytes_per_value: int, tensor: int = 1) -> Fraction:
    """Bytes that cross one stage boundary per microbatch in one direction: b·s·h values, ÷ t with scatter/gather."""
    for name, value in (("microbatch", microbatch), ("sequence", sequence), ("hidden", hidden), ("tensor", tensor)):
        _check_count(name, value)
    return Fraction(microbatch * sequence * hidden * bytes_per_value, tensor)
