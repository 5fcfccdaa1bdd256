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
  the ideal time, for the GPipe schedule and for 1F1B alike, whatever a
  backward pass takes against a forward ("The efficiency of the pipeline
  schedule does not depend on this factor", Figure 3); their 1F1B is
  PipeDream-Flush, the flushed form of the schedule PipeDream introduced
  (Narayanan et al. 2019, SOSP);
  1F1B stashes activations "for p or fewer microbatches (compared to m
  microbatches for the GPipe schedule)"; §2.2.2: with v model chunks per
  device, (1/v)·(p − 1)/m; §3.2 and §4.1: b·s·h values cross each stage
  boundary per microbatch, b·s·h/t with the scatter/gather optimization.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from .checks import check_count as _check_count

#: The schedules `schedule` can build.
SCHEDULES = ("gpipe", "1f1b")
#: What a bubble is a share of: the schedule's whole time (GPipe) or the ideal, bubble-free time (Narayanan et al.).
DENOMINATORS = ("total", "ideal")


class Run(NamedTuple):
    """One stage's forward ("F") or backward ("B") pass of one microbatch, from `start` to `end` (time slots)."""

    stage: int
    microbatch: int
    phase: str
    start: int
    end: int


#: The most passes in one direction (stages × microbatches) a schedule is simulated for, and the longest a pass
#: may take in time slots: the largest run the course follows has 88,200 (105 stages × 840 microbatches, Lesson
#: 13's half-trillion-parameter run), which takes about a second, once per build; at the limit, about two; a
#: schedule of a billion would take the build's memory and hours.
MAX_PASSES = 131_072
MAX_SLOTS = 100


def _check(schedule_name: str, stages: int, microbatches: int) -> None:
    if schedule_name not in SCHEDULES:
        raise KeyError(f"unknown schedule {schedule_name!r}; known: {', '.join(SCHEDULES)}")
    _check_count("stages", stages)
    _check_count("microbatches", microbatches)
    if isinstance(stages, float) or isinstance(microbatches, float):
        raise TypeError("stages and microbatches are whole numbers")
    if stages * microbatches > MAX_PASSES:
        raise ValueError(
            f"a schedule of {stages:,} stages × {microbatches:,} microbatches has more than {MAX_PASSES:,} passes"
            " per direction, the most one is simulated for"
        )


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


