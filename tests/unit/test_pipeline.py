"""The GPipe and 1F1B schedules, built as data, against the closed forms GPipe and Narayanan et al. print.

Expected values are typed from the sources named beside them, or from the
arithmetic written out beside them, never from the code's output.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from macros.figures.kinds import KINDS
from macros.model import pipeline
from tests.conftest import catalog

GRID = [(p, m) for p in (1, 2, 3, 4, 8) for m in (1, 2, 4, 7, 8, 16)]


@pytest.mark.parametrize("schedule", pipeline.SCHEDULES)
@pytest.mark.parametrize(("p", "m"), GRID)
def test_the_schedules_bubble_is_narayanans_p_minus_1_over_m(schedule: str, p: int, m: int) -> None:
    # Narayanan et al. §2.2.1: "t_pb / t_id = (p−1)/m", and for 1F1B "The time spent in the bubble is the same".
    runs = pipeline.schedule(schedule, p, m)
    assert pipeline.bubble_share(runs, "ideal") == Fraction(p - 1, m) == pipeline.bubble_formula(p, m)


@pytest.mark.parametrize("schedule", pipeline.SCHEDULES)
@pytest.mark.parametrize(("p", "m"), GRID)
def test_the_schedules_bubble_is_gpipes_k_minus_1_over_m_plus_k_minus_1(schedule: str, p: int, m: int) -> None:
    # GPipe §2.3: "This bubble time is O((K−1)/(M+K−1)) amortized over the number of micro-steps M."
    runs = pipeline.schedule(schedule, p, m)
    expected = Fraction(p - 1, m + p - 1)
    assert pipeline.bubble_share(runs, "total") == expected == pipeline.bubble_formula(p, m, "total")


@pytest.mark.parametrize("schedule", pipeline.SCHEDULES)
def test_a_backward_pass_twice_as_long_leaves_the_bubble_share_alone(schedule: str) -> None:
    # Narayanan et al., Figure 3: "we assume that the backward pass takes twice as long as the forward pass.
    # The efficiency of the pipeline schedule does not depend on this factor."
    runs = pipeline.schedule(schedule, 4, 8, forward=1, backward=2)
    assert pipeline.bubble_share(runs) == Fraction(3, 8)
    assert max(run.end for run in runs) == (8 + 4 - 1) * 3
    figure = KINDS["pipeline_bubble"].figure(catalog(), 4, 8, schedule, "ideal", 2)
    assert (figure.id, figure.value) == (f"pipeline-bubble/4/8/{schedule}/ideal/2", Fraction(3, 8))


def test_gpipe_runs_every_forward_pass_before_any_backward_pass() -> None:
    # Narayanan et al., Figure 3: "forward passes ... for all microbatches ... followed by backward passes"
    first_stage = pipeline.timeline(pipeline.schedule("gpipe", 4, 8))[0]
    assert first_stage[:8] == [("F", j) for j in range(1, 9)]
    assert [slot for slot in first_stage if slot is not None][8:] == [("B", j) for j in range(1, 9)]


def test_1f1b_warms_up_then_alternates_one_forward_and_one_backward() -> None:
    # Narayanan et al. §2.2.1: a warm-up of differing numbers of forward passes, then "one forward pass
    # followed by one backward pass (1F1B for short)"; on 4 stages the first stage warms up with 3.
    order = pipeline.stage_order("1f1b", 4, 8, 0)
    assert order[:5] == [("F", 1), ("F", 2), ("F", 3), ("F", 4), ("B", 1)]
    assert order[5:7] == [("F", 5), ("B", 2)]
    assert pipeline.stage_order("1f1b", 4, 8, 3)[:4] == [("F", 1), ("B", 1), ("F", 2), ("B", 2)]


@pytest.mark.parametrize("schedule", pipeline.SCHEDULES)
def test_every_pass_waits_for_its_input(schedule: str) -> None:
    runs = {(r.stage, r.phase, r.microbatch): r for r in pipeline.schedule(schedule, 4, 6)}
    assert len(runs) == 2 * 4 * 6
    for (stage, phase, j), run in runs.items():
        if phase == "F" and stage > 0:
            assert run.start >= runs[(stage - 1, "F", j)].end
        if phase == "B":
            before = runs[(stage + 1, "B", j)] if stage < 3 else runs[(stage, "F", j)]
            assert run.start >= before.end


@pytest.mark.parametrize(("p", "m"), [(4, 8), (8, 32), (4, 2)])
def test_gpipe_stashes_every_microbatch_and_1f1b_at_most_p(p: int, m: int) -> None:
    # Narayanan et al. §2.2.1: "this schedule requires activations to be stashed for p or fewer microbatches
    # (compared to m microbatches for the GPipe schedule)"
    gpipe = pipeline.schedule("gpipe", p, m)
    one_f_one_b = pipeline.schedule("1f1b", p, m)
    assert all(pipeline.stashed_microbatches(gpipe, i) == m for i in range(p))
    assert [pipeline.stashed_microbatches(one_f_one_b, i) for i in range(p)] == [min(p - i, m) for i in range(p)]


def test_1f1bs_closed_form_holds_what_the_simulated_schedule_stashes() -> None:
    for p in range(1, 13):
        for m in range(1, 40):
            runs = pipeline.schedule("1f1b", p, m)
            simulated = [pipeline.stashed_microbatches(runs, i) for i in range(p)]
            assert [pipeline.one_f_one_b_in_flight(p, m, i) for i in range(p)] == simulated, (p, m)


def test_1f1bs_closed_form_answers_where_a_simulation_is_refused() -> None:
    p, m = 8, pipeline.MAX_PASSES  # beyond what `schedule` simulates
    with pytest.raises(ValueError, match="the most one is simulated for"):
        pipeline.schedule("1f1b", p, m)
    assert [pipeline.one_f_one_b_in_flight(p, m, i) for i in (0, p - 1)] == [p, 1]
    with pytest.raises(ValueError, match="not one of the 8 stages"):
        pipeline.one_f_one_b_in_flight(p, m, p)


def test_interleaving_divides_the_bubble_by_the_chunks() -> None:
    # Narayanan et al. §2.2.2: "(1/v)·(p−1)/m"; "with 4 devices, the number of microbatches in a batch must be a
    # multiple of 4"
    assert pipeline.interleaved_bubble(4, 8, 2) == Fraction(3, 16)
    with pytest.raises(ValueError, match="multiple"):
        pipeline.interleaved_bubble(4, 6, 2)


def test_bsh_values_cross_a_boundary_and_bsh_over_t_with_scatter_gather() -> None:
    # Narayanan et al. §3.2: "for each microbatch is bsh"; §4.1: "reduced to bsh/t"
    assert pipeline.boundary_bytes(1, 2048, 12288, 2) == 2 * 2048 * 12288
    assert pipeline.boundary_bytes(1, 2048, 12288, 2, 8) == Fraction(2 * 2048 * 12288, 8)


@pytest.mark.parametrize("schedule", pipeline.SCHEDULES)
@pytest.mark.parametrize(("p", "m"), GRID)
def test_what_a_stage_holds_over_time_peaks_at_its_stash(schedule: str, p: int, m: int) -> None:
    runs = pipeline.schedule(schedule, p, m)
    length = max(run.end for run in runs)
    for stage in range(p):
        held = [pipeline.held_microbatches(runs, stage, t) for t in range(length + 1)]
        assert max(len(h) for h in held) == pipeline.stashed_microbatches(runs, stage)
        assert held[0] == held[-1] == ()  # nothing before the first pass, nothing after the flush


def test_gpipes_first_stage_holds_every_microbatch_once_its_forward_passes_are_done() -> None:
    # GPipe runs F1..F8 in slots 1 to 8 on the first stage, so at time 8 it holds 1 to 8. The last stage runs
    # its forward passes in slots 4 to 11, and B1 climbs back in slots 12 to 15: at time 15 it holds 2 to 8.
    runs = pipeline.schedule("gpipe", 4, 8)
    assert pipeline.held_microbatches(runs, 0, 8) == tuple(range(1, 9))
    assert pipeline.held_microbatches(runs, 0, 15) == tuple(range(2, 9))
    # 1F1B's first stage: F1..F4, then B1 at slot 8 (after F1's trip down and back), then F5.
    one_f_one_b = pipeline.schedule("1f1b", 4, 8)
    assert pipeline.held_microbatches(one_f_one_b, 0, 4) == (1, 2, 3, 4)
    assert pipeline.held_microbatches(one_f_one_b, 0, 8) == (2, 3, 4)
    assert pipeline.held_microbatches(one_f_one_b, 0, 9) == (2, 3, 4, 5)


def test_an_unknown_schedule_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="gpipe, 1f1b"):
        pipeline.schedule("zero-bubble", 4, 8)


def test_the_bubble_kind_reads_the_schedule_of_the_workload() -> None:
    # GPT-3 on 1536 GPUs, t = 8, p = 12: d = 1536/96 = 16 replicas, m = 1536/(16 × 1) = 96 microbatches.
    figure = KINDS["bubble"].figure(catalog(), "gpt3-ptd")
    assert (figure.id, figure.value) == ("bubble/gpt3-ptd", Fraction(11, 96))
    assert KINDS["microbatches"].figure(catalog(), "gpt3-ptd").value == 96


def test_the_first_stage_under_1f1b_holds_korthikantis_equation_5() -> None:
    # Korthikanti et al., Eq. 5: (sbhL/t)(34 + 5as/h), with s = 2048, h = 12288, L = 96, t = 8, 5as/h = 80.
    one_f_one_b = KINDS["stage_activations"].figure(catalog(), "gpt3-ptd").value
    assert one_f_one_b == Fraction(2048 * 12288 * 96, 8) * (34 + 80)
    # GPipe holds all m = 96 microbatches of L/p = 8 layers: 96 × 8 layers, against 1F1B's 12 × 8.
    gpipe = KINDS["stage_activations"].figure(catalog(), "gpt3-ptd", "gpipe").value
    assert Fraction(gpipe) / Fraction(one_f_one_b) == 8


@pytest.mark.parametrize("stage", [4, 7, -1, -4, True])
def test_a_stage_that_is_not_one_of_the_schedules_is_refused(stage: int) -> None:
    """Stage 7 of four held nothing and showed 0; stage −1 read as the last."""
    runs = pipeline.schedule("gpipe", 4, 8)
    with pytest.raises(ValueError, match="is not one of the 4 stages, 0 to 3"):
        pipeline.stashed_microbatches(runs, stage)
    with pytest.raises(ValueError, match="is not one of the 4 stages"):
        pipeline.held_microbatches(runs, stage, 3)
