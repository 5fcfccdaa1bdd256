"""Mixtures of experts: total and active parameters, the router's capacity, and expert parallelism's traffic."""

from __future__ import annotations

import re
from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity, transformer_shape
from ...data.quantities import format_quantity
from ...model import experts
from ...model.shape import MLP_MATRICES, ParameterCount, parameter_count
from ..figure import Computed, shown
from .registry import figure_kind

#: The parts of a mixture of experts' parameters a figure may count.
PARTS = ("total", "active", "experts")
#: The shape fields a count of a Mixtral-style model takes from the catalog.
SHAPE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocabulary", "experts", "experts_per_token")


def _counted(catalog: Catalog, entry: str) -> tuple[ParameterCount, tuple[Quantity, ...]]:
    """The exact count of a catalog model whose whole shape the course counts, with the inputs it takes."""
    record = catalog.model(entry)
    if not record.experts:
        raise ValueError(f"{entry!r} is not a mixture of experts: it has no `experts:` in models.yml")
    count = parameter_count(transformer_shape(record))
    fields = [name for name in SHAPE_FIELDS if getattr(record, name) is not None]
    if record.expert_ffn is not None:
        fields.append("expert_ffn")
    return count, tuple(catalog.quantity(entry, name) for name in fields)


def _part(count: ParameterCount, part: str) -> int:
    if part == "total":
        return count.total
    if part == "active":
        return count.active
    if part == "experts":
        return count.layers * count.layer.experts
    raise KeyError(f"unknown part {part!r}; known: {', '.join(PARTS)}")


@figure_kind("moe-parameters")
def moe_parameters(catalog: Catalog, entry: str, part: str = "total") -> Computed:
    """A mixture of experts' parameters counted from its configuration as its model class builds it: every one
    (`total`), those one token uses (`active`: all but the experts it is not routed to), or the routed experts'."""
    count, inputs = _counted(catalog, entry)
    value = _part(count, part)
    record = catalog.model(entry)
    k, e = record.experts_per_token, record.experts
    what = {
        "total": f"every parameter: embeddings, {count.layers} layers of attention, norms, a router and {e} experts",
        "active": f"the parameters one token uses: all but the {e} − {k} experts of each layer it is not routed to",
        "experts": f"the routed experts' matrices: {count.layers} layers × {e} experts",
    }[part]
    formula = {"total": "N", "active": "N − L·(E − k)·P_expert", "experts": "L·E·P_expert"}[part]
    return Computed(value, "param", formula, f"{what}, counted from the configuration", inputs)


@figure_kind("moe-flops-per-token")
def moe_flops_per_token(catalog: Catalog, entry: str, count: str = "active") -> Computed:
    """Training FLOPs per token of a mixture of experts: 6 × its active parameters (Kaplan's 6N with N the
    parameters a token uses), or 6 × every parameter, as if the model were dense."""
    record = catalog.model(entry)
    per = model.FLOPS_PER_PARAMETER["none"]
    if count not in ("active", "total"):
        raise KeyError(f"unknown count {count!r}; known: active, total")
    inputs: tuple[Quantity, ...]
    if record.active is not None:
        # A shape the course cannot count (DeepSeek-V3's): the parameters as the source states them.
        parameters = catalog.quantity(entry, "active" if count == "active" else "parameters")
        value, inputs, shown_n = parameters.value, (parameters,), shown(parameters)
    else:
        counted, inputs = _counted(catalog, entry)
        value = _part(counted, count)
        shown_n = format_quantity(value, "param")
    words = f"{per} FLOPs × {shown_n} ({count} parameters) per token, forward and backward"
    return Computed(per * value, "FLOP", f"{per} × N_{count}", words, inputs)


#: A capacity factor as an author writes one: "1", "1.25".
_FACTOR = re.compile(r"[0-9]{1,3}(?:\.[0-9]{1,6})?")
#: Past this, every expert would hold the whole batch many times over.
MOST_CAPACITY_FACTOR = 64


