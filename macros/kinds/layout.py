"""Choosing a layout: one step of a workload as DP, ZeRO-3, tensor, pipeline or PTD-P, and a model's size."""

from __future__ import annotations

from .. import model
from ..catalog import Catalog, Quantity
from ..figures import Computed, shown
from ..quantities import format_quantity
from .registry import figure_kind
from .tensor import microbatch

#: Each part of a step: its unit, its formula, and what it is in words.
_PARTS = {
    "states": ("B", "16Ψ ÷ (t·p), or ÷ n under ZeRO-3", "model-state bytes per GPU, activations not counted"),
    "compute": ("s", "8·B·s·Ψ ÷ n ÷ peak", "compute time per GPU at peak"),
    "bubble": ("s", "(p − 1)/m × compute", "pipeline bubble of the 1F1B schedule"),
    "network": ("s", "bytes per network port ÷ port bandwidth", "transfer time of data-parallel and pipeline traffic"),
    "nvlink": ("s", "tensor-parallel bytes ÷ NVLink bandwidth", "transfer time of tensor all-reduces in a server"),
    "total": ("s", "compute + bubble + network + nvlink", "step time if nothing overlapped"),
    "overlapped": ("s", "bubble + nvlink + max(compute, network)", "step time with the network hidden behind compute"),
    "network_bytes": ("B", "data-parallel bytes ÷ k + pipeline bytes", "data-parallel and pipeline bytes per port"),
    "nvlink_bytes": ("B", "m · L/p · 12bsh(t − 1)/t × 2 B", "tensor all-reduce bytes per GPU, recomputation included"),
}
_SCHEMES = {
    "dp": "data parallelism",
    "zero3": "ZeRO-3",
    "tensor": "tensor parallelism in each server, data parallelism across",
    "pipeline": "a pipeline only",
    "ptd": "PTD-P",
}


def cluster(catalog: Catalog, workload: str) -> tuple[model.layout.Cluster, tuple[Quantity, ...]]:
    """A workload as the layout model's `Cluster`, with the catalog values it took."""
    setting = catalog.workload(workload)
    if setting.gpu is None or setting.interconnect is None or setting.network is None or setting.per_host is None:
        raise ValueError(
            f"workload {workload!r} needs `gpu:`, `interconnect:`, `network:` and `per_host:` in workloads.yml"
        )
    m = setting.model.id
    inputs = {
        "parameters": catalog.quantity(m, "parameters"),
        "layers": catalog.quantity(m, "layers"),
        "hidden": catalog.quantity(m, "hidden"),
        "heads": catalog.quantity(m, "heads"),
        "sequence": catalog.quantity(workload, "sequence"),
        "batch": catalog.quantity(workload, "batch"),
        "microbatch": microbatch(catalog, workload),
        "devices": catalog.quantity(workload, "devices"),
        "per_host": catalog.quantity(workload, "per_host"),
        "tensor": catalog.quantity(workload, "tensor"),
        "pipeline": catalog.quantity(workload, "pipeline"),
    }
    peak = catalog.quantity(setting.gpu.id, "peak_fp16_flops")
    nvlink = catalog.quantity(setting.interconnect.id, "bandwidth_per_direction")
    network = catalog.quantity(setting.network.id, "bandwidth_per_direction")
    built = model.layout.Cluster(
        **{name: quantity.count for name, quantity in inputs.items()},
        peak_flops=peak.value,
        nvlink_bandwidth=nvlink.value,
        network_bandwidth=network.value,
    )
    return built, (*inputs.values(), peak, nvlink, network)


def _devices(inputs: tuple[Quantity, ...]) -> Quantity:
    """The GPU count among a cluster's inputs."""
    return next(q for q in inputs if q.field == "devices")


def _placement(step: model.layout.Step) -> str:
    """Where a step's data-parallel traffic runs, in words."""
    if step.one_server:
        return "one server, every transfer over NVLink"
    if step.sharing == 1:
        return "one GPU of each data-parallel group per server, its traffic through its own port"
    return (
        f"{step.sharing} GPUs of each data-parallel group per server, whose rings share its ports:"
        f" each port carries 1/{step.sharing} of what each GPU sends"
    )


@figure_kind("layout")
def layout(catalog: Catalog, workload: str, scheme: str, part: str) -> Computed:
    """One part of one step of `workload` laid out as `scheme`, per GPU: bytes held or sent, or a least time."""
    if part not in _PARTS:
        raise KeyError(f"unknown part {part!r}; known: {', '.join(_PARTS)}")
    built, inputs = cluster(catalog, workload)
    step = model.layout.step(scheme, built)
    unit, formula, what = _PARTS[part]
    value = getattr(step, part)
    sent = {"network": step.network_bytes, "nvlink": step.nvlink_bytes}.get(part)
    moved = f", {format_quantity(sent, 'B')} sent" if sent else ""
    words = (
        f"{what}{moved}, {_SCHEMES[scheme]} with t = {step.tensor}, p = {step.pipeline}, d = {step.data},"
        f" {step.microbatches} microbatches per pipeline, on {shown(_devices(inputs))} GPUs ({_placement(step)})"
    )
    # The layout is named in the words; its id never reaches a reader.
    return Computed(value, unit, formula, words, inputs)


