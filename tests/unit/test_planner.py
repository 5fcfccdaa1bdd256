"""The layout planner (macros/model/planner.py) and the pieces it adds to the model, against their sources.

Parameter counts are computed here from each config's own fields, matrix by matrix as the model class
builds them, not taken from the planner; where a source prints a count, it is checked too. Memory is held
to the model's own functions (model_state_bytes, zero_state_bytes), to DeepSpeed's ZeRO estimators and to
Megatron-LM's theoretical memory report, transcribed below from their code, with the differences the
planner's docstring names.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace
from fractions import Fraction

import pytest

from macros import model
from macros.data.catalog import transformer_shape
from macros.data.hf_config import ConfigError, parse_config
from macros.model import planner
from macros.model.layout import placement, rank_placement
from macros.model.parallel_activations import layer_activation_bytes, shape_layer_activation_bytes
from macros.model.pipeline import interleaved_in_flight, schedule, stashed_microbatches
from macros.model.shape import TransformerShape, parameter_count
from tests.conftest import catalog

#: A config.json's fields that the model classes read: names, sizes and switches.
Config = dict[str, str | int | bool]

# Each model's config.json, as its Hugging Face repository publishes it (the fields the model class reads).
GPT2_XL: Config = {
    "model_type": "gpt2",
    "n_layer": 48,
    "n_embd": 1600,
    "n_head": 25,
    "vocab_size": 50257,
    "n_positions": 1024,
}
LLAMA2_7B: Config = {
    "model_type": "llama",
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 32,
    "intermediate_size": 11008,
    "vocab_size": 32000,
    "tie_word_embeddings": False,
}
LLAMA3_8B: Config = {
    "model_type": "llama",
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
}
LLAMA3_70B: Config = {**LLAMA3_8B, "num_hidden_layers": 80, "hidden_size": 8192, "num_attention_heads": 64}
LLAMA3_70B["intermediate_size"] = 28672
MIXTRAL_8X7B: Config = {
    "model_type": "mixtral",
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 32000,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
    "tie_word_embeddings": False,
}
QWEN2_7B: Config = {
    "model_type": "qwen2",
    "num_hidden_layers": 28,
    "hidden_size": 3584,
    "num_attention_heads": 28,
    "num_key_value_heads": 4,
    "intermediate_size": 18944,
    "vocab_size": 152064,
    "tie_word_embeddings": False,
}


def shape_of(config: Config) -> TransformerShape:
    return parse_config(json.dumps(config), "config.json")[0]


def llama_count(c: Config, qkv_bias: bool = False) -> int:
    """LlamaForCausalLM's (and Qwen2ForCausalLM's) parameters, matrix by matrix, from the config's fields."""
    h, layers, v = int(c["hidden_size"]), int(c["num_hidden_layers"]), int(c["vocab_size"])
    heads, kv, f = int(c["num_attention_heads"]), int(c["num_key_value_heads"]), int(c["intermediate_size"])
    d = h // heads
    q_proj, k_proj, v_proj, o_proj = h * heads * d, h * kv * d, h * kv * d, heads * d * h
    biases = (heads * d + 2 * kv * d) if qkv_bias else 0
    gate_proj = up_proj = down_proj = h * f
    norms = 2 * h
    layer = q_proj + k_proj + v_proj + o_proj + biases + gate_proj + up_proj + down_proj + norms
    embed_tokens, lm_head, final_norm = v * h, (0 if c.get("tie_word_embeddings") else v * h), h
    return layers * layer + embed_tokens + lm_head + final_norm


def test_gpt2_xl_is_the_count_its_model_class_gives() -> None:
    # GPT2LMHeadModel: c_attn 1600 × 4800 + 4800, c_proj 1600² + 1600, c_fc 1600 × 6400 + 6400, mlp c_proj
    # 6400 × 1600 + 1600, ln_1 and ln_2 2 × 1600 each; wte 50257 × 1600 (tied to lm_head), wpe 1024 × 1600, ln_f.
    h = 1600
    layer = (h * 3 * h + 3 * h) + (h * h + h) + (h * 4 * h + 4 * h) + (4 * h * h + h) + 2 * (2 * h)
    expected = 48 * layer + 50257 * h + 1024 * h + 2 * h
    assert parameter_count(shape_of(GPT2_XL)).total == expected == 1_557_611_200
    # nanoGPT prints "1558M params" for gpt2-xl (models.yml: gpt2-xl-released); and the course's own pieces agree.
    assert round(expected, -6) == catalog().model("gpt2-xl-released").parameters
    assert expected == model.shape_parameters(48, h, 50257, 1024) + model.vector_parameters(48, h)


def test_llama_2_7b_is_the_count_its_model_class_gives() -> None:
    expected = llama_count(LLAMA2_7B)
    assert parameter_count(shape_of(LLAMA2_7B)).total == expected == catalog().model("llama-2-7b").parameters


@pytest.mark.parametrize(("config", "entry"), [(LLAMA3_8B, "llama-3-8b"), (LLAMA3_70B, "llama-3-70b")])
def test_llama_3_is_the_count_its_model_class_gives(config: Config, entry: str) -> None:
    expected = llama_count(config)
    assert parameter_count(shape_of(config)).total == expected
    # The catalog's count, and the shape the catalog's fields give, are the same.
    assert catalog().model(entry).parameters == expected
    assert parameter_count(transformer_shape(catalog().model(entry))).total == expected
    # Hugging Face's model pages print 8.03B and 70.6B.
    assert round(expected / 1e9, 2 if entry == "llama-3-8b" else 1) == (8.03 if entry == "llama-3-8b" else 70.6)


def test_qwen2_keeps_biases_on_its_queries_keys_and_values_only() -> None:
    assert parameter_count(shape_of(QWEN2_7B)).total == llama_count(QWEN2_7B, qkv_bias=True)


def test_mixtral_counts_every_expert_and_the_two_a_token_uses() -> None:
    c = MIXTRAL_8X7B
    h, f, v, experts = 4096, 14336, 32000, 8
    attention = h * h + 2 * h * 1024 + h * h
    expert = 3 * h * f  # w1, w2, w3
    router = h * experts
    layer_total = attention + experts * expert + router + 2 * h
    layer_active = attention + 2 * expert + router + 2 * h
    count = parameter_count(shape_of(c))
    assert count.total == 32 * layer_total + 2 * v * h + h
    assert count.active == 32 * layer_active + 2 * v * h + h
    # Mistral AI's announcement: "46.7B total parameters but only uses 12.9B parameters per token".
    assert (round(count.total / 1e9, 1), round(count.active / 1e9, 1)) == (46.7, 12.9)


