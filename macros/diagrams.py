"""Diagrams drawn at build time as frames of device boxes, which a reader steps through.

A diagram is `Frames`: a caption and frames, each a row of devices holding
cells (a chunk of gradients, a shard of the optimizer states, a micro-batch),
with a title and a description in words, which is the frame's text
alternative. `frames_html` draws every frame as an SVG of its own: with
JavaScript off they stand in a row; `frames.js` shows one at a time with
buttons and the arrow keys. Cells take a `state` that course.css colours for
both palettes, and the legend says what each state means, so colour is never
the only cue (cells also carry their text).

Diagram content lives in functions that build `Frames` from the model, such as
`ring_allreduce_frames`, registered by name in `DIAGRAMS`, so that a lesson
draws `{{ diagram("ring_allreduce", devices=4, caption="…") }}` from the same
algorithm its figures use. Nothing here imports MkDocs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from . import model

#: The drawing's units: one row of cells per device, the device's name on the left.
_NAME, _CELL, _ROW, _HEAD, _GAP, _FONT = 52, 64, 34, 22, 6, 12


class DiagramError(ValueError):
    """A diagram was asked for wrongly; the message says how to ask."""


@dataclass(frozen=True)
class Cell:
    """What a device holds in one place: its text, and a state that course.css styles (see `Frames.legend`)."""

    text: str
    state: str = ""


@dataclass(frozen=True)
class Device:
    """A device and its cells, in the order of the diagram's columns."""

    name: str
    cells: tuple[Cell, ...]


@dataclass(frozen=True)
class Frame:
    """One step of a diagram: a title, what happens in words (the frame's text alternative), and each device."""

    title: str
    description: str
    devices: tuple[Device, ...]
    #: Arrows from device to device, by index, drawn beside the rows (a ring's sends, a pipeline's hand-offs).
    arrows: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Frames:
    """A diagram: its frames, the names of its columns, and what each cell state means."""

    frames: tuple[Frame, ...]
    columns: tuple[str, ...]
    legend: Mapping[str, str]


