"""The catalog: what it holds about the sources, and how it refuses malformed files."""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from macros.data.catalog import CatalogError, Model, Workload, capacity, load_catalog
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


def test_a_gpus_memory_is_what_cuda_gives_programs_shown_beside_what_it_is_sold_with() -> None:
    # KSETA 2022's deviceQuery of a Tesla V100-SXM2-32GB: "32510 MBytes (34089730048 bytes)", under the 32 GiB
    # that nvidia-smi shows (NCAR: "0MiB / 32768MiB"); ZeRO §1 calls it a GPU "with 32 GB memory".
    memory = catalog().quantity("v100-32gb", "memory")
    assert (memory.value, memory.source.id) == (34_089_730_048, "kseta-22-cuda")
    assert memory.value < catalog().quantity("v100-32gb-nvidia-smi", "memory").value == 32 * 2**30
    assert memory.display == {"nominal": True, "sold": 32 * 10**9}
    assert catalog().quantity("v100-32gb", "sold").value == 32 * 10**9


def test_cudas_total_is_nvidia_smis_total_less_what_the_driver_reserves() -> None:
    # nvidia-smi -q of the same servers (thamada/nvidia-smi): an RTX 4090 under driver 550.127.05, "Total :
    # 24564 MiB", "Reserved : 354 MiB"; an A100-SXM4-80GB under 555.42.02, "Total : 81920 MiB", "Reserved :
    # 763 MiB". nvidia-smi counts whole MiB, so CUDA's exact total lies within a MiB of the difference.
    for gpu, total, reserved in (("rtx-4090", 24_564, 354), ("a100-80gb", 81_920, 763)):
        memory = catalog().quantity(gpu, "memory")
        assert abs(Fraction(memory.value) - (total - reserved) * 2**20) < 2**20, gpu


def test_a_gpus_memory_has_its_own_report_and_driver() -> None:
    # deviceQuery on an AWS p5.48xlarge, driver 570.133.20: "81090 MBytes (85028896768 bytes)", where the same
    # machine's nvidia-smi shows "81559MiB"; on an AWS p4's A100 40 GB, driver 535: "40339 MBytes (42298834944
    # bytes)". The A100's peak rates are still its datasheet's.
    h100 = catalog().quantity("h100-sxm5", "memory")
    assert (h100.value, h100.source.id) == (85_028_896_768, "zenn-rhel-h100")
    assert catalog().quantity("h100-sxm5-nvidia-smi", "memory").value == 81_559 * 2**20
    a100 = catalog().quantity("a100-40gb", "memory")
    assert (a100.value, a100.source.id) == (42_298_834_944, "bottlerocket-3873")
    assert "driver 535" in a100.where and "driver 570.133.20" in h100.where
    assert catalog().quantity("a100-40gb", "peak_bf16_flops").source.id == "nvidia-ampere"


