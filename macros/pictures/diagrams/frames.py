"""The frames every diagram is made of, and their renderer.

A diagram is `Frames`: a caption and frames, each a row of devices holding
cells (a chunk of gradients, a shard of the optimizer states, a micro-batch),
with a title and a description in words, which is the frame's text
alternative. `frames_html` draws every frame as an SVG of its own: with
JavaScript off they stand in a row; `frames.js` shows one at a time with
buttons and the arrow keys. Cells take a `state` that course.css colours for
both palettes, and the legend says what each state means, so colour is never
the only cue (cells also carry their text). What a diagram shows is in its own
module, never here.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass

from ..svg import SEARCH_EXCLUDE, body_size, element, text_width

#: The drawing's units: one row of cells per device, the device's name on the left. Its text is `_FONT` units,
#: which read at body size at the drawing's widest (`plot.body_size`); the name column and each column of cells
#: are as wide as their longest text in any frame (`_Grid`), a column at least `_CELL`.
_CELL, _ROW, _HEAD, _GAP, _FONT = 48, 36, 24, 6, 15


class DiagramError(ValueError):
    """A diagram was asked for wrongly; the message says how to ask."""


#: The most devices a diagram draws side by side: a seventh row of cells no longer fits a phone's width.
MOST_DEVICES = 6


def check_devices(devices: object) -> int:
    """`devices` if it is a whole number from 2 to `MOST_DEVICES`, else DiagramError saying so."""
    if isinstance(devices, bool) or not isinstance(devices, int) or not 2 <= devices <= MOST_DEVICES:
        raise DiagramError(f"devices= is a whole number from 2 to {MOST_DEVICES}, got {devices!r}")
    return devices


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


@dataclass(frozen=True)
class _Grid:
    """The widths a diagram's frames share, so that stepping through them moves nothing: the name column's,
    and each column's, as wide as its longest text in any frame."""

    name: float
    columns: tuple[float, ...]

    @classmethod
    def of(cls, frames: Frames) -> _Grid:
        names = [device.name for frame in frames.frames for device in frame.devices]
        columns = []
        for index, header in enumerate(frames.columns):
            texts = [header] + [d.cells[index].text for frame in frames.frames for d in frame.devices]
            columns.append(max(_CELL, *(text_width(text, _FONT) + 7 for text in texts)))
        return cls(max(text_width(name, _FONT) for name in names) + 6, tuple(columns))

    def left(self, index: int) -> float:
        """Where column `index` starts."""
        return round(self.name + sum(self.columns[:index]), 2)


def _frame_svg(frame: Frame, columns: tuple[str, ...], labelled_by: str, grid: _Grid) -> ET.Element:
    """One frame: a header of column names, a row of cells per device, and its arrows on the right."""
    arrows = 20 if frame.arrows else 0
    width = round(grid.left(len(columns)) + arrows + 4, 2)
    height = _HEAD + _ROW * len(frame.devices) + 4
    svg = element(
        "svg",
        {
            "class": "sbn-frames__svg",
            "viewBox": f"0 0 {width} {height}",
            "role": "img",
            "aria-labelledby": labelled_by,
            **SEARCH_EXCLUDE,
            "font-size": _FONT,
            "style": body_size(width, _FONT),
        },
    )
    for index, name in enumerate(columns):
        x = round(grid.left(index) + grid.columns[index] / 2, 2)
        element("text", {"class": "sbn-frames__column", "x": x, "y": _FONT + 1, "text-anchor": "middle"}, svg, name)
    for row, device in enumerate(frame.devices):
        y = _HEAD + _ROW * row
        element("text", {"class": "sbn-frames__device", "x": 0, "y": y + _ROW / 2 + 5}, svg, device.name)
        for index, cell in enumerate(device.cells):
            group = element(
                "g",
                {"class": " ".join(f"sbn-frames__cell--{s}" for s in cell.state.split()) or "sbn-frames__cell"},
                svg,
            )
            x, cell_width = grid.left(index), grid.columns[index]
            box = {"x": round(x + 2, 2), "y": y + 3, "width": round(cell_width - 4, 2), "height": _ROW - _GAP, "rx": 3}
            element("rect", box, group)
            centre = {"x": round(x + cell_width / 2, 2), "y": y + _ROW / 2 + 5, "text-anchor": "middle"}
            element("text", centre, group, cell.text)
    right = grid.left(len(columns))
    for sender, receiver in frame.arrows:
        y1 = _HEAD + _ROW * sender + _ROW / 2
        y2 = _HEAD + _ROW * receiver + _ROW / 2
        # Down to the next row beside the rows; the ring's way back from the last row to the first, further out.
        x = round(right + (6 if receiver > sender else 15), 2)
        path = f"M{right + 1},{y1} H{x} V{y2 + (-5 if receiver > sender else 5)}"
        group = element("g", {"class": "sbn-frames__arrow"}, svg)
        element("path", {"d": path, "fill": "none"}, group)
        tip = 5 if receiver > sender else -5
        element("path", {"d": f"M{x - 4},{y2 - tip} L{x},{y2} L{x + 4},{y2 - tip} Z"}, group)
    return svg


def frames_html(frames: Frames, ident: str, caption: str, script: str | None) -> str:
    """The diagram's HTML: every frame in a list, controls for `frames.js` (hidden until it runs), the legend.

    `script` is the address of frames.js, given on the first diagram of a page only.
    """
    figure = element("figure", {"class": "sbn-frames", "id": ident, "data-sbn-frames": ""})
    controls = element("div", {"class": "sbn-frames__controls", "hidden": "", **SEARCH_EXCLUDE}, figure)
    element(
        "button", {"type": "button", "class": "sbn-frames__button", "data-sbn-frames-step": "-1"}, controls, "Previous"
    )
    element("button", {"type": "button", "class": "sbn-frames__button", "data-sbn-frames-step": "1"}, controls, "Next")
    element("p", {"class": "sbn-frames__status", "role": "status"}, controls, "")
    listing = element(
        "ol", {"class": "sbn-frames__list", "tabindex": "0", "aria-label": f"The steps of: {caption}"}, figure
    )
    grid = _Grid.of(frames)
    for number, frame in enumerate(frames.frames, start=1):
        item = element("li", {"class": "sbn-frames__frame", "id": f"{ident}-{number}"}, listing)
        text_id = f"{ident}-{number}-text"
        item.append(_frame_svg(frame, frames.columns, text_id, grid))
        text = element("p", {"id": text_id}, item)
        element("strong", {}, text, frame.title).tail = f" {frame.description}"
    legend = element("ul", {"class": "sbn-frames__legend"}, figure)
    for state, meaning in frames.legend.items():
        item = element("li", {}, legend)
        swatch = element(
            "svg",
            {"class": f"sbn-frames__swatch sbn-frames__cell--{state}", "viewBox": "0 0 16 12", "aria-hidden": "true"},
            item,
        )
        element("rect", {"x": 1, "y": 1, "width": 14, "height": 10, "rx": 2}, swatch)
        swatch.tail = f" {meaning}"
    element("figcaption", {}, figure, caption)
    # Every element has an end tag: HTML reads an empty <p/> as a start tag.
    html = ET.tostring(figure, encoding="unicode", short_empty_elements=False)
    if script:
        html += ET.tostring(
            element("script", {"src": script, "defer": ""}), encoding="unicode", short_empty_elements=False
        )
    return html
