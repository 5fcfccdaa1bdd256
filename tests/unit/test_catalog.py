"""The catalog: what it holds about the sources, and how it refuses malformed files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from macros.catalog import CATALOG_DIR, CatalogError, load_catalog


@pytest.fixture
def catalog_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "catalog"
    shutil.copytree(CATALOG_DIR, copy)
    return copy


def test_gpt2_shape_is_the_papers() -> None:
    catalog = load_catalog()
    # ZeRO Table 4 / GPT-2 Table 2: 48 layers, hidden (d_model) 1600; ZeRO §3.1: 1.5 billion parameters.
    assert catalog.quantity("gpt2-1.5b", "layers").value == 48
    assert catalog.quantity("gpt2-1.5b", "hidden").value == 1600
    assert catalog.quantity("gpt2-1.5b", "parameters").value == 1_500_000_000


def test_zero_dp_limit_is_the_papers() -> None:
    # ZeRO §1: "more than 1.4B parameters on current generation of GPUs with 32 GB memory"
    catalog = load_catalog()
    assert catalog.quantity("zero-dp-limit", "parameters").value == 1_400_000_000
    assert catalog.quantity("zero-dp-limit", "memory").value == 32 * 10**9


def test_every_value_cites_a_source_with_a_place() -> None:
    catalog = load_catalog()
    for entry_id, entry in catalog.entries.items():
        assert entry["source"] in catalog.sources, entry_id
        assert entry["where"].strip(), entry_id


def test_an_unknown_entry_suggests_the_nearest() -> None:
    with pytest.raises(KeyError, match=r"Did you mean 'gpt2-1\.5b'"):
        load_catalog().quantity("gpt2-1.5", "parameters")


def test_an_unknown_field_lists_the_entrys_quantities() -> None:
    with pytest.raises(KeyError, match="Known: hidden, layers, parameters"):
        load_catalog().quantity("gpt2-1.5b", "heads")


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


@pytest.mark.parametrize(
    ("file", "addition", "message"),
    [
        (
            "models.yml",
            "bad:\n  name: x\n  parameters: -5\n  source: zero\n  where: x\n",
            r"models.yml: bad.parameters: must be positive",
        ),
        (
            "models.yml",
            "bad:\n  name: x\n  parameters: 1.5e9\n  source: zero\n  where: x\n",
            r"write large numbers as 1_500_000_000",
        ),
        (
            "models.yml",
            "bad:\n  name: x\n  params: 5\n  source: zero\n  where: x\n",
            r"unknown field\(s\) params; allowed: name, parameters",
        ),
        ("models.yml", "bad:\n  name: x\n  parameters: 5\n  where: x\n", r"models.yml: bad: missing field\(s\) source"),
        (
            "models.yml",
            "bad:\n  name: x\n  parameters: 5\n  source: zer0\n  where: x\n",
            r"unknown entry of sources.yml 'zer0'. Did you mean 'zero'",
        ),
        (
            "gpus.yml",
            "gpt2-1.5b:\n  name: x\n  memory: 5\n  source: zero\n  where: x\n",
            r"gpus.yml: gpt2-1.5b: the id is already used in models.yml",
        ),
        (
            "workloads.yml",
            "bad:\n  name: x\n  model: gpt3\n  source: zero\n  where: x\n",
            r"workloads.yml: bad.model: unknown entry of models.yml 'gpt3'",
        ),
        (
            "printed.yml",
            "x/y:\n  value: 1\n  unit: GB\n  text: x\n  source: zero\n  where: x\n  rounding: 1\n",
            r"printed.yml: x/y.unit: unknown unit 'GB'",
        ),
        ("models.yml", "bad: [1, 2\n", r"models.yml: not valid YAML"),
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


def test_a_workload_needs_its_model(catalog_copy: Path) -> None:
    _append(catalog_copy / "workloads.yml", "bad:\n  name: x\n  devices: 8\n  source: zero\n  where: x\n")
    with pytest.raises(CatalogError, match=r"workloads.yml: bad: missing field\(s\) model"):
        load_catalog(catalog_copy)


def test_a_source_title_is_escaped_and_linked_in_markdown() -> None:
    source = load_catalog().sources["zero"]
    assert source.title_markdown == (
        "[ZeRO: Memory Optimizations Toward Training Trillion Parameter Models](<https://arxiv.org/abs/1910.02054v3>)"
    )
    assert load_catalog().sources["course"].title_markdown.startswith("Scale by the Numbers")