@lru_cache(maxsize=256)
def schedule(
    schedule_name: str, stages: int, microbatches: int, forward: int = 1, backward: int = 1
) -> tuple[Run, ...]:
    """Every pass of one batch on `stages` stages, each started as soon as its stage and its input are free.

    Simulated once for each set of arguments (the result is immutable): a lesson's bubble charts
    and tables ask for the same schedules many times.

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
    if forward > MAX_SLOTS or backward > MAX_SLOTS:
        raise ValueError(f"a pass takes at most {MAX_SLOTS} time slots; got forward={forward}, backward={backward}")
    orders = [stage_order(schedule_name, stages, microbatches, i) for i in range(stages)]
    # When each pass ends, by phase, stage and microbatch (None until it has run).
    ends: dict[str, list[list[int | None]]] = {
        phase: [[None] * (microbatches + 1) for _ in range(stages)] for phase in "FB"
    }
    free = [0] * stages
    runs: list[list[Run]] = [[] for _ in range(stages)]  # each stage's, in the order it runs them
    position = [0] * stages
    # A pass's times follow from its inputs' alone, so the stages can be taken in any order:
    # each is taken as far along its order as its inputs allow, and when it has run a pass its
    # neighbours (which may have waited for that pass) are taken again. Every visit either runs
    # a pass or stops at once, so the simulation costs about one step per pass.
    waiting = list(range(stages))
    while waiting:
        i = waiting.pop()
        order, stage_free, ran = orders[i], free[i], position[i]
        while position[i] < len(order):
            phase, j = order[position[i]]
            if phase == "F":
                ready = ends["F"][i - 1][j] if i > 0 else 0
            else:
                ready = ends["B"][i + 1][j] if i < stages - 1 else ends["F"][i][j]
            if ready is None:
                break
            start = max(stage_free, ready)
            stage_free = start + (forward if phase == "F" else backward)
            runs[i].append(Run(i, j, phase, start, stage_free))
            ends[phase][i][j] = stage_free
            position[i] += 1
        free[i] = stage_free
        if position[i] > ran:
            waiting.extend(neighbour for neighbour in (i - 1, i + 1) if 0 <= neighbour < stages)
    if sum(position) < 2 * stages * microbatches:  # pragma: no cover - every order above is free of deadlock
        raise RuntimeError(f"the {schedule_name} schedule deadlocks")
    return tuple(itertools.chain.from_iterable(runs))


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
    _check_stage(stage, 1 + max(run.stage for run in runs))
    events = sorted(((run.end, 1) if run.phase == "F" else (run.end, -1)) for run in runs if run.stage == stage)
    held = most = 0
    for _, change in events:
        held += change
        most = max(most, held)
    return most


def one_f_one_b_in_flight(stages: int, microbatches: int, stage: int = 0) -> int:
    """The most microbatches `stage` of a 1F1B schedule holds at once, in closed form: min(p − stage, m).

    Stage i runs min(p − i − 1, m) warm-up forward passes and one more before its first backward pass
    (`stage_order`), and from then on each backward pass frees one microbatch as each forward pass adds one,
    so it never holds more than p − i; never more than the m there are. `stashed_microbatches` of the simulated
    schedule gives the same (the tests compare them), but this costs nothing at any size, where a simulation
    is refused beyond `MAX_PASSES`.
    """
    _check_count("stages", stages)
    _check_count("microbatches", microbatches)
    _check_stage(stage, stages)
    return min(stages - stage, microbatches)


def _check_stage(stage: int, stages: int) -> None:
    """Refuse a stage that is not one of `stages` (numbered from 0): no stage holds or runs anything there."""
    if isinstance(stage, bool) or not isinstance(stage, int) or not 0 <= stage < stages:
        raise ValueError(f"stage {stage!r} is not one of the {stages} stages, 0 to {stages - 1}")


def held_microbatches(runs: tuple[Run, ...], stage: int, time: int) -> tuple[int, ...]:
    """The microbatches whose activations `stage` holds at `time`: forward pass ended by then, backward pass not.

    The most of them at any time is `stashed_microbatches`.
    """
    _check_stage(stage, 1 + max(run.stage for run in runs))
    ended = {(run.phase, run.microbatch) for run in runs if run.stage == stage and run.end <= time}
    return tuple(sorted(j for phase, j in ended if phase == "F" and ("B", j) not in ended))


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

    The schedule as Narayanan et al. describe it in 2021 "requires the number of microbatches in a batch to be an
    integer multiple of the degree of pipeline parallelism" (§2.2.2), and this function holds it to that. Today's
    Megatron-Core (since November 2024) runs groups of N microbatches per model chunk, with p ≤ N ≤ m and a last
    group of none or at least p (`microbatch_group_size_per_vp_stage`, checked in
    `forward_backward_pipelining_with_interleaving`); its default, N = p, keeps the 2021 rule.

    Raises:
        ValueError: m is not a multiple of p.
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


def interleaved_in_flight(stages: int, chunks: int) -> Fraction:
    """Micro-batches' worth of one device's layers the interleaved schedule's first device holds at its peak.

    Megatron-LM's theoretical memory report (megatron/training/theoretical_memory_usage.py,
    `compute_activation_memory`) multiplies the 1F1B schedule's p micro-batches in flight by its "interleaved
    schedule memory penalty", 1 + (p − 1)/(p·v): p + (p − 1)/v in all, between the p that
    `stashed_microbatches` finds for the first stage of a 1F1B schedule of at least p micro-batches and
    2p − 1. Megatron-LM applies it to interleaved schedules only (v ≥ 2); at v = 1 it is not the 1F1B count.
    """
    _check_count("stages", stages)
    _check_count("chunks", chunks)
    return stages + Fraction(stages - 1, chunks)
