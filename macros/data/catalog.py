"""The catalog of facts: sources, models, hardware, workloads, claims, and what sources print.

Every value the course computes with lives once, in the YAML files of the
catalog folder (`extra.course.catalog` in mkdocs.yml), beside the source it
comes from. This module reads them strictly (`macros.data.schema`), turns each
entry into a typed record (a workload's `.model` is its `Model`), and answers
look-ups by id. It never imports MkDocs.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..model.shape import TransformerShape
from .markup import markdown_in, markup_in
from .quantities import Number, check_unit
from .schema import (
    CATALOG_ID,
    Fields,
    SchemaError,
    boolean,
    check_file,
    check_key,
    check_record,
    field_error,
    integer,
    item_error,
    list_of,
    load_yaml,
    one_of,
    optional,
    percentage,
    positive_amount,
    positive_count,
    read_text,
    record_error,
    reference,
    text,
    unknown,
    web_url,
)
from .typed_figures import find_in_text

K = TypeVar("K")
V = TypeVar("V")


class CatalogError(ValueError):
    """A catalog file is malformed; the message names the file, the entry and the fix."""


def capacity(value: Any) -> int:
    """A memory capacity in bytes: binary units as the hardware has them, "32 GiB", or an exact count
    of bytes as CUDA reports it, "85028896768 B".

    >>> capacity("32 GiB"), capacity("85_028_896_768 B")
    (34359738368, 85028896768)
    """
    match = re.fullmatch(r"\s*(\d[\d_]*)\s*(B|KiB|MiB|GiB|TiB)\s*", value) if isinstance(value, str) else None
    if match is None:
        raise ValueError(
            f"got {value!r}; expected a capacity in binary units, like 32 GiB, or in bytes, like 85028896768 B"
        )
    count = int(match.group(1))
    unit = match.group(2)
    return count if unit == "B" else count << 10 * ("KMGT".index(unit[0]) + 1)


def sold_capacity(value: Any) -> int:
    """The capacity a GPU is sold with, as its vendor names it in (decimal) GB, "80 GB", in bytes.

    >>> sold_capacity("80 GB")
    80000000000
    """
    match = re.fullmatch(r"\s*(\d+)\s*GB\s*", value) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f"got {value!r}; expected the capacity a GPU is sold with, as its vendor names it: 80 GB")
    return int(match.group(1)) * 10**9


@dataclass(frozen=True)
class Column:
    """A field of a catalog table: its type function, and its unit when it is a quantity."""

    check: Callable[[Any], Any]
    unit: str | None = None
    required: bool = False
    #: How a quantity displays by default: a GPU's memory as sold and as programs get it.
    display: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: The table whose entries the column's ids name, for a reference to another entry.
    refers: str | None = None


def column(
    check: Callable[[Any], Any],
    unit: str | None = None,
    *,
    required: bool = False,
    display: Mapping[str, Any] | None = None,
    refers: str | None = None,
) -> Any:
    """A record's field that is also its table's column, declared once: `parameters: int = column(...)`.

    A required column has no default; any other defaults to None, for an entry that leaves it out.
    """
    metadata = {"column": Column(check, unit, required, dict(display or {}), refers)}
    return dataclasses.field(metadata=metadata) if required else dataclasses.field(default=None, metadata=metadata)


@dataclass(frozen=True)
class Source:
    """A primary source that catalog values cite."""

    id: str
    title: str
    authors: str
    cite: str
    year: int
    url: str | None = None


@dataclass(frozen=True)
class Provenance:
    """Where an entry's values come from: a source, the place in it, and its words when quoted."""

    source: Source
    where: str
    quote: str | None = None


