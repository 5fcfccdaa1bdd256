"""The ring all-reduce step by step (Patarasuk and Yuan 2009), against what a ring all-reduce must do."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from macros import model

DEVICES = range(2, 9)


@pytest.mark.parametrize("n", DEVICES)
def test_the_schedule_has_a_start_then_n_minus_1_steps_of_each_phase(n: int) -> None:
    phases = [step.phase for step in model.ring_allreduce_schedule(n)]
    assert phases == ["start"] + ["reduce-scatter"] * (n - 1) + ["all-gather"] * (n - 1)


@pytest.mark.parametrize("n", DEVICES)
def test_each_device_starts_with_its_own_values_only(n: int) -> None:
    start = model.ring_allreduce_schedule(n)[0]
    assert start.holds == tuple(tuple(frozenset({device}) for _ in range(n)) for device in range(n))


@pytest.mark.parametrize("n", DEVICES)
def test_every_send_goes_to_the_next_device_and_each_device_sends_one_chunk_a_step(n: int) -> None:
    for step in model.ring_allreduce_schedule(n)[1:]:
        assert sorted(send.sender for send in step.sends) == list(range(n))
        assert all(send.receiver == (send.sender + 1) % n for send in step.sends)


@pytest.mark.parametrize("n", DEVICES)
def test_the_reduce_scatter_adds_disjoint_sums_and_leaves_each_device_one_whole_chunk(n: int) -> None:
    schedule = model.ring_allreduce_schedule(n)
    for before, step in itertools.pairwise(schedule[:n]):
        for send in step.sends:
            assert not before.holds[send.sender][send.chunk] & before.holds[send.receiver][send.chunk]
    after = schedule[n - 1].holds
    everyone = frozenset(range(n))
    for device in range(n):
        complete = [chunk for chunk in range(n) if after[device][chunk] == everyone]
        assert complete == [(device + 1) % n]


@pytest.mark.parametrize("n", DEVICES)
def test_after_the_all_gather_every_device_holds_every_chunk_summed(n: int) -> None:
    last = model.ring_allreduce_schedule(n)[-1].holds
    assert all(chunk == frozenset(range(n)) for row in last for chunk in row)


@pytest.mark.parametrize("n", DEVICES)
def test_each_device_sends_2_n_minus_1_chunks_of_1_nth_which_is_the_factor_the_figures_use(n: int) -> None:
    sent = Counter(send.sender for step in model.ring_allreduce_schedule(n) for send in step.sends)
    assert set(sent.values()) == {2 * (n - 1)}
    assert Fraction(sent[0], n) == model.ring_allreduce_factor(n)


def test_one_device_has_nothing_to_reduce() -> None:
    with pytest.raises(ValueError, match="at least 2 devices"):
        model.ring_allreduce_schedule(1)