@figure_kind("expert-capacity")
def expert_capacity(catalog: Catalog, tokens: int, experts_count: int, factor: str = "1") -> Computed:
    """Switch Transformer's expert capacity, Eq. (3): (tokens per batch ÷ experts) × capacity factor."""
    # Read as written, a decimal: Fraction() would take "1e99999999" and build it, "1/0" or "1_000" as well.
    if not isinstance(factor, str) or not _FACTOR.fullmatch(factor):
        raise ValueError(f'factor= is a decimal capacity factor in quotes, such as "1.25", not {factor!r}')
    capacity_factor = Fraction(factor)
    if not 0 < capacity_factor <= MOST_CAPACITY_FACTOR:
        raise ValueError(f"factor= is a capacity factor above 0 and at most {MOST_CAPACITY_FACTOR}, not {factor}")
    value = experts.expert_capacity(tokens, experts_count, capacity_factor)
    words = (
        f"({tokens:,} tokens per batch ÷ {experts_count} experts) × capacity factor"
        f" {format_quantity(capacity_factor, '1', digits=3)}"
    )
    return Computed(value, "1", "(tokens ÷ experts) × capacity factor", words)


def _alltoall(
    catalog: Catalog, entry: str, tokens: int, degree: int, per: str, precision: str
) -> tuple[Fraction, str, str, tuple[Quantity, ...]]:
    record = catalog.model(entry)
    if not record.experts or not record.experts_per_token:
        raise ValueError(f"{entry!r} names no `experts:` and `experts_per_token:` in models.yml")
    experts.check_expert_degree(record.experts, degree)
    h, k = catalog.quantity(entry, "hidden"), catalog.quantity(entry, "experts_per_token")
    per_value = model.value_bytes(precision)
    value = experts.alltoall_bytes(tokens, k.count, h.count, per_value, degree)
    formula = "tokens × k × h × bytes × (e − 1)/e"
    words = (
        f"{tokens:,} tokens × top-{shown(k)} × hidden {shown(h)} × {per_value} bytes ({precision}) × ({degree} − 1)"
        f"/{degree} sent to other devices, in one all-to-all"
    )
    if per == "layer":
        count = experts.alltoalls_per_layer("both")
        value, formula = value * count, f"{count} × {formula}"
        words += f", × {count}: dispatch and combine forward, and their gradients backward, per MoE layer"
    elif per != "alltoall":
        raise KeyError(f"unknown per {per!r}; known: alltoall, layer")
    return value, formula, words, (h, k)


@figure_kind("alltoall-bytes")
def alltoall_bytes(
    catalog: Catalog, entry: str, tokens: int, degree: int, per: str = "alltoall", precision: str = "bf16"
) -> Computed:
    """Bytes one device sends for expert parallelism over `degree` devices: tokens × k × h × bytes × (e − 1)/e in
    one all-to-all (dispatch or combine), or four times that per MoE layer (`per="layer"`), forward and backward."""
    value, formula, words, inputs = _alltoall(catalog, entry, tokens, degree, per, precision)
    return Computed(value, "B", formula, words, inputs)


@figure_kind("alltoall-seconds")
def alltoall_seconds(
    catalog: Catalog,
    entry: str,
    tokens: int,
    degree: int,
    link: str,
    per: str = "alltoall",
    precision: str = "bf16",
) -> Computed:
    """Seconds the bytes of `alltoall_bytes` take at one link's bandwidth in each direction, at line rate."""
    value, formula, words, inputs = _alltoall(catalog, entry, tokens, degree, per, precision)
    bandwidth = catalog.quantity(link, "bandwidth_per_direction")
    seconds = value / Fraction(bandwidth.value)
    words = f"({words}) ÷ {shown(bandwidth)} in each direction, at line rate"
    return Computed(seconds, "s", f"({formula}) ÷ bandwidth", words, (*inputs, bandwidth))


