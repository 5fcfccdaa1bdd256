"""How many parameters a transformer's shape implies.

Kaplan et al., "Scaling Laws for Neural Language Models" (2020,
https://arxiv.org/abs/2001.08361), §2.1, eq. (2.1): the non-embedding
parameters are N ≈ 2·d_model·n_layer·(2·d_attn + d_ff) = 12·n_layer·d_model²
"with the standard d_attn = d_ff/4 = d_model", biases and other sub-leading
terms left out; Table 1 adds (n_vocab + n_ctx)·d_model for the token and
position embeddings. Both are counts of weight matrices' entries: exact
integers.

What eq. (2.1) leaves out, for GPT-2's own layout (Radford et al. 2019; the
released weights as nanoGPT's model.py loads them, with bias=True): each layer
has biases on its four linear layers (3·d_model for queries, keys and values,
d_model for the attention output, 4·d_model and d_model for the feed-forward
pair) and two layer norms with a gain and a bias each (4·d_model), 13·d_model in
all, and the final layer norm adds 2·d_model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .checks import check_count as _check_count

#: Kaplan eq. (2.1): per layer, 4·d_model² in attention (Q, K, V and the output
#: projection, with d_attn = d_model) and 8·d_model² in the feed-forward block
#: (two matrices with d_ff = 4·d_model).
BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED = 12


#: GPT-2's vectors per layer, in units of d_model: biases 3 + 1 + 4 + 1, two layer norms 2 × 2.
GPT2_VECTORS_PER_LAYER_PER_HIDDEN = 13
#: ...and the final layer norm's gain and bias.
GPT2_FINAL_VECTORS_PER_HIDDEN = 2


def block_parameters(layers: int, hidden: int) -> int:
    """Kaplan's N: 12 × layers × hidden², the transformer blocks' weight matrices."""
    _check_count("layers", layers)
    _check_count("hidden", hidden)
    return BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED * layers * hidden**2


def embedding_parameters(vocabulary: int, context: int, hidden: int) -> int:
    """Kaplan Table 1's "Embed" row: (n_vocab + n_ctx) × d_model, token and position embeddings."""
    for name, value in (("vocabulary", vocabulary), ("context", context), ("hidden", hidden)):
        _check_count(name, value)
    return (vocabulary + context) * hidden


def shape_parameters(layers: int, hidden: int, vocabulary: int, context: int) -> int:
    """The blocks and the embeddings together: what the shape implies, biases and layer norms left out."""
    return block_parameters(layers, hidden) + embedding_parameters(vocabulary, context, hidden)


def vector_parameters(layers: int, hidden: int) -> int:
    """GPT-2's biases and layer norms, which eq. (2.1) leaves out: (13 × layers + 2) × hidden."""
    _check_count("layers", layers)
    _check_count("hidden", hidden)
    return (GPT2_VECTORS_PER_LAYER_PER_HIDDEN * layers + GPT2_FINAL_VECTORS_PER_HIDDEN) * hidden


# A decoder-only transformer of today, counted exactly as its model class builds it.
#
# GPT-2 (transformers' GPT2LMHeadModel; nanoGPT's model.py with bias=True), Llama, Mistral and Qwen2
# (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM) and Mixtral (MixtralForCausalLM) differ only in
# the choices `TransformerShape` names: grouped-query attention (key-value heads fewer than heads, each of
# `head_dim` values), a gated (SwiGLU) MLP of three h × f matrices or a plain one of two, biases on the
# attention projections (GPT-2: all four; Qwen2: queries, keys and values only) and on the MLP, LayerNorm (a
# gain and a bias) or RMSNorm (a gain), learned position embeddings or rotary ones (no parameters), tied or
# untied input and output embeddings, and a mixture of experts that replaces the MLP with `experts` MLPs of
# width `expert_ffn` and a router of h × experts weights (Mixtral's `gate`, no bias), of which each token uses
# `experts_per_token`.

#: The norms a shape may use, and the vectors of h values each keeps: LayerNorm a gain and a bias, RMSNorm a gain.
NORM_VECTORS = {"layernorm": 2, "rmsnorm": 1}


