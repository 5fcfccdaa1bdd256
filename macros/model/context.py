"""Context parallelism: a sequence split across c devices, what each keeps, and what its ring sends.

Activations. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models"
(2022, https://arxiv.org/abs/2205.05198), §4.1, Equation 1: a layer keeps sbh(34 + 5as/h) bytes
(`activations.activation_bytes_per_layer`); the 5as²b of it are the attention scores an unfused kernel
stores, which a fused kernel (FlashAttention) never stores, leaving 34sbh. Split the sequence across c
devices and every tensor of the layer is split along it: each device keeps the activations of its s/c
tokens, the linear part 34(s/c)bh and, where scores are stored, its s/c rows of every head's s × s
scores, 5a(s/c)sb. Both divide by c; with t-way tensor parallelism and Korthikanti et al.'s sequence
parallelism, by t as well (their §4.2.2, "Equation 1 divided by the tensor parallel size").

The ring. Liu, Zaharia and Abbeel, "Ring Attention with Blockwise Transformers for Near-Infinite
Context" (2023, https://arxiv.org/abs/2310.01889), §3: each device keeps its block of queries and
passes its block of keys and values to the next device of a ring, c − 1 times per layer, computing
attention against the block it holds while the next arrives. A block is the keys and values of s/c
tokens: 2 × (s/c) × b × h_kv values, h_kv = kv_heads × h/heads (grouped-query attention keeps fewer
key and value heads than query heads). The backward pass sends each block again, and the gradients of
its keys and values with it, which travel on to the device that holds those keys: twice the forward's
bytes (the course's count of what a ring backward pass must move, not a number a source prints).

Hiding. One step computes, for its s/c queries against a block of s/c keys, QKᵀ and the scores times
V: 2 × 2(s/c)²bh FLOPs in the forward pass, all of them without a causal mask. The block's transfer
hides behind that when 4(s/c)²bh/F ≥ 2e(s/c)b·h_kv/W, that is when each device holds at least
s/c ≥ e·h_kv·F/(2h·W) tokens (e bytes per value, F the FLOP/s, W the link's bytes per second each
way): with e = 2 and h_kv = h, at least F/W, Liu et al.'s own condition (§3, "Arithmetic Intensity
Between Hosts": the block size "should be greater than or equal to F/B"). The course adds two factors:
h_kv/h for grouped-query attention, and a causal mask, which computes half the scores on average (once the
split is balanced), so it needs twice the tokens.
"""

from __future__ import annotations

from fractions import Fraction

from .activations import ATTENTION_SCORE_BYTES, LINEAR_BYTES_PER_TOKEN_HIDDEN
from .checks import check_count as _check_count

#: What an attention kernel keeps of the s × s scores: all of them (Megatron-LM's kernels of 2022, Korthikanti
#: et al.'s Equation 1), or none (a fused kernel such as FlashAttention, which recomputes them backward).
SCORES = ("stored", "fused")
#: What a figure of the ring counts: one block of keys and values, a layer's forward pass (c − 1 blocks), or its
#: backward pass (c − 1 blocks and their gradients).
RING_PASSES = ("block", "forward", "backward")
#: Attention masks: every query sees every key, or only the keys before it.
MASKS = ("full", "causal")
#: Forward FLOPs per (query token × key token × hidden unit) of one block: QKᵀ and scores × V, 2 FLOPs per
#: multiply-add each.
BLOCK_FLOPS_PER_TOKEN_PAIR_HIDDEN = 4
#: How many times a causal mask's tokens per device must be a full mask's: half the scores to compute, on average.
CAUSAL_FACTOR = 2


def _check_divides(name: str, divisor: int, value: int, what: str) -> None:
    if value % divisor:
        raise ValueError(f"the {name} ({divisor}) must divide the {what} ({value})")


def tokens_per_device(sequence: int, context: int) -> int:
    """s/c: the tokens each of `context` devices holds; the degree must divide the sequence."""
    _check_count("sequence", sequence)
    _check_count("context", context)
    _check_divides("context-parallel degree", context, sequence, "sequence length")
    return sequence // context


