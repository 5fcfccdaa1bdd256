"""The compute of a training run: FLOPs, petaflop/s-days, tokens per parameter, time and utilization."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind

#: A compute count reads as papers print it: 3.14 × 10²³ FLOP.
_SCIENTIFIC = {"scientific": True}
#: Which parameter count a compute figure multiplies by.
COUNTS = ("published", "shape")
#: A GPU's 16-bit Tensor Core peak, under the name its source gives the format: the A100's
#: fp16 and bf16 peaks are the same (NVIDIA's Ampere Table 3); Narayanan et al. say "16-bit precision".
PEAK_16_BIT_FIELDS = ("peak_bf16_flops", "peak_fp16_flops")


def _peak(catalog: Catalog, workload: str) -> Quantity:
    """The 16-bit peak FLOP/s of the workload's GPU, from whichever of PEAK_16_BIT_FIELDS its entry gives.

    Raises:
        ValueError: the workload names no GPU, or its GPU has no 16-bit peak.
    """
    setting = catalog.workload(workload)
    if setting.gpu is None:
        raise ValueError(f"workload {workload!r} names no gpu; add `gpu:` to it in workloads.yml")
    for field in PEAK_16_BIT_FIELDS:
        if getattr(setting.gpu, field, None) is not None:
            return catalog.quantity(setting.gpu.id, field)
    raise ValueError(f"gpu {setting.gpu.id!r} gives no 16-bit peak; add one of {', '.join(PEAK_16_BIT_FIELDS)}")


def _parameters(catalog: Catalog, workload: str, count: str) -> tuple[int, str, tuple[Quantity, ...]]:
    """The workload's model's parameters: as published, or as its shape implies (Kaplan eq. 2.1 + embeddings)."""
    setting = catalog.workload(workload)
    if count == "published":
        parameters = catalog.quantity(setting.id, "parameters")
        return parameters.count, shown(parameters), (parameters,)
    if count == "shape":
        shape = tuple(catalog.quantity(setting.id, f) for f in ("layers", "hidden", "vocabulary", "context"))
        layers, hidden, vocabulary, context = (q.count for q in shape)
        value = model.shape_parameters(layers, hidden, vocabulary, context)
        return value, f"{format_quantity(value, 'param', digits=4)} (by its shape)", shape
    raise KeyError(f"unknown parameter count {count!r}; known: {', '.join(COUNTS)}")


def _flops(catalog: Catalog, workload: str, count: str, recompute: str) -> tuple[int, str, tuple[Quantity, ...]]:
    parameters, parameter_words, inputs = _parameters(catalog, workload, count)
    tokens = catalog.quantity(workload, "tokens")
    per = model.recomputation(recompute)
    value = model.training_flops(parameters, tokens.count, recompute)
    return value, f"{per} × {parameter_words} × {shown(tokens)} tokens", (*inputs, tokens)


@figure_kind("flops-per-parameter")
def flops_per_parameter(catalog: Catalog, part: str = "training") -> Computed:
    """FLOPs per parameter per token: 2 forward, 4 backward, 6 a training step, 8 with recomputation."""
    values = {
        "forward": model.FORWARD_FLOPS_PER_PARAMETER,
        "backward": model.BACKWARD_FLOPS_PER_PARAMETER,
        "training": model.recomputation("none"),
        "recomputing": model.recomputation("full"),
    }
    if part not in values:
        raise KeyError(f"unknown part {part!r}; known: {', '.join(values)}")
    words = (
        f"{values[part]} FLOPs per parameter per token ({part}): a multiply and an add per parameter forward,"
        " twice that backward (Kaplan et al. §2.1), and one more forward pass when recomputing"
    )
    return Computed(values[part], "FLOP", f"FLOPs per parameter per token ({part})", words)


@figure_kind("training-flops")
def training_flops(catalog: Catalog, workload: str, count: str = "published", recompute: str = "none") -> Computed:
    """A run's training compute: 6 × parameters × tokens (8 × with recomputation), as Kaplan and GPT-3 count it."""
    value, words, inputs = _flops(catalog, workload, count, recompute)
    per = model.recomputation(recompute)
    return Computed(value, "FLOP", f"{per} × N × D", f"{words} = FLOPs", inputs, _SCIENTIFIC)