@dataclass(frozen=True)
class TransformerShape:
    """A decoder-only transformer's shape, as a Hugging Face config.json or a paper's table gives it.

    `head_dim` defaults to hidden ÷ heads; `ffn` is the MLP's inner width (GPT-2's 4h, Llama 3 8B's
    14,336); `positions` is the number of learned position embeddings (GPT-2's 1,024), 0 for rotary ones.
    `attention_bias` puts a bias on the query, key and value projections, `output_bias` on the attention's
    output projection, `mlp_bias` on the MLP's matrices. A mixture of experts has `experts` > 0, each token
    routed to `experts_per_token` of them, each expert an MLP of width `expert_ffn`; `ffn` is then unused.
    """

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocabulary: int
    gated: bool = False
    tied: bool = True
    norm: str = "layernorm"
    attention_bias: bool = False
    output_bias: bool = False
    mlp_bias: bool = False
    positions: int = 0
    head_dim: int = 0
    experts: int = 0
    experts_per_token: int = 0
    expert_ffn: int = 0

    def __post_init__(self) -> None:
        for name in ("layers", "hidden", "heads", "kv_heads", "ffn", "vocabulary"):
            _check_count(name, getattr(self, name))
            if not isinstance(getattr(self, name), int):
                raise TypeError(f"{name} must be a whole number, got {getattr(self, name)!r}")
        if self.norm not in NORM_VECTORS:
            raise ValueError(f"unknown norm {self.norm!r}; known: {', '.join(NORM_VECTORS)}")
        if self.heads % self.kv_heads:
            raise ValueError(
                f"{self.heads} attention heads do not make whole groups of {self.kv_heads} key-value heads"
            )
        if not self.head_dim and self.hidden % self.heads:
            raise ValueError(f"a hidden size of {self.hidden} does not split into {self.heads} heads: give head_dim")
        if self.experts and not 0 < self.experts_per_token <= self.experts:
            raise ValueError(f"each token goes to between 1 and {self.experts} experts, got {self.experts_per_token}")
        if self.experts and self.expert_ffn <= 0:
            raise ValueError("a mixture of experts needs each expert's width, expert_ffn")
        for name in ("positions", "head_dim", "experts", "experts_per_token", "expert_ffn"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"{name} must be a whole number, 0 or more, got {value!r}")

    @property
    def dim(self) -> int:
        """Each head's width: `head_dim`, or hidden ÷ heads."""
        return self.head_dim or self.hidden // self.heads

    @property
    def query_width(self) -> int:
        """The queries' width, heads × head_dim: the attention's inner width (h unless head_dim says otherwise)."""
        return self.heads * self.dim

    @property
    def kv_width(self) -> int:
        """The keys' (and the values') width, kv_heads × head_dim: h without grouped-query attention."""
        return self.kv_heads * self.dim


@dataclass(frozen=True)
class LayerParameters:
    """One transformer layer's parameters by kind: what tensor parallelism splits, and what it copies.

    `split` holds the weight matrices and the biases of column-parallel layers (Megatron-LM §3: queries, keys,
    values and the MLP's first matrices split by columns, the attention's output and the MLP's last matrix by
    rows), which t-way tensor parallelism divides by t; `copied` holds the norms and the biases of row-parallel
    layers, which every GPU of a tensor-parallel group keeps whole. `experts` are the routed experts' matrices
    and biases (in `split` too), `active_experts` the share of them a token uses.
    """

    split: int
    copied: int
    experts: int = 0
    active_experts: int = 0

    @property
    def total(self) -> int:
        """Every parameter of the layer."""
        return self.split + self.copied

    @property
    def active(self) -> int:
        """The parameters one token's forward pass uses: all but the experts it is not routed to."""
        return self.total - self.experts + self.active_experts


#: An MLP's h × f matrices: two (up and down), or three when gated (gate, up and down); all but the last
#: (down) are column-parallel, with a bias of f each where the MLP has biases.
MLP_MATRICES: Mapping[str, int] = MappingProxyType({"plain": 2, "gated": 3})


