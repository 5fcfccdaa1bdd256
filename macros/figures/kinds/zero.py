"""ZeRO-DP's figures: each stage's bytes per device (§5, Table 1), the largest model (Table 2), traffic (§7)."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind

#: Each stage's bytes per parameter in symbols, as §5 writes them.
_FORMULAS = {
    "dp": "(2 + 2 + K)Ψ",
    "os": "(2 + 2)Ψ + KΨ/N_d",
    "os-g": "2Ψ + (2 + K)Ψ/N_d",
    "os-g-p": "(2 + 2 + K)Ψ/N_d",
}


def _degree(catalog: Catalog, entry: str, dp: int) -> tuple[int, tuple[Quantity, ...]]:
    """The data-parallel degree: `dp` if given, else the workload's devices, with that input."""
    if dp:
        return dp, ()
    devices = catalog.quantity(entry, "devices")
    return devices.count, (devices,)


def _stage_words(stage: str, dp: int) -> str:
    chosen = model.zero_stage(stage)
    return f"{chosen.symbol} ({chosen.name}) at N_d = {dp:,}, K = {model.MIXED_ADAM_K}"


@figure_kind("zero-bytes-per-parameter")
def zero_bytes_per_parameter(catalog: Catalog, stage: str, dp: int) -> Computed:
    """Model-state bytes per parameter on each device under a ZeRO stage ("dp", "os", "os-g", "os-g-p")."""
    value = model.zero_bytes_per_parameter(stage, dp)
    return Computed(value, "B", f"{_FORMULAS[stage]} ÷ Ψ", f"{_FORMULAS[stage]} ÷ Ψ for {_stage_words(stage, dp)}")


@figure_kind("zero-memory-reduction")
def zero_memory_reduction(catalog: Catalog, stage: str, dp: int) -> Computed:
    """How many times less model-state memory each device holds under a ZeRO stage than under standard DP (§5.4)."""
    value = model.zero_memory_reduction(stage, dp)
    words = f"{_FORMULAS['dp']} ÷ ({_FORMULAS[stage]}) for {_stage_words(stage, dp)} (ZeRO §5.4: up to 4x, 8x, N_d)"
    return Computed(value, "1", f"{_FORMULAS['dp']} ÷ ({_FORMULAS[stage]})", words)


@figure_kind("zero-states")
def zero_states(catalog: Catalog, entry: str, stage: str, dp: int = 0) -> Computed:
    """Model-state bytes on each device under a ZeRO stage, for a model (give `dp`) or a workload (its devices)."""
    parameters = catalog.quantity(entry, "parameters")
    degree, inputs = _degree(catalog, entry, dp)
    value = model.zero_state_bytes(parameters.count, stage, degree)
    per_parameter = model.zero_bytes_per_parameter(stage, degree)
    words = (
        f"{_FORMULAS[stage]} with Ψ = {shown(parameters)}: {format_quantity(per_parameter, 'B', digits=4)}"
        f" per parameter, {_stage_words(stage, degree)} (ZeRO §5)"
    )
    return Computed(value, "B", _FORMULAS[stage], words, (parameters, *inputs))


@figure_kind("zero-max-model")
def zero_max_model(catalog: Catalog, memory: str, stage: str, mp: int, dp: int) -> Computed:
    """The most parameters whose model states fit in an entry's memory under a ZeRO stage and MP degree (Table 2)."""
    capacity = catalog.quantity(memory, "memory")
    value = model.zero_max_parameters(capacity.value, stage, dp, mp)
    per_parameter = model.zero_bytes_per_parameter(stage, dp)
    words = (
        f"{shown(capacity)} × N_m = {mp} ÷ {format_quantity(per_parameter, 'B', digits=4)} per parameter,"
        f" {_stage_words(stage, dp)}: model states only, as in ZeRO Table 2"
    )
    return Computed(value, "param", f"memory × N_m ÷ ({_FORMULAS[stage]} ÷ Ψ)", words, (capacity,))


@figure_kind("zero-traffic-multiple")
def zero_traffic_multiple(catalog: Catalog, stage: str) -> Computed:
    """Elements each device sends per step under a ZeRO stage, as a multiple of Ψ (§7): 2 or 3."""
    chosen = model.zero_stage(stage)
    words = f"{chosen.communication}Ψ elements per device per step for {chosen.symbol} (ZeRO §7)"
    return Computed(chosen.communication, "1", "elements sent ÷ Ψ", words)


@figure_kind("zero-traffic-ratio")
def zero_traffic_ratio(catalog: Catalog, stage: str) -> Computed:
    """A ZeRO stage's traffic per step over standard data parallelism's (§7): 1, or 1.5 with P_os+g+p."""
    chosen, baseline = model.zero_stage(stage), model.zero_stage("dp")
    value = Fraction(chosen.communication, baseline.communication)
    words = f"{chosen.communication}Ψ ({chosen.symbol}) ÷ {baseline.communication}Ψ (standard DP), ZeRO §7"
    return Computed(value, "1", "stage's volume ÷ DP's volume", words)


@figure_kind("zero-traffic")
def zero_traffic(catalog: Catalog, entry: str, stage: str, precision: str = "fp16") -> Computed:
    """Bytes each device sends per step under a ZeRO stage: §7's 2Ψ or 3Ψ elements, in `precision`."""
    parameters = catalog.quantity(entry, "parameters")
    elements = model.zero_communication_elements(parameters.count, stage)
    per_value = model.BYTES_PER_VALUE[precision]
    multiple = model.zero_stage(stage).communication
    words = f"{multiple} × {shown(parameters)} elements (ZeRO §7) × {per_value} bytes each in {precision}"
    return Computed(elements * per_value, "B", f"{multiple}Ψ × {per_value} B ({precision})", words, (parameters,))
