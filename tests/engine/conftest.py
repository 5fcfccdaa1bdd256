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

from .records import RECORDED, Record

# DeepSpeed picks its accelerator when it is imported: the CPU's, never CUDA's.
os.environ.setdefault("DS_ACCELERATOR", "cpu")


def software(*packages: str) -> str:
    """What ran, with versions, as a record names it: "torch 2.14.1, transformers 5.24.0"."""
    return ", ".join(f"{name} {version(name)}" for name in packages)


Recorder = Callable[..., Record]


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
        made = Record(key, tuple(vouches), software(*packages), measured, course, unit, request.node.nodeid, differs)
        RECORDED.append(made)
        return made

    return add


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The check of the data file runs after every test that records into it."""
    last = [item for item in items if item.nodeid.endswith("test_measured.py::test_measured_file_is_current")]
    items[:] = [item for item in items if item not in last] + last
