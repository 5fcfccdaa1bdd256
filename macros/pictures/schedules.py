"""A pipeline schedule as an accessible table: one row per stage, one column per time slot.

`{{ schedule_table("gpipe", 4, 8, caption="…") }}` lays out what
`model.pipeline.schedule` builds, the same schedule the bubble figures of a
lesson are read from (`pipeline_bubble`, `stashed_microbatches`), so the table
and the numbers cannot disagree. A cell is the pass its stage runs in that
slot, "F3" for the forward pass of micro-batch 3 and "B3" for its backward
pass; an idle slot is left empty, and the caption says so. Markdown in, a
`<table>` out (a caption, column headers with `scope`, a row header per stage),
built with `xml.etree`; nothing here imports MkDocs.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from ..model import pipeline

#: How a schedule is named in a caption's legend.
_NAMES = {"gpipe": "GPipe", "1f1b": "1F1B"}


#: The most cells (stages × time slots) a schedule's table has: 16 stages over 128 slots, far more than a reader
#: can follow; beyond it a page's HTML grows by megabytes a table and the build by seconds.
MAX_CELLS = 2_048


def schedule_table(schedule_name: str, stages: int, microbatches: int, caption: str) -> str:
    """The HTML table of `schedule_name`'s schedule for `stages` stages and `microbatches` micro-batches.

    Raises:
        ValueError: an empty caption, counts `model.pipeline.schedule` refuses, or more cells than `MAX_CELLS`.
        KeyError: an unknown schedule.
    """
    if not isinstance(caption, str) or not caption.strip():
        raise ValueError('caption= says what the table shows, such as caption="The GPipe schedule"')
    grid = pipeline.timeline(pipeline.schedule(schedule_name, stages, microbatches))
    slots = len(grid[0])
    if stages * slots > MAX_CELLS:
        raise ValueError(
            f"a table of {stages:,} stages × {slots:,} time slots has {stages * slots:,} cells, more than the"
            f" {MAX_CELLS:,} a page shows as a table: draw fewer stages or micro-batches, or give the bubble as a"
            " figure (pipeline_bubble)"
        )

    # A wide table scrolls by itself (course.css); tabindex lets a keyboard scroll it too.
    table = ET.Element("table", {"class": "sbn-table sbn-schedule", "tabindex": "0"})
    caption_element = ET.SubElement(table, "caption")
    # A space before the legend, which shows on a line of its own: read as text, the caption's last word ran on into
    # it ("80 GBRows"), and the typed-figure check read past a figure typed there.
    caption_element.text = f"{caption.strip()} "
    legend = ET.SubElement(caption_element, "span", {"class": "sbn-table__legend"})
    legend.text = (
        f"Rows are stages, columns time slots of the {_NAMES[schedule_name]} schedule, one slot per pass:"
        " F3 is the forward pass of micro-batch 3, B3 its backward pass; an empty cell is a slot in which"
        " the stage is idle."
    )

    head_row = ET.SubElement(ET.SubElement(table, "thead"), "tr")
    corner = ET.SubElement(head_row, "th", {"scope": "col"})
    corner.text = "stage"
    for slot in range(1, slots + 1):
        cell = ET.SubElement(head_row, "th", {"scope": "col"})
        cell.text = str(slot)

    body = ET.SubElement(table, "tbody")
    for stage, row in enumerate(grid, start=1):
        row_element = ET.SubElement(body, "tr")
        header = ET.SubElement(row_element, "th", {"scope": "row"})
        header.text = str(stage)
        for run in row:
            if run is None:
                ET.SubElement(row_element, "td", {"class": "sbn-schedule__idle"}).text = ""
                continue
            phase, micro = run
            kind = "forward" if phase == "F" else "backward"
            ET.SubElement(row_element, "td", {"class": f"sbn-schedule__{kind}"}).text = f"{phase}{micro}"
    return ET.tostring(table, encoding="unicode", method="html")
