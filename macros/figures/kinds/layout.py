"""Choosing a layout: one step of a workload as DP, ZeRO-3, tensor, pipeline or PTD-P, and a model's size."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind
from .tensor import microbatch

#: Each part of a step: its unit, its formula, and what it is in words.
_PARTS = {
    "states": (
        "B",
        "bytes per parameter × ((Ψ − (V + s)h)/p + (V + s)h) ÷ t, or × Ψ ÷ n under ZeRO-3",
        "model-state bytes on the most loaded GPU (the first pipeline stage, with the embeddings), activations not"
        " counted",
    ),
    "compute": ("s", "96Bslh²(1 + s/(6h) + V/(16lh)) ÷ n ÷ peak", "compute time per GPU at peak (Eq. 3's FLOPs)"),
    "bubble": ("s", "(p − 1)/m × compute", "pipeline bubble of the 1F1B schedule"),
    "network": ("s", "bytes per network port ÷ port bandwidth", "transfer time of data-parallel and pipeline traffic"),
    "nvlink": ("s", "tensor-parallel bytes ÷ NVLink bandwidth", "transfer time of tensor all-reduces in a server"),
    "nvlink_forward": (
        "s",
        "forward and recomputed forward all-reduces ÷ NVLink bandwidth",
        "time the forward tensor all-reduces keep a GPU waiting whatever it computes at, the least it waits for them",
    ),
    "nvlink_exposed": (
        "s",
        "forward all-reduces + backward ones beyond their weight-gradient GEMMs at peak",
        "time the tensor all-reduces keep a GPU waiting at its peak, the backward ones overlapping their"
        " weight-gradient GEMMs, the most it waits for them at this bandwidth",
    ),
    "total": (
        "s",
        "compute + bubble + network + nvlink",
        "step time if nothing overlapped, the worst case for overlap",
    ),
    "overlapped": (
        "s",
        "bubble + exposed nvlink + max(compute, network)",
        "step time with the network hidden behind compute and the backward tensor all-reduces behind their GEMMs",
    ),
    "network_bytes": (
        "B",
        "data-parallel bytes (ZeRO-3's per microbatch) ÷ k + pipeline bytes",
        "data-parallel and pipeline bytes per port",
    ),
    "nvlink_bytes": ("B", "m · L/p · 12bsh(t − 1)/t × 2 B", "tensor all-reduce bytes per GPU, recomputation included"),
    "states_even": (
        "B",
        "bytes per parameter × Ψ ÷ (t·p), or × Ψ ÷ n under ZeRO-3",
        "model-state bytes per GPU with the model shared evenly over a pipeline's GPUs (the average stage, not the"
        " first, which also holds the embeddings), activations not counted",
    ),
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
        "vocabulary": catalog.quantity(m, "vocabulary"),
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
def layout(catalog: Catalog, workload: str, scheme: str, part: str, recipe: str = model.DEFAULT_RECIPE) -> Computed:
    """One part of one step of `workload` laid out as `scheme`, per GPU: bytes held or sent, or seconds.

    `recipe` sets the model states' bytes per parameter (`states` and `states_even` only): ZeRO's 16 by default.
    """
    if part not in _PARTS:
        raise KeyError(f"unknown part {part!r}; known: {', '.join(_PARTS)}")
    built, inputs = cluster(catalog, workload)
    step = model.layout.step(scheme, built, recipe)
    unit, formula, what = _PARTS[part]
    value = getattr(step, part)
    sent = {"network": step.network_bytes, "nvlink": step.nvlink_bytes}.get(part)
    moved = f", {format_quantity(sent, 'B')} sent" if sent else ""
    counted = ""
    if part in ("states", "states_even"):
        per_parameter = model.recipe(recipe).bytes_per_parameter
        counted = f", {per_parameter} bytes per parameter ({model.recipe(recipe).counted})"
    words = (
        f"{what}{moved}{counted}, {_SCHEMES[scheme]} with t = {step.tensor}, p = {step.pipeline}, d = {step.data},"
        f" {step.microbatches} microbatches per pipeline, on {shown(_devices(inputs))} GPUs ({_placement(step)})"
    )
    # The layout is named in the words; its id never reaches a reader.
    return Computed(value, unit, formula, words, inputs)


@figure_kind("layout-rate")
def layout_rate(catalog: Catalog, workload: str, scheme: str, part: str = "overlapped") -> Computed:
    """The FLOP/s per GPU that a layout's bound on the step stands for: Eq. 3's FLOPs ÷ n ÷ the step (`part`)."""
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
    return Computed(flops / seconds, "FLOP/s", f"Eq. 3's FLOPs ÷ n ÷ step ({step_words})", words, inputs)


def _eq3_inputs(inputs: tuple[Quantity, ...]) -> tuple[Quantity, ...]:
    """Of a cluster's inputs, those Eq. 3 counts a step's FLOPs from."""
    return tuple(q for q in inputs if q.field in ("batch", "sequence", "layers", "hidden", "vocabulary"))


def _eq3_words(built: model.layout.Cluster) -> str:
    flops = format_quantity(model.layout.step_flops(built), "FLOP", scientific=True)
    return f"{flops} per step (Eq. 3, 96Bslh²(1 + s/(6h) + V/(16lh)))"


@figure_kind("iteration-flops")
def iteration_flops(catalog: Catalog, workload: str) -> Computed:
    """A step's FLOPs on all GPUs together by Narayanan et al.'s Eq. 3, recomputation included (§5.1)."""
    built, inputs = cluster(catalog, workload)
    value = model.layout.step_flops(built)
    b, s, h = built.batch, built.sequence, built.hidden
    words = (
        f"96 × batch {b} × sequence {s} × {built.layers} layers × hidden {h}² × (1 + s/(6h) + V/(16lh)),"
        f" V = {built.vocabulary} (Narayanan et al. §5.1, Eq. 3)"
    )
    return Computed(value, "FLOP", "96Bslh²(1 + s/(6h) + V/(16lh))", words, _eq3_inputs(inputs))


@figure_kind("measured-step")
def measured_step(catalog: Catalog, workload: str, claim: str) -> Computed:
    """The step time a measured throughput stands for: Eq. 3's FLOPs ÷ (GPUs × FLOP/s per GPU), as the paper counts."""
    built, inputs = cluster(catalog, workload)
    devices = catalog.quantity(claim, "devices")
    rate = catalog.quantity(claim, "flops_per_second")
    value = model.layout.measured_step(built, devices.count, rate.value)
    words = f"{_eq3_words(built)} ÷ ({shown(devices)} GPUs × {shown(rate)} each, as measured)"
    return Computed(value, "s", "Eq. 3's FLOPs ÷ (n × measured rate)", words, (*_eq3_inputs(inputs), devices, rate))