def activation_bytes_per_device(
    sequence: int, batch: int, hidden: int, heads: int, context: int, tensor: int = 1, scores: str = "fused"
) -> Fraction:
    """Bytes of one layer's activations on each device: sbh(34 + 5as/h)/(c·t) with stored scores, 34sbh/(c·t) fused.

    Korthikanti et al.'s Equation 1, split by `context` along the sequence and by `tensor` with sequence
    parallelism. Raises ValueError for an unknown `scores` or a degree that does not divide what it splits.
    """
    if scores not in SCORES:
        raise ValueError(f"unknown scores {scores!r}; known: {', '.join(SCORES)}")
    for name, value in (("batch", batch), ("hidden", hidden), ("heads", heads), ("tensor", tensor)):
        _check_count(name, value)
    local = tokens_per_device(sequence, context)
    linear = sum(LINEAR_BYTES_PER_TOKEN_HIDDEN.values()) * local * batch * hidden
    score = ATTENTION_SCORE_BYTES * heads * local * sequence * batch if scores == "stored" else 0
    return Fraction(linear + score, tensor)


def kv_width(hidden: int, heads: int, kv_heads: int) -> int:
    """h_kv: the values per token of the keys (or of the values): kv_heads × h/heads."""
    for name, value in (("hidden", hidden), ("heads", heads), ("kv_heads", kv_heads)):
        _check_count(name, value)
    _check_divides("heads", heads, hidden, "hidden size")
    _check_divides("key-value heads", kv_heads, heads, "attention heads")
    return kv_heads * (hidden // heads)


def kv_block_bytes(tokens: int, batch: int, hidden: int, heads: int, kv_heads: int, bytes_per_value: int = 2) -> int:
    """Bytes of one block of keys and values: 2 × tokens × b × h_kv values of `bytes_per_value` each."""
    _check_count("tokens", tokens)
    _check_count("batch", batch)
    return 2 * tokens * batch * kv_width(hidden, heads, kv_heads) * bytes_per_value


def ring_bytes_per_layer(
    sequence: int,
    batch: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    context: int,
    ring_pass: str = "forward",
    bytes_per_value: int = 2,
) -> int:
    """Bytes each device sends for one layer of ring attention: a block, (c − 1) blocks forward, 2(c − 1) backward."""
    if ring_pass not in RING_PASSES:
        raise ValueError(f"unknown pass {ring_pass!r}; known: {', '.join(RING_PASSES)}")
    block = kv_block_bytes(tokens_per_device(sequence, context), batch, hidden, heads, kv_heads, bytes_per_value)
    return {"block": 1, "forward": context - 1, "backward": 2 * (context - 1)}[ring_pass] * block


def block_attention_flops(tokens: int, batch: int, hidden: int) -> int:
    """Forward FLOPs of one step of the ring without a mask: 4 × tokens² × b × h (QKᵀ and scores × V)."""
    for name, value in (("tokens", tokens), ("batch", batch), ("hidden", hidden)):
        _check_count(name, value)
    return BLOCK_FLOPS_PER_TOKEN_PAIR_HIDDEN * tokens * tokens * batch * hidden


def hiding_tokens(
    hidden: int,
    heads: int,
    kv_heads: int,
    flops_per_second: Fraction | int,
    bandwidth: Fraction | int,
    mask: str = "full",
    bytes_per_value: int = 2,
) -> Fraction:
    """The least tokens per device, s/c, for a block's transfer to hide behind its attention: e·h_kv·F/(2h·W).

    Twice that with a causal mask. `flops_per_second` is the rate the attention runs at (a GPU's peak gives the
    most tokens, since it makes the computation shortest) and `bandwidth` the link's bytes per second each way.
    """
    if mask not in MASKS:
        raise ValueError(f"unknown mask {mask!r}; known: {', '.join(MASKS)}")
    if flops_per_second <= 0 or bandwidth <= 0:
        raise ValueError("the rate and the bandwidth must be positive")
    width = kv_width(hidden, heads, kv_heads)
    bound = Fraction(bytes_per_value * width) * Fraction(flops_per_second) / (2 * hidden * Fraction(bandwidth))
    return bound * (CAUSAL_FACTOR if mask == "causal" else 1)


def causal_work(rank: int, context: int, balanced: bool) -> Fraction:
    """Share of the causal mask's scores (of all s² of a full mask) that device `rank` of `context` computes.

    Contiguous split: device r holds queries r·s/c to (r + 1)·s/c and computes (2r + 1)/(2c²) of the s² pairs.
    Balanced (zig-zag) split into 2c chunks, device r holding chunks r and 2c − 1 − r: every device computes
    the same 1/(2c) (Megatron-Core's and PyTorch's head-and-tail split).
    """
    _check_count("context", context)
    if not 0 <= rank < context:
        raise ValueError(f"rank {rank} is not one of the {context} devices")
    if not balanced:
        return Fraction(2 * rank + 1, 2 * context * context)
    chunks = 2 * context
    # Chunk k of 2c (queries k·s/2c to (k + 1)·s/2c) computes (2k + 1)/(2·(2c)²) of the s² pairs.
    return sum((Fraction(2 * k + 1, 2 * chunks * chunks) for k in (rank, chunks - 1 - rank)), Fraction(0))


def ulysses_degree_fits(degree: int, heads: int, kv_heads: int) -> bool:
    """Whether an all-to-all (DeepSpeed-Ulysses) degree splits whole heads: it must divide both head counts."""
    for name, value in (("degree", degree), ("heads", heads), ("kv_heads", kv_heads)):
        _check_count(name, value)
    return heads % degree == 0 and kv_heads % degree == 0


def ring_schedule(context: int) -> tuple[tuple[int, ...], ...]:
    """Which device's block of keys and values each device holds at each step of the ring: at step k, device
    i holds block (i − k) mod c, received from device i − 1 (Liu et al.'s ring; step 0 is each device's own)."""
    _check_count("context", context)
    return tuple(tuple((device - step) % context for device in range(context)) for step in range(context))


def exposed_ring_seconds(
    sequence: int,
    batch: int,
    hidden: int,
    heads: int,
    kv_heads: int,
    context: int,
    flops_per_second: Fraction | int,
    bandwidth: Fraction | int,
    mask: str = "causal",
    forward_passes: int = 1,
    bytes_per_value: int = 2,
) -> Fraction:
    """Seconds of one layer's ring, forward and backward, that its attention leaves exposed on each device.

    Each of the c − 1 steps of a forward pass sends one block of keys and values (`kv_block_bytes`) while the
    device computes its queries against the block it holds (`block_attention_flops`, half of it under a causal
    mask once the split is balanced); the backward pass sends twice the bytes (`ring_bytes_per_layer`) behind
    twice the forward's attention FLOPs. What the transfers take beyond that attention is exposed: nothing
    exactly when s/c reaches `hiding_tokens` (the same bound, in seconds). `forward_passes` is 2 when full
    recomputation runs the forward pass, and its ring, again; `flops_per_second` the rate the attention runs at
    and `bandwidth` the link's bytes per second each way. One device alone (c = 1) sends nothing.

    >>> exposed_ring_seconds(8, 1, 4, 1, 1, 2, 8, 1, mask="full")
    Fraction(96, 1)
    """
    if mask not in MASKS:
        raise ValueError(f"unknown mask {mask!r}; known: {', '.join(MASKS)}")
    _check_count("forward_passes", forward_passes)
    if flops_per_second <= 0 or bandwidth <= 0:
        raise ValueError("the rate and the bandwidth must be positive")
    if context == 1:
        return Fraction(0)
    local = tokens_per_device(sequence, context)
    sent = sum(
        (
            passes * ring_bytes_per_layer(sequence, batch, hidden, heads, kv_heads, context, ring_pass, bytes_per_value)
            for ring_pass, passes in (("forward", forward_passes), ("backward", 1))
        ),
        0,
    )
    # The backward pass's attention is twice the forward's FLOPs, as its ring is twice the forward's bytes.
    step = Fraction(block_attention_flops(local, batch, hidden), CAUSAL_FACTOR if mask == "causal" else 1)
    attention = (context - 1) * (forward_passes + 2) * step / Fraction(flops_per_second)
    return max(Fraction(0), sent / Fraction(bandwidth) - attention)