@figure_kind("petaflop-days")
def petaflop_days(catalog: Catalog, workload: str, count: str = "published") -> Computed:
    """A run's training compute in petaflop/s-days (8.64 × 10¹⁹ FLOP each), GPT-3 Table D.1's unit."""
    flops, words, inputs = _flops(catalog, workload, count, "none")
    day = model.FLOPS_PER_PETAFLOP_S_DAY
    return Computed(
        model.petaflop_s_days(flops),
        "1",
        "6 × N × D ÷ (10¹⁵ FLOP/s × 86,400 s)",
        f"{words} FLOPs ÷ {format_quantity(day, 'FLOP', scientific=True)} per petaflop/s-day",
        inputs,
    )


@figure_kind("tokens-per-parameter")
def tokens_per_parameter(catalog: Catalog, workload: str) -> Computed:
    """A run's training tokens per parameter, D/N."""
    tokens = catalog.quantity(workload, "tokens")
    parameters = catalog.quantity(workload, "parameters")
    return Computed(
        model.tokens_per_parameter(tokens.count, parameters.count),
        "1",
        "D ÷ N",
        f"{shown(tokens)} tokens ÷ {shown(parameters)}",
        (tokens, parameters),
    )


def _optimum(catalog: Catalog, budget: str, ratio: str) -> tuple[int, Fraction, str, tuple[Quantity, ...]]:
    """The parameters that spend `budget`'s 6ND at `ratio`'s tokens per parameter, and how."""
    flops, flops_words, flops_inputs = _flops(catalog, budget, "published", "none")
    tokens = catalog.quantity(ratio, "tokens")
    parameters = catalog.quantity(ratio, "parameters")
    per = model.tokens_per_parameter(tokens.count, parameters.count)
    optimum = model.compute_optimal_parameters(flops, per)
    words = (
        f"√(C ÷ (6 × r)) with C = {flops_words} and r = {shown(tokens)} tokens ÷ {shown(parameters)}"
        f" = {format_quantity(per, '1')} tokens per parameter"
    )
    return optimum, per, words, (*flops_inputs, tokens, parameters)


@figure_kind("optimal-parameters")
def optimal_parameters(catalog: Catalog, budget: str, ratio: str) -> Computed:
    """The model `budget`'s compute buys at `ratio`'s tokens per parameter: N = √(C / 6r), the course's algebra."""
    optimum, _, words, inputs = _optimum(catalog, budget, ratio)
    return Computed(optimum, "param", "√(6ND ÷ (6 × D_r/N_r))", words, inputs)


@figure_kind("optimal-tokens")
def optimal_tokens(catalog: Catalog, budget: str, ratio: str) -> Computed:
    """The tokens that model trains on: r × N, at `ratio`'s tokens per parameter."""
    optimum, per, words, inputs = _optimum(catalog, budget, ratio)
    return Computed(per * optimum, "1", "r × √(C ÷ 6r)", f"r × N with N = {words}", inputs, {"words": True})


@figure_kind("training-time")
def training_time(catalog: Catalog, workload: str, recompute: str = "full") -> Computed:
    """Narayanan et al.'s end-to-end training time, 8TP/(nX); with recompute="none", the course's 6TP/(nX)."""
    setting = catalog.workload(workload)
    tokens = catalog.quantity(workload, "tokens")
    parameters = catalog.quantity(setting.id, "parameters")
    devices = catalog.quantity(workload, "devices")
    throughput = catalog.quantity(workload, "throughput")
    per = model.recomputation(recompute)
    value = model.training_seconds(tokens.count, parameters.count, devices.count, throughput.value, recompute)
    words = f"{per} × {shown(tokens)} tokens × {shown(parameters)} ÷ ({shown(devices)} GPUs × {shown(throughput)} each)"
    return Computed(value, "s", f"{per}TP ÷ (nX)", words, (tokens, parameters, devices, throughput))


