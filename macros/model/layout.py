"""One training step of a model on a cluster, laid out five ways: what each GPU holds, computes and sends.

The layouts are those Narayanan et al. compare (2021, https://arxiv.org/abs/2104.04473):
data parallelism (`dp`), ZeRO-3 (`zero3`), tensor parallelism within a server
and data parallelism across (`tensor`), a pipeline of the same model-parallel
size (`pipeline`), and the two together (`ptd`, their PTD-P). Narayanan et al.
"do not present direct cost models for communication time" (§3); this time
model is the course's. Each part is a bandwidth-and-peak bound, the least it
can take, but for what the tensor all-reduces keep a GPU waiting (below):

- compute: a step's FLOPs by Narayanan et al.'s Eq. 3, 96Bslh²(1 + s/(6h) +
  V/(16lh)), which "assumes activation recomputation" (§5.1), spread over the
  GPUs, at the GPU's peak; the paper's own throughputs and training times come
  from the same count;
- bubble: (p − 1)/m of the compute, the 1F1B schedule's (§2.2.1);
- model states: 16 bytes per parameter (ZeRO §3.1) unless a recipe says
  otherwise, on the most loaded GPU: a t-th of the first pipeline stage's
  share of the layers and of the token and position embeddings, (V + s)h
  parameters by Eq. 2 (the tied output layer of the last stage holds less), or
  a t·p-th of the model without a pipeline, or a share of every GPU's under
  ZeRO-3; activations are not counted; and, beside them, what every GPU of a
  pipeline would hold with the model shared evenly, Ψ/(t·p), the average stage;
- network: the data-parallel all-reduce of 2-byte gradients, 2(d − 1)/d of them
  per GPU (a ring), once a step; or ZeRO-3's 3Ψ, "1.5x compared to the
  baseline" (ZeRO §7.2.2), once per microbatch, for ZeRO-3 (like FSDP)
  gathers the parameters for each microbatch's forward and backward passes and
  reduce-scatters each microbatch's gradients; and the pipeline's b·s·h values
  per microbatch each way (÷ t with scatter/gather, §4.1), counted per network
  port between servers (below);
- NVLink, within a server: tensor parallelism's 8bsh(t − 1)/t values per layer
  per microbatch (§3.2), and the two all-reduces of the recomputed forward
  pass on top, 12bsh(t − 1)/t.

Where each GPU sits follows Megatron-LM's rank order (`initialize_model_parallel`
in megatron/core/parallel_state.py: "tp-dp-pp", and "the caller should make sure
adjacent ranks are on the same DGX box"): the t GPUs of a tensor-parallel group
are adjacent, within one server; then the data-parallel replicas; then the
pipeline stages. So a server of G GPUs holds G/t GPUs of
each data-parallel group it touches (one when t = G), and when each stage's
t·d GPUs fill whole servers, every stage boundary crosses between servers and
each GPU sends its own share through its own port. A collective among the GPUs
of several servers crosses between them per port as
`communication.cross_host_bytes_per_port` counts it: NCCL's rings enter and
leave each server once and share its ports, so each port carries what each GPU
sends ÷ the group's GPUs per server, k. (The rings' other hops run over NVLink
at the same time, (k − 1)/k of each GPU's bytes; on Selene's servers, at twelve
times an adapter's bandwidth, they take less time than the port's share.) A
cluster of one server sends everything over NVLink.

Of the tensor all-reduces a GPU waits for the forward ones in full, whatever
it computes at (`nvlink_forward`, the least it waits), and of each backward one
what it outlasts its weight-gradient GEMM by, at the GPU's peak
(`nvlink_exposed`, `tensor.exposed_allreduce_seconds`): the most it waits at the
link's bandwidth, since a GEMM below the peak hides more.

Two totals, both at peak compute and line rate:
`total`, nothing overlapped, the worst case for overlap; and
`overlapped`, a bound below any real step: the network's transfers hidden behind the compute and each
backward tensor-parallel all-reduce behind its matrix's weight-gradient GEMM,
while the forward ones, which each block waits for, stay in line. It is the
least a step takes: a GPU below its peak waits less for the backward
all-reduces, but by no more than its GEMMs take longer.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .checks import check_count as _check_count
from .communication import (
    cross_host_bytes_per_port,
    ring_allreduce_bytes_sent,
    ring_allreduce_factor,
    transfer_seconds,
)
from .memory import BYTES_PER_VALUE, DEFAULT_RECIPE, model_state_bytes
from .pipeline import boundary_bytes, bubble_formula
from .shape import embedding_parameters
from .tensor import check_heads, exposed_allreduce_seconds, forward_allreduce_seconds, tensor_bytes_per_layer
from .zero import zero_stage

#: The layouts, in the order the course compares them.
SCHEMES = ("dp", "zero3", "tensor", "pipeline", "ptd")
#: The parts of a step that `Step` reports, by name.
PARTS = (
    "states",
    "compute",
    "bubble",
    "network",
    "nvlink",
    "nvlink_forward",
    "nvlink_exposed",
    "total",
    "overlapped",
    "network_bytes",
    "nvlink_bytes",
    "states_even",
)
#: The 16-bit format every activation and gradient travels in.
PRECISION = "fp16"


@dataclass(frozen=True)
class Cluster:
    """A model, a batch and a cluster: everything a step's layout depends on."""

    parameters: int
    layers: int
    hidden: int
    heads: int
    vocabulary: int
    sequence: int
    batch: int
    microbatch: int
    devices: int
    per_host: int
    tensor: int
    pipeline: int
    peak_flops: int | float | Fraction
    nvlink_bandwidth: int | float | Fraction
    network_bandwidth: int | float | Fraction


