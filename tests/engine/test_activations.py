"""Bytes autograd saves per transformer layer, against Korthikanti et al.'s sbh(34 + 5as/h).

Each layer runs on small shapes in CPU processes; its saved bytes are fitted
exactly to terms in s·b·h, a·s²·b, a·s·b and s·b (`saved.TERMS`), the fit is
checked on one more shape, and its coefficients are compared with the
course's `macros.model.activation_bytes_per_layer` (34 and 5). The fit at the
course's own shapes (GPT-2 1.5B at s = 1024; Llama 2 7B at s = 4096, micro-batch
1, from the catalog's workloads) gives the ratio of what the real layer keeps
to what the course counts, with the attention scores where the layer stores them
(eager attention) and without (scaled-dot-product attention, whose CPU kernel
keeps its output and a log-sum-exp per row instead; CUDA's flash attention kernels,
which the tier cannot run, are not measured).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from fractions import Fraction
from functools import cache

import pytest
import torch
from transformers import GPT2Config, LlamaConfig
from transformers.models.gpt2.modeling_gpt2 import GPT2Block
from transformers.models.llama.modeling_llama import LlamaDecoderLayer, LlamaRotaryEmbedding

from macros import model
from tests.conftest import catalog

from .conftest import Recorder
from .paper_layer import PaperLayer
from .saved import Fit, Saved, Shape, fit, saved_bytes

SOFTWARE = ("torch", "transformers")
#: Llama 2 7B's MLP width over its hidden size, 11008/4096 (its configuration; see test_parameters).
LLAMA_MLP_RATIO = Fraction(11008, 4096)
#: (sequence, batch, heads, head width) of the fitting shapes, one per term, and of the check. The head
#: width varies, so that a per-head term (a·s·b) is told apart from a per-hidden-unit one (s·b·h).
FIT_SHAPES = ((8, 1, 2, 64), (16, 1, 2, 64), (8, 2, 3, 32), (24, 1, 2, 32))
CHECK_SHAPE = (12, 3, 4, 32)


def _shape(s: int, b: int, a: int, d: int) -> Shape:
    return Shape(s, b, a * d, a)


SHAPES = [_shape(*shape) for shape in FIT_SHAPES]
CHECK = _shape(*CHECK_SHAPE)


def _input(shape: Shape, autocast: bool, batch_first: bool = False) -> torch.Tensor:
    """The layer's input, contiguous in the layout the layer expects (a transposed view would be copied)."""
    dtype = torch.float32 if autocast else torch.bfloat16
    size = (shape.batch, shape.sequence) if batch_first else (shape.sequence, shape.batch)
    return torch.randn(*size, shape.hidden, dtype=dtype, requires_grad=True)


def _run(
    layer: torch.nn.Module,
    shape: Shape,
    first: Callable[[torch.Tensor], torch.Tensor],
    autocast: bool,
    batch_first: bool = False,
) -> Saved:
    torch.manual_seed(0)
    layer = layer.to(torch.float32 if autocast else torch.bfloat16).train()
    x = _input(shape, autocast, batch_first)
    context = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else nullcontext()
    with context:
        return saved_bytes(lambda: first(x), layer.parameters())


def _paper(shape: Shape, autocast: bool) -> Saved:
    layer = PaperLayer(shape.hidden, shape.heads)
    return _run(layer, shape, layer, autocast)


def _gpt2(attention: str, shape: Shape, autocast: bool) -> Saved:
    config = GPT2Config(n_embd=shape.hidden, n_head=shape.heads, attn_implementation=attention)
    layer = GPT2Block(config, layer_idx=0)
    return _run(layer, shape, lambda x: layer(x)[0], autocast, batch_first=True)


def _llama(attention: str, shape: Shape, autocast: bool) -> Saved:
    config = LlamaConfig(
        hidden_size=shape.hidden,
        intermediate_size=int(LLAMA_MLP_RATIO * shape.hidden),
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.heads,
        attn_implementation=attention,
    )
    layer = LlamaDecoderLayer(config, layer_idx=0)
    dtype = torch.float32 if autocast else torch.bfloat16
    positions = torch.arange(shape.sequence).unsqueeze(0).expand(shape.batch, -1)
    probe = torch.zeros(shape.batch, shape.sequence, shape.hidden, dtype=dtype)
    # The rotary tables are the model's, computed once for all layers: not this layer's activations.
    cos, sin = LlamaRotaryEmbedding(config)(probe, positions)
    torch.manual_seed(0)
    layer = layer.to(dtype).train()
    x = _input(shape, autocast, batch_first=True)
    context = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else nullcontext()
    with context:
        return saved_bytes(lambda: layer(x, position_embeddings=(cos, sin))[0], layer.parameters(), (cos, sin))


LAYERS: dict[str, Callable[[Shape, bool], Saved]] = {
    "paper": _paper,
    "gpt2-eager": lambda shape, autocast: _gpt2("eager", shape, autocast),
    "gpt2-sdpa": lambda shape, autocast: _gpt2("sdpa", shape, autocast),
    "llama-eager": lambda shape, autocast: _llama("eager", shape, autocast),
    "llama-sdpa": lambda shape, autocast: _llama("sdpa", shape, autocast),
}
PRECISIONS = ("bf16", "autocast")