@figure_kind("mfu")
def mfu(catalog: Catalog, workload: str) -> Computed:
    """PaLM's model FLOPs utilization, attention left out: tokens/s × 6N ÷ (devices × peak FLOP/s)."""
    peak = _peak(catalog, workload)
    rate = catalog.quantity(workload, "tokens_per_second")
    parameters = catalog.quantity(workload, "parameters")
    devices = catalog.quantity(workload, "devices")
    value = model.model_flops_utilization(rate.value, parameters.count, devices.count, peak.value)
    words = (
        f"{shown(rate)} tokens/s × 6 × {shown(parameters)} ÷ ({shown(devices)} chips × {shown(peak)} peak each),"
        " attention left out (PaLM App. B)"
    )
    return Computed(value, "1", "tokens/s × 6N ÷ (n × P)", words, (rate, parameters, devices, peak), {"percent": True})


@figure_kind("time-at-utilization")
def time_at_utilization(catalog: Catalog, workload: str, devices: int, utilization: int) -> Computed:
    """The time a run's 6ND FLOPs take on `devices` of its GPU, at `utilization` percent of their 16-bit peak."""
    peak = _peak(catalog, workload)
    if not isinstance(devices, int) or isinstance(devices, bool) or devices < 1:
        raise ValueError(f"devices is a whole number of GPUs, 1 or more; got {devices!r}")
    if not isinstance(utilization, int) or isinstance(utilization, bool) or not 1 <= utilization <= 100:
        raise ValueError(f"utilization is a whole percentage from 1 to 100; got {utilization!r}")
    flops, words, inputs = _flops(catalog, workload, "published", "none")
    value = model.seconds_at_utilization(flops, devices, peak.value, Fraction(utilization, 100))
    return Computed(
        value,
        "s",
        "6ND ÷ (n × P × utilization)",
        f"{words} FLOPs ÷ ({devices:,} × {shown(peak)} × {utilization}%)",
        (*inputs, peak),
    )


@figure_kind("gpu-time")
def gpu_time(catalog: Catalog, workload: str, gpu: str, utilization: int) -> Computed:
    """The GPU time a run's 6ND FLOPs take on `gpu` at `utilization` percent of its 16-bit peak: GPU-hours,
    whatever the number of GPUs, as long as the utilization holds; a price per GPU-hour makes it a cost."""
    record = catalog.gpu(gpu)
    field = next((f for f in PEAK_16_BIT_FIELDS if getattr(record, f, None) is not None), None)
    if field is None:
        raise ValueError(f"gpu {gpu!r} gives no 16-bit peak; add one of {', '.join(PEAK_16_BIT_FIELDS)}")
    peak = catalog.quantity(gpu, field)
    if not isinstance(utilization, int) or isinstance(utilization, bool) or not 1 <= utilization <= 100:
        raise ValueError(f"utilization is a whole percentage from 1 to 100; got {utilization!r}")
    flops, words, inputs = _flops(catalog, workload, "published", "none")
    value = model.seconds_at_utilization(flops, 1, peak.value, Fraction(utilization, 100))
    return Computed(
        value,
        "s",
        "6ND ÷ (P × utilization)",
        f"{words} FLOPs ÷ ({shown(peak)} × {utilization}%): the GPU-seconds, on any number of GPUs",
        (*inputs, peak),
        {"scale": "hours"},
    )


@figure_kind("throughput-share")
def throughput_share(catalog: Catalog, workload: str, flops: str = "hardware") -> Computed:
    """A run's achieved FLOP/s per device over its GPU's 16-bit peak: as measured ("hardware"), or model FLOPs only.

    Narayanan et al.'s X counts the recomputed forward pass (8 FLOPs per
    parameter per token); "model" keeps the 6 that MFU counts: X × 6/8 ÷ peak.
    """
    peak = _peak(catalog, workload)
    throughput = catalog.quantity(workload, "throughput")
    shares = {"hardware": Fraction(1), "model": Fraction(model.recomputation("none"), model.recomputation("full"))}
    if flops not in shares:
        raise KeyError(f"unknown count of FLOPs {flops!r}; known: {', '.join(shares)}")
    share = shares[flops]
    counted = "as measured, recomputation included" if flops == "hardware" else "model FLOPs only, 6 of every 8"
    return Computed(
        Fraction(throughput.value) * share / Fraction(peak.value),
        "1",
        "X ÷ peak" if flops == "hardware" else "X × 6/8 ÷ peak",
        f"{shown(throughput)} achieved ({counted}) ÷ {shown(peak)} peak",
        (throughput, peak),
        {"percent": True},
    )
