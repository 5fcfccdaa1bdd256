"""A pipeline schedule as a table: the same passes as the model's schedule, laid out for a reader.

Expected values are typed from the schedules' definitions (GPipe §2.2; Narayanan et al. §2.2.1) and the
arithmetic beside them, never from the code's output.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

import pytest

from macros.pictures.schedules import schedule_table


def _rows(schedule: str, stages: int, microbatches: int) -> tuple[ET.Element, list[list[str]]]:
    table = ET.fromstring(schedule_table(schedule, stages, microbatches, caption="A schedule"))
    rows = [[cell.text or "" for cell in row.findall("td")] for row in table.iter("tr") if row.find("td") is not None]
    return table, rows


def test_gpipe_runs_all_forward_passes_then_all_backward_passes() -> None:
    # 4 stages, 8 micro-batches: 2 × (8 + 4 − 1) = 22 slots; the first stage runs F1..F8, idles 2 × 3 slots, B1..B8.
    _, rows = _rows("gpipe", 4, 8)
    assert len(rows) == 4
    assert rows[0] == [f"F{j}" for j in range(1, 9)] + [""] * 6 + [f"B{j}" for j in range(1, 9)]
    # The last stage starts three slots late and backs out at once.
    assert rows[3][:4] == ["", "", "", "F1"]


@pytest.mark.parametrize("schedule", ["gpipe", "1f1b"])
def test_every_stage_is_idle_2_times_p_minus_1_slots(schedule: str) -> None:
    # Narayanan et al. §2.2.1: "p − 1 forward passes at the start of a batch, and p − 1 backward passes at the end".
    _, rows = _rows(schedule, 4, 8)
    assert all(len(row) == 22 and row.count("") == 6 for row in rows)


def test_1f1b_warms_up_then_alternates() -> None:
    # Stage 1 of 4 warms up with 4 forward passes (3 + the first of the steady state), waits for B1 to come back
    # through the three stages after it, then alternates: F1 F2 F3 F4, idle, B1 F5 B2 F6 ...
    _, rows = _rows("1f1b", 4, 8)
    assert rows[0][:4] == ["F1", "F2", "F3", "F4"]
    assert [cell for cell in rows[0] if cell][4:8] == ["B1", "F5", "B2", "F6"]
    # The last stage runs each micro-batch's backward pass right after its forward pass.
    assert [cell for cell in rows[3] if cell][:4] == ["F1", "B1", "F2", "B2"]


def test_the_table_is_accessible() -> None:
    table, _ = _rows("gpipe", 2, 2)
    caption = table.find("caption")
    assert caption is not None and caption.text == "A schedule "  # a space before the legend's own line
    assert "an empty cell is a slot in which the stage is idle" in "".join(caption.itertext())
    headers = table.findall("thead/tr/th")
    assert [h.get("scope") for h in headers] == ["col"] * (1 + 2 * (2 + 2 - 1))
    assert [h.get("scope") for h in table.findall("tbody/tr/th")] == ["row", "row"]
    assert table.get("tabindex") == "0"  # a wide table scrolls, and a keyboard can scroll it


def test_a_table_needs_a_caption_and_a_known_schedule() -> None:
    with pytest.raises(ValueError, match="caption"):
        schedule_table("gpipe", 4, 8, caption=" ")
    with pytest.raises(KeyError, match="gpipe, 1f1b"):
        schedule_table("interleaved", 4, 8, caption="A schedule")


def test_a_table_too_large_to_read_is_refused_with_its_size_and_the_limit() -> None:
    # 362 stages × 362 micro-batches passes the simulation's limit but is a table of half a million cells
    # (20 MB of a page's HTML); 16 stages over 128 slots is the most a table shows.
    with pytest.raises(ValueError, match=r"362 stages × 1,446 time slots has 523,452 cells, more than the 2,048"):
        schedule_table("1f1b", 362, 362, caption="Big")
    assert schedule_table("1f1b", 16, 49, caption="At the limit").count("<tr>") == 17  # 2(49 + 15) = 128 slots