@dataclass(frozen=True)
class Model:
    """A model's shape: parameters, and where published, layers, hidden size, attention heads, vocabulary, context."""

    id: str
    provenance: Provenance
    name: str = column(text, required=True)
    parameters: int = column(positive_count, "param", required=True)
    #: The name in a list (the calculator's), where `name` is too long to show whole on a phone.
    short: str | None = column(text)
    layers: int | None = column(positive_count, "1")
    hidden: int | None = column(positive_count, "1")
    heads: int | None = column(positive_count, "1")
    vocabulary: int | None = column(positive_count, "1")
    context: int | None = column(positive_count, "1")
    #: The rest of a shape, where the model is not GPT-shaped (see `transformer_shape`).
    kv_heads: int | None = column(positive_count, "1")
    ffn: int | None = column(positive_count, "1")
    gated: bool | None = column(boolean)
    tied: bool | None = column(boolean)
    norm: str | None = column(one_of("layernorm", "rmsnorm"))
    biases: bool | None = column(boolean)
    rotary: bool | None = column(boolean)
    #: A mixture of experts: routed experts per MoE layer, how many a token goes to, and each one's MLP width.
    experts: int | None = column(positive_count, "1")
    experts_per_token: int | None = column(positive_count, "1")
    expert_ffn: int | None = column(positive_count, "1")
    #: Layers whose MLP is dense, where the others are mixtures of experts (DeepSeek-V3's first three).
    dense_layers: int | None = column(positive_count, "1")
    #: The parameters one token uses, as the source states them, where the course cannot count the shape.
    active: int | None = column(positive_count, "param")


def transformer_shape(record: Model) -> TransformerShape:
    """The model's whole shape, for the planner: GPT-shaped as Megatron-LM builds it unless the entry says otherwise.

    A model needs its layers, hidden size, heads and vocabulary; without more it has as many key-value
    heads as heads, an MLP of 4h that is not gated, tied embeddings, LayerNorm, biases on every linear layer
    and learned positions for its `context` (GPT-2 and GPT-3 as their papers describe them).

    Raises:
        ValueError: a field the shape needs is missing; the message names them.
    """
    missing = [name for name in ("layers", "hidden", "heads", "vocabulary") if getattr(record, name) is None]
    if record.dense_layers is not None:
        # Dense layers among mixtures of experts (DeepSeek-V3) are a shape `TransformerShape` does not count.
        missing.append("a count of dense layers among expert layers")
    if missing:
        raise ValueError(f"the catalog's {record.id} has no {', '.join(missing)}: the planner needs its whole shape")
    assert record.layers and record.hidden and record.heads and record.vocabulary
    biases = True if record.biases is None else record.biases
    rotary = bool(record.rotary)
    return TransformerShape(
        layers=record.layers,
        hidden=record.hidden,
        heads=record.heads,
        kv_heads=record.kv_heads or record.heads,
        ffn=record.ffn or 4 * record.hidden,
        vocabulary=record.vocabulary,
        gated=bool(record.gated),
        tied=True if record.tied is None else record.tied,
        norm=record.norm or "layernorm",
        attention_bias=biases,
        output_bias=biases,
        mlp_bias=biases,
        positions=0 if rotary else (record.context or 0),
        experts=record.experts or 0,
        experts_per_token=record.experts_per_token or 0,
        expert_ffn=record.expert_ffn or 0,
    )


@dataclass(frozen=True)
class Interconnect:
    """A link between devices, with its bandwidth in each direction in bytes per second."""

    id: str
    provenance: Provenance
    name: str = column(text, required=True)
    bandwidth_per_direction: Number = column(positive_amount, "B/s", required=True)


