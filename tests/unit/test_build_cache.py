"""Data kept between `mkdocs serve` rebuilds: loaded again when, and only when, one of its files changes."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from macros.build.state import _cached
from macros.data.catalog import load_catalog
from macros.figures.kinds import KINDS


def test_each_data_set_is_kept_until_one_of_its_files_changes(tmp_path: Path) -> None:
    catalog, glossary = tmp_path / "models.yml", tmp_path / "terms.yml"
    catalog.write_text("a: 1\n", encoding="utf-8")
    glossary.write_text("b: 2\n", encoding="utf-8")
    loads: list[str] = []

    def load(name: str) -> Callable[[], object]:
        def loaded() -> object:
            loads.append(name)
            return object()

        return loaded

    first_catalog = _cached("catalog", [catalog], load("catalog"))
    first_glossary = _cached("glossary", [catalog, glossary], load("glossary"))
    # The other data set's load in between does not evict it: a rebuild with nothing changed loads nothing.
    assert _cached("catalog", [catalog], load("catalog")) is first_catalog
    assert _cached("glossary", [catalog, glossary], load("glossary")) is first_glossary
    assert loads == ["catalog", "glossary"]
    # A copy of the same files elsewhere (a test's broken copy of the course, before it is broken) is the same data.
    copy = tmp_path / "copy" / tmp_path.name
    copy.mkdir(parents=True)
    shutil.copy(catalog, copy / "models.yml")
    assert _cached("catalog", [copy / "models.yml"], load("catalog")) is first_catalog
    # An edit of the same size, within the file clock's resolution, is still an edit.
    catalog.write_text("a: 9\n", encoding="utf-8")
    assert _cached("catalog", [catalog], load("catalog")) is not first_catalog
    assert _cached("glossary", [catalog, glossary], load("glossary")) is not first_glossary
    assert loads == ["catalog", "glossary", "catalog", "glossary"]


def test_a_figure_is_kept_for_its_catalog_and_computed_again_from_another(tmp_path: Path) -> None:
    """Figures are memoized by catalog object (`data.catalog.PerCatalog`): an edited catalog is a new object,
    and its figures are its own, not the ones the last catalog gave."""
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "catalog", tmp_path / "catalog")
    models = tmp_path / "catalog" / "models.yml"
    halved = models.read_text(encoding="utf-8").replace("parameters: 1_500_000_000\n", "parameters: 750_000_000\n", 1)
    models.write_text(halved, encoding="utf-8")
    course, edited = load_catalog(root / "catalog"), load_catalog(tmp_path / "catalog")
    states = KINDS["model_states"]
    first = states.figure(course, "gpt2-1.5b")
    assert states.figure(course, "gpt2-1.5b") is first
    assert states.figure(edited, "gpt2-1.5b").value < first.value
    assert states.figure(course, "gpt2-1.5b").value == first.value