@cache
def layer_fit(layer: str, precision: str) -> Fit:
    """The exact fit of what `layer` saves in `precision`, over the small shapes."""
    run = LAYERS[layer]
    return fit(lambda shape: run(shape, precision == "autocast").activations, SHAPES, CHECK)


def _course_shape(workload: str) -> Shape:
    setting = catalog().workload(workload)
    entry = setting.model.id
    return Shape(
        catalog().quantity(workload, "sequence").count,
        catalog().quantity(workload, "batch").count,
        catalog().quantity(entry, "hidden").count,
        catalog().quantity(entry, "heads").count,
    )


def test_paper_layer_matches_korthikanti(record: Recorder) -> None:
    """The layer built to §4.1's assumptions saves 34 bytes per s·b·h and 5 per a·s²·b, exactly."""
    result = layer_fit("paper", "bf16")
    assert result.checked, "the fit does not predict the check shape: a term is missing"
    linear = sum(model.LINEAR_BYTES_PER_TOKEN_HIDDEN.values())
    record(
        "activations-by-tensor/paper-layer/sbh",
        ["activations-by-tensor", "model.activation_bytes_per_layer", "model.LINEAR_BYTES_PER_TOKEN_HIDDEN"],
        SOFTWARE,
        result.coefficients["sbh"],
        linear,
        "B/sbh",
    )
    record(
        "activations-by-tensor/paper-layer/as2b",
        ["activations-by-tensor", "model.activation_bytes_per_layer", "model.ATTENTION_SCORE_BYTES"],
        SOFTWARE,
        result.coefficients["as2b"],
        model.ATTENTION_SCORE_BYTES,
        "B/as2b",
    )
    # §4.1 counts tensors of s·b·h and a·s²·b values; the layer norms' per-token statistics (mean and
    # inverse deviation, two norms) are all that is left, and no per-head term. PyTorch's CPU kernel keeps
    # them in the input's dtype (bf16); its CUDA kernel keeps them in fp32, which the tier cannot run.
    record(
        "activations-by-tensor/paper-layer/sb",
        ["activations-by-tensor", "model.activation_bytes_per_layer"],
        SOFTWARE,
        result.coefficients["sb"],
        0,
        "B/sb",
        differs="each layer norm also saves a mean and an inverse deviation per token, which §4.1 leaves out"
        " (2 × 2 bytes each on the CPU, in bf16; CUDA's kernel keeps them in fp32)",
    )
    assert (result.coefficients["sbh"], result.coefficients["as2b"]) == (
        Fraction(linear),
        Fraction(model.ATTENTION_SCORE_BYTES),
    )
    assert result.coefficients["asb"] == 0
    assert result.coefficients["sb"] == 2 * 2 * model.BYTES_PER_VALUE["bf16"]


def test_paper_layer_at_gpt3s_shape(record: Recorder) -> None:
    """The whole layer at GPT-3's shape (Korthikanti et al.'s evaluation, one sequence): their sbh(34 + 5as/h), and
    the layer norms' per-token statistics, which is all it keeps beyond the count."""
    result = layer_fit("paper", "bf16")
    shape = _course_shape("gpt3-activations")
    shape = Shape(shape.sequence, catalog().quantity("gpt3-activations", "microbatch").count, shape.hidden, shape.heads)
    course = model.activation_bytes_per_layer(shape.sequence, shape.batch, shape.hidden, shape.heads)
    ratio = result.bytes(shape) / course
    record(
        "activations-by-tensor/gpt3-activations/none/paper/bf16",
        ["layer-activations", "activations-by-tensor", "model.activation_bytes_per_layer"],
        SOFTWARE,
        ratio,
        1,
        "1",
        differs="each layer norm also saves a mean and an inverse deviation per token, which §4.1 leaves out"
        " (2 × 2 bytes each on the CPU, in bf16; CUDA's kernel keeps them in fp32)",
    )
    norms = 2 * 2 * model.BYTES_PER_VALUE["bf16"] * shape.sequence * shape.batch
    assert ratio == 1 + Fraction(norms) / course


#: Per real layer: the catalog workload whose shape it is compared at, and the recomputation whose count
#: matches what it stores of the attention (eager attention stores the scores; SDPA's kernels do not).
REAL = {
    "gpt2-eager": ("zero-gpt2-activations-mb1", "none"),
    "gpt2-sdpa": ("zero-gpt2-activations-mb1", "selective"),
    "llama-eager": ("llama2-7b-one-host", "none"),
    "llama-sdpa": ("llama2-7b-one-host", "selective"),
}


BF16, FP32 = model.BYTES_PER_VALUE["bf16"], model.BYTES_PER_VALUE["fp32"]
#: native_dropout's mask, one bool per value.
MASK = 1


