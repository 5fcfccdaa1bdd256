"""The catalog of facts: models, hardware, workloads and what sources print.

Every value the course computes with lives once, in the YAML files of
`macros/catalog/`, beside the source it comes from. This module loads them,
rejects anything malformed (naming the file, the entry and the fix) and answers
look-ups. It never imports MkDocs.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .quantities import Number, check_unit
from .validation import key_problem

CATALOG_DIR = Path(__file__).parent / "catalog"
#: libyaml's safe loader where PyYAML was built with it: ten times faster.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: What each table's entries may hold: a unit for a quantity, `str` for text,
#: or the name of another table that the value must refer to.
_QUANTITY_TABLES: Mapping[str, Mapping[str, str | type]] = {
    "models": {"name": str, "parameters": "param", "layers": "1", "hidden": "1"},
    "gpus": {"name": str, "memory": "B"},
    "interconnects": {"name": str, "bandwidth_per_direction": "B/s"},
    "workloads": {
        "name": str,
        "model": "models",
        "sequence": "1",
        "batch": "1",
        "devices": "1",
        "interconnect": "interconnects",
    },
    "claims": {"name": str, "parameters": "param", "memory": "B"},
}
#: Every entry of a quantity table also says where its values come from.
_PROVENANCE = {"source": "sources", "where": str, "quote": str}
_REQUIRED = ("name", "source", "where")
#: Fields a table's entries need beyond those, for the figures computed from them.
_TABLE_REQUIRED: Mapping[str, tuple[str, ...]] = {"workloads": ("model",)}

_SOURCE_FIELDS = {"title": str, "authors": str, "cite": str, "year": int, "url": str}
_PRINTED_FIELDS = {"value": "number", "unit": str, "text": str, "source": "sources", "where": str, "rounding": "number"}
_COURSE_FIELDS = {"mission": list, "stages": dict}


class CatalogError(ValueError):
    """A catalog file is malformed; the message names the file, the entry and the fix."""


@dataclass(frozen=True)
class Source:
    """A primary source that catalog values cite."""

    id: str
    title: str
    authors: str
    cite: str
    year: int
    url: str | None = None

    @property
    def title_markdown(self) -> str:
        """The title as Markdown, linked to the source where it has a URL."""
        title = self.title.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
        return f"[{title}](<{self.url}>)" if self.url else title


@dataclass(frozen=True)
class Quantity:
    """One catalog value with its unit and provenance."""

    entry: str
    field: str
    value: Number
    unit: str
    label: str
    source: Source
    where: str


@dataclass(frozen=True)
class Printed:
    """A value that a source prints for one of our figures, to the source's rounding."""

    figure_id: str
    value: Number
    unit: str
    text: str
    source: Source
    where: str
    rounding: Number


@dataclass(frozen=True)
class Catalog:
    """All catalog tables, validated. Look-ups raise KeyError with the known names."""

    sources: Mapping[str, Source]
    entries: Mapping[str, Mapping[str, Any]]
    tables: Mapping[str, str]
    printed: Mapping[str, Printed]
    mission: tuple[str, ...] = field(default=())
    stages: Mapping[int, str] = field(default_factory=dict)

    def entry(self, entry_id: str, table: str | None = None) -> Mapping[str, Any]:
        """The entry named `entry_id` (in `table`, when given)."""
        if not isinstance(entry_id, str):
            raise KeyError(f'expected a catalog id in quotes, such as "gpt2-1.5b", got {entry_id!r}')
        if entry_id not in self.entries or (table and self.tables[entry_id] != table):
            known = sorted(e for e in self.entries if table is None or self.tables[e] == table)
            raise KeyError(_unknown("catalog entry" if table is None else f"entry of {table}.yml", entry_id, known))
        return self.entries[entry_id]

    def quantity(self, entry_id: str, field_name: str) -> Quantity:
        """The value of `field_name` in entry `entry_id`, with its unit and source."""
        entry = self.entry(entry_id)
        schema = _QUANTITY_TABLES[self.tables[entry_id]]
        unit = schema.get(field_name)
        if not isinstance(unit, str) or unit in _QUANTITY_TABLES or field_name not in entry:
            known = sorted(
                f for f, u in schema.items() if isinstance(u, str) and u not in _QUANTITY_TABLES and f in entry
            )
            raise KeyError(_unknown(f"quantity of {entry_id!r}", field_name, known))
        return Quantity(
            entry=entry_id,
            field=field_name,
            value=entry[field_name],
            unit=unit,
            label=entry["name"],
            source=self.sources[entry["source"]],
            where=entry["where"],
        )


def _unknown(what: str, name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=3)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    return f"unknown {what} {name!r}.{hint} Known: {', '.join(known) or 'none'}."