@dataclass(frozen=True)
class Step:
    """One step of one layout, per GPU: its degrees, what it holds, and each part's least time."""

    tensor: int
    pipeline: int
    data: int
    microbatches: int
    #: GPUs of each data-parallel group in one server, whose rings its network ports share.
    sharing: int
    #: Whether the whole cluster is one server, where every transfer runs over NVLink.
    one_server: bool
    states: int | Fraction
    #: The model states per GPU with the model shared evenly over the t·p GPUs of a pipeline: the average stage's.
    states_even: Fraction
    compute: Fraction
    bubble: Fraction
    network_bytes: Fraction
    nvlink_bytes: Fraction
    network: Fraction
    nvlink: Fraction
    #: What of `nvlink` keeps the GPU waiting whatever it computes at: the forward (and recomputed forward) ones.
    nvlink_forward: Fraction
    #: What of `nvlink` keeps the GPU waiting at its peak: `nvlink_forward`, and the backward ones beyond their GEMMs.
    nvlink_exposed: Fraction

    @property
    def total(self) -> Fraction:
        """The step's time if nothing overlapped, the worst case for overlap: compute, bubble and both links'
        transfers."""
        return self.compute + self.bubble + self.network + self.nvlink

    @property
    def overlapped(self) -> Fraction:
        """The step's time if the network's transfers hid entirely behind the compute.

        Of tensor parallelism's all-reduces, only what `nvlink_exposed` counts stays on the critical path.
        """
        return self.bubble + self.nvlink_exposed + max(self.compute, self.network)


def degrees(scheme: str, tensor: int, pipeline: int, devices: int) -> tuple[int, int, int]:
    """The (tensor, pipeline, data) degrees of `scheme` with a model-parallel size of tensor × pipeline.

    `tensor` is the tensor degree of `tensor` and `ptd`; `pipeline` runs all
    tensor × pipeline model-parallel ways as pipeline stages.

    Raises:
        KeyError: an unknown scheme. ValueError: the GPUs do not divide into whole replicas.
    """
    chosen = {
        "dp": (1, 1),
        "zero3": (1, 1),
        "tensor": (tensor, 1),
        "pipeline": (1, tensor * pipeline),
        "ptd": (tensor, pipeline),
    }
    if scheme not in chosen:
        raise KeyError(f"unknown scheme {scheme!r}; known: {', '.join(SCHEMES)}")
    t, p = chosen[scheme]
    if devices % (t * p):
        raise ValueError(f"{devices} GPUs do not divide into replicas of {t * p} ({scheme})")
    return t, p, devices // (t * p)


