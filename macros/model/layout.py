"""One training step of a model on a cluster, laid out five ways: what each GPU holds, computes and sends.

The layouts are those Narayanan et al. compare (2021, https://arxiv.org/abs/2104.04473):
data parallelism (`dp`), ZeRO-3 (`zero3`), tensor parallelism within a server
and data parallelism across (`tensor`), a pipeline of the same model-parallel
size (`pipeline`), and the two together (`ptd`, their PTD-P). Narayanan et al.
"do not present direct cost models for communication time" (§3); this time
model is the course's. Each part is a bandwidth-and-peak bound, the least it
can take, with nothing overlapped:

- compute: 8 × tokens × parameters FLOPs per step (Narayanan et al. §5.1, Eq. 4's
  approximation, which counts the recomputed forward pass), spread over the
  GPUs, at the GPU's peak;
- bubble: (p − 1)/m of the compute, the 1F1B schedule's (§2.2.1);
- model states: 16 bytes per parameter (ZeRO §3.1), divided by the model-parallel
  size t·p, or by every GPU under ZeRO-3; activations are not counted;
- network: the data-parallel all-reduce of 2-byte gradients, 2(d − 1)/d of them
  per GPU (a ring), or ZeRO-3's 3Ψ, "1.5x compared to the baseline" (ZeRO
  §7.2.2), and the pipeline's b·s·h values per microbatch each way (÷ t with
  scatter/gather, §4.1), counted per network port between servers (below);
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

Two totals bound the step: `total`, nothing overlapped, and `overlapped`, the
network's transfers hidden behind the compute while tensor parallelism's
all-reduces, which each layer waits for, stay in line.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .checks import check_count as _check_count
from .communication import cross_host_bytes_per_port, ring_allreduce_factor, transfer_seconds
from .memory import BYTES_PER_VALUE, model_state_bytes
from .pipeline import boundary_bytes, bubble_formula
from .tensor import check_heads, tensor_bytes_per_layer
from .zero import zero_stage

#: The layouts, in the order the course compares them.
SCHEMES = ("dp", "zero3", "tensor", "pipeline", "ptd")
#: The parts of a step that `Step` reports, by name.
PARTS = ("states", "compute", "bubble", "network", "nvlink", "total", "overlapped", "network_bytes", "nvlink_bytes")
#: Training FLOPs per token per parameter with recomputation (Narayanan et al. §5.1, Eq. 4: 8TP).
FLOPS_PER_TOKEN_PARAMETER = 8
#: The 16-bit format every activation and gradient travels in.
PRECISION = "fp16"


@dataclass(frozen=True)
class Cluster:
    """A model, a batch and a cluster: everything a step's layout depends on."""

    parameters: int
    layers: int
    hidden: int
    heads: int
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
    compute: Fraction
    bubble: Fraction
    network_bytes: Fraction
    nvlink_bytes: Fraction
    network: Fraction
    nvlink: Fraction

    @property
    def total(self) -> Fraction:
        """The step's time if nothing overlapped: compute, bubble and both links' transfers."""
        return self.compute + self.bubble + self.network + self.nvlink

    @property
    def overlapped(self) -> Fraction:
        """The step's time if the network's transfers hid entirely behind the compute.

        Tensor parallelism's all-reduces stay on the critical path: each layer waits for them.
        """
        return self.bubble + self.nvlink + max(self.compute, self.network)


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


def step_flops(cluster: Cluster) -> int:
    """A step's FLOPs on all GPUs together: 8 × batch × sequence × parameters (Narayanan et al. §5.1, Eq. 4)."""
    return FLOPS_PER_TOKEN_PARAMETER * cluster.batch * cluster.sequence * cluster.parameters


def flops_per_gpu(cluster: Cluster) -> Fraction:
    """Each GPU's share of a step's FLOPs: `step_flops` ÷ GPUs."""
    return Fraction(step_flops(cluster), cluster.devices)


def measured_step(cluster: Cluster, devices: int, flops_per_second: float | Fraction) -> Fraction:
    """The step time a measured per-GPU throughput on `devices` GPUs stands for: 8·B·s·P ÷ (n × rate)."""
    _check_count("devices", devices)
    _check_count("flops_per_second", flops_per_second)
    return Fraction(step_flops(cluster), devices) / Fraction(flops_per_second)


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


def step(scheme: str, cluster: Cluster) -> Step:
    """One step of `cluster` laid out as `scheme`, per GPU (see the module's docstring for each part).

    Raises:
        KeyError: an unknown scheme. ValueError: the batch, layers, heads, GPUs or servers do not divide evenly.
    """
    c = cluster
    for name in ("parameters", "layers", "hidden", "sequence", "batch", "microbatch", "devices"):
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
    states = model_state_bytes(c.parameters)
    states_held = Fraction(states, c.devices) if scheme == "zero3" else Fraction(states, t * p)

    compute = flops_per_gpu(c) / Fraction(c.peak_flops)
    bubble = bubble_formula(p, m) * compute if p > 1 else Fraction(0)

    gradients = Fraction(per_value * c.parameters, t * p)
    collective = Fraction(0)
    if scheme == "zero3":
        # ZeRO §7.2.2's 3Ψ (two all-gathers and a reduce-scatter), each a ring's (d − 1)/d of the data.
        collective = zero_stage("os-g-p").communication * Fraction(d - 1, d) * gradients
    elif d > 1:
        collective = ring_allreduce_factor(d) * gradients
    network = collective if one_server or not collective else cross_host_bytes_per_port(collective, sharing)
    if p > 1:
        scatter = t if scheme == "ptd" else 1
        network += m * 2 * boundary_bytes(c.microbatch, c.sequence, c.hidden, per_value, scatter)
    nvlink = Fraction(0)
    if t > 1:
        per_layer = tensor_bytes_per_layer(c.microbatch, c.sequence, c.hidden, t, per_value, "recompute")
        nvlink = m * Fraction(c.layers, p) * per_layer
    link = c.nvlink_bandwidth if one_server else c.network_bandwidth
    return Step(
        tensor=t,
        pipeline=p,
        data=d,
        microbatches=m,
        sharing=sharing,
        one_server=one_server,
        states=states_held,
        compute=compute,
        bubble=bubble,
        network_bytes=network,
        nvlink_bytes=nvlink,
        network=transfer_seconds(network, link) if network else Fraction(0),
        nvlink=transfer_seconds(nvlink, c.nvlink_bandwidth) if nvlink else Fraction(0),
    )


def transformer_parameters(layers: int, hidden: int, vocabulary: int, sequence: int) -> int:
    """A GPT's parameters from its shape (Narayanan et al. §5.1, Eq. 2), exactly.

    12lh²(1 + 13/(12h) + (V + s)/(12lh)) = 12lh² + 13lh + (V + s)h: each layer's
    weights and biases, and the token and position embeddings.
    """
    for name, value in (("layers", layers), ("hidden", hidden), ("vocabulary", vocabulary), ("sequence", sequence)):
        _check_count(name, value)
    return 12 * layers * hidden**2 + 13 * layers * hidden + (vocabulary + sequence) * hidden