@dataclass(frozen=True)
class Gpu:
    """An accelerator: the memory it is sold with and the memory programs get, in bytes, and its dense peak FLOP/s.

    `sold` is the vendor's name for the capacity (its decimal GB); `memory` is the device's total as CUDA
    reports it (`cudaGetDeviceProperties`' totalGlobalMem, PyTorch's `total_memory`): the physical memory
    that nvidia-smi shows as "Total", less what the driver and firmware reserve, and so a little different
    from one driver to another. `memory_provenance` says which report, under which driver, gives it.
    """

    id: str
    provenance: Provenance
    name: str = column(text, required=True)
    # The capacity a GPU is sold with, and the memory CUDA gives programs: both, or neither.
    sold: int | None = column(sold_capacity, "B")
    memory: int | None = column(capacity, "B", display={"nominal": True})
    memory_provenance: Provenance | None = None
    #: Where the peaks come from when it is not the entry's own source (a transcription of a datasheet, say).
    peak_provenance: Provenance | None = None
    peak_fp16_flops: Number | None = column(positive_amount, "FLOP/s")
    # Dense peaks, without sparsity, by the precision of the math.
    peak_fp32_flops: Number | None = column(positive_amount, "FLOP/s")
    peak_tf32_flops: Number | None = column(positive_amount, "FLOP/s")
    peak_bf16_flops: Number | None = column(positive_amount, "FLOP/s")
    #: Its link to the other GPUs of its node, and its own port to other nodes, where the catalog has them.
    nvlink: Interconnect | None = column(text, refers="interconnects")
    network: Interconnect | None = column(text, refers="interconnects")


@dataclass(frozen=True)
class Workload:
    """A model run a lesson computes with: the model, and as needed batch, sequence, devices, hosts and link.

    A model-parallel run also names its microbatch size, its tensor- and
    pipeline-parallel degrees, its GPU, and the link between its servers
    (`network`) beside the link within one (`interconnect`). A training run also
    has the tokens it trains on, and where a source reports them, its achieved
    FLOP/s per device and its tokens per second.
    """

    id: str
    provenance: Provenance
    name: str = column(text, required=True)
    model: Model = column(text, required=True, refers="models")
    sequence: int | None = column(positive_count, "1")
    batch: int | None = column(positive_count, "1")
    devices: int | None = column(positive_count, "1")
    #: GPUs per host, where a lesson counts what crosses between hosts.
    per_host: int | None = column(positive_count, "1")
    interconnect: Interconnect | None = column(text, refers="interconnects")
    microbatch: int | None = column(positive_count, "1")
    tensor: int | None = column(positive_count, "1")
    pipeline: int | None = column(positive_count, "1")
    #: Context-parallel degree: devices a sequence is split across (Lesson 13).
    context: int | None = column(positive_count, "1")
    gpu: Gpu | None = column(text, refers="gpus")
    network: Interconnect | None = column(text, refers="interconnects")
    tokens: int | None = column(positive_count, "1", display={"words": True})
    throughput: Number | None = column(positive_amount, "FLOP/s")
    tokens_per_second: Number | None = column(positive_amount, "1")


@dataclass(frozen=True)
class Claim:
    """A result a source states in its own terms, such as "1.4B parameters on GPUs with 32 GB".

    A throughput claim gives a device count, a rate per device (`flops_per_second`),
    an aggregate rate, and a share (`efficiency`: of linear scaling, or of peak).
    """

    id: str
    provenance: Provenance
    name: str = column(text, required=True)
    parameters: int | None = column(positive_count, "param")
    memory: Number | None = column(positive_amount, "B")
    devices: int | None = column(positive_count, "1")
    flops_per_second: Number | None = column(positive_amount, "FLOP/s")
    aggregate_flops: Number | None = column(positive_amount, "FLOP/s")
    efficiency: Number | None = column(percentage, "1")
    ratio: Number | None = column(positive_amount, "1")
    #: GPU time a run took, in GPU-seconds (a model card's "GPU hours" × 3,600).
    gpu_time: Number | None = column(positive_amount, "s")


Record = Model | Gpu | Interconnect | Workload | Claim


