"""The calculator's arithmetic in Python (macros/pictures/calculator.py): the oracle the page is held to."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from macros import model
from macros.data.typed_figures import typed_figures
from macros.pictures.calculator import MESSAGES, calculator_config, calculator_html, evaluate
from tests.checks import attribute, one
from tests.conftest import catalog

CONFIG = calculator_config(catalog())
ZERO = {"model": "custom", "parameters": "7.5", "recipe": "mixed-adam", "gpu": "v100-32gb", "devices": "64"}


@pytest.mark.parametrize(("stage", "gigabytes"), [("0", 120), ("1", Fraction("31.40625")), ("3", Fraction("1.875"))])
def test_a_typed_count_gives_zeros_figure_1(stage: str, gigabytes: Fraction) -> None:
    result = evaluate(CONFIG, {**ZERO, "stage": stage})
    assert result["problems"] == {} and result["total"] == gigabytes * 10**9


def test_activations_are_korthikantis_count_at_the_recipes_bytes_per_value() -> None:
    """GPT-2 1.5B in fp32 Adam, batch 8 of 1,024 tokens: every value of Equation 1's count at 4 bytes, its masks
    at 1, more than an A100's 40 GiB (Lesson 4's table has the step's model states and activations not fit)."""
    inputs = {"model": "gpt2-1.5b", "recipe": "fp32-adam", "gpu": "a100-40gb", "devices": "1", "stage": "0"}
    result = evaluate(CONFIG, {**inputs, "batch": "8", "sequence": "1024", "recompute": "none"})
    s, b, h, a, layers = 1024, 8, 1600, 25, 48
    # §4.1 at 2 bytes a value: 32 bytes of values and 2 of masks per s·b·h, 4 and 1 per a·s²·b.
    assert result["bytes"]["activations"] == layers * (s * b * h * (32 * 2 + 2) + a * s * s * b * (4 * 2 + 1))
    assert result["fits"] is False


def test_lesson_10s_llama_2_7b_without_stored_scores_keeps_34sbh_a_layer() -> None:
    inputs = {"model": "llama-2-7b", "recipe": "bf16-adam", "gpu": "h100-sxm5", "devices": "8", "stage": "3"}
    result = evaluate(CONFIG, {**inputs, "batch": "1", "sequence": "4096", "recompute": "selective"})
    assert result["bytes"]["activations"] == 32 * 34 * 4096 * 1 * 4096


def test_what_a_layer_keeps_is_asked_only_with_a_batch() -> None:
    assert evaluate(CONFIG, {**ZERO, "stage": "1"})["problems"] == {}
    result = evaluate(CONFIG, {**ZERO, "model": "gpt2-1.5b", "stage": "1", "batch": "1", "sequence": "8"})
    assert result["problems"] == {"recompute": MESSAGES["pick"]}


@pytest.mark.parametrize(
    ("typed", "parameters"),
    [
        ("1,500", 1_500 * 10**9),
        ("1,500.5", 1_500_500_000_000),
        ("\ufeff7.5", 7_500_000_000),
        ("7.5\u200b ", 7_500_000_000),
    ],
)
def test_a_count_is_read_with_its_thousands_and_without_what_pasting_adds(typed: str, parameters: int) -> None:
    result = evaluate(CONFIG, {**ZERO, "parameters": typed, "devices": "1", "stage": "0"})
    assert result["problems"] == {} and result["total"] == 16 * parameters


def test_fits_compares_with_the_memory_the_gpu_gives_programs() -> None:
    # A V100 32 GB gives programs 34,089,730,048 bytes (gpus.yml, deviceQuery under CUDA driver 11.4), less than
    # its 32 GiB: 16 bytes × 2,130,608,128 parameters is exactly that, and fits; one parameter more does not.
    assert evaluate(CONFIG, {**ZERO, "parameters": "2.130608128", "devices": "1", "stage": "0"})["fits"] is True
    assert evaluate(CONFIG, {**ZERO, "parameters": "2.130608129", "devices": "1", "stage": "0"})["fits"] is False


@pytest.mark.parametrize(
    ("field", "typed", "message"),
    [
        ("parameters", "", "empty_billions"),
        ("parameters", "-1", "billions"),
        ("parameters", "abc", "billions"),
        ("parameters", "1e9", "billions"),
        ("parameters", "0", "no_parameters"),
        ("parameters", "0.000000001", "no_parameters"),
        ("parameters", "1,5", "comma"),
        ("parameters", "1,50", "comma"),
        ("parameters", "2,5.0", "comma"),
        ("parameters", "2000000", "too_many_parameters"),
        ("devices", "", "empty_whole"),
        ("devices", "0", "below_one"),
        ("devices", "8.5", "whole"),
        ("devices", "99999999", "too_many_devices"),
        ("gpu", "tpu", "pick"),
        ("stage", "4", "pick"),
        ("batch", "8", "both"),
        ("sequence", "1024", "both"),
    ],
)
def test_bad_input_is_told_not_computed(field: str, typed: str, message: str) -> None:
    result = evaluate(CONFIG, {**ZERO, "stage": "1", field: typed})
    assert "bytes" not in result
    # Batch without a sequence length asks for the sequence length, and the other way round.
    problem_field = {"batch": "sequence", "sequence": "batch"}[field] if message == "both" else field
    assert result["problems"][problem_field] == MESSAGES[message]


def test_a_batch_of_absurdly_many_tokens_is_told_not_computed() -> None:
    inputs = {**ZERO, "model": "gpt2-1.5b", "stage": "0", "recompute": "none"}
    result = evaluate(CONFIG, {**inputs, "batch": "1000000", "sequence": "10000000"})
    assert result["problems"] == {"batch": MESSAGES["too_many_tokens"]}


def test_activations_need_a_model_whose_shape_the_catalog_has() -> None:
    result = evaluate(CONFIG, {**ZERO, "stage": "0", "batch": "8", "sequence": "1024", "recompute": "none"})
    assert result["problems"] == {"batch": MESSAGES["no_shape"]}


def test_the_config_is_the_models_coefficients_and_the_catalogs_entries() -> None:
    recipes = {r["id"]: r["roles"] for r in CONFIG["recipes"]}
    assert recipes == {rid: dict(model.role_bytes_per_parameter(rid)) for rid in model.RECIPES}
    assert {s["id"]: set(s["sharded"]) for s in CONFIG["stages"]} == {
        n: set(s.sharded) for n, s in model.STAGES.items()
    }
    # The memory CUDA gives programs (a V100 32 GB's, deviceQuery under CUDA 11.4); a TPU, whose catalog entry
    # has none, is not offered.
    gpus = {g["id"]: g["memory"] for g in CONFIG["gpus"]}
    assert gpus["v100-32gb"] == 34_089_730_048 and "tpu-v4" not in gpus


def test_the_form_labels_every_field_and_carries_its_json_without_typed_figures() -> None:
    html = calculator_html(CONFIG, "calc", {"model": "gpt2-1.5b"}, "calculator.js")
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for control in soup.select("input, select"):
        assert one(soup, f'label[for="{control["id"]}"]').get_text().strip()
    assert json.loads(attribute(one(soup, "form"), "data-sbn-config")) == json.loads(json.dumps(CONFIG))
    assert soup.select_one('[role="status"][aria-live="polite"]') is not None
    assert typed_figures(html) == []