def _check_fields(where: str, data: Any, fields: Mapping[str, Any], required: tuple[str, ...]) -> None:
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: expected a mapping of fields, got {data!r}")
    problem = key_problem(data, fields, required)
    if problem:
        raise CatalogError(f"{where}: {problem}")


def _check_value(where: str, name: str, value: Any, kind: Any, refs: Mapping[str, Mapping[str, Any]]) -> None:
    if kind in (str, int, list):
        if not isinstance(value, kind) or isinstance(value, bool):
            raise CatalogError(f"{where}.{name}: expected {kind.__name__}, got {value!r}")
    elif kind in refs:
        if value not in refs[kind]:
            raise CatalogError(f"{where}.{name}: {_unknown(f'entry of {kind}.yml', str(value), sorted(refs[kind]))}")
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        raise CatalogError(
            f"{where}.{name}: expected a number, got {value!r}; write large numbers as 1_500_000_000"
            " (PyYAML reads 1.5e9 as text)"
        )
    elif value <= 0:
        raise CatalogError(f"{where}.{name}: must be positive, got {value!r}")


def _read(path: Path) -> dict[str, Any]:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
    except yaml.YAMLError as error:
        raise CatalogError(f"{path.name}: not valid YAML: {error}") from error
    if not isinstance(data, dict):
        raise CatalogError(f"{path.name}: expected a mapping of entries at the top level")
    return data


def load_catalog(directory: Path = CATALOG_DIR) -> Catalog:
    """Read and validate every catalog file in `directory`.

    Raises:
        CatalogError: a file is missing, malformed, or refers to an unknown entry.
    """
    expected = {"sources", "printed", "course", *_QUANTITY_TABLES}
    found = {path.stem for path in directory.glob("*.yml")}
    if found != expected:
        raise CatalogError(
            f"expected exactly the files {', '.join(sorted(expected))}.yml; "
            f"missing: {sorted(expected - found) or 'none'}, unexpected: {sorted(found - expected) or 'none'}"
        )
    raw = {name: _read(directory / f"{name}.yml") for name in expected}

    for source_id, data in raw["sources"].items():
        _check_fields(f"sources.yml: {source_id}", data, _SOURCE_FIELDS, ("title", "authors", "cite", "year"))
        for name, value in data.items():
            _check_value(f"sources.yml: {source_id}", name, value, _SOURCE_FIELDS[name], {})
    sources = {source_id: Source(id=source_id, **data) for source_id, data in raw["sources"].items()}

    refs: dict[str, Mapping[str, Any]] = {"sources": sources}
    entries: dict[str, Mapping[str, Any]] = {}
    tables: dict[str, str] = {}
    for table in _QUANTITY_TABLES:  # ordered so that references point backwards
        fields = {**_QUANTITY_TABLES[table], **_PROVENANCE}
        for entry_id, data in raw[table].items():
            where = f"{table}.yml: {entry_id}"
            if entry_id in entries:
                raise CatalogError(f"{where}: the id is already used in {tables[entry_id]}.yml; ids are catalog-wide")
            _check_fields(where, data, fields, _REQUIRED + _TABLE_REQUIRED.get(table, ()))
            for name, value in data.items():
                _check_value(where, name, value, fields[name], refs)
            entries[entry_id], tables[entry_id] = data, table
        refs[table] = raw[table]

    printed = {}
    for figure_id, data in raw["printed"].items():
        where = f"printed.yml: {figure_id}"
        _check_fields(where, data, _PRINTED_FIELDS, tuple(_PRINTED_FIELDS))
        for name, kind in _PRINTED_FIELDS.items():
            _check_value(where, name, data[name], kind, refs)
        try:
            check_unit(data["unit"])
        except ValueError as error:
            raise CatalogError(f"{where}.unit: {error}") from None
        printed[figure_id] = Printed(figure_id=figure_id, **{**data, "source": sources[data["source"]]})

    course = raw["course"]
    _check_fields("course.yml", course, _COURSE_FIELDS, tuple(_COURSE_FIELDS))
    bullets, stages = course["mission"], course["stages"]
    if not bullets or not all(isinstance(bullet, str) and bullet.strip() for bullet in bullets):
        raise CatalogError("course.yml: mission must be a non-empty list of sentences")
    if not all(isinstance(n, int) and isinstance(title, str) for n, title in stages.items()):
        raise CatalogError("course.yml: stages maps a stage number to its title, like `4: Data parallelism`")

    return Catalog(
        sources=sources,
        entries=entries,
        tables=tables,
        printed=printed,
        mission=tuple(bullets),
        stages=dict(stages),
    )