def test_a_config_written_with_a_byte_order_mark_reads_as_without_it() -> None:
    # Attack round 6: a config.json saved as Windows' "UTF-8 with BOM" was refused as not JSON.
    assert parse_config("\ufeff" + json.dumps(LLAMA3_8B), "config.json")[0] == shape_of(LLAMA3_8B)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "expected a JSON object"),
        ('{"model_type": "bert"}', 'model_type "bert" is not one the planner reads'),
        ('{"model_type": "llama", "hidden_size": 4096}', 'needs "num_attention_heads"'),
        (json.dumps({**GPT2_XL, "n_layer": "48"}), '"n_layer" is "48"; expected a whole number'),
        (json.dumps({**GPT2_XL, "n_layer": 10_000_000}), "too large to be a real model"),
        (json.dumps({**LLAMA3_8B, "num_key_value_heads": 5}), "do not make whole groups"),
        (json.dumps({**LLAMA3_8B, "tie_word_embeddings": "no"}), "expected true or false"),
        # Python's own limits, and a file far larger than any config.json.
        ('{"model_type": "llama", "hidden_size": ' + "9" * 5001 + "}", "not a config.json the planner reads"),
        ("[" * 200_000 + "]" * 200_000, "not a config.json the planner reads"),
        (json.dumps({**LLAMA3_8B, "padding": "x" * 1_000_001}), "more than the 1,000,000 of any model's config.json"),
    ],
)
def test_a_config_the_planner_cannot_read_is_one_line_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_config(text, "my/config.json")
    assert str(raised.value).startswith("my/config.json: ") and message in str(raised.value)
    assert "\n" not in str(raised.value)


# --- The pieces the planner added to the model, against the ones they generalise.


#: Table 2's techniques, each at the tensor-parallel degrees it takes: sequence parallelism needs a group of two
#: or more.
_TECHNIQUES = [
    ("tensor", False, "none"),
    ("tensor-sequence", True, "none"),
    ("tensor-selective", False, "selective"),
    ("tensor-sequence-selective", True, "selective"),
    ("full-recompute", False, "full"),
]


@pytest.mark.parametrize(
    ("tensor", "technique", "sequence_parallel", "recompute"),
    [(t, *technique) for technique in _TECHNIQUES for t in (1, 2, 4, 8) if t > 1 or not technique[1]],
)
def test_any_shape_count_is_table_2_for_a_gpt_shape(
    tensor: int, technique: str, sequence_parallel: bool, recompute: str
) -> None:
    h, a, s, b = 12288, 96, 2048, 1  # GPT-3's shape, Korthikanti et al.'s §5 example
    general = shape_layer_activation_bytes(s, b, h, a, h, h, 4 * h, False, tensor, sequence_parallel, recompute)
    assert general == layer_activation_bytes(s, b, h, a, tensor, technique)


def test_a_gated_mlp_and_grouped_query_attention_change_the_count_by_their_tensors() -> None:
    s, b, h, a, f = 8192, 1, 4096, 32, 14336
    plain = shape_layer_activation_bytes(s, b, h, a, h, h, f, False, scores_stored=False)
    gated = shape_layer_activation_bytes(s, b, h, a, h, h, f, True, scores_stored=False)
    grouped = shape_layer_activation_bytes(s, b, h, a, 1024, h, f, True, scores_stored=False)
    assert gated - plain == 2 * f * s * b  # SwiGLU's third intermediate, 2 bytes per value
    assert gated - grouped == 4 * (h - 1024) * s * b  # keys and values of 8 groups instead of 32 heads


def test_attention_flops_are_the_s_squared_term_of_narayanans_layer_flops() -> None:
    b, s, h = 1, 2048, 12288
    per_layer = model.tensor.layer_flops(b, s, h) - 3 * 24 * b * s * h**2
    assert model.attention_flops_per_token(1, h, s) * b * s == per_layer
    recomputed = model.tensor.layer_flops(b, s, h, "recompute") - 4 * 24 * b * s * h**2
    assert model.attention_flops_per_token(1, h, s, "full") * b * s == recomputed


@pytest.mark.parametrize(("stages", "microbatches"), list(itertools.product([1, 2, 4, 8], [1, 3, 8, 16])))
def test_one_chunk_holds_what_the_simulated_1f1b_schedule_holds(stages: int, microbatches: int) -> None:
    held = stashed_microbatches(schedule("1f1b", stages, microbatches), 0)
    assert held == min(stages, microbatches)
    assert stashed_microbatches(schedule("1f1b", stages, microbatches), stages - 1) == 1
    # Megatron-LM's interleaved count lies between 1F1B's p and 2p − 1, nearing p as the chunks grow.
    for chunks in (2, 4, 8):
        assert stages <= interleaved_in_flight(stages, chunks) <= 2 * stages - 1


def test_rank_placement_is_placement_wherever_placement_applies() -> None:
    checked = 0
    for t, p, d, per_node in itertools.product([1, 2, 4, 8], [1, 2, 4, 8], [1, 2, 3, 4, 8, 16], [4, 8]):
        try:
            _, sharing = placement(t, p, d, t * p * d, per_node)
        except ValueError:
            continue
        assert rank_placement(t, p, d, per_node).data_per_node == sharing
        checked += 1
    assert checked > 100


def test_rank_placement_finds_groups_that_straddle_nodes() -> None:
    # 24 GPUs, nodes of 8: tp 4, dp 3, pp 2. Stage 0 is ranks 0-11: its groups hold 2 GPUs on node 0, 1 on node 1.
    placed = rank_placement(4, 2, 3, 8)
    assert (placed.nodes, placed.data_per_node, placed.data_spans_nodes) == (3, 1, True)
    assert placed.boundary_crosses_nodes
    assert not rank_placement(8, 1, 1, 8).data_spans_nodes


# --- Layouts and their rules.

H100 = planner.Hardware(989 * 10**12, 85_028_896_768, 450 * 10**9, 50 * 10**9, per_node=8, nodes=2)
RUN = planner.Run(sequence=8192, global_batch=8192 * 512)
LLAMA3 = shape_of(LLAMA3_8B)


