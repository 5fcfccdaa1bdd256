"""The calculator's arithmetic in Python (macros/calculator.py): the oracle the page is held to."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from macros import model
from macros.calculator import MESSAGES, calculator_config, calculator_html, evaluate
from macros.typed_figures import typed_figures
from tests.conftest import catalog

CONFIG = calculator_config(catalog())
ZERO = {"model": "custom", "parameters": "7.5", "recipe": "mixed-adam", "gpu": "v100-32gb", "devices": "64"}


@pytest.mark.parametrize(("stage", "gigabytes"), [("0", 120), ("1", Fraction("31.40625")), ("3", Fraction("1.875"))])
def test_a_typed_count_gives_zeros_figure_1(stage: str, gigabytes: Fraction) -> None:
    result = evaluate(CONFIG, {**ZERO, "stage": stage})
    assert result["problems"] == {} and result["total"] == gigabytes * 10**9


def test_a_catalog_model_with_batch_and_sequence_adds_zeros_activation_estimate() -> None:
    inputs = {**ZERO, "model": "gpt2-1.5b", "devices": "1", "stage": "0", "batch": "32", "sequence": "1024"}
    result = evaluate(CONFIG, inputs)
    # ZeRO §3.2: 12 × hidden × batch × sequence × layers values in fp16, "about 60 GB".
    assert result["bytes"]["activations"] == 2 * 12 * 1600 * 32 * 1024 * 48
    assert result["total"] == 24 * 10**9 + result["bytes"]["activations"] and result["fits"] is False


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


def test_activations_need_a_model_whose_shape_the_catalog_has() -> None:
    result = evaluate(CONFIG, {**ZERO, "stage": "0", "batch": "8", "sequence": "1024"})
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
        assert soup.select_one(f'label[for="{control["id"]}"]').get_text().strip()
    assert json.loads(soup.form["data-sbn-config"]) == json.loads(json.dumps(CONFIG))
    assert soup.select_one('[role="status"][aria-live="polite"]') is not None
    assert typed_figures(html) == []