@figure_kind("expert-device-states")
def expert_device_states(catalog: Catalog, entry: str, degree: int, recipe: str = model.DEFAULT_RECIPE) -> Computed:
    """Model-state bytes per device when the experts are split over `degree` devices and the rest is copied:
    the recipe's bytes per parameter × (non-expert parameters + expert parameters ÷ e)."""
    count, inputs = _counted(catalog, entry)
    record = catalog.model(entry)
    assert record.experts
    experts.check_expert_degree(record.experts, degree)
    routed = count.layers * count.layer.experts
    held = experts.device_parameters(count.total, routed, degree)
    per_parameter = model.model_state_bytes(1, "all", recipe)
    words = (
        f"{per_parameter} bytes × ({format_quantity(count.total - routed, 'param')} outside the experts +"
        f" {format_quantity(routed, 'param')} of experts ÷ {degree}), model states in {model.recipe(recipe).name}"
    )
    return Computed(held * per_parameter, "B", f"{per_parameter} B × (N − N_experts + N_experts/e)", words, inputs)


@figure_kind("routed-expert-parameters")
def routed_expert_parameters(catalog: Catalog, entry: str, part: str = "total") -> Computed:
    """The routed experts' matrices of a model whose whole shape the course does not count (DeepSeek-V3's):
    (layers − dense layers) × experts (or k of them, `active`) × 3 × h × f, the gated MLP as `shape` counts it;
    `implied-active`: the source's total less every routed expert plus a token's k of them."""
    record = catalog.model(entry)
    fields = ("layers", "dense_layers", "hidden", "expert_ffn", "experts", "experts_per_token")
    missing = [name for name in fields if getattr(record, name) is None]
    if missing:
        raise ValueError(f"{entry!r} has no {', '.join(missing)} in models.yml")
    if part not in ("total", "active", "implied-active"):
        raise KeyError(f"unknown part {part!r}; known: total, active, implied-active")
    q = {name: catalog.quantity(entry, name) for name in fields}
    moe_layers = q["layers"].count - q["dense_layers"].count
    matrices = MLP_MATRICES["gated"]

    def routed(e: Quantity) -> tuple[int, str]:
        value = experts.routed_expert_parameters(moe_layers, e.count, q["hidden"].count, q["expert_ffn"].count)
        words = (
            f"({shown(q['layers'])} − {shown(q['dense_layers'])} dense) layers × {shown(e)} routed experts ×"
            f" {matrices} × hidden {shown(q['hidden'])} × expert width {shown(q['expert_ffn'])}"
        )
        return value, words

    if part != "implied-active":
        value, words = routed(q["experts"] if part == "total" else q["experts_per_token"])
        return Computed(value, "param", f"(L − L_dense) × E × {matrices}·h·f", words, tuple(q.values()))
    total = catalog.quantity(entry, "parameters")
    every, _ = routed(q["experts"])
    used, _ = routed(q["experts_per_token"])
    words = (
        f"{shown(total)} (the source's total) − {format_quantity(every, 'param')} of routed experts +"
        f" {format_quantity(used, 'param')} for the {shown(q['experts_per_token'])} a token uses"
    )
    return Computed(total.count - every + used, "param", "N − N_routed + N_routed·k/E", words, (total, *q.values()))


@figure_kind("expert-data-parallel")
def expert_data_parallel(catalog: Catalog, world: int, degree: int, pipeline: int, expert_tensor: int = 1) -> Computed:
    """The experts' data-parallel degree as Megatron-Core forms its groups: world ÷ (ETP × EP × PP)."""
    value = experts.expert_data_parallel(world, degree, pipeline, expert_tensor)
    words = f"{world:,} devices ÷ ({expert_tensor} expert tensor × {degree} expert × {pipeline} pipeline parallel)"
    return Computed(value, "1", "world ÷ (ETP × EP × PP)", words)