@dataclass(frozen=True)
class Table:
    """One catalog file of entries: the record type each entry becomes, and its columns, read off the record."""

    record: type[Record]

    @property
    def columns(self) -> dict[str, Column]:
        """The record's fields that are columns, by name, in the order the record declares them."""
        return {f.name: f.metadata["column"] for f in dataclasses.fields(self.record) if "column" in f.metadata}

    @property
    def references(self) -> dict[str, str]:
        """Columns that refer to entries of another table, by that table's name."""
        return {name: c.refers for name, c in self.columns.items() if c.refers is not None}


#: The catalog's tables, in an order in which references point backwards.
TABLES: Mapping[str, Table] = {
    "models": Table(Model),
    "interconnects": Table(Interconnect),
    "gpus": Table(Gpu),
    "workloads": Table(Workload),
    "claims": Table(Claim),
}


@dataclass(frozen=True)
class Quantity:
    """One catalog value with its unit, how it displays by default, and its provenance."""

    entry: str
    field: str
    value: Number
    unit: str
    label: str
    source: Source
    where: str
    display: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def count(self) -> int:
        """The value as the whole number a count column holds (parameters, layers, devices)."""
        if not isinstance(self.value, int):
            raise TypeError(f"{self.entry}.{self.field} is {self.value!r}, not a whole number")
        return self.value


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
class Measured:
    """What running real training software measured for one of the course's figures (`measured.yml`).

    `measured` and `course` are the same ratio (per parameter, per element, ...), the first as the software
    gave it and the second as the course's formula gives it, so that the figure the software would show is
    the course's figure times `measured / course`.
    """

    key: str
    #: The figure on a page it vouches for, if any.
    figure_id: str | None
    software: str
    measured: Fraction
    course: Fraction
    unit: str
    test: str
    #: Why the software differs from the course's formula, where it does.
    differs: str | None = None
    #: The fingerprint of the figure it vouches for, as the tier measured it (`figures.figure.digest`).
    digest: str | None = None

    @property
    def ratio(self) -> Fraction:
        """How many times the course's formula the software measured: 1 where they agree."""
        return self.measured / self.course

    def scaled(self, value: Number) -> Fraction:
        """The figure of value `value` as the software measured it: scaled by its ratio."""
        return Fraction(value) * self.ratio


def exact_ratio(value: Any) -> Fraction:
    """A ratio as measured.yml writes it exactly: a whole number, or "p/q".

    >>> exact_ratio("121601/99328"), exact_ratio(16), exact_ratio(0)
    (Fraction(121601, 99328), Fraction(16, 1), Fraction(0, 1))
    """
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"got {value!r}; expected a whole number or a fraction p/q")
    try:
        ratio = Fraction(value)
    except ValueError:
        raise ValueError(f"got {value!r}; expected a whole number or a fraction p/q") from None
    if ratio < 0:
        raise ValueError(f"got {value!r}; expected a ratio of zero or more")
    return ratio


_MEASURED_FIELDS: Fields = {
    "vouches": list_of(text),
    "software": text,
    "measured": exact_ratio,
    "course": exact_ratio,
    "unit": text,
    "test": text,
    "differs": optional(text),
    "figure": optional(text),
    "digest": optional(text),
}


@dataclass(frozen=True)
class Stage:
    """A stage of the syllabus: its title and what it covers."""

    number: int
    title: str
    summary: str


