"""The engine tier's fixtures: each test records what it measured beside the course's value.

`record` adds a `records.Record` for the running test; `test_measured.py` runs
last and compares every record of the run with `catalog/measured.yml`,
or, with ENGINE_WRITE=1 and no test failed, rewrites the file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from fractions import Fraction
from importlib.metadata import version

import pytest

from macros.figures.figure import Figure, digest
from macros.figures.kinds import KINDS, kind_of
from tests.conftest import catalog

from .records import RECORDED, Record, figures

# DeepSpeed picks its accelerator when it is imported: the CPU's, never CUDA's.
os.environ.setdefault("DS_ACCELERATOR", "cpu")


def software(*packages: str) -> str:
    """What ran, with versions, as a record names it: "torch 2.14.1, transformers 5.24.0"."""
    return ", ".join(f"{name} {version(name)}" for name in packages)


Recorder = Callable[..., Record]
#: The figure on a page each record vouches for, by key (`figures.yml`).
FIGURES = figures()


def course_figure(figure_id: str) -> Figure:
    """The figure `figure_id` names, as the course computes it now from its catalog."""
    kind = kind_of(figure_id, KINDS)
    figure = kind.figure(catalog(), *kind.arguments(figure_id))
    assert figure.id == figure_id, f"figures.yml names {figure_id!r}, whose id is {figure.id!r}"
    return figure


@pytest.fixture
def record(request: pytest.FixtureRequest) -> Recorder:
    """Record one measurement of the running test; returns the record (which checks its own consistency)."""

    def add(
        key: str,
        vouches: Sequence[str],
        packages: Sequence[str],
        measured: int | Fraction,
        course: int | Fraction,
        unit: str,
        differs: str = "",
    ) -> Record:
        figure_id = FIGURES.get(key, "")
        fingerprint = digest(course_figure(figure_id).computed) if figure_id else ""
        made = Record(
            key,
            tuple(vouches),
            software(*packages),
            measured,
            course,
            unit,
            request.node.nodeid,
            differs,
            figure_id,
            fingerprint,
        )
        RECORDED.append(made)
        return made

    return add


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The checks of the records run after every test that records into them."""
    last = [item for item in items if "test_measured.py::" in item.nodeid]
    items[:] = [item for item in items if item not in last] + last