def iteration_flops(batch: int, sequence: int, layers: int, hidden: int, vocabulary: int) -> int:
    """A step's FLOPs on all GPUs together, by Narayanan et al.'s Eq. 3: 96Bslh²(1 + s/(6h) + V/(16lh)).

    Each layer's GEMMs, 4 × (24Bsh² + 4Bs²h) with the recomputed forward pass, and the logit layer's 6BshV
    (Appendix): 96Bslh² + 16Bs²lh + 6BshV, exactly. "This is a lower bound for the true FLOP count but should be
    close to the actual value" (§5.1); their Eq. 4 rounds it to 8 FLOPs per token per parameter.
    """
    for name, value in (
        ("batch", batch),
        ("sequence", sequence),
        ("layers", layers),
        ("hidden", hidden),
        ("vocabulary", vocabulary),
    ):
        _check_count(name, value)
    b, s, l, h, v = batch, sequence, layers, hidden, vocabulary  # noqa: E741 - the paper's letters
    return 96 * b * s * l * h**2 + 16 * b * s**2 * l * h + 6 * b * s * h * v


def step_flops(cluster: Cluster) -> int:
    """A step's FLOPs on all GPUs together: `iteration_flops` of the cluster's model and batch."""
    c = cluster
    return iteration_flops(c.batch, c.sequence, c.layers, c.hidden, c.vocabulary)


def flops_per_gpu(cluster: Cluster) -> Fraction:
    """Each GPU's share of a step's FLOPs: `step_flops` ÷ GPUs."""
    return Fraction(step_flops(cluster), cluster.devices)


def measured_step(cluster: Cluster, devices: int, flops_per_second: float | Fraction) -> Fraction:
    """The step time a measured per-GPU throughput on `devices` GPUs stands for: Eq. 3's FLOPs ÷ (n × rate).

    Narayanan et al. count their throughputs with Eq. 3 (§5.1), so this is the step they measured.
    """
    _check_count("devices", devices)
    _check_count("flops_per_second", flops_per_second)
    return Fraction(step_flops(cluster), devices) / Fraction(flops_per_second)


def most_loaded_parameters(parameters: int, embeddings: int, pipeline: int) -> Fraction:
    """The parameters of the most loaded pipeline stage: its share of the layers, and the embeddings.

    `embeddings` are the token and position embeddings, (V + s)h, Eq. 2's last term (`shape.embedding_parameters`).
    The first stage holds L/p of the layers and the token and position embeddings (Korthikanti et al. §4.2.3: "first
    group of L/p layers which also includes the input embeddings"); the last stage's tied output layer is the token
    embedding alone, so the first holds the most. Without a pipeline, the whole model.

    Raises:
        ValueError: embeddings not smaller than the model.
    """
    _check_count("parameters", parameters)
    _check_count("embeddings", embeddings)
    _check_count("pipeline", pipeline)
    if embeddings >= parameters:
        raise ValueError(f"embeddings of {embeddings} parameters leave none of the {parameters} for the layers")
    if pipeline == 1:
        return Fraction(parameters)
    return Fraction(parameters - embeddings, pipeline) + embeddings