@dataclass(frozen=True)
class Catalog:
    """Every catalog table, validated. Look-ups raise KeyError with the nearest known ids."""

    sources: Mapping[str, Source]
    records: Mapping[str, Record]
    tables: Mapping[str, str]
    printed: Mapping[str, Printed]
    mission: tuple[str, ...] = ()
    stages: Mapping[int, Stage] = dataclasses.field(default_factory=dict)
    #: What the engine tier measured, by the id of the figure it vouches for.
    measured: Mapping[str, tuple[Measured, ...]] = dataclasses.field(default_factory=dict)
    #: Every record of measured.yml, by its key.
    engine: Mapping[str, Measured] = dataclasses.field(default_factory=dict)

    def entry(self, entry_id: Any, table: str | None = None) -> Record:
        """The entry named `entry_id` (in `table`, when given)."""
        if not isinstance(entry_id, str):
            raise KeyError(f'expected a catalog id in quotes, such as "gpt2-1.5b", got {entry_id!r}')
        if entry_id not in self.records or (table and self.tables[entry_id] != table):
            known = [e for e in self.records if table is None or self.tables[e] == table]
            raise KeyError(unknown("catalog entry" if table is None else f"entry of {table}.yml", entry_id, known))
        return self.records[entry_id]

    def model(self, entry_id: Any) -> Model:
        """The model `entry_id`; a workload or claim id is not one."""
        record = self.entry(entry_id, "models")
        assert isinstance(record, Model)
        return record

    def gpu(self, entry_id: Any) -> Gpu:
        """The GPU `entry_id`."""
        record = self.entry(entry_id, "gpus")
        assert isinstance(record, Gpu)
        return record

    def workload(self, entry_id: Any) -> Workload:
        """The workload `entry_id`."""
        record = self.entry(entry_id, "workloads")
        assert isinstance(record, Workload)
        return record

    def quantity(self, entry_id: Any, field_name: Any) -> Quantity:
        """The value of `field_name` in entry `entry_id`, with its unit and source.

        A workload's model's quantities are its own: `quantity("gpt2-ring-pcie", "parameters")`.
        """
        record = self.entry(entry_id)
        table = TABLES[self.tables[record.id]]
        column = table.columns.get(field_name) if isinstance(field_name, str) else None
        value = getattr(record, field_name, None) if column is not None else None
        origin, display = record.provenance, column.display if column is not None else {}
        if isinstance(record, Gpu) and field_name == "memory" and record.memory_provenance is not None:
            # Shown beside the capacity it is sold with, from its own report.
            origin, display = record.memory_provenance, {**display, "sold": record.sold}
        elif isinstance(record, Gpu) and str(field_name).startswith("peak_") and record.peak_provenance is not None:
            origin = record.peak_provenance
        if column is None or column.unit is None or value is None:
            if isinstance(record, Workload) and field_name in TABLES["models"].columns:
                return self.quantity(record.model.id, field_name)
            known = [name for name, c in table.columns.items() if c.unit and getattr(record, name) is not None]
            raise KeyError(unknown(f"quantity of {entry_id!r}", field_name, known))
        return Quantity(
            entry=record.id,
            field=field_name,
            value=value,
            unit=column.unit,
            label=record.name,
            source=origin.source,
            where=origin.where,
            display=display,
        )


def _stage_table(value: Any) -> Any:
    """`stages:` of course.yml: stages by number, each checked on its own, at its own lines (`_load`)."""
    if not isinstance(value, dict) or not value:
        raise ValueError("expected stage numbers, each with a title and a summary: `8: {title: ..., summary: ...}`")
    return value


def _stage_number(value: Any) -> int:
    """A stage's number, its key under `stages:`, told at the key's line by `check_key`: a lesson's `stage:` and its
    folder (stage-8/) name the stage by it."""
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(
            f"got {value!r}; expected the stage's number, a whole number above zero written without quotes (8:, not"
            ' "8":), as a lesson\'s `stage:` and its folder stage-8/ name it'
        )
    return value


_SOURCE_FIELDS: Fields = {
    "title": text,
    "authors": text,
    "cite": text,
    "year": integer,
    "url": optional(web_url),
}
_COURSE_FIELDS: Fields = {
    "mission": list_of(text, empty=False),
    "stages": _stage_table,
}
_STAGE_FIELDS: Fields = {"title": text, "summary": text}
#: Why a mission bullet holds no figure: one typed there was found only on the front door, at the line of its macro.
_MISSION_READ = (
    "a mission bullet is shown on the home page and quoted word for word by its lessons' mission links, where no"
    " figure can be computed"
)
#: Why a stage's text fields, which the syllabus shows, hold no figure: one typed there was found only on the front
#: door, at the line of its macro call.
_STAGE_READ = "a stage's words are shown in the syllabus, where no figure can be computed"