def _gpt2_saves(attention: str, autocast: bool) -> dict[str, Fraction]:
    """GPT2Block's saved bytes per term, tensor by tensor (`GPT2Config`'s MLP is 4h wide, dropout 0.1 everywhere)."""
    residual = FP32 if autocast else BF16  # autocast keeps the fp32 input's residual stream, and its norms in fp32
    sbh = (
        2 * residual  # each layer norm's input
        + 2 * BF16  # each layer norm's output, as the next matmul saves it (autocast's bf16 cast of it)
        # Q, K and V: eager attention keeps c_attn's output, one storage; the CPU's SDPA, with dropout, runs its
        # math path on fp32 copies of each.
        + 3 * (BF16 if attention == "eager" else FP32)
        + BF16  # the heads merged, c_proj's input
        + 4 * 5 * BF16  # the tanh GeLU's five 4h tensors: c_fc's output, tanh, 1 + tanh, x/2 and the GeLU's output
        + 2 * MASK  # the dropout masks after c_proj and after the MLP
    )
    # The softmax's output, the dropout's mask and its output: bf16 and a bool mask, or the math path's fp32.
    as2b = 2 * BF16 + MASK if attention == "eager" else 3 * FP32
    # Each layer norm's mean and inverse deviation, in its compute dtype.
    return {"sbh": Fraction(sbh), "as2b": Fraction(as2b), "asb": Fraction(0), "sb": Fraction(2 * 2 * residual)}


def _llama_saves(attention: str, autocast: bool) -> dict[str, Fraction]:
    """LlamaDecoderLayer's saved bytes per term, tensor by tensor (no dropout; a SwiGLU MLP of Llama 2's width)."""
    # Each RMSNorm keeps its input in fp32 (a copy of a bf16 input) and what it normalizes: in bf16 that cast back to
    # bf16 and its output times the weight; under autocast the normalized fp32 tensor, which each of the matmuls that
    # read the output casts to bf16 for itself, three (Q, K, V) after the first norm and two (gate, up) after the
    # second.
    norms = 2 * (FP32 + (FP32 if autocast else 2 * BF16)) + ((3 + 2) * BF16 if autocast else 0)
    sbh = (
        norms
        + 3 * BF16  # Q and K after the rotary embedding, and V
        + BF16  # the attention's output as o_proj reads it
        + 4 * BF16 * LLAMA_MLP_RATIO  # the gate's and up's outputs, SiLU's and the product
    )
    # Eager attention's softmax output in fp32, and its bf16 cast for the product with V; the CPU's flash kernel
    # keeps a log-sum-exp per head and token instead.
    scores = {"as2b": FP32 + BF16, "asb": 0} if attention == "eager" else {"as2b": 0, "asb": FP32}
    return {"sbh": Fraction(sbh), **{k: Fraction(v) for k, v in scores.items()}, "sb": Fraction(2 * FP32)}


#: What each real layer saves, per term, from the tensors it keeps (the fit must find exactly these).
SAVES: dict[str, Callable[[str, bool], dict[str, Fraction]]] = {"gpt2": _gpt2_saves, "llama": _llama_saves}


@pytest.mark.parametrize("precision", PRECISIONS)
@pytest.mark.parametrize("layer", list(REAL))
def test_real_layer_against_korthikanti(record: Recorder, layer: str, precision: str) -> None:
    """What transformers' layer saves at the course's shape, as a multiple of Korthikanti's count there."""
    result = layer_fit(layer, precision)
    assert result.checked, f"the fit of {layer} does not predict the check shape: a term is missing"
    workload, recompute = REAL[layer]
    shape = _course_shape(workload)
    course = model.activation_bytes_per_layer(shape.sequence, shape.batch, shape.hidden, shape.heads, recompute)
    measured = result.bytes(shape)
    ratio = measured / course
    terms = ", ".join(f"{c} per {n}" for n, c in result.coefficients.items() if c)
    record(
        f"activations-by-tensor/{workload}/{recompute}/{layer}/{precision}",
        ["activations-by-tensor", "layer-activations", "model.activation_bytes_per_layer"],
        SOFTWARE,
        ratio,
        1,
        "1",
        differs=f"transformers' layer saves {terms} (bytes, fitted exactly), not 34 per sbh"
        + (" and 5 per as2b" if recompute == "none" else ""),
    )
    family, attention = layer.split("-")
    assert result.coefficients == SAVES[family](attention, precision == "autocast")
    assert ratio > 1


def test_autocast_keeps_the_residual_stream_in_fp32() -> None:
    """Under autocast the same GPT2Block saves more than in bf16: its norms and residuals run in fp32."""
    assert layer_fit("gpt2-eager", "autocast").coefficients["sbh"] > layer_fit("gpt2-eager", "bf16").coefficients["sbh"]


def test_autocast_caches_weight_casts() -> None:
    """Autocast saves a bf16 copy of each matmul weight for the backward pass: 2 bytes per weight."""
    shape = CHECK
    layer = PaperLayer(shape.hidden, shape.heads)
    saved = _run(layer, shape, layer, autocast=True)
    weights = sum(p.numel() for name, p in layer.named_parameters() if name.endswith("weight") and p.dim() == 2)
    assert Fraction(saved.weight_casts, weights) == model.BYTES_PER_VALUE["bf16"]