@pytest.mark.parametrize(
    ("layout", "run", "rule"),
    [
        (planner.Layout(2, 2, 2), RUN, "gpus"),
        (planner.Layout(16, 1, 1), RUN, "tp-node"),
        (planner.Layout(1, 1, 16), RUN, None),
        (planner.Layout(8, 1, 2, sequence_parallel=True), RUN, None),
        (planner.Layout(1, 16, 1), RUN, None),
        (planner.Layout(1, 1, 16, zero=1, chunks=2), RUN, "chunks"),
        (planner.Layout(1, 1, 16), planner.Run(8192, 8192 * 512 + 1), "batch-sequence"),
        (planner.Layout(1, 1, 16), planner.Run(8192, 8192 * 24), "batch-dp"),
        (planner.Layout(1, 1, 16, micro_batch=3), RUN, "batch-micro"),
        (planner.Layout(1, 8, 2), planner.Run(8192, 8192 * 8), "micro-stages"),
        (planner.Layout(1, 4, 4, chunks=2), planner.Run(8192, 8192 * 24), "micro-interleaved"),
        (planner.Layout(8, 2, 1, zero=1), RUN, "zero-dp"),
        (planner.Layout(1, 2, 8, zero=2), RUN, "zero-pipeline"),
        (planner.Layout(1, 2, 8, zero=1), RUN, None),
        (planner.Layout(1, 1, 16, recompute="some"), RUN, "recompute"),
        (planner.Layout(1, 1, 16, sequence_parallel=True), RUN, "sequence-parallel"),
        (planner.Layout(1, 1, 16, zero=3, hybrid=True), RUN, None),
        (planner.Layout(1, 1, 16, zero=2, hybrid=True), RUN, "hybrid"),  # hybrid sharding is ZeRO-3's
        (planner.Layout(4, 1, 2, zero=3, cp=2, hybrid=True), RUN, None),  # dp × cp = 4, two in each node
        (planner.Layout(8, 1, 2, zero=3, hybrid=True), RUN, "hybrid"),  # one data-parallel rank a node
    ],
)
def test_each_rule_names_the_layouts_that_break_it(layout: planner.Layout, run: planner.Run, rule: str | None) -> None:
    broken = planner.broken_rule(LLAMA3, H100, run, layout)
    assert (broken.id if broken else None) == rule