#: Why a stage's title and summary hold no markup: the syllabus, its search entry and a lesson's next steps show
#: them as typed, so markup reaches a reader as its characters.
_STAGE_PLAIN = (
    "a stage's title and summary are plain words, which the syllabus, its search entry and a lesson's next steps"
    " show as typed: write them without <, > or double quotes, and without character references such as &lt;"
)
_STAGE_MARKDOWN = (
    "the syllabus's heading, its search entry and a lesson's next steps show a stage's title as typed: write it in"
    " plain words, without Markdown's *, _, `, [ ](...), ^^ or backslash escapes"
)


def _refuse_markup(where: str, data: Any, clean: Mapping[str, Any]) -> None:
    """`SchemaError` at the line of a stage's title or summary that holds markup (`markup.markup_in`), or of a title
    that Markdown would read otherwise than it is written (`markup.markdown_in`), as a lesson's front matter is
    refused: a stage's words are shown where a lesson's title and description are."""
    for field in ("title", "summary"):
        markup = markup_in(clean[field])
        if markup:
            raise field_error(where, data, field, f"holds {', '.join(map(repr, markup))}; {_STAGE_PLAIN}")
    heading = markdown_in(clean["title"])
    if heading is not None:
        raise field_error(where, data, "title", f"is Markdown that would read {heading!r}; {_STAGE_MARKDOWN}")


def _refuse_typed(where: str, data: Any, clean: Mapping[str, Any], fields: Collection[str], said: str) -> None:
    """`SchemaError` at the line of the first of `fields` of the record `data` whose text types a figure
    (`typed_figures.find_in_text`), as the glossary refuses one in its fields: a list's at the item's own line."""
    for field in fields:
        value = clean[field]
        for index, part in enumerate([value] if isinstance(value, str) else value or []):
            typed = find_in_text(part)
            if not typed:
                continue
            message = f"types {', '.join(map(repr, typed))}; {said}: say it in words"
            if isinstance(value, str):
                raise field_error(where, data, field, message)
            raise item_error(where, data, field, index, message)


def _read(directory: Path, name: str) -> dict[str, Any]:
    where = f"{directory.name}/{name}.yml"
    path = directory / f"{name}.yml"
    try:
        data = load_yaml(read_text(path, where), where)
    except SchemaError as error:
        raise CatalogError(str(error)) from None
    if not isinstance(data, dict):
        raise CatalogError(f"{where}: expected a mapping of entries by id at the top level")
    return data


def _catalog_id(value: Any) -> str:
    """A catalog entry's id (`CATALOG_ID`), told at its key's line by `check_key`."""
    if not isinstance(value, str) or not CATALOG_ID.match(value):
        raise ValueError(f"the id {value!r} should be lower-case words and digits joined by - or .")
    return value


def _memory_provenance(
    where: str, data: Any, sources: Mapping[str, Source], clean: dict[str, Any]
) -> Provenance | None:
    """A GPU entry's `memory_source`, `memory_where` and `memory_quote`, taken out of `clean`.

    A GPU's memory is what CUDA reports, from a report of its own; it comes with the capacity the GPU
    is sold with, which the entry's own source gives.
    """
    source, place, quote = (clean.pop(f"memory_{name}") for name in ("source", "where", "quote"))
    if (clean["memory"] is None) != (clean["sold"] is None):
        message = (
            "sold and memory go together: the capacity the GPU is sold with (80 GB) and the memory CUDA reports"
            " for it (85028896768 B); give both, or neither"
        )
        raise CatalogError(str(record_error(where, data, message)))
    if clean["memory"] is None:
        if source is not None or place is not None or quote is not None:
            message = "memory_source, memory_where and memory_quote describe a memory; give it"
            raise CatalogError(str(record_error(where, data, message)))
        return None
    if source is None or place is None:
        message = (
            "memory needs memory_source and memory_where: the report of the total CUDA gives programs"
            " (deviceQuery's total global memory, PyTorch's total_memory), and the driver it ran under"
        )
        raise CatalogError(str(record_error(where, data, message)))
    return Provenance(sources[source], place, quote)


