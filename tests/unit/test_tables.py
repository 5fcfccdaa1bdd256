"""Tables of figures: a macro call in, an accessible table of figure elements out."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup

from macros.build.calls import render_calls
from macros.data.catalog import Catalog, load_catalog
from macros.data.quantities import display_quantity
from macros.figures.figure import render_html
from macros.figures.kinds import KINDS
from macros.pictures.tables import TableError, figure_table
from tests.checks import one
from tests.conftest import catalog, course


def table(markdown: str, source: Catalog | None = None) -> BeautifulSoup:
    """Render a page's table call, as the build does, and parse the result."""
    data = source or catalog()

    def macro(kind: str, **layout: Any) -> str:
        def render(*arguments: Any, **display: Any) -> str:
            shown = KINDS[kind].figure(data, *arguments)
            return render_html(shown, display_quantity(shown.value, shown.unit, **display))

        return figure_table(KINDS[kind], render, data, **layout)

    def report(line: int, message: str) -> str:
        raise AssertionError(message)

    return BeautifulSoup(render_calls(markdown, {"table": macro}, report), "html.parser")


STATES = (
    '{{ table("model_states", rows={"entry": ["gpt2-1.5b", "example-7b"]},'
    ' columns={"state": ["fp16_parameters", "all"]}, caption="Model states", labels={"all": "all states"},'
    ' names={"entry": "model"}) }}'
)


def test_every_cell_is_the_figure_of_its_row_and_column() -> None:
    cells = table(STATES).select("tbody td")
    assert [one(cell, ".fig")["data-fig-id"] for cell in cells] == [
        "model-states/gpt2-1.5b/fp16_parameters",
        "model-states/gpt2-1.5b",
        "model-states/example-7b/fp16_parameters",
        "model-states/example-7b",
    ]
    # 2 bytes and 16 bytes × 1.5 billion, then × 7 billion.
    assert [one(cell, ".fig")["data-value"] for cell in cells] == [
        "3000000000",
        "24000000000",
        "14000000000",
        "112000000000",
    ]


def test_the_table_has_a_caption_and_headers_with_scope() -> None:
    html = table(STATES)
    assert str(one(html, "table caption").contents[0]) == "Model states"
    assert [(th.get_text(), th["scope"]) for th in html.select("thead th")] == [
        ("model", "col"),
        ("fp16 parameters", "col"),
        ("all states", "col"),
    ]
    assert [th.get_text() for th in html.select("tbody th[scope=row]")] == ["GPT-2 1.5B", "a 7-billion-parameter model"]


def test_two_column_parameters_make_grouped_headers() -> None:
    html = table(
        '{{ table("model_states", rows={"entry": ["gpt2-1.5b"]},'
        ' columns={"recipe": ["mixed-adam", "bf16-adam"], "state": ["all"]}, caption="By recipe") }}'
    )
    groups = html.select("thead th[scope=colgroup]")
    assert [(th.get_text(), th["colspan"]) for th in groups] == [("mixed-adam", "1"), ("bf16-adam", "1")]
    assert [one(cell, ".fig")["data-value"] for cell in html.select("tbody td")] == ["24000000000", "27000000000"]


def test_cells_that_fit_a_gpu_are_marked_and_the_mark_explained() -> None:
    html = table(
        '{{ table("model_states", rows={"entry": ["gpt2-1.5b", "example-7b"]}, columns={"state": ["all"]},'
        ' caption="Fit", fits="v100-32gb") }}'
    )
    # 24 GB fits in the 34.1 GB a V100 32 GB gives programs; 112 GB does not.
    assert [("sbn-table__fits" in (cell.get("class") or [])) for cell in html.select("tbody td")] == [True, False]
    assert one(html, "caption .sbn-table__legend").get_text() == (
        "✓ marks a cell that fits in the memory of one NVIDIA V100 32 GB."
    )


def test_a_cell_the_source_prints_differently_shows_the_sources_number(tmp_path: Path) -> None:
    shutil.copytree(course().catalog_dir, tmp_path, dirs_exist_ok=True)
    printed = (
        'model-states/example-7b:\n  value: 111_000_000_000\n  unit: B\n  text: "111"\n  source: zero\n'
        "  where: x\n  rounding: 1_000_000_000\n"
    )
    (tmp_path / "printed.yml").write_text((tmp_path / "printed.yml").read_text() + printed)
    html = table(
        '{{ table("model_states", rows={"entry": ["gpt2-1.5b", "example-7b"]}, columns={"state": ["all"]},'
        ' caption="Printed", scale="GB") }}',
        load_catalog(tmp_path),
    )
    notes = [cell.select_one(".sbn-table__printed") for cell in html.select("tbody td")]
    # GPT-2's 24 GB is printed as 24 GB: no note. The made-up 111 differs from our 112.
    assert notes[0] is None and notes[1] is not None and notes[1].get_text() == "Rajbhandari et al. 2019 prints 111"


def test_a_source_that_rounds_to_its_own_digits_is_told_from_one_that_prints_another_number() -> None:
    html = table(
        '{{ table("zero_states", rows={"dp": [1024]}, columns={"entry": ["zero-7.5b", "zero-128b"], "stage": ["os"]},'
        ' caption="Rounding", scale="GB", digits=4) }}'
    )
    notes = [one(cell, ".sbn-table__printed").get_text() for cell in html.select("tbody td")]
    # ZeRO Table 1: 30.087890625 GB printed 30.1 (its one decimal, half up); 513.5 GB printed 513 (truncated).
    assert notes == ["Rajbhandari et al. 2019 rounds it to 30.1", "Rajbhandari et al. 2019 prints 513"]


def test_a_label_sets_its_subscript_low() -> None:
    html = table(
        '{{ table("zero_states", rows={"dp": [4]}, columns={"entry": ["zero-7.5b"], "stage": ["os-g"]},'
        ' labels={"os-g": "P_{os+g} stage"}, caption="Labels") }}'
    )
    header = html.select("thead tr")[-1].select("th")[-1]
    assert header.get_text() == "Pos+g stage" and one(header, "sub").get_text() == "os+g"


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ('{{ table("model_states", rows={"entry": ["gpt2-1.5b"]}, columns={"state": ["all"]}) }}', "caption="),
        (
            '{{ table("model_states", rows={"model": ["gpt2-1.5b"]}, columns={"state": ["all"]}, caption="c") }}',
            "model_states has no parameter 'model'; it takes entry, state, recipe",
        ),
        (
            '{{ table("model_states", rows={"entry": []}, columns={"state": ["all"]}, caption="c") }}',
            "give 'entry' a non-empty list of values",
        ),
        (
            '{{ table("model_states", rows={"state": ["all"]}, columns={"recipe": ["mixed-adam"]}, caption="c") }}',
            "unbound: entry",
        ),
        (
            '{{ table("model_states", rows={"entry": ["gpt9"]}, columns={"state": ["all"]}, caption="c") }}',
            "the cell {'entry': 'gpt9', 'state': 'all'} cannot be computed: unknown catalog entry 'gpt9'",
        ),
        (
            '{{ table("plan_rate", rows={"share": ['
            + ", ".join(map(str, range(10, 91)))
            + ']}, columns={"workload": ["a", "b"]}, fixed={"measure": "mfu", "layout": "best"}, caption="c") }}',
            "the table has 162 cells, more than the 120 a table of figures holds",
        ),
    ],
)
def test_a_table_laid_out_wrongly_is_refused_with_the_fix(call: str, message: str) -> None:
    with pytest.raises(
        (TableError, AssertionError),
        match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[").replace("{", r"\{"),
    ):
        table(call)
