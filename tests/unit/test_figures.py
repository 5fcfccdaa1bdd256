"""Figures from the catalog: their values, their element, their record."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from macros import figures
from macros.catalog import CATALOG_DIR, load_catalog

CATALOG = load_catalog()


def test_gpt2_model_states_carry_the_papers_printed_value() -> None:
    figure = figures.model_states(CATALOG, "gpt2-1.5b")
    assert (figure.value, figure.unit) == (24 * 10**9, "B")
    assert figure.printed is not None and figure.printed.text == "a memory requirement of at least 24 GB"
    assert figure.explanation.startswith("16 bytes × 1.5 billion parameters")


def test_activations_follow_zeros_formula_over_the_catalog_workload() -> None:
    figure = figures.activations(CATALOG, "zero-gpt2-activations")
    assert figure.value == 2 * 12 * 1600 * 32 * 1024 * 48
    assert [q.field for q in figure.inputs] == ["hidden", "layers", "batch", "sequence"]


def test_allreduce_time_is_a_lower_bound_over_the_link() -> None:
    # 2 × 7/8 × 3 GB = 5.25 GB over 32 GB/s each way.
    figure = figures.allreduce_seconds(CATALOG, "gpt2-ring-pcie")
    assert figure.value == Fraction(5_250_000_000, 32_000_000_000)


def test_memory_left_is_memory_less_model_states() -> None:
    assert figures.memory_left(CATALOG, "zero-dp-limit").value == 32 * 10**9 - 16 * 1_400_000_000


def test_memory_left_refuses_a_model_that_does_not_fit(tmp_path: Path) -> None:
    shutil.copytree(CATALOG_DIR, tmp_path, dirs_exist_ok=True)
    claim = "too-big:\n  name: x\n  parameters: 2_500_000_000\n  memory: 32_000_000_000\n  source: zero\n  where: x\n"
    (tmp_path / "claims.yml").write_text((tmp_path / "claims.yml").read_text() + claim)
    with pytest.raises(ValueError, match=r"the model states \(40 GB\) do not fit in 32 GB"):
        figures.memory_left(load_catalog(tmp_path), "too-big")


def test_a_workload_id_must_name_a_workload() -> None:
    with pytest.raises(KeyError, match=r"unknown entry of workloads\.yml 'gpt2-1\.5b'"):
        figures.activations(CATALOG, "gpt2-1.5b")


def test_the_element_is_the_one_the_contract_specifies() -> None:
    figure = figures.model_states(CATALOG, "gpt2-1.5b")
    span = BeautifulSoup(figures.render_html(figure, "24 GB"), "html.parser").span
    assert span is not None
    assert span["class"] == ["fig"]
    assert span["data-fig-id"] == "model-states/gpt2-1.5b"
    assert span["data-value"] == "24000000000"
    assert span["data-unit"] == "B"
    assert span["title"] == figure.explanation
    assert span.text == "24 GB"


def test_the_element_escapes_what_it_shows() -> None:
    figure = figures.Figure("x", 1, "1", "f", 'a "quote" & <tag>', ())
    html = figures.render_html(figure, "<b>1</b>")
    assert "<b>" not in html and "&lt;b&gt;1&lt;/b&gt;" in html and "&quot;quote&quot;" in html


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (24 * 10**9, "24000000000"),
        (Fraction(21, 128), "0.1640625"),
        (Fraction(4, 2), "2"),
        (Fraction(25, 2), "12.5"),
        (Fraction(10**31, 3), "3333333333333333333333333333330"),
    ],
)
def test_value_text_is_exact(value: Fraction, text: str) -> None:
    assert figures.value_text(value) == text


def test_the_log_writes_one_record_per_page_figure_and_display(tmp_path: Path) -> None:
    log = figures.FigureLog()
    figure = figures.model_states(CATALOG, "gpt2-1.5b")
    log.add("b.md", "b/", figure, "24 GB")
    log.add("a.md", "a/", figure, "24 GB")
    log.add("a.md", "a/", figure, "24 GB")
    log.write(tmp_path / "figures.json")
    records = json.loads((tmp_path / "figures.json").read_text())
    assert [r["page"] for r in records] == ["a.md", "b.md"]
    assert records[0]["value"] == 24 * 10**9
    assert records[0]["inputs"][0] == {
        "entry": "gpt2-1.5b",
        "field": "parameters",
        "value": 1_500_000_000,
        "unit": "param",
        "source": "zero",
        "where": CATALOG.entries["gpt2-1.5b"]["where"],
    }
    assert records[0]["printed"]["value"] == 24 * 10**9