@figure_kind("layout-rate")
def layout_rate(catalog: Catalog, workload: str, scheme: str, part: str = "overlapped") -> Computed:
    """The FLOP/s per GPU that a layout's bound on the step stands for: 8·B·s·Ψ ÷ n ÷ the step (`part`)."""
    if part not in ("total", "overlapped"):
        raise KeyError(f"unknown part {part!r}; known: total, overlapped")
    built, inputs = cluster(catalog, workload)
    step = model.layout.step(scheme, built)
    seconds = getattr(step, part)
    flops = model.layout.flops_per_gpu(built)
    words = (
        f"{format_quantity(flops, 'FLOP')} per GPU ÷ {format_quantity(seconds, 's')}, the step of"
        f" {_SCHEMES[scheme]} {'with the network hidden' if part == 'overlapped' else 'with nothing overlapped'}"
    )
    step_words = "network hidden" if part == "overlapped" else "nothing overlapped"
    return Computed(flops / seconds, "FLOP/s", f"8·B·s·Ψ ÷ n ÷ step ({step_words})", words, inputs)


@figure_kind("measured-step")
def measured_step(catalog: Catalog, workload: str, claim: str) -> Computed:
    """The step time a measured throughput stands for: 8·B·s·Ψ ÷ (GPUs × FLOP/s per GPU), by Eq. 4's count."""
    built, inputs = cluster(catalog, workload)
    devices = catalog.quantity(claim, "devices")
    rate = catalog.quantity(claim, "flops_per_second")
    value = model.layout.measured_step(built, devices.count, rate.value)
    words = (
        f"{format_quantity(model.layout.step_flops(built), 'FLOP')} per step (8 × batch × sequence × parameters)"
        f" ÷ ({shown(devices)} GPUs × {shown(rate)} each, as measured)"
    )
    counted = tuple(q for q in inputs if q.field in ("parameters", "sequence", "batch"))
    return Computed(value, "s", "8·B·s·Ψ ÷ (n × measured rate)", words, (*counted, devices, rate))


@figure_kind("layout-degree")
def layout_degree(catalog: Catalog, workload: str, scheme: str, axis: str) -> Computed:
    """The tensor, pipeline or data degree of `scheme` on a workload: d = n/(t·p) (Narayanan et al. §3.1)."""
    tensor = catalog.quantity(workload, "tensor")
    pipeline = catalog.quantity(workload, "pipeline")
    devices = catalog.quantity(workload, "devices")
    t, p, d = model.layout.degrees(scheme, tensor.count, pipeline.count, devices.count)
    axes = {"tensor": t, "pipeline": p, "data": d}
    if axis not in axes:
        raise KeyError(f"unknown axis {axis!r}; known: {', '.join(axes)}")
    words = f"{axis} degree of {_SCHEMES[scheme]} on {shown(devices)} GPUs: t = {t}, p = {p}, d = n/(t·p) = {d}"
    return Computed(axes[axis], "1", f"{axis} degree of {_SCHEMES[scheme]}", words, (tensor, pipeline, devices))


@figure_kind("transformer-parameters")
def transformer_parameters(catalog: Catalog, workload: str) -> Computed:
    """A GPT's parameters from its shape: 12lh²(1 + 13/(12h) + (V + s)/(12lh)) (Narayanan et al. §5.1, Eq. 2)."""
    setting = catalog.workload(workload)
    layers = catalog.quantity(setting.model.id, "layers")
    hidden = catalog.quantity(setting.model.id, "hidden")
    vocabulary = catalog.quantity(setting.model.id, "vocabulary")
    sequence = catalog.quantity(workload, "sequence")
    value = model.layout.transformer_parameters(layers.count, hidden.count, vocabulary.count, sequence.count)
    words = (
        f"12 × {shown(layers)} layers × hidden {shown(hidden)}² × (1 + 13/(12h) + (vocabulary {shown(vocabulary)}"
        f" + sequence {shown(sequence)})/(12lh)) (Narayanan et al., Eq. 2)"
    )
    formula = "12lh²(1 + 13/(12h) + (V + s)/(12lh))"
    return Computed(value, "param", formula, words, (layers, hidden, vocabulary, sequence))


@figure_kind("as-printed")
def printed_value(catalog: Catalog, figure: str) -> Computed:
    """What a source prints for one of the course's figures (its entry in printed.yml), to set beside it."""
    if not isinstance(figure, str) or figure not in catalog.printed:
        known = ", ".join(sorted(catalog.printed))
        raise KeyError(f"printed.yml has no value for {figure!r}; it has: {known}")
    printed = catalog.printed[figure]
    words = f'{printed.source.cite}, {printed.where}: "{printed.text}"'
    return Computed(printed.value, printed.unit, "as the source prints it", words)


@figure_kind("flops-per-token-parameter")
def flops_per_token_parameter(catalog: Catalog) -> Computed:
    """Training FLOPs per token per parameter with recomputation: Narayanan et al.'s 8 (Eq. 4, 8TP)."""
    value = model.layout.FLOPS_PER_TOKEN_PARAMETER
    words = (
        f"{value} FLOPs per token per parameter: 2 for the forward pass, 4 for the backward pass and 2 for"
        " the recomputed forward pass (Narayanan et al. §5.1, Eq. 4)"
    )
    return Computed(value, "FLOP", "8 FLOP per token per parameter", words)
