"""One training step of a model on a cluster, laid out five ways: what each GPU holds, computes and sends.

The layouts are those Narayanan et al. compare (2021, https://arxiv.org/abs/2104.04473):
data parallelism (`dp`), ZeRO-3 (`zero3`), tensor parallelism within a server
and data parallelism across (`tensor`), a pipeline of the same model-parallel
size (`pipeline`), and the two together (`ptd`, their PTD-P). Each part is a
bandwidth-and-peak bound, the least it can take, with nothing overlapped:

- compute: 8 × tokens × parameters FLOPs per step (Narayanan et al. §5.1, Eq. 4's
  approximation, which counts the recomputed forward pass), spread over the
  GPUs, at the GPU's peak;
- bubble: (p − 1)/m of the compute (§2.2.1);
- model states: 16 bytes per parameter (ZeRO §3.1), divided by the model-parallel
  size t·p, or by every GPU under ZeRO-3;
- network, between servers: the data-parallel all-reduce of 2-byte gradients,
  2(d − 1)/d of them (a ring), or ZeRO-3's 3Ψ, "1.5x compared to the baseline"
  (ZeRO §7.2.2), and the pipeline's b·s·h values per microbatch each way (÷ t
  with scatter/gather, §4.1);
- NVLink, within a server: tensor parallelism's 8bsh(t − 1)/t values per layer
  per microbatch (§3.2).

Two totals bound the step: `total`, nothing overlapped, and `overlapped`, the
network's transfers hidden behind the compute while tensor parallelism's
all-reduces, which each layer waits for, stay in line.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .checks import check_count as _check_count
from .communication import ring_allreduce_factor, transfer_seconds
from .memory import BYTES_PER_VALUE, model_state_bytes
from .pipeline import boundary_bytes, bubble_formula
from .tensor import tensor_bytes_per_layer
from .zero import zero_stage

#: The layouts, in the order the course compares them.
SCHEMES = ("dp", "zero3", "tensor", "pipeline", "ptd")
#: The parts of a step that `Step` reports, by name.
PARTS = ("states", "compute", "bubble", "network", "nvlink", "total", "overlapped")
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
    sequence: int
    batch: int
    microbatch: int
    devices: int
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


def step(scheme: str, cluster: Cluster) -> Step:
    """One step of `cluster` laid out as `scheme`, per GPU (see the module's docstring for each part).

    Raises:
        KeyError: an unknown scheme. ValueError: the batch, layers or GPUs do not divide evenly.
    """
    c = cluster
    for name in ("parameters", "layers", "hidden", "sequence", "batch", "microbatch", "devices"):
        _check_count(name, getattr(c, name))
    t, p, d = degrees(scheme, c.tensor, c.pipeline, c.devices)
    if c.batch % (d * c.microbatch):
        raise ValueError(f"a batch of {c.batch} does not split into microbatches of {c.microbatch} on {d} replicas")
    if c.layers % p:
        raise ValueError(f"{c.layers} layers do not split into {p} pipeline stages")
    m = c.batch // (d * c.microbatch)
    per_value = BYTES_PER_VALUE[PRECISION]
    states = model_state_bytes(c.parameters)
    states_held = Fraction(states, c.devices) if scheme == "zero3" else Fraction(states, t * p)

    flops = Fraction(FLOPS_PER_TOKEN_PARAMETER * c.batch * c.sequence * c.parameters, c.devices)
    compute = flops / Fraction(c.peak_flops)
    bubble = bubble_formula(p, m) * compute if p > 1 else Fraction(0)

    gradients = Fraction(per_value * c.parameters, t * p)
    network = Fraction(0)
    if scheme == "zero3":
        # ZeRO §7.2.2's 3Ψ (two all-gathers and a reduce-scatter), each a ring's (d − 1)/d of the data.
        network += zero_stage("os-g-p").communication * Fraction(d - 1, d) * gradients
    elif d > 1:
        network += ring_allreduce_factor(d) * gradients
    if p > 1:
        scatter = t if scheme == "ptd" else 1
        network += m * 2 * boundary_bytes(c.microbatch, c.sequence, c.hidden, per_value, scatter)
    nvlink = Fraction(0)
    if t > 1:
        nvlink = m * Fraction(c.layers, p) * tensor_bytes_per_layer(c.microbatch, c.sequence, c.hidden, t, per_value)
    return Step(
        tensor=t,
        pipeline=p,
        data=d,
        microbatches=m,
        states=states_held,
        compute=compute,
        bubble=bubble,
        network_bytes=network,
        nvlink_bytes=nvlink,
        network=transfer_seconds(network, c.network_bandwidth) if network else Fraction(0),
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