def _subscript(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉"))


def ring_allreduce_frames(devices: int = 4) -> Frames:
    """The ring all-reduce over `devices` GPUs, frame by frame, from `model.ring_allreduce_schedule`.

    GPU 0's gradients are a, GPU 1's b, and so on; a₂ + b₂ is chunk 2 summed
    over GPUs 0 and 1, and Σ₂ chunk 2 summed over every GPU.

    Raises:
        DiagramError: fewer than 2 GPUs, or more than 6, which no longer fit a phone's width.
    """
    if isinstance(devices, bool) or not isinstance(devices, int) or not 2 <= devices <= 6:
        raise DiagramError(f"devices= is a whole number from 2 to 6, got {devices!r}")
    letters = "abcdef"
    schedule = model.ring_allreduce_schedule(devices)
    frames = []
    phase_steps = {phase: 0 for phase in model.RING_PHASES}
    for number, step in enumerate(schedule):
        received = {(send.receiver, send.chunk) for send in step.sends}
        rows = []
        for device, holding in enumerate(step.holds):
            cells = []
            for chunk, sources in enumerate(holding):
                complete = len(sources) == devices
                text = (
                    f"Σ{_subscript(chunk)}"
                    if complete
                    else "+".join(letters[s] + _subscript(chunk) for s in sorted(sources))
                )
                state = "complete" if complete else "partial" if len(sources) > 1 else "own"
                cells.append(Cell(text, f"{state} received" if (device, chunk) in received else state))
            rows.append(Device(f"GPU {device}", tuple(cells)))
        if step.phase == "start":
            title = "Start"
            description = (
                f"Each GPU holds its own gradients, cut into chunks 0 to {devices - 1}: GPU 0's are a, GPU 1's b, and"
                " so on. The all-reduce must leave every GPU with every chunk summed over all of them."
            )
        else:
            phase_steps[step.phase] += 1
            what = "adds it to its own" if step.phase == "reduce-scatter" else "keeps it, replacing its own"
            sends = "; ".join(f"GPU {s.sender} sends chunk {s.chunk} to GPU {s.receiver}" for s in step.sends)
            title = f"{step.phase.capitalize()}, step {phase_steps[step.phase]} of {devices - 1}"
            description = f"Each GPU sends one chunk to the next GPU round the ring, which {what}: {sends}."
            if step.phase == "reduce-scatter" and phase_steps[step.phase] == devices - 1:
                description += " Now each GPU holds one chunk summed over every GPU (Σ): that is the reduce-scatter."
            if number == len(schedule) - 1:
                description += (
                    f" Every GPU now holds every chunk summed. Each sent 2(N − 1) = {2 * (devices - 1)} chunks of"
                    f" 1/{devices} of the gradients: 2(N − 1)/N of them."
                )
        frames.append(Frame(f"{title}.", description, tuple(rows), tuple((s.sender, s.receiver) for s in step.sends)))
    return Frames(
        tuple(frames),
        tuple(f"chunk {chunk}" for chunk in range(devices)),
        {
            "own": "a GPU's own values",
            "partial": "summed over some GPUs",
            "complete": "summed over every GPU (Σ)",
            "received": "outlined: just received",
        },
    )


#: Diagrams a lesson can draw, by name: each builds its frames from keyword options.
DIAGRAMS: Mapping[str, Callable[..., Frames]] = {"ring_allreduce": ring_allreduce_frames}


def _element(tag: str, attributes: Mapping[str, Any], parent: ET.Element | None = None, text: str = "") -> ET.Element:
    attrs = {key: str(value) for key, value in attributes.items()}
    element = ET.Element(tag, attrs) if parent is None else ET.SubElement(parent, tag, attrs)
    if text:
        element.text = text
    return element


def _frame_svg(frame: Frame, columns: tuple[str, ...], labelled_by: str) -> ET.Element:
    """One frame: a header of column names, a row of cells per device, and its arrows on the right."""
    arrows = 28 if frame.arrows else 0
    width = _NAME + _CELL * len(columns) + arrows + 4
    height = _HEAD + _ROW * len(frame.devices) + 4
    svg = _element(
        "svg",
        {
            "class": "sbn-frames__svg",
            "viewBox": f"0 0 {width} {height}",
            "role": "img",
            "aria-labelledby": labelled_by,
            "font-size": _FONT,
            "style": f"max-width: {width / 18:.2f}rem",
        },
    )
    for index, name in enumerate(columns):
        x = _NAME + _CELL * (index + 0.5)
        _element("text", {"class": "sbn-frames__column", "x": x, "y": 14, "text-anchor": "middle"}, svg, name)
    for row, device in enumerate(frame.devices):
        y = _HEAD + _ROW * row
        _element("text", {"class": "sbn-frames__device", "x": 0, "y": y + _ROW / 2 + 4}, svg, device.name)
        for index, cell in enumerate(device.cells):
            group = _element(
                "g",
                {"class": " ".join(f"sbn-frames__cell--{s}" for s in cell.state.split()) or "sbn-frames__cell"},
                svg,
            )
            x = _NAME + _CELL * index
            _element("rect", {"x": x + 2, "y": y + 3, "width": _CELL - 4, "height": _ROW - _GAP, "rx": 3}, group)
            _element("text", {"x": x + _CELL / 2, "y": y + _ROW / 2 + 4, "text-anchor": "middle"}, group, cell.text)
    right = _NAME + _CELL * len(columns)
    for sender, receiver in frame.arrows:
        y1 = _HEAD + _ROW * sender + _ROW / 2
        y2 = _HEAD + _ROW * receiver + _ROW / 2
        # Down to the next row beside the rows; the ring's way back from the last row to the first, further out.
        x = right + (8 if receiver > sender else 20)
        path = f"M{right + 1},{y1} H{x} V{y2 + (-5 if receiver > sender else 5)}"
        group = _element("g", {"class": "sbn-frames__arrow"}, svg)
        _element("path", {"d": path, "fill": "none"}, group)
        tip = 5 if receiver > sender else -5
        _element("path", {"d": f"M{x - 4},{y2 - tip} L{x},{y2} L{x + 4},{y2 - tip} Z"}, group)
    return svg


def frames_html(frames: Frames, ident: str, caption: str, script: str | None) -> str:
    """The diagram's HTML: every frame in a list, controls for `frames.js` (hidden until it runs), the legend.

    `script` is the address of frames.js, given on the first diagram of a page only.
    """
    figure = _element("figure", {"class": "sbn-frames", "id": ident, "data-sbn-frames": ""})
    controls = _element("div", {"class": "sbn-frames__controls", "hidden": ""}, figure)
    _element(
        "button", {"type": "button", "class": "sbn-frames__button", "data-sbn-frames-step": "-1"}, controls, "Previous"
    )
    _element("button", {"type": "button", "class": "sbn-frames__button", "data-sbn-frames-step": "1"}, controls, "Next")
    _element("p", {"class": "sbn-frames__status", "role": "status"}, controls, "")
    listing = _element(
        "ol", {"class": "sbn-frames__list", "tabindex": "0", "aria-label": f"The steps of: {caption}"}, figure
    )
    for number, frame in enumerate(frames.frames, start=1):
        item = _element("li", {"class": "sbn-frames__frame", "id": f"{ident}-{number}"}, listing)
        text_id = f"{ident}-{number}-text"
        item.append(_frame_svg(frame, frames.columns, text_id))
        text = _element("p", {"id": text_id}, item)
        _element("strong", {}, text, frame.title).tail = f" {frame.description}"
    legend = _element("ul", {"class": "sbn-frames__legend"}, figure)
    for state, meaning in frames.legend.items():
        item = _element("li", {}, legend)
        swatch = _element(
            "svg",
            {"class": f"sbn-frames__swatch sbn-frames__cell--{state}", "viewBox": "0 0 16 12", "aria-hidden": "true"},
            item,
        )
        _element("rect", {"x": 1, "y": 1, "width": 14, "height": 10, "rx": 2}, swatch)
        swatch.tail = f" {meaning}"
    _element("figcaption", {}, figure, caption)
    # Every element has an end tag: HTML reads an empty <p/> as a start tag.
    html = ET.tostring(figure, encoding="unicode", short_empty_elements=False)
    if script:
        html += ET.tostring(
            _element("script", {"src": script, "defer": ""}), encoding="unicode", short_empty_elements=False
        )
    return html