@pytest.mark.parametrize(
    ("shape", "tp", "rule"),
    [
        (TransformerShape(12, 768, 12, 12, 3072, 50257), 8, "tp-heads"),  # 12 heads, 8 GPUs
        (TransformerShape(32, 4096, 32, 4, 14336, 128256, gated=True), 8, "tp-kv-heads"),
        (TransformerShape(32, 4096, 32, 8, 14340, 128256, gated=True), 8, "tp-ffn"),
        (TransformerShape(30, 4096, 32, 8, 14336, 128256, gated=True), 1, "pp-layers"),  # 30 layers, 4 stages
    ],
)
def test_degrees_must_divide_heads_groups_the_mlp_and_the_layers(shape: TransformerShape, tp: int, rule: str) -> None:
    pp = 4 if rule == "pp-layers" else 1
    broken = planner.broken_rule(shape, H100, RUN, planner.Layout(tp, pp, 16 // (tp * pp)))
    assert broken is not None and broken.id == rule


def test_every_rule_is_tested_above() -> None:
    assert set(planner.RULES) == {
        "gpus",
        "tp-node",
        "tp-heads",
        "tp-kv-heads",
        "tp-ffn",
        "cp-sequence",
        "ep-dense",
        "ep-experts",
        "ep-devices",
        "hybrid",
        "sequence-parallel",
        "pp-layers",
        "chunks",
        "batch-sequence",
        "batch-dp",
        "batch-micro",
        "micro-stages",
        "micro-interleaved",
        "zero-dp",
        "zero-pipeline",
        "recompute",
    }


# --- Memory by role, against the model's functions and the two references.


def _states(memory: planner.Memory) -> Fraction:
    return memory.parameters + memory.gradients + memory.optimizer


def _memory(shape: TransformerShape, run: planner.Run, layout: planner.Layout, stage: int = 0) -> planner.Memory:
    return planner.stage_memory(shape, parameter_count(shape), H100, run, layout, stage)


@pytest.mark.parametrize("recipe", list(model.RECIPES))
def test_plain_data_parallelism_holds_model_state_bytes(recipe: str) -> None:
    run = planner.Run(8192, 8192 * 512, recipe=recipe)
    total = parameter_count(LLAMA3).total
    assert _states(_memory(LLAMA3, run, planner.Layout(1, 1, 16))) == model.model_state_bytes(total, "all", recipe)


@pytest.mark.parametrize(("zero", "stage_id"), [(0, "dp"), (1, "os"), (2, "os-g"), (3, "os-g-p")])
def test_zero_stages_hold_what_zero_state_bytes_gives(zero: int, stage_id: str) -> None:
    run = planner.Run(8192, 8192 * 512, recipe="mixed-adam")
    memory = _memory(LLAMA3, run, planner.Layout(1, 1, 16, zero=zero))
    total = parameter_count(LLAMA3).total
    gathered = 0
    if zero == 3:  # ZeRO-3 also holds its largest unit gathered: here the 128256 × 4096 embeddings, 2 + 2 bytes each
        gathered = 4 * 128256 * 4096
    assert _states(memory) == model.zero_state_bytes(total, stage_id, 16) + gathered
    by_role = model.device_bytes_by_role(total, 16, zero, "mixed-adam")
    assert memory.optimizer == by_role["optimizer_states"]


def test_zero_2_is_deepspeeds_estimate_for_its_recipe() -> None:
    # deepspeed/runtime/zero/stage_1_and_2.py, estimate_zero2_model_states_mem_needs, cpu_offload=False:
    # "gpu_mem = 2 * total_params + int(18 * total_params / total_gpus)".
    run = planner.Run(8192, 8192 * 512, recipe="fp16-adam-fp32-grads")
    total, gpus = parameter_count(LLAMA3).total, 16
    deepspeed = 2 * total + int(18 * total / gpus)
    assert int(_states(_memory(LLAMA3, run, planner.Layout(1, 1, gpus, zero=2)))) == deepspeed


def test_zero_3_differs_from_deepspeeds_estimate_by_the_sharded_fp16_gradients() -> None:
    # stage3.py, estimate_zero3_model_states_mem_needs, no offload:
    # "largest_layer_memory = (4 * largest_layer_params)"; "gpu_mem = largest_layer_memory + int(18 * total_params
    # / total_gpus)". The planner counts every state of the recipe sharded, 20Ψ/N: 2Ψ/N more (its docstring).
    run = planner.Run(8192, 8192 * 512, recipe="fp16-adam-fp32-grads")
    count, gpus = parameter_count(LLAMA3), 16
    largest = count.embedding  # the largest unit: 128256 × 4096 embeddings, above a layer's 218M
    deepspeed = 4 * largest + Fraction(18 * count.total, gpus)
    ours = _states(_memory(LLAMA3, run, planner.Layout(1, 1, gpus, zero=3)))
    assert ours - deepspeed == Fraction(2 * count.total, gpus)


def _megatron_weights_and_optimizer(shape: TransformerShape, t: int, p: int, d: int, distributed: bool) -> Fraction:
    """compute_weight_and_optimizer_memory of megatron/training/theoretical_memory_usage.py, for a dense model
    without biases (GQA, SwiGLU, RMSNorm, untied embeddings), its padded vocabulary the config's."""
    h, layers = shape.hidden, shape.layers
    query_projection_to_hidden_size_ratio = Fraction(shape.query_width, h)
    self_attn_term = 2 * h * h * ((1 + Fraction(shape.kv_heads, shape.heads)) * query_projection_to_hidden_size_ratio)
    gated_linear_multiplier = Fraction(3, 2) if shape.gated else 1
    dense_mlp_params = 2 * h * shape.ffn * gated_linear_multiplier
    norm_size = 1  # RMSNorm
    layernorm_params = 2 * h * norm_size
    embedding_size = h * shape.vocabulary
    final_layernorm = norm_size * h
    tp_sharded = (self_attn_term + dense_mlp_params) * layers
    replicated = layernorm_params * layers + final_layernorm
    tp_sharded_on_most_loaded = (tp_sharded / p + embedding_size) / t
    replicated_on_most_loaded = Fraction(replicated, p)
    if not shape.tied and p == 1:
        tp_sharded_on_most_loaded += Fraction(embedding_size, t)
    per_parameter = 6 + Fraction(12, d) if distributed else 18
    return (tp_sharded_on_most_loaded + replicated_on_most_loaded) * per_parameter


@pytest.mark.parametrize(("t", "p"), [(1, 1), (2, 1), (1, 2), (2, 2), (2, 4)])
@pytest.mark.parametrize("zero", [0, 1])
def test_megatrons_theoretical_weights_and_optimizer_memory(t: int, p: int, zero: int) -> None:
    d = 16 // (t * p)
    ours = _states(_memory(LLAMA3, RUN, planner.Layout(t, p, d, zero=zero)))
    megatron = _megatron_weights_and_optimizer(LLAMA3, t, p, d, distributed=zero == 1)
    # Megatron-LM counts the final norm on every stage's share (replicated / p); the planner puts it on the last.
    final_norm_share = Fraction(LLAMA3.hidden, p) * (6 + Fraction(12, d) if zero else 18) if p > 1 else 0
    assert ours == megatron - final_norm_share


def _megatron_activations(shape: TransformerShape, run: planner.Run, b: int, t: int, p: int, m: int) -> Fraction:
    """compute_activation_memory of theoretical_memory_usage.py (Table 2 with sequence parallelism and selective
    recomputation), the first stage, 1F1B."""
    s, h = run.sequence, shape.hidden
    activation_memory = Fraction(s * b * h) * (18 + 4 * Fraction(shape.ffn, h))
    activation_memory *= shape.layers
    activation_memory += 8 * s * b * p
    activation_memory += s * b * h * p
    if p > 1:
        activation_memory *= min(Fraction(1), Fraction(m, p))
    if p == 1:
        activation_memory += s * b * h * 4 * (1 + Fraction(shape.vocabulary, h))
    return activation_memory / t


GPT_SHAPE = TransformerShape(32, 4096, 32, 32, 16384, 51200, norm="rmsnorm")  # not gated, as Megatron's formula


@pytest.mark.parametrize(("t", "p", "b"), [(1, 1, 1), (1, 2, 2), (1, 4, 1), (2, 1, 1), (2, 2, 1), (4, 2, 2)])
def test_megatrons_theoretical_activation_memory(t: int, p: int, b: int) -> None:
    d = 16 // (t * p)
    layout = planner.Layout(t, p, d, micro_batch=b, recompute="selective", sequence_parallel=t > 1)
    m = RUN.global_batch // RUN.sequence // (d * b)
    ours = _memory(GPT_SHAPE, RUN, layout).activations
    megatron = _megatron_activations(GPT_SHAPE, RUN, b, t, p, m)
    # Megatron-LM divides the embedding's int64 token ids by t too; they are not split (the docstring's note).
    token_ids = 8 * RUN.sequence * b * p
    assert ours - megatron == token_ids - Fraction(token_ids, t)


def test_a_gated_mlp_keeps_more_than_megatrons_formula_counts() -> None:
    gated = TransformerShape(32, 4096, 32, 32, 16384, 51200, gated=True, norm="rmsnorm")
    layout = planner.Layout(1, 1, 16, recompute="selective")
    difference = _memory(gated, RUN, layout).activations - _megatron_activations(gated, RUN, 1, 1, 1, 32)
    assert difference == 32 * 2 * gated.ffn * RUN.sequence


def test_the_reserve_is_the_stated_share_of_the_memory() -> None:
    run = planner.Run(8192, 8192 * 512, reserve=Fraction(1, 5))
    assert _memory(LLAMA3, run, planner.Layout(1, 1, 16)).reserve == Fraction(H100.memory, 5)


def test_full_recomputation_keeps_inputs_and_rebuilds_one_layer() -> None:
    layout = planner.Layout(1, 1, 16, recompute="full")
    none = _memory(LLAMA3, RUN, planner.Layout(1, 1, 16)).activations
    full = _memory(LLAMA3, RUN, layout).activations
    per_layer_none = shape_layer_activation_bytes(8192, 1, 4096, 32, 1024, 4096, 14336, True, scores_stored=False)
    ends = none - 32 * per_layer_none  # the embedding's and the logits' terms, the same in both
    assert full == ends + 32 * 2 * 8192 * 4096 + per_layer_none


def test_a_pipeline_stage_holds_its_layers_and_its_end_of_the_model() -> None:
    count = parameter_count(LLAMA3)
    first = planner.stage_parameters(count, 2, 4, 0, tied=False)
    last = planner.stage_parameters(count, 2, 4, 3, tied=False)
    layers = Fraction(32, 4)
    assert first.parameters == layers * (Fraction(count.layer.split, 2) + count.layer.copied) + count.embedding / 2
    assert last.parameters == layers * (Fraction(count.layer.split, 2) + count.layer.copied) + (
        Fraction(count.output, 2) + count.final_norm
    )


# --- Step time by part.


def test_one_gpu_steps_in_its_compute_time_alone() -> None:
    one = planner.Hardware(989 * 10**12, 85_028_896_768, 450 * 10**9, 50 * 10**9, per_node=1, nodes=1)
    small = TransformerShape(12, 768, 12, 12, 3072, 50257, positions=1024, attention_bias=True)
    run = planner.Run(1024, 1024 * 8)
    time = planner.step_time(small, parameter_count(small), one, run, planner.Layout(1, 1, 1, micro_batch=8))
    count = parameter_count(small)
    flops = (6 * count.matmul + 12 * 12 * 768 * 1024) * 1024 * 8
    assert time.compute == model.seconds_at_utilization(flops, 1, 989 * 10**12, Fraction(1, 2))
    assert time.total == time.compute


def test_tensor_time_is_the_exposed_all_reduces_of_each_layer_and_micro_batch() -> None:
    layout = planner.Layout(8, 1, 2)
    time = planner.step_time(LLAMA3, parameter_count(LLAMA3), H100, RUN, layout)
    activation = 1 * 8192 * 4096 * 2
    one = model.transfer_seconds(model.ring_allreduce_bytes_sent(activation, 8), H100.nvlink_bandwidth)
    sustained = Fraction(H100.peak_flops) / 2
    per_layer = model.tensor.exposed_allreduce_seconds(one, 1, 8192, 4096, 8, sustained)
    assert time.tensor == 256 * 32 * per_layer  # 512 sequences over dp 2: 256 micro-batches of one


def test_the_bubble_is_narayanans_share_of_the_compute() -> None:
    layout = planner.Layout(1, 4, 4, zero=1)
    time = planner.step_time(LLAMA3, parameter_count(LLAMA3), H100, RUN, layout)
    assert time.bubble == model.pipeline.bubble_formula(4, 128) * time.compute
    interleaved = planner.step_time(LLAMA3, parameter_count(LLAMA3), H100, RUN, planner.Layout(1, 4, 4, 1, chunks=2))
    assert interleaved.bubble == model.pipeline.interleaved_bubble(4, 128, 2) * interleaved.compute


def test_zero_3_on_a_slow_network_exposes_its_per_micro_batch_traffic() -> None:
    slow = planner.Hardware(989 * 10**12, 85_028_896_768, 450 * 10**9, 10**9, per_node=8, nodes=2)
    count = parameter_count(LLAMA3)
    zero3 = planner.step_time(LLAMA3, count, slow, RUN, planner.Layout(1, 1, 16, zero=3))
    zero1 = planner.step_time(LLAMA3, count, slow, RUN, planner.Layout(1, 1, 16, zero=1))
    assert zero3.data > 10 * zero1.data > 0


# --- The ranking.


def test_the_plan_ranks_fitting_layouts_by_step_time_each_with_a_reason() -> None:
    planned = planner.plan(LLAMA3, H100, planner.Run(8192, 8192 * 64), {"micro_batch": 1})
    assert planned.parameters.total == llama_count(LLAMA3_8B)
    fits = [p.fits for p in planned.plans]
    assert fits == sorted(fits, reverse=True) and any(fits) and not all(fits)
    fitting = [p for p in planned.plans if p.fits]
    assert [p.step_seconds for p in fitting] == sorted(p.step_seconds for p in fitting)
    assert fitting[0].reason.kind == "fastest"
    assert {p.reason.kind for p in fitting[1:]} <= {"slower", "as-fast"}
    assert all(p.reason.kind == "does-not-fit" for p in planned.plans if not p.fits)
    for p in fitting[1:]:
        if p.reason.kind == "slower":
            assert p.reason.slower_by == p.step_seconds / fitting[0].step_seconds - 1 > 0
    assert {item.rule.id for item in planned.invalid} >= {"tp-node", "zero-dp", "zero-pipeline"}


def test_fixed_fields_are_held() -> None:
    planned = planner.plan(LLAMA3, H100, RUN, {"tp": 2, "zero": 1, "recompute": "full"})
    assert planned.plans and all(
        (p.layout.tp, p.layout.zero, p.layout.recompute) == (2, 1, "full") for p in planned.plans
    )
    with pytest.raises(KeyError, match="unknown layout fields"):
        list(planner.layouts(LLAMA3, H100, RUN, {"tensor": 2}))


def test_gpu_hours_and_cost_follow_from_the_tokens_per_second() -> None:
    run = planner.Run(8192, 8192 * 512, training_tokens=10**12, price=Fraction(5, 2))
    result = planner.evaluate(LLAMA3, H100, run, planner.Layout(1, 1, 16, zero=3))
    assert isinstance(result, planner.Plan)
    assert result.gpu_hours == Fraction(10**12) / result.tokens_per_second * 16 / 3600
    assert result.cost == result.gpu_hours * Fraction(5, 2)
    assert 0 < result.share_of_peak <= Fraction(1, 2)


def test_the_catalogs_new_gpus_have_what_the_planner_needs() -> None:
    for gpu_id in ("h100-sxm5", "h200", "b200"):
        gpu = catalog().gpu(gpu_id)
        assert gpu.memory and gpu.sold and gpu.peak_bf16_flops and gpu.nvlink and gpu.network
        assert gpu.memory > gpu.sold  # binary GiB as CUDA counts them, against the vendor's decimal GB
        assert catalog().quantity(gpu_id, "peak_bf16_flops").source.id == "torchtitan-peak-flops"
    assert catalog().gpu("h200").memory == 143_156 * 2**20
    assert catalog().gpu("b200").memory == 182_642 * 2**20


def test_a_rule_counts_one_in_the_singular() -> None:
    """ "1 micro-batches" was the reader trial's nit: a count of one takes its noun's singular."""
    one = planner.broken_rule(LLAMA3, H100, planner.Run(8192, 8192 * 8), planner.Layout(1, 2, 8))
    assert one is not None and one.message == "1 micro-batch per replica, fewer than the pp = 2 stages"
    many = planner.broken_rule(LLAMA3, H100, planner.Run(8192, 8192 * 8), planner.Layout(1, 16, 1))
    assert many is not None and many.message.startswith("8 micro-batches per replica, fewer")


def test_the_zero_pipeline_rule_says_whose_rule_it_is() -> None:
    broken = planner.broken_rule(LLAMA3, H100, RUN, planner.Layout(1, 2, 8, zero=3))
    assert broken is not None and "DeepSpeed's PipelineEngine" in broken.message and "torchtitan" in broken.message


def test_the_model_flops_are_6n_over_the_parameters_that_multiply_plus_attention() -> None:
    count = parameter_count(LLAMA3)
    flops = planner.model_flops(LLAMA3, count, 8192)
    assert flops.matmul == 6 * count.matmul and flops.attention == 12 * 32 * 4096 * 8192
    assert flops.total == planner.flops_per_token(LLAMA3, count, 8192, "none")
    assert round(flops.total / count.total, 2) == 7.21  # the reader trial's figure, against Lesson 3's 6


def test_steps_and_days_of_a_run() -> None:
    run = planner.Run(8192, 8192 * 512, training_tokens=10**12)
    assert planner.training_steps(run) == 238_419  # 238,418.58 steps: the last partial one counted whole
    assert planner.training_steps(planner.Run(8192, 8192 * 512)) is None
    plan = planner.evaluate(LLAMA3, H100, run, planner.Layout(1, 1, 16, zero=3))
    assert isinstance(plan, planner.Plan) and plan.days == 238_419 * plan.step_seconds / 86400


def test_a_batch_that_rules_out_data_parallel_degrees_says_the_nearest_that_divide() -> None:
    planned = planner.plan(LLAMA3, H100, planner.Run(8192, 8192 * 513), {"tp": 1, "pp": 1, "zero": 0})
    hint = planned.batch
    # 513 sequences are odd: every dp but 1 (dp = 16/cp, cp searched over 1 to 16) rules them out; 16 = lcm.
    assert hint is not None
    assert (hint.sequences, hint.ruled_out, hint.lower, hint.upper) == (513, (2, 4, 8, 16), 512, 528)
    assert planner.batch_hint_words(hint, 8192).endswith(
        "512 or 528 sequences (4,194,304 or 4,325,376 tokens) would divide among every degree tried"
    )
    assert planner.plan(LLAMA3, H100, RUN, {"tp": 1, "pp": 1, "zero": 0}).batch is None


def test_each_plan_holds_its_hiding_bound_as_the_lessons_condition_counts_it() -> None:
    from macros.model import conditions
    from macros.model.compute import FLOPS_PER_PARAMETER

    count = parameter_count(LLAMA3)
    plan = planner.evaluate(LLAMA3, H100, RUN, planner.Layout(1, 1, 16, zero=3))
    assert isinstance(plan, planner.Plan) and plan.hiding is not None and plan.hiding.traffic == "zero3"
    f = Fraction(planner.flops_per_token(LLAMA3, count, 8192, "none"), count.total)
    # Pass by pass, one pass of a ring over 16, each node's 8 ports sharing the rings: the forward's 2-byte gather
    # behind its 2 of the 6 FLOPs per parameter, the backward's gather and 4-byte reduce-scatter behind the other 4.
    ports = 8 * H100.network_bandwidth
    forward = conditions.hiding_tokens(2, 16, f * Fraction(2, 6), H100.peak_flops, RUN.share, ports)
    backward = conditions.hiding_tokens(2 + 4, 16, f * Fraction(4, 6), H100.peak_flops, RUN.share, ports)
    bound = max(forward, backward)
    assert backward > forward
    assert plan.hiding.tokens == bound and plan.hiding.margin == 8192 / bound
    assert FLOPS_PER_PARAMETER["none"] == 6
    assert planner.evaluate(LLAMA3, H100, RUN, planner.Layout(8, 2, 1)).hiding is None  # type: ignore[union-attr]


# --- Context and expert parallelism (issue 29): by-hand counts from the formulas' definitions.

LLAMA3_405B: Config = {
    **LLAMA3_8B,
    "num_hidden_layers": 126,
    "hidden_size": 16384,
    "num_attention_heads": 128,
    "intermediate_size": 53248,
}
#: 16,384 H100s, eight a node: the cluster of Llama 3's long-context stage (Llama 3 paper, Table 4).
H100_16K = planner.Hardware(989 * 10**12, 85_028_896_768, 450 * 10**9, 50 * 10**9, per_node=8, nodes=2048)
#: 131,072-token sequences, 128 of them a step (16 per data-parallel replica × dp 8: Table 4's 16M tokens).
LONG_RUN = planner.Run(sequence=131072, global_batch=131072 * 128)
#: The catalog's workload `llama3-405b-long-context`: TP 8, CP 16, PP 16, DP 8.
LONG_LAYOUT = planner.Layout(8, 16, 8, zero=1, sequence_parallel=True, cp=16)


def _llama_layer_bytes_by_hand(tokens: int, h: int, heads: int, kv_heads: int, ffn: int, t: int) -> Fraction:
    """Korthikanti et al.'s tensors of a Llama layer per token, fused attention, sequence parallel, no recomputation:
    attention's input 2h, the queries 2h and the projection's input 2h, keys and values 2·h_kv each, two dropout
    masks h each, the MLP's input 2h and its three 2f intermediates (SwiGLU), two norms' inputs 2h each; all ÷ t."""
    d = h // heads
    per_token = 2 * h + 2 * h + 2 * h + 2 * 2 * kv_heads * d + 2 * h + 2 * h + 3 * 2 * ffn + 2 * 2 * h
    return Fraction(tokens * per_token, t)


def test_llama3_405b_long_context_keeps_a_sixteenth_of_the_activations_on_each_gpu() -> None:
    shape = shape_of(LLAMA3_405B)
    count = parameter_count(shape)
    memory = planner.stage_memory(shape, count, H100_16K, LONG_RUN, LONG_LAYOUT, 0)
    # By hand: stage 0 holds 126/16 layers and, with 16 micro-batches of 1 per replica and 16 stages, 16 in flight;
    # each GPU keeps the 131,072/16 = 8,192 tokens of its share of the sequence; the embedding's int64 ids and its
    # dropout mask (1 byte, ÷ t under sequence parallelism) for each of those micro-batches.
    local = 131072 // 16
    layers = Fraction(126, 16) * 16 * _llama_layer_bytes_by_hand(local, 16384, 128, 8, 53248, 8)
    embedding = 16 * local * (8 + Fraction(16384, 8))
    assert memory.activations == layers + embedding
    assert float(memory.activations) / 2**30 == pytest.approx(66.70, abs=0.01)  # 66.70 GiB, no recomputation
    # The same layout without context parallelism (1,024 GPUs) keeps 16 times as much.
    without = planner.stage_memory(
        shape, count, replace_nodes(H100_16K, 128), LONG_RUN, planner.Layout(8, 16, 8, 1, sequence_parallel=True), 0
    )
    assert without.activations == 16 * memory.activations
    # The planner refuses the paper's layout only for its 126 layers over 16 stages (Llama 3 ran uneven stages).
    broken = planner.broken_rule(shape, H100_16K, LONG_RUN, LONG_LAYOUT)
    assert broken is not None and broken.id == "pp-layers"


def replace_nodes(hardware: planner.Hardware, nodes: int) -> planner.Hardware:
    return planner.Hardware(
        hardware.peak_flops,
        hardware.memory,
        hardware.nvlink_bandwidth,
        hardware.network_bandwidth,
        hardware.per_node,
        nodes,
    )


def _ring_exposed_by_hand(
    sequence: int, cp: int, kv_width_per_gpu: int, query_width_per_gpu: int, flops: Fraction, link: Fraction
) -> Fraction:
    """One layer and micro-batch of 1: each of cp − 1 steps sends 2·(s/cp)·h_kv 2-byte values forward, twice that
    backward, while the attention of (s/cp) queries against (s/cp) keys, 4·(s/cp)²·w FLOPs, halved by the causal
    mask, runs forward and twice that backward."""
    local = sequence // cp
    sent = 3 * (cp - 1) * 2 * local * kv_width_per_gpu * 2
    attention = 3 * (cp - 1) * Fraction(4 * local * local * query_width_per_gpu, 2)
    return max(Fraction(0), sent / link - attention / flops)


def test_the_ring_hides_behind_long_sequences_and_not_behind_short_ones() -> None:
    shape = shape_of(LLAMA3_405B)
    count = parameter_count(shape)
    sustained = Fraction(989 * 10**12, 2)
    # A context group of 16 tensor-parallel blocks of 8: one member a node, each GPU's own 50 GB/s port.
    port = Fraction(50 * 10**9)
    time = planner.step_time(shape, count, H100_16K, LONG_RUN, LONG_LAYOUT)
    # 8,192 tokens a GPU: a block of 2 × 8,192 × 128 × 2 = 4 MiB takes 84 µs, its attention 556 µs.
    assert _ring_exposed_by_hand(131072, 16, 128, 2048, sustained, port) == 0
    assert time.context == 0
    short = planner.Run(sequence=8192, global_batch=8192 * 128)
    exposed = _ring_exposed_by_hand(8192, 16, 128, 2048, sustained, port)
    assert exposed > 0
    per_layer = planner.step_time(shape, count, H100_16K, short, LONG_LAYOUT).context / (16 * Fraction(126, 16))
    assert per_layer == exposed
    assert float(per_layer) * 1e6 == pytest.approx(138.2, abs=0.1)


def test_the_ring_is_exposed_exactly_below_context_hiding_bound() -> None:
    from macros.model import context

    f, w = Fraction(989 * 10**12, 2), Fraction(50 * 10**9)
    bound = context.hiding_tokens(2048, 16, 1, f, w, mask="causal")  # a GPU's 16 heads of 128, one key-value head
    tokens = math.ceil(bound)
    assert context.exposed_ring_seconds(tokens * 4, 1, 2048, 16, 1, 4, f, w) == 0
    assert context.exposed_ring_seconds((tokens - 2) * 4, 1, 2048, 16, 1, 4, f, w) > 0


MIXTRAL_ON_8 = planner.Hardware(989 * 10**12, 85_028_896_768, 450 * 10**9, 50 * 10**9, per_node=8, nodes=1)
MIXTRAL_RUN = planner.Run(sequence=4096, global_batch=4096 * 64)


def test_mixtral_with_ep_8_holds_one_expert_per_layer_per_gpu() -> None:
    shape = shape_of(MIXTRAL_8X7B)
    count = parameter_count(shape)
    layout = planner.Layout(1, 1, 8, zero=1, ep=8)
    assert planner.broken_rule(shape, MIXTRAL_ON_8, MIXTRAL_RUN, layout) is None
    expert = 3 * 4096 * 14336  # one SwiGLU expert: gate, up and down, h × f each
    held = planner.stage_parameters(count, 1, 1, 0, False, 8)
    assert held.experts == 32 * expert
    # By hand, from the config: the embeddings and output layer, each layer's attention (queries and output h × h,
    # keys and values h × 1,024), its two norms and its router (h × 8), and the final norm.
    dense = 2 * 32000 * 4096 + 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 2 * 4096 + 4096 * 8) + 4096
    assert held.parameters == dense + 32 * expert == 7_242_780_672
    memory = planner.stage_memory(shape, count, MIXTRAL_ON_8, MIXTRAL_RUN, layout, 0)
    # bf16-adam: 2-byte parameters, 4-byte gradients, 12 bytes of optimizer states, ZeRO-1 sharding the states over
    # dp × cp = 8 for the dense parameters and over the experts' data-parallel degree 8 ÷ 8 = 1 for the experts.
    assert memory.parameters == 2 * (dense + 32 * expert)
    assert memory.gradients == 4 * (dense + 32 * expert)
    assert memory.optimizer == 12 * (Fraction(dense, 8) + 32 * expert)
    # The four all-to-alls of each of the 32 MoE layers for each of the 64 ÷ 8 = 8 micro-batches: a GPU's 4,096
    # tokens, two copies each (top 2) of 4,096 2-byte values, 7/8 of them to the other 7 GPUs, over NVLink.
    sent = 8 * 32 * 4 * Fraction(4096 * 2 * 4096 * 2 * 7, 8)
    time = planner.step_time(shape, count, MIXTRAL_ON_8, MIXTRAL_RUN, layout)
    assert time.expert == sent / (450 * 10**9)
    assert float(time.expert) == pytest.approx(0.1336, abs=1e-4)  # 60.1 GB a step at 450 GB/s


@pytest.mark.parametrize(
    ("config", "run", "layout", "rule"),
    [
        (LLAMA3_8B, RUN, planner.Layout(2, 1, 8, cp=2), "gpus"),  # 2 × 2 × 1 × 8 = 32 of 16 GPUs
        # cp = 8 divides 8,200 tokens but not into 2 × 8 = 16 zig-zag chunks: 8,200 = 16 × 512 + 8.
        (LLAMA3_8B, planner.Run(8200, 8200 * 512), planner.Layout(2, 1, 1, cp=8), "cp-sequence"),
        (LLAMA3_8B, RUN, planner.Layout(1, 1, 16, ep=2), "ep-dense"),
        (MIXTRAL_8X7B, RUN, planner.Layout(1, 1, 16, ep=3), "ep-experts"),
        (MIXTRAL_8X7B, RUN, planner.Layout(4, 1, 4, ep=8), "ep-devices"),  # cp × dp = 4 devices for 8 groups
    ],
)
def test_the_rules_refuse_context_and_expert_degrees_that_do_not_divide(
    config: Config, run: planner.Run, layout: planner.Layout, rule: str
) -> None:
    broken = planner.broken_rule(shape_of(config), H100, run, layout)
    assert broken is not None and broken.id == rule, broken
    assert planner.evaluate(shape_of(config), H100, run, layout) == broken


def test_mixtral_with_cp_2_and_ep_8_folds_the_experts_over_the_context_group() -> None:
    """Megatron-Core's folding: ep = 8 of the cp × dp = 2 × 8 = 16 GPUs, the experts' data-parallel degree 2."""
    shape = shape_of(MIXTRAL_8X7B)
    count = parameter_count(shape)
    layout = planner.Layout(1, 1, 8, zero=1, cp=2, ep=8)
    assert planner.broken_rule(shape, H100, MIXTRAL_RUN, layout) is None and layout.expert_dp == 2
    expert = 3 * 4096 * 14336
    dense = 2 * 32000 * 4096 + 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 2 * 4096 + 4096 * 8) + 4096
    memory = planner.stage_memory(shape, count, H100, MIXTRAL_RUN, layout, 0)
    assert memory.optimizer == 12 * (Fraction(dense, 16) + Fraction(32 * expert, 2))
    # Each GPU dispatches its 4,096 ÷ 2 = 2,048 tokens; the group of 8 adjacent ranks is one node, NVLink.
    sent = 8 * 32 * 4 * Fraction(2048 * 2 * 4096 * 2 * 7, 8)
    time = planner.step_time(shape, count, H100, MIXTRAL_RUN, layout)
    assert time.expert == sent / (450 * 10**9)
    # The ring of 2 (ranks 0 and 1, one node): 2,048 tokens a GPU, one step each way, hidden behind its attention.
    assert (
        time.context
        == 0
        == _ring_exposed_by_hand(4096, 2, 1024, 4096, Fraction(989 * 10**12, 2), Fraction(450 * 10**9))
    )


