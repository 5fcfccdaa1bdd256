"""Shared fixtures: the course's configuration, one strict build of the real site, and broken copies.

A copy is built in this process, through the MkDocs API, as mkdocstrings' own
tests build theirs: the macros package is imported once, and each copy's
mkdocs.yml says where its own catalog, glossary and pages are.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort, BuildError

from macros.data.catalog import Catalog, load_catalog
from macros.data.config import CourseConfig, course_config

ROOT = Path(__file__).resolve().parent.parent
# What a copy of the course needs to build.
_PROJECT_FILES = ("mkdocs.yml", "docs", "macros", "catalog", "overrides", "glossary")
os.environ["NO_MKDOCS_2_WARNING"] = "1"


@cache
def course() -> CourseConfig:
    """The course's configuration, from its mkdocs.yml."""
    return course_config(load_config(str(ROOT / "mkdocs.yml")))


@cache
def catalog() -> Catalog:
    """The course's catalog."""
    return load_catalog(course().catalog_dir)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@dataclass(frozen=True)
class Built:
    """What building a course did: whether it succeeded, and the warnings and errors it logged, in order."""

    ok: bool
    messages: list[str]
    site: Path

    @property
    def output(self) -> str:
        """The messages as one text, one per line."""
        return "\n".join(self.messages)


def build_course(project: Path, site: Path) -> Built:
    """Build the course in `project` strictly, in this process, into `site`."""
    handler = _Collect()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    try:
        build(load_config(str(project / "mkdocs.yml"), site_dir=str(site), strict=True))
        ok = True
    except (Abort, BuildError) as error:
        handler.messages.append(str(error))
        ok = False
    finally:
        logger.removeHandler(handler)
    return Built(ok=ok, messages=handler.messages, site=site)


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The course built once, strictly, through the MkDocs API; no warning allowed."""
    built = build_course(ROOT, tmp_path_factory.mktemp("site"))
    assert built.ok and built.messages == [], f"the build warned: {built.output}"
    yield built.site


@cache
def soup(path: Path) -> BeautifulSoup:
    """The parsed HTML of a built file, parsed once per test run."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


@contextmanager
def script_refusal_off() -> Iterator[None]:
    """Loading as it would be without the refusals of script, of template syntax and of a stage's markup in data
    files (`macros.data.schema.load_yaml`, `schema.text`, `catalog._refuse_markup`), to show that the defence behind
    them holds alone: every value of a data file reaches a page as text."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("macros.data.schema._refuse_script", lambda *args: None)
        patch.setattr("macros.data.catalog._refuse_markup", lambda *args: None)
        patch.setattr("macros.data.schema._TEMPLATE", re.compile(r"(?!)"))  # matches nothing
        patch.setattr("macros.build.state._CACHE", {})  # what it loads is forgotten with it, not handed to later builds
        yield


def copy_course(destination: Path) -> Path:
    """Copy the course's sources into `destination`, to break on purpose; return it."""
    for name in _PROJECT_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, destination / name)
    return destination


@pytest.fixture
def course_copy(tmp_path: Path) -> Path:
    """A writable copy of the course's sources, to break on purpose."""
    return copy_course(tmp_path)


def build_copy(copy: Path) -> Built:
    """Build a course copy strictly, into its own site/ folder."""
    return build_course(copy, copy / "site")


@pytest.fixture
def edit() -> Callable[[Path, str, str], None]:
    """Replace one exact piece of text in a file, failing if it is not there (`replace_in`)."""
    return replace_in


def replace_in(path: Path, old: str, new: str) -> None:
    """Replace the first `old` in the file at `path` with `new`, failing if it is not there."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@cache
def site_pages() -> tuple[str, ...]:
    """Every HTML page a build writes, found as MkDocs finds them: each docs page's output, and the 404 page.

    Checks parametrize over these, so that a page added later is checked exactly like the first ones.
    """
    from mkdocs.structure.files import get_files

    files = get_files(load_config(str(ROOT / "mkdocs.yml")))
    return (*sorted(file.dest_uri for file in files.documentation_pages()), "404.html")


@cache
def lesson_pages() -> tuple[str, ...]:
    """The HTML pages of the lessons: every page of a stage folder."""
    return tuple(page for page in site_pages() if page.startswith("stage-"))
