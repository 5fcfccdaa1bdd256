"""Diagrams as frames of device boxes (macros/diagrams.py): the ring all-reduce drawn from its schedule."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from macros import model
from macros.diagrams import Cell, DiagramError, frames_html, mixed_precision_frames, ring_allreduce_frames
from macros.model.mixed_precision import mixed_precision_iteration
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