def test_plans_that_tie_in_time_and_memory_go_simpler_first_as_floats_would_rank_them() -> None:
    """A search with cp ties exactly (context parallelism hidden, the same compute): plans are ranked by step time
    and then memory to `TIE_DIGITS` digits, and ties by the layout (`layout_order`), so that the page, in floats,
    ranks them as the fractions here do."""
    assert planner.tied(Fraction(1, 3)) == planner.tied(1 / 3 + 1e-16) and planner.tied(1.0) != planner.tied(1.001)
    fitting = [p for p in planner.plan(LLAMA3, H100, RUN).plans if p.fits]
    keys = [
        (planner.tied(p.step_seconds), planner.tied(p.memory.total), planner.layout_order(p.layout)) for p in fitting
    ]
    assert keys == sorted(keys)
    assert any(a[:2] == b[:2] for a, b in itertools.pairwise(keys)), "no tie to order"
    assert any(p.layout.cp > 1 for p in fitting)


def test_hybrid_sharding_shards_within_a_node_and_all_reduces_the_shards_across_nodes_once_a_step() -> None:
    """FSDP's HYBRID_SHARD on two nodes of eight: the states sharded over the node's F = 8 data-parallel ranks
    where full sharding splits them over all 16; ZeRO-3's traffic within the node over NVLink for each micro-batch;
    each GPU's 1/8 of the gradients all-reduced with its copy on the other node, R = 2, once a step, through its port.
    Counted here by hand from the parameters and the links, not through the planner's helpers."""
    count = parameter_count(LLAMA3)
    full = planner.evaluate(LLAMA3, H100, RUN, planner.Layout(1, 1, 16, zero=3))
    hybrid = planner.evaluate(LLAMA3, H100, RUN, planner.Layout(1, 1, 16, zero=3, hybrid=True))
    assert isinstance(full, planner.Plan) and isinstance(hybrid, planner.Plan)
    assert planner.hybrid_groups(H100, hybrid.layout) == (8, 2)
    # bf16-adam: 2 + 4 + 12 bytes, every state sharded; the largest unit gathered is the same for both.
    assert hybrid.memory.optimizer == Fraction(12 * count.total, 8) == 2 * full.memory.optimizer
    assert hybrid.memory.activations == full.memory.activations
    # The traffic: 16-bit gathers and fp32 reduce-scatters of the 8 GPUs' shards over 450 GB/s, hidden behind
    # 512 / 16 = 32 micro-batches' passes, and the all-reduce of 4-byte gradient shards across 50 GB/s ports.
    microbatches = 512 // 16
    compute = full.time.compute / microbatches
    forward, backward = compute * 2 / 6, compute * 4 / 6
    within = Fraction(7, 8) * count.total / (450 * 10**9)
    reduced = Fraction(2 * 1, 2) * Fraction(count.total, 8) * 4 / (50 * 10**9)
    zero = Fraction(0)
    exposed = microbatches * (max(zero, within * 2 - forward) + max(zero, within * (2 + 4) - backward))
    exposed += max(zero, reduced - backward)
    assert hybrid.time.data == exposed
    assert hybrid.hiding is not None and hybrid.hiding.traffic in ("zero3", "allreduce")


def test_hybrid_sharding_in_one_node_is_full_sharding_and_its_rule_says_which_reason() -> None:
    one_node = replace(H100, nodes=1)
    words = {
        planner.Layout(1, 1, 8, zero=3, hybrid=True): planner.HYBRID_WHY["nodes"].format(group=8),
        planner.Layout(1, 1, 16, zero=1, hybrid=True): planner.HYBRID_WHY["zero"].format(zero=1),
        planner.Layout(8, 1, 2, zero=3, hybrid=True): planner.HYBRID_WHY["shard"],
    }
    for layout, why in words.items():
        hardware = one_node if layout.dp == 8 else H100
        broken = planner.broken_rule(LLAMA3, hardware, RUN, layout)
        assert broken is not None and broken.id == "hybrid" and broken.message.endswith(why), broken
