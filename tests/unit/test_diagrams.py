"""Diagrams as frames of device boxes (macros/diagrams.py): the ring all-reduce drawn from its schedule."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from macros import model
from macros.diagrams import DiagramError, frames_html, ring_allreduce_frames
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