def placement(tensor: int, pipeline: int, data: int, devices: int, per_host: int) -> tuple[bool, int]:
    """Whether the cluster is one server, and how many GPUs of a data-parallel group share a server.

    Megatron-LM's rank order (see the module's docstring): tensor-parallel
    groups within a server, then data-parallel replicas, then pipeline stages.

    Raises:
        ValueError: a tensor-parallel group that does not divide a server's GPUs, GPUs that do not fill
        whole servers, or pipeline stages whose GPUs do not fill whole servers.
    """
    _check_count("per_host", per_host)
    if per_host % tensor:
        raise ValueError(f"a tensor-parallel group of {tensor} does not divide a server of {per_host} GPUs")
    if devices <= per_host:
        return True, data
    if devices % per_host:
        raise ValueError(f"{devices} GPUs do not fill whole servers of {per_host}")
    if pipeline > 1 and (tensor * data) % per_host:
        raise ValueError(
            f"each pipeline stage's t·d = {tensor * data} GPUs must fill whole servers of {per_host},"
            " so that every stage boundary crosses between servers"
        )
    return False, min(data, per_host // tensor)


def step(scheme: str, cluster: Cluster, recipe: str = DEFAULT_RECIPE) -> Step:
    """One step of `cluster` laid out as `scheme`, per GPU (see the module's docstring for each part).

    `recipe` is the training recipe whose bytes per parameter the model states take (`memory.RECIPES`).

    Raises:
        KeyError: an unknown scheme or recipe. ValueError: the batch, layers, heads, GPUs or servers do not divide
        evenly.
    """
    c = cluster
    for name in ("parameters", "layers", "hidden", "vocabulary", "sequence", "batch", "microbatch", "devices"):
        _check_count(name, getattr(c, name))
    t, p, d = degrees(scheme, c.tensor, c.pipeline, c.devices)
    check_heads(c.heads, t)
    if c.batch % (d * c.microbatch):
        raise ValueError(f"a batch of {c.batch} does not split into microbatches of {c.microbatch} on {d} replicas")
    if c.layers % p:
        raise ValueError(f"{c.layers} layers do not split into {p} pipeline stages")
    one_server, sharing = placement(t, p, d, c.devices, c.per_host)
    m = c.batch // (d * c.microbatch)
    per_value = BYTES_PER_VALUE[PRECISION]
    per_parameter = Fraction(model_state_bytes(c.parameters, recipe_id=recipe), c.parameters)
    if scheme == "zero3":
        states = states_even = per_parameter * Fraction(c.parameters, c.devices)
    else:
        embeddings = embedding_parameters(c.vocabulary, c.sequence, c.hidden)
        states = per_parameter * most_loaded_parameters(c.parameters, embeddings, p) / t
        states_even = per_parameter * Fraction(c.parameters, t * p)

    compute = flops_per_gpu(c) / Fraction(c.peak_flops)
    bubble = bubble_formula(p, m) * compute if p > 1 else Fraction(0)

    gradients = Fraction(per_value * c.parameters, t * p)
    collective = Fraction(0)
    if scheme == "zero3":
        # ZeRO §7.2.2's 3Ψ (two all-gathers and a reduce-scatter), each a ring's (d − 1)/d of the data, per microbatch.
        collective = m * zero_stage("os-g-p").communication * Fraction(d - 1, d) * gradients
    elif d > 1:
        collective = ring_allreduce_factor(d) * gradients
    network = collective if one_server or not collective else cross_host_bytes_per_port(collective, sharing)
    if p > 1:
        scatter = t if scheme == "ptd" else 1
        network += m * 2 * boundary_bytes(c.microbatch, c.sequence, c.hidden, per_value, scatter)
    nvlink_bytes = nvlink = nvlink_forward = nvlink_exposed = Fraction(0)
    if t > 1:
        layers = m * Fraction(c.layers, p)
        nvlink_bytes = layers * tensor_bytes_per_layer(c.microbatch, c.sequence, c.hidden, t, per_value, "recompute")
        nvlink = transfer_seconds(nvlink_bytes, c.nvlink_bandwidth)
        activation = c.microbatch * c.sequence * c.hidden * per_value
        one = transfer_seconds(ring_allreduce_bytes_sent(activation, t), c.nvlink_bandwidth)
        exposed = exposed_allreduce_seconds(one, c.microbatch, c.sequence, c.hidden, t, c.peak_flops, "recompute")
        nvlink_forward = layers * forward_allreduce_seconds(one, "recompute")
        nvlink_exposed = layers * exposed
    link = c.nvlink_bandwidth if one_server else c.network_bandwidth
    return Step(
        tensor=t,
        pipeline=p,
        data=d,
        microbatches=m,
        sharing=sharing,
        one_server=one_server,
        states=states,
        states_even=states_even,
        compute=compute,
        bubble=bubble,
        network_bytes=network,
        nvlink_bytes=nvlink_bytes,
        network=transfer_seconds(network, link) if network else Fraction(0),
        nvlink=nvlink,
        nvlink_forward=nvlink_forward,
        nvlink_exposed=nvlink_exposed,
    )


def transformer_parameters(layers: int, hidden: int, vocabulary: int, sequence: int) -> int:
    """A GPT's parameters from its shape (Narayanan et al. §5.1, Eq. 2), exactly.

    12lh²(1 + 13/(12h) + (V + s)/(12lh)) = 12lh² + 13lh + (V + s)h: each layer's
    weights and biases, and the token and position embeddings.
    """
    for name, value in (("layers", layers), ("hidden", hidden), ("vocabulary", vocabulary), ("sequence", sequence)):
        _check_count(name, value)
    return 12 * layers * hidden**2 + 13 * layers * hidden + (vocabulary + sequence) * hidden


@dataclass(frozen=True)
class RankPlacement:
    """Where Megatron-LM's rank order puts a layout's groups: how a data-parallel group and the stages meet nodes."""

    #: Nodes the layout's GPUs fill (a partial node counts as one).
    nodes: int
    #: The fewest GPUs of one data-parallel group that share a node, over the nodes each group touches: the k
    #: whose ports share a ring's crossings (`communication.cross_host_bytes_per_port`), or d when a group
    #: stays on one node.
    data_per_node: int
    #: Whether a data-parallel group's ring crosses between nodes.
    data_spans_nodes: bool
    #: Whether some pipeline stage boundary crosses between nodes (every one does when a stage fills nodes).
    boundary_crosses_nodes: bool


def rank_placement(tensor: int, pipeline: int, data: int, per_node: int) -> RankPlacement:
    """Where Megatron-LM's order ("tp-dp-pp", tensor-parallel ranks adjacent) puts each group, for any degrees.

    GPU r is node r ÷ G; the tensor-parallel group of t adjacent ranks must fit a node, t dividing G (see
    `placement`, which asks more: that each stage's t·d GPUs fill whole nodes). Data-parallel group members
    sit t apart, stages t·d apart. With more than one node and more than one stage, some stage boundary
    crosses a node's edge: the ranks just before a node's last edge inside the layout pair with ranks past it.
    Where `placement` applies, `data_per_node` is its `sharing`.

    Raises:
        ValueError: a tensor-parallel group that does not divide a node, or GPUs that do not fill whole nodes.
    """
    for name, value in (("tensor", tensor), ("pipeline", pipeline), ("data", data), ("per_node", per_node)):
        _check_count(name, value)
    if per_node % tensor:
        raise ValueError(f"a tensor-parallel group of {tensor} does not divide a node of {per_node} GPUs")
    devices = tensor * pipeline * data
    if devices > per_node and devices % per_node:
        raise ValueError(f"{devices} GPUs do not fill whole nodes of {per_node}")
    nodes = max(1, devices // per_node)
    blocks = per_node // tensor  # tensor-parallel groups per node
    fewest, spans = data, False
    for stage in range(pipeline):
        first, last = stage * data, (stage + 1) * data  # the group's blocks, [first, last)
        node = first // blocks
        while node * blocks < last:
            members = min(last, (node + 1) * blocks) - max(first, node * blocks)
            fewest = min(fewest, members)
            spans = spans or members < data
            node += 1
    return RankPlacement(nodes, fewest, spans, nodes > 1 and pipeline > 1)