@figure_kind("measured-training-time")
def measured_training_time(catalog: Catalog, workload: str, claim: str) -> Computed:
    """The training time a measured throughput stands for: T/(B·s) steps of `measured_step` (Narayanan et al., Table 2).

    The workload's `tokens` are the run's T.
    """
    built, inputs = cluster(catalog, workload)
    tokens = catalog.quantity(workload, "tokens")
    devices = catalog.quantity(claim, "devices")
    rate = catalog.quantity(claim, "flops_per_second")
    steps = Fraction(tokens.count, built.batch * built.sequence)
    value = steps * model.layout.measured_step(built, devices.count, rate.value)
    words = (
        f"{shown(tokens)} tokens ÷ (batch {built.batch} × sequence {built.sequence}) steps × {_eq3_words(built)}"
        f" ÷ ({shown(devices)} GPUs × {shown(rate)} each, as measured)"
    )
    formula = "T/(B·s) × Eq. 3's FLOPs ÷ (n × measured rate)"
    return Computed(value, "s", formula, words, (*_eq3_inputs(inputs), tokens, devices, rate))


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
    layers = catalog.quantity(setting.id, "layers")
    hidden = catalog.quantity(setting.id, "hidden")
    vocabulary = catalog.quantity(setting.id, "vocabulary")
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