def _peak_provenance(where: str, data: Any, sources: Mapping[str, Source], clean: dict[str, Any]) -> Provenance | None:
    """A GPU entry's `peak_source`, `peak_where` and `peak_quote`, taken out of `clean`: where its peaks come from
    when that is not the entry's own source."""
    source, place, quote = (clean.pop(f"peak_{name}") for name in ("source", "where", "quote"))
    if source is None and place is None and quote is None:
        return None
    peaks = [name for name in TABLES["gpus"].columns if name.startswith("peak_") and clean.get(name) is not None]
    if source is None or place is None or not peaks:
        message = "peak_source and peak_where go together, and with a peak (peak_bf16_flops, say) they describe"
        raise CatalogError(str(record_error(where, data, message)))
    return Provenance(sources[source], place, quote)


def load_catalog(directory: Path) -> Catalog:
    """Read and validate every catalog file in `directory`.

    Raises:
        CatalogError: a file is missing or malformed, or an entry refers to an unknown one.
    """
    expected = {"sources", "printed", "course", *TABLES}
    for path in sorted(directory.glob("*.yml")):
        try:
            check_file(path, f"{directory.name}/{path.name}")
        except SchemaError as error:
            raise CatalogError(str(error)) from None
    # measured.yml, the engine tier's (tests/engine/records.py), may be missing: a course without the tier.
    found = {path.stem for path in directory.glob("*.yml")} - {"measured"}
    if found != expected:
        raise CatalogError(
            f"{directory.name}/: expected exactly the files {', '.join(sorted(expected))}.yml; "
            f"missing: {sorted(expected - found) or 'none'}, unexpected: {sorted(found - expected) or 'none'}"
        )
    try:
        return _load(directory)
    except SchemaError as error:
        raise CatalogError(str(error)) from None


