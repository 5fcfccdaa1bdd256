"""Figure kinds over the catalog: their values and words, their ids, their element and their record."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from macros import model
from macros.data.catalog import load_catalog
from macros.data.quantities import Display, display_quantity
from macros.figures.figure import Computed, Figure, FigureLog, render_html, value_text
from macros.figures.kinds import KINDS, FigureKindError, check_printed, kind_of
from tests.conftest import catalog, course


def figure(name: str, *arguments: object) -> Figure:
    return KINDS[name].figure(catalog(), *arguments)


def test_gpt2_model_states_carry_the_papers_printed_value() -> None:
    states = figure("model_states", "gpt2-1.5b")
    assert (states.id, states.value, states.unit) == ("model-states/gpt2-1.5b", 24 * 10**9, "B")
    assert states.printed is not None and states.printed.text == "a memory requirement of at least 24 GB"
    assert states.explanation.startswith("16 bytes × 1.5 billion parameters")


def test_a_recipe_changes_the_bytes_per_parameter() -> None:
    # bf16 parameters (2) + fp32 gradients, master copy, momentum and variance (4 each).
    assert figure("bytes_per_parameter", "all", "bf16-adam").value == 18
    assert figure("model_states", "gpt2-1.5b", "all", "bf16-adam").value == 18 * 1_500_000_000


def test_trailing_defaults_do_not_change_a_figures_id() -> None:
    assert figure("model_states", "gpt2-1.5b", "all", "mixed-adam").id == "model-states/gpt2-1.5b"
    assert figure("model_states", "gpt2-1.5b", "fp16_parameters").id == "model-states/gpt2-1.5b/fp16_parameters"
    assert figure("bytes_per_parameter").id == "bytes-per-parameter"


def test_activations_follow_zeros_formula_over_the_catalog_workload() -> None:
    activations = figure("activations", "zero-gpt2-activations")
    assert activations.value == 2 * 12 * 1600 * 32 * 1024 * 48
    assert [q.field for q in activations.computed.inputs] == ["hidden", "layers", "batch", "sequence"]


def test_activations_by_tensor_follow_korthikantis_equation_over_the_workload() -> None:
    # sbh(34 + 5as/h) per layer, with GPT-2's 25 heads: 5 × 25 × 1024 / 1600 = 80, times 48 layers.
    counted = figure("activations_by_tensor", "zero-gpt2-activations")
    assert (counted.id, counted.unit) == ("activations-by-tensor/zero-gpt2-activations", "B")
    assert counted.value == 1024 * 32 * 1600 * (34 + 80) * 48
    assert [q.field for q in counted.computed.inputs] == ["sequence", "batch", "hidden", "heads", "layers"]
    assert counted.explanation.startswith("(34 + 5 × 25 heads × 1,024 / 1,600 = 114) bytes × sequence 1,024")


def test_activations_by_tensor_with_full_recomputation_keep_each_layers_input() -> None:
    # Table 2: sbh(2) per layer; one sequence of 1,024 tokens, hidden size 1,600, 48 layers.
    kept = figure("activations_by_tensor", "zero-gpt2-activations-mb1", "full")
    assert (kept.id, kept.value) == ("activations-by-tensor/zero-gpt2-activations-mb1/full", 2 * 1024 * 1600 * 48)


def test_the_activation_counts_sit_side_by_side_for_a_workload() -> None:
    # GPT-2 at sequence 1,024, batch 32: ZeRO's 24 bytes per token and hidden unit against Korthikanti's
    # 34 + 5 × 25 × 1024 / 1600 = 114, and 34 with a fused attention kernel.
    tokens_hidden_layers = 1024 * 32 * 1600 * 48
    zero = figure("activations_counted", "zero-gpt2-activations", "zero")
    stored = figure("activations_counted", "zero-gpt2-activations", "stored-scores")
    fused = figure("activations_counted", "zero-gpt2-activations", "fused-attention")
    assert (zero.value, stored.value, fused.value) == tuple(n * tokens_hidden_layers for n in (24, 114, 34))
    assert zero.id == "activations-counted/zero-gpt2-activations/zero"
    assert zero.printed is not None and zero.printed.value == 60_000_000_000  # ZeRO §3.2's "about 60 GB"
    ratio = figure("activations_over_zero", "zero-gpt2-activations", "stored-scores")
    assert (ratio.value, ratio.unit, ratio.id) == (
        Fraction(19, 4),
        "1",
        "activations-over-zero/zero-gpt2-activations/stored-scores",
    )


def test_the_largest_segment_holds_whole_layers() -> None:
    # GPT-2's 48 layers in √48 ≈ 7 segments: ⌈48/7⌉ = 7 layers in the largest, 7 + 7 of 48 kept.
    largest = figure("largest_segment", "gpt2-1.5b")
    assert (largest.id, largest.value) == ("largest-segment/gpt2-1.5b", 7)
    assert figure("checkpointed_share", "gpt2-1.5b").value == Fraction(14, 48)


def test_the_checkpointed_peak_adds_one_recomputed_layer_to_the_stored_inputs() -> None:
    # 2sbhL stored (§5) + sbh(34 + 80) for the layer being recomputed (Equation 1), at micro-batch 1.
    peak = figure("checkpointed_peak", "zero-gpt2-activations-mb1")
    assert (peak.id, peak.unit) == ("checkpointed-peak/zero-gpt2-activations-mb1", "B")
    assert peak.value == 2 * 1024 * 1600 * 48 + 1024 * 1600 * (34 + 80)
    assert "for the one layer being recomputed" in peak.explanation


def test_activations_by_tensor_need_the_models_heads(tmp_path: Path) -> None:
    shutil.copytree(course().catalog_dir, tmp_path, dirs_exist_ok=True)
    models = tmp_path / "models.yml"
    models.write_text(models.read_text().replace("  heads: 25\n", ""))
    with pytest.raises(KeyError, match=r"unknown quantity of 'gpt2-1.5b' 'heads'"):
        KINDS["activations_by_tensor"].figure(load_catalog(tmp_path), "zero-gpt2-activations")


def test_allreduce_time_is_a_lower_bound_over_the_link() -> None:
    # 2 × 7/8 × 3 GB = 5.25 GB over 32 GB/s each way.
    assert figure("allreduce_seconds", "gpt2-ring-pcie").value == Fraction(5_250_000_000, 32_000_000_000)


def test_fp32_gradients_double_what_the_ring_sends() -> None:
    # 2 × 7/8 × 4 bytes × 1.5 billion = 10.5 GB.
    assert figure("allreduce_bytes", "gpt2-ring-pcie", "fp32").value == 10_500_000_000


def test_memory_left_takes_the_claims_own_memory_or_what_a_gpu_gives_programs() -> None:
    assert figure("memory_left", "zero-dp-limit").value == 32 * 10**9 - 16 * 1_400_000_000
    # A V100 32 GB: 32 GiB in nvidia-smi's total, 34,089,730,048 bytes to programs (deviceQuery, CUDA 11.4).
    assert figure("memory_left", "zero-dp-limit", "v100-32gb-nvidia-smi").value == 32 * 2**30 - 16 * 1_400_000_000
    assert figure("memory_left", "zero-dp-limit", "v100-32gb").value == 34_089_730_048 - 16 * 1_400_000_000


def test_memory_left_counts_the_recipe_it_is_given() -> None:
    # fp32 SGD with momentum keeps 4 + 4 + 4 bytes per parameter; CUDA gives programs 85,028,896,768 bytes of an
    # H100 80GB (deviceQuery on an AWS p5.48xlarge, driver 570.133.20).
    left = figure("memory_left", "example-7b", "h100-sxm5", "fp32-sgd-momentum")
    assert left.value == 85_028_896_768 - 12 * 7_000_000_000
    assert left.id == "memory-left/example-7b/h100-sxm5/fp32-sgd-momentum"


def test_memory_left_refuses_a_model_that_does_not_fit(tmp_path: Path) -> None:
    shutil.copytree(course().catalog_dir, tmp_path, dirs_exist_ok=True)
    claim = "too-big:\n  name: x\n  parameters: 2_500_000_000\n  memory: 32_000_000_000\n  source: zero\n  where: x\n"
    (tmp_path / "claims.yml").write_text((tmp_path / "claims.yml").read_text() + claim)
    with pytest.raises(ValueError, match=r"the model states \(40 GB\) do not fit in 32 GB"):
        KINDS["memory_left"].figure(load_catalog(tmp_path), "too-big")


def test_a_units_size_is_a_figure() -> None:
    assert figure("unit", "GB").value == 10**9
    assert figure("unit", "GiB").value == 2**30


def test_a_workload_id_must_name_a_workload() -> None:
    with pytest.raises(KeyError, match=r"unknown entry of workloads\.yml 'gpt2-1\.5b'"):
        figure("activations", "gpt2-1.5b")


def test_a_kind_says_how_to_call_it() -> None:
    with pytest.raises(FigureKindError, match=r"call it as model_states\(entry, state='all', recipe='mixed-adam'\)"):
        figure("model_states")


def test_an_id_read_backwards_gives_the_figure_again() -> None:
    for figure_id in ("model-states/gpt2-1.5b/fp16_parameters", "memory-left/zero-dp-limit/v100-32gb", "unit/GB"):
        kind = kind_of(figure_id)
        assert kind.figure(catalog(), *kind.arguments(figure_id)).id == figure_id


def test_every_printed_value_names_a_figure_the_registry_computes() -> None:
    check_printed(catalog())


@pytest.mark.parametrize(
    ("addition", "message"),
    [
        (
            "model-states/gpt9:\n",
            r"printed.yml: model-states/gpt9: names no figure the course computes: unknown catalog entry 'gpt9'",
        ),
        ("modelstates/gpt2-1.5b:\n", r"no figure kind makes ids starting 'modelstates'"),
        ("model-states/gpt2-1.5b/all:\n", r"that figure's id is 'model-states/gpt2-1.5b'; key it so"),
    ],
)
def test_a_printed_key_that_names_no_figure_is_refused(tmp_path: Path, addition: str, message: str) -> None:
    shutil.copytree(course().catalog_dir, tmp_path, dirs_exist_ok=True)
    entry = "  value: 1\n  unit: B\n  text: x\n  source: zero\n  where: x\n  rounding: 1\n"
    (tmp_path / "printed.yml").write_text((tmp_path / "printed.yml").read_text() + addition + entry)
    with pytest.raises(FigureKindError, match=message):
        check_printed(load_catalog(tmp_path))


def test_the_element_is_the_one_the_contract_specifies() -> None:
    states = figure("model_states", "gpt2-1.5b")
    span = BeautifulSoup(render_html(states, display_quantity(states.value, "B")), "html.parser").span
    assert span is not None
    assert span["class"] == ["fig"]
    assert span["data-fig-id"] == "model-states/gpt2-1.5b"
    assert span["data-value"] == "24000000000"
    assert span["data-unit"] == "B"
    assert span["title"] == states.explanation
    assert span.text == "24 GB"


def test_the_element_escapes_what_it_shows() -> None:
    odd = Figure("x", Computed(1, "1", "f", 'a "quote" & <tag>'))
    html = render_html(odd, Display("<b>1</b>", Fraction(1), ""))
    assert "<b>" not in html and "&lt;b&gt;1&lt;/b&gt;" in html and "&quot;quote&quot;" in html


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (24 * 10**9, "24000000000"),
        (Fraction(21, 128), "0.1640625"),
        (Fraction(4, 2), "2"),
        (Fraction(25, 2), "12.5"),
        (Fraction(10**31, 3), "10000000000000000000000000000000/3"),
        (Fraction(1, 3), "1/3"),
    ],
)
def test_value_text_is_exact(value: Fraction, text: str) -> None:
    assert value_text(value) == text


def test_the_log_writes_one_record_per_page_figure_and_display(tmp_path: Path) -> None:
    log = FigureLog()
    states = figure("model_states", "gpt2-1.5b")
    shown = display_quantity(states.value, "B")
    log.add("b.md", "b/", states, shown)
    log.add("a.md", "a/", states, shown)
    log.add("a.md", "a/", states, shown)
    log.write(tmp_path / "figures.json")
    records = json.loads((tmp_path / "figures.json").read_text())
    assert [r["page"] for r in records] == ["a.md", "b.md"]
    assert (records[0]["value"], records[0]["display_unit"], records[0]["display_factor"]) == (
        "24000000000",
        "GB",
        "1000000000",
    )
    assert records[0]["inputs"][0] == {
        "entry": "gpt2-1.5b",
        "field": "parameters",
        "value": "1500000000",
        "unit": "param",
        "source": "zero",
        "where": catalog().model("gpt2-1.5b").provenance.where,
    }
    assert records[0]["printed"]["value"] == "24000000000"


@pytest.mark.parametrize(
    ("workload", "part", "expected"),
    [
        # fp32 Adam's four states, 4 bytes each per parameter, for ZeRO's round 1.5 billion.
        ("gpt2-batch-1", "fp32_parameters", 4 * 1_500_000_000),
        ("gpt2-batch-8", "fp32_variance", 4 * 1_500_000_000),
        # ZeRO §3.2's 12 × hidden × batch × sequence × layers values, at 4 bytes in fp32: twice its "60 GB".
        ("zero-gpt2-activations", "activations", 4 * 12 * 1600 * 32 * 1024 * 48),
        ("gpt2-batch-1", "activations", 4 * 12 * 1600 * 1 * 1024 * 48),
    ],
)
def test_a_steps_parts_are_the_recipes_states_and_the_batchs_activations(
    workload: str, part: str, expected: int
) -> None:
    shown = figure("step_bytes", workload, part, "fp32-adam", "fp32")
    assert shown.value == expected and shown.unit == "B"
    assert shown.id == f"step-bytes/{workload}/{part}/fp32-adam/fp32"


def test_a_steps_parts_add_up_to_its_model_states_and_activations() -> None:
    parts = [*model.RECIPES["fp32-adam"].states, "activations"]
    total = sum(figure("step_bytes", "gpt2-batch-8", part, "fp32-adam", "fp32").value for part in parts)
    states = figure("model_states", "gpt2-1.5b", "all", "fp32-adam").value
    assert total == states + figure("activations", "gpt2-batch-8", "fp32").value


def test_a_step_has_no_part_all_nor_a_state_of_another_recipe() -> None:
    for part in ("all", "fp16_parameters"):
        with pytest.raises(KeyError, match="known: fp32_parameters, fp32_gradients, fp32_momentum, fp32_variance"):
            figure("step_bytes", "gpt2-batch-1", part, "fp32-adam")