def _mlp_parameters(hidden: int, width: int, gated: bool, bias: bool) -> tuple[int, int]:
    """An MLP's (split, copied) parameters: two h × f matrices, or three when gated (gate, up and down)."""
    count = MLP_MATRICES["gated" if gated else "plain"]
    matrices = count * hidden * width
    column_biases = ((count - 1) * width) if bias else 0
    return matrices + column_biases, hidden if bias else 0


def layer_parameters(shape: TransformerShape) -> LayerParameters:
    """One layer's parameters, as the model classes build it (see `TransformerShape`).

    Attention: queries h × heads·d, keys and values h × kv_heads·d each, output heads·d × h, with their biases;
    two norms; an MLP of two or three matrices, or a router of h × experts weights and `experts` such MLPs.
    GPT-2 XL's 12h² + 13h per layer, Llama 2 7B's 4h² + 3hf + 2h.
    """
    s = shape
    attention = s.hidden * (2 * s.query_width + 2 * s.kv_width)
    attention += (s.query_width + 2 * s.kv_width) if s.attention_bias else 0
    copied = NORM_VECTORS[s.norm] * 2 * s.hidden + (s.hidden if s.output_bias else 0)
    if not s.experts:
        split, copied_mlp = _mlp_parameters(s.hidden, s.ffn, s.gated, s.mlp_bias)
        return LayerParameters(attention + split, copied + copied_mlp)
    split, copied_mlp = _mlp_parameters(s.hidden, s.expert_ffn, s.gated, s.mlp_bias)
    experts = s.experts * (split + copied_mlp)
    router = s.hidden * s.experts
    active = s.experts_per_token * (split + copied_mlp)
    # Each expert's row-parallel bias is split with its expert; the router is copied, like a norm.
    return LayerParameters(attention + experts, copied + router, experts, active)


@dataclass(frozen=True)
class ParameterCount:
    """A model's parameters: every one, those a token uses, and the parts a pipeline places stage by stage."""

    layers: int
    layer: LayerParameters
    #: The token embeddings, vocabulary × h (split by t, Megatron-LM's vocabulary-parallel embedding).
    embedding: int
    #: The learned position embeddings, positions × h (copied), 0 for rotary ones.
    positions: int
    #: The output layer's own weights, vocabulary × h, 0 when tied to the token embeddings.
    output: int
    #: The final norm's vectors.
    final_norm: int

    @property
    def total(self) -> int:
        """Every parameter, counted once: what `sum(p.numel() for p in model.parameters())` gives."""
        return self.layers * self.layer.total + self.embedding + self.positions + self.output + self.final_norm

    @property
    def active(self) -> int:
        """The parameters one token uses (Mixtral's "active parameters"): `total` for a dense model."""
        return self.layers * self.layer.active + self.embedding + self.positions + self.output + self.final_norm

    @property
    def matmul(self) -> int:
        """The parameters one token multiplies by in a forward pass: the layers' active ones and the output layer.

        The input embeddings are looked up, not multiplied (Kaplan et al. §2.1 leave them out of N); the
        output layer multiplies by vocabulary × h weights, tied or not (Narayanan et al. Eq. 3's 6BshV term).
        """
        return self.layers * self.layer.active + self.embedding


def parameter_count(shape: TransformerShape) -> ParameterCount:
    """The exact parameter count of `shape`, by part (`ParameterCount`).

    For GPT-2's shapes it is `shape_parameters` + `vector_parameters` (Kaplan's blocks and embeddings, and
    GPT-2's biases and norms): 1,557,611,200 for GPT-2 XL as released.
    """
    vectors = NORM_VECTORS[shape.norm] * shape.hidden
    return ParameterCount(
        layers=shape.layers,
        layer=layer_parameters(shape),
        embedding=shape.vocabulary * shape.hidden,
        positions=shape.positions * shape.hidden,
        output=0 if shape.tied else shape.vocabulary * shape.hidden,
        final_norm=vectors,
    )
