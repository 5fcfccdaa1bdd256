"""Diagrams as frames of device boxes (macros/pictures/diagrams/): the ring all-reduce drawn from its schedule,
ZeRO's stages from what each partitions, and one FSDP unit from its schedule."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from macros import model
from macros.data.typed_figures import typed_figures
from macros.model.mixed_precision import mixed_precision_iteration
from macros.pictures.diagrams.frames import Cell, DiagramError, Frame, Frames, frames_html
from macros.pictures.diagrams.fsdp_unit import fsdp_unit_frames
from macros.pictures.diagrams.mixed_precision import mixed_precision_frames
from macros.pictures.diagrams.pipeline_schedules import _microbatch_span, pipeline_schedules_frames
from macros.pictures.diagrams.ring_allreduce import ring_allreduce_frames
from macros.pictures.diagrams.zero_stages import zero_stages_frames
from tests.checks import one


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
    assert "2(N − 1) chunks, here 4," in frames.frames[-1].description


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
        svg, text = one(frame, "svg"), one(frame, "p")
        assert svg["role"] == "img" and svg["aria-labelledby"] == text["id"]
    assert one(soup, ".sbn-frames__controls").has_attr("hidden")
    assert one(soup, "script")["src"] == "../frames.js"
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
        "ZeRO stage 1 (ZeRO-1)",
        "ZeRO stage 2 (ZeRO-2)",
        "ZeRO stage 3 (ZeRO-3)",
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


def test_stage_3_holds_nothing_of_the_other_parts_only_between_steps() -> None:
    # ZeRO §7.2.2: each part's parameters are gathered in the forward pass, discarded, and gathered again backward.
    stage_3 = zero_stages_frames(4).frames[3].description
    assert "Between steps it holds nothing of the other parts" in stage_3
    assert "gathers each part's fp16 parameters in turn" in stage_3


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
    # FSDP averages the gradients over the data-parallel GPUs (FSDP1's divide factors, FSDP2's ReduceOp.AVG).
    assert "averaged over every GPU" in hybrid.description
    assert all("averaged over the GPUs" in f.description for f in fsdp_unit_frames().frames)
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
        assert len(one(frame, "p").get_text()) > 40


# ------------------------------------------------------------ pipeline schedules


def _cell(frames: Frames, slot: int, stage: int, column: int) -> tuple[str, str]:
    """The text and state of a cell: `slot` and `stage` from 1; columns GPipe, its stash, 1F1B, its stash."""
    cell = frames.frames[slot - 1].devices[stage - 1].cells[column]
    return cell.text, cell.state


@pytest.mark.parametrize(("p", "m"), [(2, 1), (4, 8), (8, 16)])
def test_the_schedules_have_a_frame_per_time_slot_2_m_plus_p_minus_1(p: int, m: int) -> None:
    frames = pipeline_schedules_frames(p, m)
    assert len(frames.frames) == 2 * (m + p - 1)
    assert frames.columns == ("GPipe", "stashed", "1F1B", "stashed")
    assert all(len(frame.devices) == p and len(frame.devices[0].cells) == 4 for frame in frames.frames)


def test_each_cell_is_the_pass_its_stage_runs_in_that_slot_under_each_schedule() -> None:
    frames = pipeline_schedules_frames(4, 8)
    # Slot 1: only the first stage works, on micro-batch 1's forward pass, under both schedules.
    assert _cell(frames, 1, 1, 0) == _cell(frames, 1, 1, 2) == ("F1", "forward")
    assert _cell(frames, 1, 4, 0) == ("", "idle")
    # Slot 5: 1F1B's last stage has no warm-up (p − 4 − 1 + 1 = 0 forwards ahead): F1 in slot 4, B1 in slot 5;
    # GPipe's runs F2, its forward passes all before any backward pass.
    assert _cell(frames, 5, 4, 2) == ("B1", "backward")
    assert _cell(frames, 5, 4, 0) == ("F2", "forward")
    # Slot 9: GPipe's first stage has run its 8 forward passes and waits, holding all 8 micro-batches.
    assert _cell(frames, 9, 1, 0) == ("", "idle")
    assert _cell(frames, 9, 1, 1) == ("1–8", "stash")


def _span_count(text: str) -> int:
    """How many micro-batches a stash cell names: "3–6" is 4 of them."""
    if not text:
        return 0
    first, _, last = text.partition("–")
    return int(last or first) - int(first) + 1


@pytest.mark.parametrize("stage", [1, 2, 3, 4])
def test_gpipe_stashes_all_m_micro_batches_and_1f1b_at_most_p_minus_the_stages_ahead(stage: int) -> None:
    # Narayanan et al. §2.2.1: 1F1B stashes "for p or fewer microbatches (compared to m microbatches for the
    # GPipe schedule)"; stage i (from 1) of 1F1B holds at most p − i + 1.
    frames = pipeline_schedules_frames(4, 8)
    gpipe = [_span_count(_cell(frames, t, stage, 1)[0]) for t in range(1, 23)]
    one_f_one_b = [_span_count(_cell(frames, t, stage, 3)[0]) for t in range(1, 23)]
    assert (max(gpipe), max(one_f_one_b)) == (8, 4 - stage + 1)


def test_the_last_frame_sums_up_the_bubble_and_the_stash() -> None:
    last = pipeline_schedules_frames(4, 8).frames[-1]
    assert last.title == "Slot 22 of 22."
    # 2(p − 1) = 6 idle slots per stage; GPipe stashes m = 8, 1F1B p = 4.
    assert "every stage was idle 6 of them, 2(p − 1)" in last.description
    assert "stash of micro-batches peaked at 8 (m) under GPipe, and 4 (p) under 1F1B" in last.description
    # With fewer micro-batches than stages, 1F1B's first stage stashes all m = 2 of them, as GPipe's does.
    assert "stash of micro-batches peaked at 2 (m) under GPipe, and 2 (m, fewer than p) under 1F1B" in (
        pipeline_schedules_frames(4, 2).frames[-1].description
    )


def test_each_frame_says_what_every_stage_runs_and_stashes_in_words() -> None:
    frames = pipeline_schedules_frames(4, 8)
    assert frames.frames[4].description.startswith(
        "GPipe, stages 1 to 4: F5, F4, F3, F2; micro-batches stashed: 5, 4, 3, 2."
        " 1F1B, stages 1 to 4: idle, idle, idle, B1; micro-batches stashed: 4, 3, 2, 0."
    )
    assert "Under 1F1B the last stage starts the backward passes." in frames.frames[4].description
    assert "Under GPipe the last stage starts the backward passes." in frames.frames[11].description


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"stages": 1}, "stages= is a whole number from 2 to 8, got 1"),
        ({"stages": 9}, "from 2 to 8"),
        ({"stages": True}, "from 2 to 8"),
        ({"microbatches": 0}, "microbatches= is a whole number from 1 to 16, got 0"),
        ({"microbatches": 17}, "from 1 to 16"),
        ({"microbatches": 2.5}, "from 1 to 16"),
    ],
)
def test_a_pipeline_too_tall_or_too_long_to_step_through_is_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(DiagramError, match=message):
        pipeline_schedules_frames(**options)  # type: ignore[arg-type]


@pytest.mark.parametrize(("held", "text"), [((), ""), ((3,), "3"), ((3, 4, 5, 6), "3–6"), ((1, 3), "1,3")])
def test_a_stash_reads_as_a_run_of_micro_batches(held: tuple[int, ...], text: str) -> None:
    assert _microbatch_span(held) == text


def test_the_schedules_html_has_a_frame_per_slot_and_no_typed_figure() -> None:
    html = frames_html(pipeline_schedules_frames(4, 8), "p", "Schedules", None)
    soup = BeautifulSoup(html, "html.parser")
    assert len(soup.select("li.sbn-frames__frame")) == 22
    assert one(soup, ".sbn-frames__cell--backward text").get_text().startswith("B")
    assert typed_figures(html) == []


def test_the_mixed_precision_iteration_has_a_frame_per_step_and_a_row_per_precision() -> None:
    frames = mixed_precision_frames()
    assert len(frames.frames) == len(mixed_precision_iteration()) == 5
    assert all([d.name for d in frame.devices] == ["fp32", "fp16"] for frame in frames.frames)
    assert frames.columns == ("weights", "activations", "gradients", "Adam m, v")


def test_each_cell_shows_what_that_precision_holds_after_the_step() -> None:
    start, rounded, forward, backward, update = mixed_precision_frames().frames
    assert [c.text for c in start.devices[0].cells] == ["W", "", "", "m, v"]
    assert [c.text for c in start.devices[1].cells] == ["", "", "", ""]
    assert rounded.devices[1].cells[0] == Cell("W", "made") and rounded.arrows == ((0, 1),)
    assert forward.devices[1].cells[1] == Cell("A", "made")
    # The backward pass from the loss times S: both gradients S times their value, in fp16; the activations used up.
    assert backward.devices[1].cells[1:3] == (Cell("", ""), Cell("S∂A, S∂W", "made scaled"))
    # The update: the weight gradients unscaled in fp32, the moments and master weights updated there.
    assert [c.text for c in update.devices[0].cells] == ["W", "", "∂W", "m, v"]
    assert all("made" in c.state for c in update.devices[0].cells if c.text)
    assert update.devices[1].cells[2] == Cell("S∂W", "scaled") and update.arrows == ((1, 0),)


def test_the_mixed_precision_frames_say_each_step_in_words_and_type_no_figure() -> None:
    frames = mixed_precision_frames()
    assert all(len(frame.description) > 40 for frame in frames.frames)
    assert "loss scale S" in frames.frames[3].description
    html = frames_html(frames, "m", "One iteration", None)
    assert typed_figures(html) == []
    # What each step makes, outlined: W rounded, A, the two gradients, then W, ∂W and m, v in the update.
    assert len(BeautifulSoup(html, "html.parser").select(".sbn-frames__frame .sbn-frames__cell--made")) == 6
