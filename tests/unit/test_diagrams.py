"""Diagrams as frames of device boxes (macros/diagrams.py): the ring all-reduce drawn from its schedule,
ZeRO's stages from what each partitions, and one FSDP unit from its schedule."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from macros import model
from macros.diagrams import (
    DiagramError,
    Frame,
    Frames,
    frames_html,
    fsdp_unit_frames,
    ring_allreduce_frames,
    zero_stages_frames,
)
from macros.typed_figures import typed_figures


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_the_ring_has_a_frame_per_step_of_the_schedule(n: int) -> None:
    frames = ring_allreduce_frames(n)
    assert len(frames.frames) == len(model.ring_allreduce_schedule(n)) == 2 * (n - 1) + 1
    assert all(len(frame.devices) == n and len(frame.devices[0].cells) == n for frame in frames.frames)


def test_each_cell_names_the_devices_its_chunk_sums() -> None:
    frames = ring_allreduce_frames(4)
    schedule = model.ring_allreduce_schedule(4)
    # After the first reduce-scatter step GPU 1 holds chunk 0 summed over GPUs 0 and 1: a₀+b₀.
    assert schedule[1].holds[1][0] == frozenset({0, 1})
    assert frames.frames[1].devices[1].cells[0].text == "a₀+b₀"
    assert "received" in frames.frames[1].devices[1].cells[0].state
    # At the end every chunk is summed over every GPU.
    assert {cell.text for device in frames.frames[-1].devices for cell in device.cells} == {"Σ₀", "Σ₁", "Σ₂", "Σ₃"}


def test_each_frame_says_what_is_sent_in_words() -> None:
    frames = ring_allreduce_frames(3)
    assert "GPU 0 sends chunk 0 to GPU 1" in frames.frames[1].description
    assert frames.frames[1].title == "Reduce-scatter, step 1 of 2."
    assert "2(N − 1) = 4 chunks" in frames.frames[-1].description


@pytest.mark.parametrize("n", [1, 7, 2.5, True])
def test_a_ring_too_small_or_too_wide_for_a_phone_is_refused(n: object) -> None:
    with pytest.raises(DiagramError, match="from 2 to 6"):
        ring_allreduce_frames(n)  # type: ignore[arg-type]


def test_the_html_has_every_frame_with_its_text_and_controls_for_the_script() -> None:
    html = frames_html(ring_allreduce_frames(4), "d", "The ring", "../frames.js")
    soup = BeautifulSoup(html, "html.parser")
    frames = soup.select("li.sbn-frames__frame")
    assert len(frames) == 7
    for frame in frames:
        svg, text = frame.select_one("svg"), frame.select_one("p")
        assert svg["role"] == "img" and svg["aria-labelledby"] == text["id"]
    assert soup.select_one(".sbn-frames__controls").has_attr("hidden")
    assert soup.select_one("script")["src"] == "../frames.js"
    assert typed_figures(html) == []


def test_a_second_diagram_on_a_page_does_not_load_the_script_again() -> None:
    assert "<script" not in frames_html(ring_allreduce_frames(2), "d2", "Again", None)


# ------------------------------------------------------------------ ZeRO's stages


def _texts(frame: Frame) -> list[list[str]]:
    return [[cell.text for cell in device.cells] for device in frame.devices]


def test_zero_has_a_frame_per_stage_and_a_column_per_part() -> None:
    frames = zero_stages_frames(4)
    assert [frame.title.split(",")[0] for frame in frames.frames] == [
        "Plain data parallelism (stage 0).",
        "ZeRO stage 1",
        "ZeRO stage 2",
        "ZeRO stage 3",
    ]
    assert frames.columns == ("part 0", "part 1", "part 2", "part 3")
    assert all(len(frame.devices) == 4 for frame in frames.frames)


@pytest.mark.parametrize(
    ("stage", "elsewhere"),
    [  # §5: P_os partitions the optimizer states, P_os+g the gradients too, P_os+g+p the parameters too.
        (0, "P G O"),
        (1, "P G"),
        (2, "P"),
        (3, "—"),
    ],
)
def test_each_gpu_keeps_everything_of_its_own_part_and_what_the_stage_leaves_whole_of_the_others(
    stage: int, elsewhere: str
) -> None:
    texts = _texts(zero_stages_frames(4).frames[stage])
    for device, row in enumerate(texts):
        assert row[device] == "P G O"
        assert {text for part, text in enumerate(row) if part != device} == {elsewhere}


@pytest.mark.parametrize(
    ("devices", "totals"),
    [  # (2 + 2 + K)Ψ, 4Ψ + KΨ/N_d, 2Ψ + 14Ψ/N_d and 16Ψ/N_d with K = 12 (§5.1 to §5.3).
        (
            4,
            [
                "2Ψ + 2Ψ + 12Ψ = 16Ψ bytes",
                "2Ψ + 2Ψ + 12Ψ/4 = 7Ψ",
                "2Ψ + 2Ψ/4 + 12Ψ/4 = 5.5Ψ",
                "2Ψ/4 + 2Ψ/4 + 12Ψ/4 = 4Ψ",
            ],
        ),
        (3, ["= 16Ψ bytes", "= 8Ψ bytes", "= 6.67Ψ bytes", "= 5.33Ψ bytes"]),
    ],
)
def test_each_frame_counts_a_gpus_bytes_as_zero_does(devices: int, totals: list[str]) -> None:
    frames = zero_stages_frames(devices).frames
    for frame, total in zip(frames, totals, strict=True):
        assert total in frame.description
    assert all("against 16Ψ" in frame.description for frame in frames[1:])


@pytest.mark.parametrize("n", [1, 7, 4.0, True])
def test_zero_stages_too_few_or_too_many_gpus_for_a_phone_are_refused(n: object) -> None:
    with pytest.raises(DiagramError, match="from 2 to 6"):
        zero_stages_frames(n)  # type: ignore[arg-type]


# ------------------------------------------------------------------ one FSDP unit through a step


def test_an_fsdp_frame_per_strategy_and_a_row_per_moment_of_the_schedule() -> None:
    frames = fsdp_unit_frames(["full-shard", "shard-grad-op", "no-shard"])
    assert [frame.title.split(":")[0] for frame in frames.frames] == ["FULL_SHARD", "SHARD_GRAD_OP", "NO_SHARD"]
    assert frames.columns == ("parameters", "gradients")
    for frame in frames.frames:
        assert len(frame.devices) == len(model.UNIT_MOMENTS)


def test_full_shard_gathers_the_unit_twice_and_shard_grad_op_once() -> None:
    full, grad_op = fsdp_unit_frames().frames
    # Rows: start, forward, after forward, backward, after backward, step; the parameters' column first.
    assert [row[0] for row in _texts(full)] == ["shard", "gathered", "freed", "gathered", "freed", "stepped"]
    assert [row[0] for row in _texts(grad_op)] == ["shard", "gathered", "whole", "whole", "freed", "stepped"]
    for frame in (full, grad_op):
        assert [row[1] for row in _texts(frame)] == ["—", "—", "—", "computed", "reduced", "shard"]
        # What a collective just brought is outlined: the gathered parameters and the reduce-scattered gradients.
        assert "received" in frame.devices[1].cells[0].state and "received" in frame.devices[4].cells[1].state
    assert "two all-gathers of the unit's parameters, and a reduce-scatter" in full.description
    assert "one all-gather of the unit's parameters, and a reduce-scatter" in grad_op.description
    assert "frees them, keeping its own shard" in full.description and "frees them" not in grad_op.description


def test_hybrid_and_no_shard_say_how_their_gradients_are_reduced() -> None:
    hybrid, no_shard = fsdp_unit_frames(["hybrid-shard", "no-shard"]).frames
    assert "a reduce-scatter then an all-reduce of its gradients" in hybrid.description
    assert _texts(no_shard)[4] == ["whole", "all-reduced"]
    assert "no all-gathers" in no_shard.description


@pytest.mark.parametrize(
    "strategies", [["full-shard"], ["full-shard", "zero-3"], ["full-shard", "full-shard"], "full-shard", 3]
)
def test_fsdp_strategies_must_be_two_or_more_known_ones_each_once(strategies: object) -> None:
    with pytest.raises(DiagramError, match='lists two or more of "full-shard", "shard-grad-op"'):
        fsdp_unit_frames(strategies)  # type: ignore[arg-type]


@pytest.mark.parametrize("frames", [zero_stages_frames(4), fsdp_unit_frames()], ids=["zero", "fsdp"])
def test_the_new_diagrams_type_no_figure_and_describe_every_frame(frames: Frames) -> None:
    html = frames_html(frames, "d", "A diagram", None)
    soup = BeautifulSoup(html, "html.parser")
    for frame in soup.select("li.sbn-frames__frame"):
        assert len(frame.select_one("p").get_text()) > 40
    assert typed_figures(html) == []
