"""The catalog: what it holds about the sources, and how it refuses malformed files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from macros.catalog import CatalogError, Model, Workload, capacity, load_catalog
from tests.conftest import catalog, course


@pytest.fixture
def catalog_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "catalog"
    shutil.copytree(course().catalog_dir, copy)
    return copy


def test_gpt2_shape_is_the_papers() -> None:
    # ZeRO Table 4 / GPT-2 Table 2: 48 layers, hidden (d_model) 1600; ZeRO §3.1: 1.5 billion parameters.
    gpt2 = catalog().model("gpt2-1.5b")
    assert (gpt2.layers, gpt2.hidden, gpt2.parameters) == (48, 1600, 1_500_000_000)


def test_zero_dp_limit_is_the_papers_in_its_own_decimal_gigabytes() -> None:
    # ZeRO §1: "more than 1.4B parameters on current generation of GPUs with 32 GB memory"
    assert catalog().quantity("zero-dp-limit", "parameters").value == 1_400_000_000
    assert catalog().quantity("zero-dp-limit", "memory").value == 32 * 10**9


def test_a_gpus_capacity_is_binary_and_displays_as_sold() -> None:
    memory = catalog().quantity("v100-32gb", "memory")
    assert memory.value == 32 * 2**30 == 34_359_738_368
    assert memory.display == {"nominal": True}


@pytest.mark.parametrize("text", ["32 GB", "32", "32.5 GiB", "GiB"])
def test_a_capacity_must_be_whole_binary_units(text: str) -> None:
    with pytest.raises(ValueError, match="expected a capacity in binary units, like 32 GiB"):
        capacity(text)


def test_a_workloads_model_is_its_record() -> None:
    workload = catalog().workload("gpt2-ring-pcie")
    assert isinstance(workload, Workload) and isinstance(workload.model, Model)
    assert workload.model is catalog().model("gpt2-1.5b")
    assert workload.interconnect is not None and workload.interconnect.id == "pcie-gen4-x16"


def test_a_workload_answers_for_its_models_quantities() -> None:
    assert catalog().quantity("gpt2-ring-pcie", "parameters").entry == "gpt2-1.5b"


def test_every_value_cites_a_source_with_a_place() -> None:
    for record in catalog().records.values():
        assert record.provenance.source.id in catalog().sources, record.id
        assert record.provenance.where.strip(), record.id


def test_an_unknown_entry_suggests_the_nearest() -> None:
    with pytest.raises(KeyError, match=r"Did you mean 'gpt2-1\.5b'"):
        catalog().quantity("gpt2-1.5", "parameters")


def test_an_unknown_field_lists_the_entrys_quantities() -> None:
    with pytest.raises(KeyError, match="Known: heads, hidden, layers, parameters"):
        catalog().quantity("gpt2-1.5b", "sequence")


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


ENTRY = "  name: x\n  source: zero\n  where: x\n"


@pytest.mark.parametrize(
    ("file", "addition", "message"),
    [
        (
            "models.yml",
            f"bad:\n{ENTRY}  parameters: -5\n",
            r"models.yml: bad.parameters: got -5; expected a whole number above zero",
        ),
        ("models.yml", f"bad:\n{ENTRY}  parameters: 1.5e9\n", r"bad.parameters: got '1.5e9'; expected a whole number"),
        (
            "models.yml",
            f"bad:\n{ENTRY}  parameters: 5\n  layers: 48.5\n",
            r"bad.layers: got 48.5; expected a whole number",
        ),
        (
            "models.yml",
            f"bad:\n{ENTRY}  parameters: 5\n  layers: 48.0\n",
            r"bad.layers: got 48.0; expected a whole number: write it without",
        ),
        ("models.yml", f"bad:\n{ENTRY}  parameters: .nan\n", r"bad.parameters: got nan; expected a whole number"),
        (
            "interconnects.yml",
            f"bad:\n{ENTRY}  bandwidth_per_direction: .inf\n",
            r"got inf; expected a finite number above zero",
        ),
        (
            "workloads.yml",
            f"bad:\n{ENTRY}  model: gpt2-1.5b\n  devices: 8.5\n",
            r"bad.devices: got 8.5; expected a whole number",
        ),
        ("models.yml", f"bad:\n{ENTRY}  params: 5\n", r"unknown field\(s\) params; allowed: name, parameters"),
        ("models.yml", "bad:\n  name: x\n  parameters: 5\n  where: x\n", r"models.yml: bad: missing field\(s\) source"),
        (
            "models.yml",
            "bad:\n  name: x\n  parameters: 5\n  source: zer0\n  where: x\n",
            r"unknown source 'zer0'. Did you mean 'zero'",
        ),
        (
            "models.yml",
            f"bad:\n{ENTRY}  parameters: 5\n  parameters: 6\n",
            r"the key 'parameters' is given twice \(lines \d+ and \d+\)",
        ),
        ("models.yml", f"gpt2-1.5b:\n{ENTRY}  parameters: 5\n", r"the key 'gpt2-1.5b' is given twice"),
        (
            "gpus.yml",
            f"gpt2-1.5b:\n{ENTRY}  memory: 5 GiB\n",
            r"gpus.yml: gpt2-1.5b: the id is already used in models.yml",
        ),
        ("gpus.yml", f"bad:\n{ENTRY}  memory: 32_000_000_000\n", r"bad.memory: got 32000000000; expected a capacity"),
        (
            "workloads.yml",
            f"bad:\n{ENTRY}  model: gpt3\n",
            r"workloads.yml: bad.model: unknown entry of models.yml 'gpt3'",
        ),
        ("workloads.yml", f"bad:\n{ENTRY}  model: v100-32gb\n", r"bad.model: unknown entry of models.yml 'v100-32gb'"),
        ("workloads.yml", f"bad:\n{ENTRY}  devices: 8\n", r"workloads.yml: bad: missing field\(s\) model"),
        (
            "printed.yml",
            "x/y:\n  value: 1\n  unit: GB\n  text: x\n  source: zero\n  where: x\n  rounding: 1\n",
            r"printed.yml: x/y.unit: unknown unit 'GB'",
        ),
        (
            "sources.yml",
            "bad:\n  title: t\n  authors: a\n  cite: c\n  year: 2020\n  url: //evil.example/x\n",
            r"bad.url: got '//evil.example/x'; expected an address starting with https://",
        ),
        (
            "sources.yml",
            "bad:\n  title: t\n  authors: a\n  cite: c\n  year: 2020\n  url: javascript:alert(1)\n",
            r"sources.yml:\d+: bad.url: holds a javascript: address, which would run script",
        ),
        ("models.yml", "Bad Id:\n  name: x\n", r"the id 'Bad Id' should be lower-case words"),
        ("models.yml", "bad: [1, 2\n", r"models.yml:\d+: not valid YAML"),
    ],
)
def test_a_malformed_file_is_refused_with_the_fix(catalog_copy: Path, file: str, addition: str, message: str) -> None:
    _append(catalog_copy / file, addition)
    with pytest.raises(CatalogError, match=message):
        load_catalog(catalog_copy)


def test_a_missing_file_is_named(catalog_copy: Path) -> None:
    (catalog_copy / "gpus.yml").unlink()
    with pytest.raises(CatalogError, match=r"missing: \['gpus'\]"):
        load_catalog(catalog_copy)


def test_a_stage_needs_a_title_and_a_summary(catalog_copy: Path) -> None:
    path = catalog_copy / "course.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("    summary: How data", "    summery: How data", 1))
    with pytest.raises(CatalogError, match=r"course.yml: stages.4: unknown field\(s\) summery"):
        load_catalog(catalog_copy)
