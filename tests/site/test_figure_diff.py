"""The figure diff between two real builds: the course, and a copy with one catalog input changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import build_copy
from tests.site.test_bad_input import LESSON_7 as LESSON_7_FILE
from tests.site.test_bad_input import LESSON_8 as LESSON_8_FILE
from tools.figure_diff import diff_figures, load_figures, main, render_markdown

Edit = Callable[[Path, str, str], None]

LESSON_7 = LESSON_7_FILE.removeprefix("docs/").removesuffix(".md")
LESSON_8 = LESSON_8_FILE.removeprefix("docs/").removesuffix(".md")

#: What GPT-2 at 1.6 billion parameters moves, typed from arithmetic, not from a build.
EXPECTED = {
    # 16 bytes × 1.6e9 parameters = 25.6e9 B.
    (LESSON_8, "model-states/gpt2-1.5b"): "`24 GB` → `25.6 GB` | `24,000,000,000 B` → `25,600,000,000 B`",
    # 2 bytes × 1.6e9 = 3.2e9 B, for the fp16 parameters, and for the fp16 gradients.
    (LESSON_8, "model-states/gpt2-1.5b/fp16_parameters"): "`3 GB` → `3.2 GB` | `3,000,000,000 B` → `3,200,000,000 B`",
    (LESSON_7, "model-states/gpt2-1.5b/fp16_gradients"): "`3 GB` → `3.2 GB` | `3,000,000,000 B` → `3,200,000,000 B`",
    # A ring all-reduce of those 3.2e9 B: 2 × 7/8 × 3.2e9 = 5.6e9 B sent by each of 8 devices,
    # 2 × 63/64 × 3.2e9 = 6.3e9 B by each of 64; 5.6e9 B over 32 GB/s takes 0.175 s.
    (LESSON_7, "allreduce-bytes/gpt2-ring-pcie"): "`5.25 GB` → `5.6 GB` | `5,250,000,000 B` → `5,600,000,000 B`",
    (LESSON_7, "allreduce-bytes/gpt2-ring-pcie-64"): "`5.91 GB` → `6.3 GB` | `5,906,250,000 B` → `6,300,000,000 B`",
    (LESSON_7, "allreduce-seconds/gpt2-ring-pcie"): "`164 ms` → `175 ms` | `0.1640625 s` → `0.175 s`",
    # With fp32 gradients: 4 bytes × 1.6e9 = 6.4e9 B, and 2 × 7/8 × 6.4e9 = 11.2e9 B sent by each of 8 devices.
    (LESSON_7, "model-states/gpt2-1.5b/fp32_gradients/fp32-adam"): (
        "`6 GB` → `6.4 GB` | `6,000,000,000 B` → `6,400,000,000 B`"
    ),
    (LESSON_7, "allreduce-bytes/gpt2-ring-pcie/fp32"): (
        "`10.5 GB` → `11.2 GB` | `10,500,000,000 B` → `11,200,000,000 B`"
    ),
    # The input itself, as the prose shows it.
    (LESSON_7, "catalog/gpt2-1.5b/parameters"): (
        "`1.5 billion parameters` → `1.6 billion parameters` | `1,500,000,000 param` → `1,600,000,000 param`"
    ),
    (LESSON_8, "catalog/gpt2-1.5b/parameters"): (
        "`1.5-billion-parameter` → `1.6-billion-parameter` | `1,500,000,000 param` → `1,600,000,000 param`"
    ),
}


@pytest.fixture
def report(site_dir: Path, course_copy: Path, edit: Edit) -> str:
    """The figure diff from the course's build to a copy's in which GPT-2 has 1.6 billion parameters, not 1.5."""
    edit(course_copy / "catalog/models.yml", "parameters: 1_500_000_000", "parameters: 1_600_000_000")
    built = build_copy(course_copy)
    assert built.ok, built.output
    base = load_figures(site_dir / "figures.json")
    return render_markdown(diff_figures(base, load_figures(course_copy / "site/figures.json")))


def changed_rows(report: str) -> dict[tuple[str, str], str]:
    """The report's rows of changed figures: (page, figure id) → "old → new | old → new"."""
    table = report.split("Changed, old → new:\n\n", 1)[1].split("\n\n", 1)[0]
    rows: dict[tuple[str, str], str] = {}
    for line in table.splitlines()[2:]:
        page, figure_id, shown, exact = (cell.strip() for cell in line.strip("| ").split(" | "))
        rows[(page.strip("`").removesuffix(".md"), figure_id.strip("`"))] = f"{shown} | {exact}"
    return rows


def test_a_changed_catalog_input_lists_each_figure_it_moves_old_to_new(report: str) -> None:
    rows = changed_rows(report)
    assert {key: rows.get(key) for key in EXPECTED} == EXPECTED


def test_figures_that_do_not_depend_on_the_input_stay_out_of_the_report(report: str) -> None:
    # Activations depend on GPT-2's hidden size, heads and layers, not on its parameter count.
    unmoved = (
        "activations/zero-gpt2-activations",
        "activations-by-tensor/zero-gpt2-activations",
        "model-states/example-7b",
        "bytes-per-parameter",
    )
    assert [figure_id for figure_id in unmoved if f"`{figure_id}`" in report] == []
    assert "0 added, 0 removed" in report.splitlines()[0]


def test_the_command_on_one_build_against_itself_prints_nothing(
    site_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = str(site_dir / "figures.json")
    assert main([figures, figures]) == 0
    assert capsys.readouterr().out == ""
