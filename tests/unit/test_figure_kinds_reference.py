"""FIGURE_KINDS.md, the authors' list of figure kinds, says what the registry and the lessons say today."""

from __future__ import annotations

from pathlib import Path

from macros.figures.kinds import KINDS
from tools import figure_kinds


def test_the_reference_is_current() -> None:
    written = figure_kinds.REFERENCE.read_text(encoding="utf-8")
    assert written == figure_kinds.reference(), "FIGURE_KINDS.md is stale: run `make kinds`"


def test_every_kind_is_listed_with_its_call_and_what_it_computes() -> None:
    text = figure_kinds.reference()
    for name, kind in KINDS.items():
        assert f"## `{name}`\n\n`{kind.usage}`: {kind.doc}" in text


def test_an_example_is_a_lessons_first_call(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text('{{ value("gpt2-1.5b", "parameters") }}')
    (tmp_path / "a.md").write_text('Text {{ value("v100-32gb",\n  "memory") }} and {{ value("x", "y") }}')
    assert figure_kinds.first_calls(tmp_path)["value"] == '{{ value("v100-32gb", "memory") }}'
