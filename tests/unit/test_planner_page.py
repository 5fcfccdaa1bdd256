"""The planner's page face in Python (macros/pictures/planner.py): its config, its reading of the form, its plan."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from bs4 import BeautifulSoup

from macros import model
from macros.data.catalog import transformer_shape
from macros.data.typed_figures import typed_figures
from macros.model import planner
from macros.model.shape import TransformerShape, parameter_count
from macros.pictures.planner import (
    CUSTOM,
    MESSAGES,
    MLP_CHOICES,
    TOP,
    evaluate,
    layout_result,
    planner_config,
    planner_defaults,
    planner_html,
    read,
)
from tests.checks import attribute, one
from tests.conftest import catalog

CONFIG = planner_config(catalog(), "llama-3-8b")
LLAMA_ON_16 = {
    **planner_defaults(),
    "model": "llama-3-8b",
    "gpu": "h100-sxm5",
    "per_node": "8",
    "nodes": "2",
    "sequence": "8192",
    "global_batch": "4194304",
}


def test_the_config_is_the_catalog_and_the_models_constants() -> None:
    models = {m["id"]: m for m in CONFIG["models"]}
    assert models["llama-3-8b"]["shape"]["kv_heads"] == transformer_shape(catalog().model("llama-3-8b")).kv_heads
    h100 = next(g for g in CONFIG["gpus"] if g["id"] == "h100-sxm5")
    gpu = catalog().gpu("h100-sxm5")
    assert h100["memory"] == gpu.memory and h100["peak_flops"] == gpu.peak_bf16_flops
    assert gpu.nvlink is not None and h100["nvlink"] == gpu.nvlink.bandwidth_per_direction
    bf16 = next(r for r in CONFIG["recipes"] if r["id"] == planner.PLANNER_RECIPE)
    assert bf16["parameters"] + bf16["gradients"] + bf16["optimizer"] == sum(model.recipe("bf16-adam").states.values())
    assert CONFIG["stages"]["3"] == ["gradients", "optimizer", "parameters"]
    assert CONFIG["rules"] == dict(planner.RULE_MESSAGES) and CONFIG["time_part_words"] == dict(planner.TIME_PART_WORDS)
    assert CONFIG["constants"]["reserve"] == float(planner.Run.reserve)
    assert CONFIG["constants"]["recomputations"] == ["none", "full"]  # selective is what a fused kernel does
    json.dumps(CONFIG)  # JSON-ready, as the page reads it


def test_no_gpu_without_a_peak_and_links_and_no_price_anywhere() -> None:
    assert all(g["peak_flops"] and g["nvlink"] and g["network"] for g in CONFIG["gpus"])
    assert "v100-32gb" not in {g["id"] for g in CONFIG["gpus"]}
    assert planner_defaults()["price"] == "" and "price" not in json.dumps(CONFIG["gpus"])


def test_the_plan_is_the_models_plan() -> None:
    result = evaluate(CONFIG, LLAMA_ON_16)
    _, request = read(CONFIG, LLAMA_ON_16)
    assert request is not None
    shape = transformer_shape(catalog().model("llama-3-8b"))
    gpu = catalog().gpu("h100-sxm5")
    assert gpu.memory and gpu.peak_bf16_flops and gpu.nvlink and gpu.network
    links = (Fraction(gpu.nvlink.bandwidth_per_direction), Fraction(gpu.network.bandwidth_per_direction))
    hardware = planner.Hardware(Fraction(gpu.peak_bf16_flops), gpu.memory, *links, 8, 2)
    planned = planner.plan(shape, hardware, planner.Run(8192, 4194304))
    assert result["parameters"]["total"] == planned.parameters.total
    assert result["valid"] == len(planned.plans) and len(result["plans"]) == TOP
    best = planned.plans[0]
    assert result["plans"][0]["layout"]["zero"] == best.layout.zero
    assert result["plans"][0]["step_seconds"] == float(best.step_seconds)
    assert result["plans"][0]["reason"]["kind"] == "fastest"
    assert result["broken"] == sum(item.count for item in planned.invalid)
    layout = result["plans"][2]["layout"]
    assert layout_result(request, layout)["memory"] == result["plans"][2]["memory"]


def test_a_typed_shape_is_a_llama_style_decoder() -> None:
    typed = {**LLAMA_ON_16, "model": CUSTOM, "layers": "32", "hidden": "4096", "heads": "32", "kv_heads": "8"}
    typed |= {"ffn": "14336", "vocabulary": "128256", "mlp": "gated", "embeddings": "untied"}
    (_, request), (_, catalogued) = read(CONFIG, typed), read(CONFIG, LLAMA_ON_16)
    assert request is not None and catalogued is not None
    assert parameter_count(TransformerShape(**request["shape"])) == parameter_count(
        TransformerShape(**catalogued["shape"])
    )
    assert set(MLP_CHOICES) == {"gated", "plain"}


@pytest.mark.parametrize(
    ("field", "typed", "message"),
    [
        ("nodes", "0", MESSAGES["below_one"]),
        ("nodes", "-2", MESSAGES["whole"]),
        ("nodes", "abc", MESSAGES["whole"]),
        ("nodes", "", MESSAGES["empty"]),
        ("nodes", "100001", MESSAGES["too_many_nodes"]),
        ("per_node", "1025", MESSAGES["too_many_per_node"]),
        ("sequence", "8.5", MESSAGES["whole"]),
        ("share", "0", MESSAGES["share"]),
        ("share", "150", MESSAGES["share"]),
        ("share", "0.4", MESSAGES["share"]),  # a fraction typed where the form reads percent: 0.4%, no real run
        ("price", "-1", MESSAGES["price"]),
        ("training_tokens", "1.5", MESSAGES["tokens"]),
        ("training_tokens", "1e16", MESSAGES["too_many_training_tokens"]),
        ("tp", "3", MESSAGES["degree"].format(value=3, gpus=16, divisors="1, 2, 4, 8")),  # 16 is beyond a node
        ("tp", "16", MESSAGES["degree_node"].format(value=16, per_node=8, divisors="1, 2, 4, 8")),
        ("pp", "3", MESSAGES["degree"].format(value=3, gpus=16, divisors="1, 2, 4, 8, 16")),
        ("network_gbit_s", "abc", MESSAGES["network_gbit_s"]),
        ("global_batch", "1000", MESSAGES["batch_sequences"].format(global_batch=1000, sequence=8192)),
        ("model", "llama-9b", MESSAGES["pick"]),
    ],
)
def test_bad_input_is_told_at_its_field(field: str, typed: str, message: str) -> None:
    assert evaluate(CONFIG, {**LLAMA_ON_16, field: typed})["problems"] == {field: message}


def test_a_plan_no_layout_keeps_names_the_first_rule() -> None:
    result = evaluate(CONFIG, {**LLAMA_ON_16, "pp": "16", "global_batch": "65536"})
    assert result["problems"] == {"layouts": "No layout keeps the rules: 8 micro-batches per replica, fewer than the"
                                   " pp = 16 stages."}  # fmt: skip


def test_too_many_layouts_are_refused_not_weighed() -> None:
    huge = {**LLAMA_ON_16, "nodes": "8192", "sequence": "1", "global_batch": "720720000"}
    assert evaluate(CONFIG, huge)["problems"] == {"layouts": MESSAGES["too_many_layouts"]}


def test_the_run_is_read_exactly_and_a_price_only_when_given() -> None:
    _, request = read(CONFIG, {**LLAMA_ON_16, "share": "40", "training_tokens": "1.5e12", "price": "2.5"})
    assert request is not None and request["run"]["share"] == 0.4 and request["run"]["training_tokens"] == 15 * 10**11
    one_node = {**LLAMA_ON_16, "nodes": "1", "training_tokens": "1e12"}
    result = evaluate(CONFIG, one_node)
    assert result["plans"][0]["gpu_hours"] > 0 and result["plans"][0]["cost"] is None
    priced = evaluate(CONFIG, {**one_node, "price": "2.5"})["plans"][0]
    assert priced["cost"] == pytest.approx(priced["gpu_hours"] * 2.5)


def test_the_form_has_a_label_for_every_field_and_carries_its_config() -> None:
    html = planner_html(CONFIG, "l13-planner", LLAMA_ON_16, "planner.js")
    root = BeautifulSoup(html, "html.parser")
    form = one(root, "form.sbn-planner")
    assert json.loads(attribute(form, "data-sbn-config")) == CONFIG
    for name in CONFIG["fields"]:
        field = one(root, f"[name={name}]")
        assert one(root, f"label[for={attribute(field, 'id')}]")
    del form["data-sbn-config"]
    assert typed_figures(str(root)) == []


QWEN2_7B_TYPED = {**LLAMA_ON_16, "model": "custom", "layers": "28", "hidden": "3584", "heads": "28", "kv_heads": "4",
                  "ffn": "18944", "vocabulary": "152064", "biases": "qkv"}  # fmt: skip


def test_a_typed_shape_takes_biases_and_a_head_dimension() -> None:
    """The reader trial: Qwen2-7B typed without its biases was 7.616 billion, a Mistral-Nemo shape without its head
    dimension (128, not 5,120 ÷ 32 = 160) 4% high."""
    assert read(CONFIG, QWEN2_7B_TYPED)[1]["shape"]["attention_bias"] is True  # type: ignore[index]
    assert evaluate(CONFIG, QWEN2_7B_TYPED)["parameters"]["total"] == 7_615_616_512
    nemo = {**QWEN2_7B_TYPED, "layers": "40", "hidden": "5120", "heads": "32", "kv_heads": "8", "ffn": "14336",
            "vocabulary": "131072", "biases": "none", "head_dim": "128"}  # fmt: skip
    assert evaluate(CONFIG, nemo)["parameters"]["total"] == 12_247_782_400
    assert evaluate(CONFIG, {**nemo, "head_dim": "0"})["problems"] == {"head_dim": MESSAGES["below_one"]}
    odd = {**nemo, "hidden": "5000"}  # 5,000 does not split into 32 heads, and need not with a head dimension
    assert evaluate(CONFIG, odd)["problems"] == {}
    assert evaluate(CONFIG, {**odd, "head_dim": ""})["problems"] == {
        "heads": MESSAGES["head_width"].format(hidden=5000, heads=32)
    }


def test_a_typed_bandwidth_replaces_the_gpus_link() -> None:
    request = read(CONFIG, {**LLAMA_ON_16, "network_gbit_s": "200", "nvlink_gbyte_s": "37.55"})[1]
    assert request is not None
    assert request["hardware"]["network_bandwidth"] == 25e9
    assert request["hardware"]["nvlink_bandwidth"] == 37.55 * 1e9


def test_the_plan_holds_the_flops_the_steps_and_the_batch_hint() -> None:
    result = evaluate(CONFIG, {**LLAMA_ON_16, "training_tokens": "1e12", "global_batch": str(513 * 8192)})
    assert result["flops"]["total"] == 57_914_425_344 and result["steps"] == -(-(10**12) // (513 * 8192))
    assert result["batch_hint"].endswith("512 or 528 sequences (4,194,304 or 4,325,376 tokens) would divide among"
                                         " every degree tried")  # fmt: skip
    assert all(plan["days"] is not None for plan in result["plans"])
