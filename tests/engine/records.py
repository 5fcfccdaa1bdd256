"""What the engine tier measured, as records of `catalog/measured.yml`.

The file is written by the tier alone (`ENGINE_WRITE=1 make engine`), only when
every test of the run passed, and checked against each run otherwise: a record
the run measures differently, or one it no longer measures, fails the run.

Schema of `catalog/measured.yml`: a mapping from a stable key to one
record. The key names the figure kind or the formula the record vouches for,
then the case (`model-states/ddp/fp32-adam/world-4/bucket-view`). A record has
exactly these fields:

- `vouches`: the course's figure kinds (`model-states`, `zero-states`) and
  `macros.model` functions (`model.device_state_bytes`) whose arithmetic the
  measurement tests, as a list of strings;
- `software`: what ran, with versions, as one string (`torch 2.14.1`,
  `torch 2.14.1, transformers 5.24.0`, `deepspeed 0.19.8 (CPU accelerator)`);
- `measured`: the value measured, exactly, in `unit`: an integer, or a
  fraction written "p/q" in lowest terms, never a rounded decimal;
- `course`: what the course's own function gives for the same case, in the
  same unit and form;
- `unit`: `param` (a parameter count), `B/param` (bytes per parameter of the
  model, the ratio the course's per-device figures scale by), `element/param`
  (elements communicated per step per parameter), `B/sbh` and `B/as2b`
  (activation bytes per s·b·h and per a·s²·b), `B` (bytes at the shape the
  record names), or `1` (a ratio);
  `FLOP/param` (FLOPs per parameter per token),
- `test`: the pytest node id of the test that measured it;
- `differs` (only where `measured` is not `course`): why, in a sentence that
  names what the software keeps or sends that the course's formula does not
  (or the other way round), checked by the test against a formula of its own;
- `figure` and `digest` (only for a record of `figures.yml`): the figure on a
  lesson's page it vouches for, and that figure's fingerprint when the tier ran
  (`macros.figures.figure.digest`).

The build reads the file (`macros.data.catalog`): a figure a record names
carries it into `figures.json` (its `engine` entry, the software's value in the
figure's unit) and its tooltip, and a figure changed since its digest was
taken fails the build, until the tier measures it again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
#: The tier's data file, committed beside the catalog it vouches for.
MEASURED = ROOT / "catalog" / "measured.yml"
#: Set to 1 to rewrite MEASURED from a passing run.
WRITE_VARIABLE = "ENGINE_WRITE"
FIELDS = ("vouches", "software", "measured", "course", "unit", "test", "differs", "figure", "digest")
#: Which record vouches for which figure on a page, by key (a data file, read once).
FIGURES_FILE = Path(__file__).with_name("figures.yml")
UNITS = ("param", "B/param", "element/param", "B/sbh", "B/as2b", "B/sb", "B", "FLOP/param", "1")


def exact(value: int | Fraction) -> int | str:
    """`value` as the file writes it: an integer, or "p/q" in lowest terms."""
    value = Fraction(value)
    return value.numerator if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


@dataclass(frozen=True)
class Record:
    """One measurement and the course's value it is compared with."""

    key: str
    vouches: tuple[str, ...]
    software: str
    measured: int | Fraction
    course: int | Fraction
    unit: str
    test: str
    differs: str = ""
    figure: str = ""
    digest: str = ""

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"record {self.key}: unit {self.unit!r} is not one of {', '.join(UNITS)}")
        if (Fraction(self.measured) != Fraction(self.course)) != bool(self.differs):
            raise ValueError(
                f"record {self.key}: measured {exact(self.measured)} against the course's {exact(self.course)}:"
                " a record says why it differs exactly when it does"
            )

    def as_yaml(self) -> dict[str, Any]:
        """The record's fields as the file holds them."""
        data: dict[str, Any] = {
            "vouches": list(self.vouches),
            "software": self.software,
            "measured": exact(self.measured),
            "course": exact(self.course),
            "unit": self.unit,
            "test": self.test,
        }
        if self.differs:
            data["differs"] = self.differs
        if self.figure:
            data["figure"], data["digest"] = self.figure, self.digest
        return data


#: Every record this run made, in the order the tests made them (`conftest.record` appends).
RECORDED: list[Record] = []


def dump(records: Sequence[Record]) -> str:
    """The file's text for `records`, sorted by key, with a header that says who writes it."""
    header = (
        "# Written by the engine tier (tests/engine/records.py documents the schema):\n"
        "# ENGINE_WRITE=1 make engine. Do not edit by hand; every run checks it.\n"
    )
    body = {record.key: record.as_yaml() for record in sorted(records, key=lambda r: r.key)}
    return header + yaml.safe_dump(body, sort_keys=False, allow_unicode=True, width=120)


def load(path: Path = MEASURED) -> Mapping[str, Mapping[str, Any]]:
    """The committed records by key, as the file holds them (empty if there is no file yet)."""
    if not path.exists():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path.name}: expected a mapping of keys to records")
    for key, record in data.items():
        if not isinstance(record, dict) or set(record) - set(FIELDS):
            raise ValueError(f"{path.name}: {key}: a record has only the fields {', '.join(FIELDS)}")
    return data


def figures() -> dict[str, str]:
    """The figure each record vouches for, by the record's key (`figures.yml`)."""
    data = yaml.safe_load(FIGURES_FILE.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ValueError(f"{FIGURES_FILE.name}: expected a mapping of record keys to figure ids")
    return {str(key): value for key, value in data.items()}


def writing() -> bool:
    """Whether this run rewrites the file (ENGINE_WRITE=1)."""
    return os.environ.get(WRITE_VARIABLE) == "1"
