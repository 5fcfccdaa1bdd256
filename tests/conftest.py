"""Shared fixtures: one strict build of the real site per session, and broken copies."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSON_7 = "stage-4/lesson-07-how-data-parallelism-keeps-every-copy-identical"
LESSON_8 = "stage-4/lesson-08-why-data-parallelism-alone-runs-out-of-memory"
# What a copy of the course needs to build.
_PROJECT_FILES = ("mkdocs.yml", "docs", "macros", "overrides", "glossary")


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The course built once, strictly, through the MkDocs API; no warning allowed."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    os.environ["NO_MKDOCS_2_WARNING"] = "1"
    site = tmp_path_factory.mktemp("site")
    handler = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        build(load_config(str(ROOT / "mkdocs.yml"), site_dir=str(site), strict=True))
    finally:
        logger.removeHandler(handler)
    assert handler.messages == [], f"the build warned: {handler.messages}"
    yield site


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    """A writable copy of the course's sources, to break on purpose."""
    for name in _PROJECT_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, tmp_path / name)
    return tmp_path


def build_copy(copy: Path) -> subprocess.CompletedProcess[str]:
    """Build a course copy with `mkdocs build --strict` in its own process."""
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def edit() -> Callable[[Path, str, str], None]:
    """Replace one exact piece of text in a file, failing if it is not there."""

    def replace(path: Path, old: str, new: str) -> None:
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {path}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")

    return replace
