"""`mkdocs serve` after a Python edit: the package imported anew, but for the model's modules the edit left as
they were, which keep their caches (macros/build/reloading.py)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from macros.build.reloading import reimport_if_changed, source_stamps

PACKAGE = "reloadable_course"
#: A package shaped like the course's: a model layer whose modules import each other, and a layer above it.
FILES = {
    "__init__.py": "from .figures import figure\n",
    "figures.py": "from .model import steps\n\ndef figure():\n    return steps.count()\n",
    "model/__init__.py": "from . import schedule, shape, steps\n",
    "model/schedule.py": "CACHE = {}\n",
    "model/steps.py": "from .schedule import CACHE\n\ndef count():\n    return len(CACHE)\n",
    "model/shape.py": "import math\n",
}


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / PACKAGE
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    sys.path.insert(0, str(tmp_path))
    yield root
    sys.path.remove(str(tmp_path))
    for name in [name for name in sys.modules if name.split(".")[0] == PACKAGE]:
        del sys.modules[name]


def _modules() -> dict[str, ModuleType]:
    return {name: module for name, module in sys.modules.items() if name.split(".")[0] == PACKAGE}


def _save(path: Path, text: str | None = None) -> None:
    """An author's save: new text, or the same, with a later modification time either way."""
    if text is not None:
        path.write_text(text)
    later = path.stat().st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(later, later))


def _imported(root: Path) -> tuple[dict[Path, int], dict[str, ModuleType]]:
    __import__(PACKAGE)
    return source_stamps(root), _modules()


def test_nothing_changed_is_no_reimport(package: Path) -> None:
    stamps, before = _imported(package)
    assert reimport_if_changed(PACKAGE, package, stamps) is None
    assert _modules() == before


def test_an_edit_above_the_model_keeps_every_model_module_and_its_cache(package: Path) -> None:
    stamps, before = _imported(package)
    before[f"{PACKAGE}.model.schedule"].CACHE["run"] = 1
    _save(package / "figures.py", FILES["figures.py"].replace("return steps.count()", "return -steps.count()"))

    fresh = reimport_if_changed(PACKAGE, package, stamps)

    assert fresh is not None and fresh.figure() == -1  # the edit shows, and the kept cache is read
    after = _modules()
    kept = {name for name in after if after[name] is before.get(name)}
    assert kept == {f"{PACKAGE}.model.{name}" for name in ("schedule", "steps", "shape")}
    assert after[f"{PACKAGE}.model"].schedule is before[f"{PACKAGE}.model.schedule"]


def test_an_edited_model_module_and_whoever_imports_it_are_imported_anew(package: Path) -> None:
    stamps, before = _imported(package)
    _save(package / "model" / "schedule.py", "CACHE = {'fresh': True}\n")

    fresh = reimport_if_changed(PACKAGE, package, stamps)

    assert fresh is not None and fresh.figure() == 1
    after = _modules()
    assert {name for name in after if after[name] is before.get(name)} == {f"{PACKAGE}.model.shape"}


def test_a_model_module_that_no_longer_parses_is_imported_anew_to_fail_as_python_says(package: Path) -> None:
    stamps, _ = _imported(package)
    _save(package / "model" / "steps.py", "def count(:\n")
    with pytest.raises(SyntaxError):
        reimport_if_changed(PACKAGE, package, stamps)


def test_the_package_is_imported_anew_from_its_own_folder_whatever_comes_first_on_the_path(
    package: Path, tmp_path: Path
) -> None:
    # mkdocs-macros puts each project's folder first on sys.path as it loads it: in one process that built
    # another copy of the course, a reimport took the other copy's package (a test's build ran another's code).
    stamps, _ = _imported(package)
    other = tmp_path / "other"
    for name, text in FILES.items():
        (other / PACKAGE / name).parent.mkdir(parents=True, exist_ok=True)
        (other / PACKAGE / name).write_text(text)
    sys.path.insert(0, str(other))
    try:
        _save(package / "figures.py")
        fresh = reimport_if_changed(PACKAGE, package, stamps)
    finally:
        sys.path.remove(str(other))
    assert fresh is not None and fresh.__file__ == str(package / "__init__.py")