@pytest.mark.parametrize("text", ["32 GB", "32", "32.5 GiB", "GiB", "32 bytes"])
def test_a_capacity_must_be_whole_binary_units_or_bytes(text: str) -> None:
    with pytest.raises(ValueError, match="expected a capacity in binary units, like 32 GiB, or in bytes"):
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
            r"models.yml:\d+: bad.parameters: got -5; expected a whole number above zero",
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
        (
            "models.yml",
            "bad:\n  name: x\n  parameters: 5\n  where: x\n",
            r"models.yml:\d+: bad: missing field\(s\) source",
        ),
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
            r"gpus.yml:\d+: gpt2-1.5b: the id is already used in models.yml",
        ),
        ("gpus.yml", f"bad:\n{ENTRY}  memory: 32_000_000_000\n", r"bad.memory: got 32000000000; expected a capacity"),
        ("gpus.yml", f"bad:\n{ENTRY}  memory: 5 GiB\n", r"gpus.yml:\d+: bad: sold and memory go together"),
        ("gpus.yml", f"bad:\n{ENTRY}  sold: 80 GiB\n", r"bad.sold: got '80 GiB'; expected the capacity a GPU is sold"),
        (
            "gpus.yml",
            f"bad:\n{ENTRY}  sold: 80 GB\n  memory: 5 GiB\n  memory_source: zero\n",
            r"gpus.yml:\d+: bad: memory needs memory_source and memory_where: the report of the total CUDA gives",
        ),
        (
            "gpus.yml",
            f"bad:\n{ENTRY}  memory_where: x\n",
            r"gpus.yml:\d+: bad: memory_source, memory_where and memory_quote describe a memory; give it",
        ),
        ("gpus.yml", f"bad:\n{ENTRY}  peak_where: x\n", r"gpus.yml:\d+: bad: peak_source and peak_where go together"),
        (
            "workloads.yml",
            f"bad:\n{ENTRY}  model: gpt3\n",
            r"workloads.yml:\d+: bad.model: unknown entry of models.yml 'gpt3'",
        ),
        ("workloads.yml", f"bad:\n{ENTRY}  model: v100-32gb\n", r"bad.model: unknown entry of models.yml 'v100-32gb'"),
        ("workloads.yml", f"bad:\n{ENTRY}  devices: 8\n", r"workloads.yml:\d+: bad: missing field\(s\) model"),
        (
            "printed.yml",
            "x/y:\n  value: 1\n  unit: GB\n  text: x\n  source: zero\n  where: x\n  rounding: 1\n",
            r"printed.yml:\d+: x/y.unit: unknown unit 'GB'",
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


@pytest.mark.parametrize("entry_id", ["__palette", "Bad Id", "gpt2-"])
def test_an_id_that_is_no_catalog_id_is_refused_at_its_keys_line(catalog_copy: Path, entry_id: str) -> None:
    # Attack round 9, F17: the glossary's ids and the catalog's were refused with no line.
    path = catalog_copy / "models.yml"
    _append(path, f"{entry_id}:\n{ENTRY}  parameters: 5\n")
    line = 1 + path.read_text(encoding="utf-8").splitlines().index(f"{entry_id}:")
    with pytest.raises(CatalogError) as raised:
        load_catalog(catalog_copy)
    assert str(raised.value) == (
        f"catalog/models.yml:{line}: {entry_id}: the id {entry_id!r} should be lower-case words and digits joined by"
        " - or ."
    )


def test_a_missing_file_is_named(catalog_copy: Path) -> None:
    (catalog_copy / "gpus.yml").unlink()
    with pytest.raises(CatalogError, match=r"missing: \['gpus'\]"):
        load_catalog(catalog_copy)


def test_a_stage_needs_a_title_and_a_summary(catalog_copy: Path) -> None:
    path = catalog_copy / "course.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("    summary: How data", "    summery: How data", 1))
    with pytest.raises(CatalogError, match=r"course.yml:\d+: stages.4: unknown field\(s\) summery"):
        load_catalog(catalog_copy)


@pytest.mark.parametrize(
    ("key", "shown", "got"),
    [('"8"', "8", "'8'"), ("eight", "eight", "'eight'"), ("0", "0", "0"), ("8.0", "8.0", "8.0")],
)
def test_a_stage_key_that_is_no_number_is_refused_at_its_line(
    catalog_copy: Path, key: str, shown: str, got: str
) -> None:
    # Attack round 9, F19: `"8":` was refused with no line, and a fix about writing large numbers.
    path = catalog_copy / "course.yml"
    path.write_text(path.read_text(encoding="utf-8").replace("\n  8:\n", f"\n  {key}:\n", 1), encoding="utf-8")
    line = 1 + path.read_text(encoding="utf-8").splitlines().index(f"  {key}:")
    with pytest.raises(CatalogError) as raised:
        load_catalog(catalog_copy)
    assert str(raised.value).startswith(f"catalog/course.yml:{line}: stages.{shown}: got {got}; expected")
    assert "large ones" not in str(raised.value) and "the stage's number" in str(raised.value)


def test_stages_that_are_no_table_of_stages_are_refused_at_their_line(catalog_copy: Path) -> None:
    (catalog_copy / "course.yml").write_text("mission: [Plan a run.]\nstages: []\n", encoding="utf-8")
    with pytest.raises(CatalogError, match=r"^catalog/course.yml:2: stages: expected stage numbers, each with a title"):
        load_catalog(catalog_copy)


WRONG_TEXTS = [
    (
        "sources.yml",
        "  cite: Radford et al. 2019\n",
        "  cite: Radford et al. 2019 {{ 7 * 7 }}\n",
        "gpt2.cite",
        "{{",
        "got ",
    ),
    (
        "course.yml",
        "parallel layout for your own model and cluster, and defends it with numbers.",
        "parallel layout for your own model and cluster, and defends it with numbers. {% raw %}",
        "stages.8.summary",
        "{%",
        "got ",
    ),
    (
        "course.yml",
        "parallel layout for your own model and cluster, and defends it with numbers.",
        "parallel layout for your own model and cluster, and defends it with numbers on 80 GB cards.",
        "stages.8.summary",
        "80 GB",
        "types '80 GB'; ",
    ),
    # Attack round 9, F18: a mission bullet's figure was told at docs/index.md's {{ mission() }} line.
    (
        "course.yml",
        "splits a batch across devices",
        "splits a batch across 80 GB devices",
        "mission: item 3",
        "80 GB",
        "types '80 GB'; ",
    ),
    # A stage's title or summary with markup, which the syllabus, its search entry and a lesson's next steps show
    # as typed (attack round 9, F20: "Planning *a* run" built, and the syllabus showed its asterisks).
    *(
        ("course.yml", written, replaced, f"stages.8.{field}", replaced, message)
        for written, replaced, field, message in [
            (
                "title: Planning a run",
                "title: Planning *a* run",
                "title",
                "is Markdown that would read 'Planning a run'",
            ),
            ("title: Planning a run", "title: Planning `a` run", "title", "is Markdown that would read"),
            ("title: Planning a run", "title: Planning <b>a</b> run", "title", "holds '<', '>'"),
            ("title: Planning a run", "title: Planning &amp; running", "title", "holds '&'"),
            ("summary: A procedure that", 'summary: A "procedure" that', "summary", "holds '\"'"),
            ("summary: A procedure that", "summary: A <em>procedure</em> that", "summary", "holds '<', '>'"),
        ]
    ),
]


@pytest.mark.parametrize(("file", "written", "replaced", "field", "marker", "message"), WRONG_TEXTS)
def test_a_text_field_a_page_cannot_show_is_refused_at_its_line(
    catalog_copy: Path, file: str, written: str, replaced: str, field: str, marker: str, message: str
) -> None:
    path = catalog_copy / file
    source = path.read_text(encoding="utf-8")
    assert written in source
    path.write_text(source.replace(written, replaced, 1), encoding="utf-8")
    line = 1 + next(n for n, text in enumerate(path.read_text(encoding="utf-8").splitlines()) if marker in text)
    with pytest.raises(CatalogError) as raised:
        load_catalog(catalog_copy)
    assert str(raised.value).startswith(f"catalog/{file}:{line}: {field}: {message}")
    assert message != "got " or "expected text without template syntax" in str(raised.value)