def _load(directory: Path) -> Catalog:
    folder = directory.name
    sources = {}
    raw_sources = _read(directory, "sources")
    for source_id, data in raw_sources.items():
        where = f"{folder}/sources.yml: {check_key(f'{folder}/sources.yml', raw_sources, source_id, _catalog_id)}"
        sources[source_id] = Source(id=source_id, **check_record(where, data, _SOURCE_FIELDS))
    provenance: Fields = {"source": reference(sources, "source"), "where": text, "quote": optional(text)}
    # A GPU's memory as programs get it comes from a report of its own, not from the datasheet.
    memory_provenance: Fields = {
        "memory_source": optional(reference(sources, "source")),
        "memory_where": optional(text),
        "memory_quote": optional(text),
        "peak_source": optional(reference(sources, "source")),
        "peak_where": optional(text),
        "peak_quote": optional(text),
    }

    records: dict[str, Record] = {}
    tables: dict[str, str] = {}
    for name, table in TABLES.items():
        columns: Fields = {
            column_name: column.check if column.required else optional(column.check)
            for column_name, column in table.columns.items()
        }
        raw = _read(directory, name)
        for entry_id, data in raw.items():
            where = f"{folder}/{name}.yml: {check_key(f'{folder}/{name}.yml', raw, entry_id, _catalog_id)}"
            if entry_id in records:
                message = f"the id is already used in {tables[entry_id]}.yml; ids are catalog-wide"
                raise CatalogError(str(record_error(where, data, message)))
            extra = memory_provenance if name == "gpus" else {}
            clean = check_record(where, data, {**columns, **provenance, **extra})
            for column_name, target in table.references.items():
                if clean[column_name] is not None:
                    refer = reference(
                        {i: r for i, r in records.items() if tables[i] == target}, f"entry of {target}.yml"
                    )
                    try:
                        clean[column_name] = records[refer(clean[column_name])]
                    except ValueError as error:
                        raise CatalogError(str(field_error(where, data, column_name, str(error)))) from None
            origin = Provenance(sources[clean.pop("source")], clean.pop("where"), clean.pop("quote"))
            if extra:
                clean["memory_provenance"] = _memory_provenance(where, data, sources, clean)
                clean["peak_provenance"] = _peak_provenance(where, data, sources, clean)
            records[entry_id] = table.record(id=entry_id, provenance=origin, **clean)
            tables[entry_id] = name

    printed_fields: Fields = {
        "value": positive_amount,
        "unit": check_unit,
        "text": text,
        "source": reference(sources, "source"),
        "where": text,
        "rounding": positive_amount,
    }
    printed = {}
    for figure_id, data in _read(directory, "printed").items():
        clean = check_record(f"{folder}/printed.yml: {figure_id}", data, printed_fields)
        printed[str(figure_id)] = Printed(figure_id=str(figure_id), **{**clean, "source": sources[clean["source"]]})

    raw_course = _read(directory, "course")
    course = check_record(f"{folder}/course.yml", raw_course, _COURSE_FIELDS)
    _refuse_typed(f"{folder}/course.yml", raw_course, course, ("mission",), _MISSION_READ)
    stages = {}
    for number, data in course["stages"].items():
        check_key(f"{folder}/course.yml: stages", course["stages"], number, _stage_number)
        where = f"{folder}/course.yml: stages.{number}"
        clean = check_record(where, data, _STAGE_FIELDS)
        _refuse_typed(where, data, clean, ("title", "summary"), _STAGE_READ)
        _refuse_markup(where, data, clean)
        stages[number] = Stage(number=number, **clean)

    engine: dict[str, Measured] = {}
    if (directory / "measured.yml").is_file():
        for key, data in _read(directory, "measured").items():
            where = f"{folder}/measured.yml: {key}"
            clean = check_record(where, data, _MEASURED_FIELDS)
            if clean["figure"] is not None and clean["course"] == 0:
                raise CatalogError(f"{where}: the course's ratio is 0: no figure scales by it; drop `figure`")
            if (clean["figure"] is None) != (clean["digest"] is None):
                raise CatalogError(f"{where}: a record names a figure exactly when it gives that figure's digest")
            engine[str(key)] = Measured(
                key=str(key),
                figure_id=clean["figure"],
                **{
                    name: clean[name]
                    for name in ("software", "measured", "course", "unit", "test", "differs", "digest")
                },
            )
    measured: dict[str, list[Measured]] = {}
    for record in engine.values():
        if record.figure_id is not None:
            measured.setdefault(record.figure_id, []).append(record)

    return Catalog(
        sources=sources,
        records=records,
        tables=tables,
        printed=printed,
        mission=course["mission"],
        stages=dict(sorted(stages.items())),
        measured={figure_id: tuple(records) for figure_id, records in measured.items()},
        engine=engine,
    )


class PerCatalog(Generic[K, V]):
    """What was computed from one catalog, by key, for as long as the catalog is the same object.

    Whatever is a pure function of the catalog stays true while it is: the build
    keeps the catalog object between `mkdocs serve` rebuilds while the catalog's
    files are unchanged (`build.state`), so that a lesson's edit recomputes none
    of the course's figures. Holding the catalog keeps its identity from being
    reused by another.
    """

    def __init__(self) -> None:
        self._catalog: Catalog | None = None
        self._values: dict[K, V] = {}

    def of(self, catalog: Catalog) -> dict[K, V]:
        """The values computed from `catalog` so far, to read and add to."""
        if catalog is not self._catalog:
            self._catalog, self._values = catalog, {}
        return self._values
