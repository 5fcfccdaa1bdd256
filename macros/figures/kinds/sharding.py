"""What one data-parallel device holds under ZeRO-DP's stages (ZeRO §5), for a catalog model or any count."""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind


def _parameters(catalog: Catalog, parameters: int | str) -> tuple[int, str, tuple[Quantity, ...]]:
    """A parameter count from a catalog id (its `parameters`) or given as a number, its words, and its inputs."""
    if isinstance(parameters, str) and parameters.isdigit():  # read back from a figure id
        parameters = int(parameters)
    if isinstance(parameters, int) and not isinstance(parameters, bool):
        model.device_state_bytes(parameters, 1, 0)  # checks the count
        return parameters, format_quantity(parameters, "param"), ()
    quantity = catalog.quantity(parameters, "parameters")
    return quantity.count, shown(quantity), (quantity,)


@figure_kind("device-states")
def device_states(
    catalog: Catalog,
    parameters: int | str,
    devices: int = 1,
    stage: int = 0,
    recipe: str = model.DEFAULT_RECIPE,
    role: str = "all",
) -> Computed:
    """Model-state bytes one of `devices` data-parallel devices holds at ZeRO stage `stage` (0 = plain DP), ZeRO §5.

    `parameters` is a catalog id or a parameter count; `role` is "all", or one of
    parameters, gradients and optimizer_states.
    """
    count, count_words, inputs = _parameters(catalog, parameters)
    by_role = model.device_bytes_by_role(count, devices, stage, recipe)
    if role != "all" and role not in by_role:
        raise KeyError(f"unknown role {role!r}; the roles are all, {', '.join(model.ROLES)}")
    chosen = model.stage(stage)
    per_parameter = model.role_bytes_per_parameter(recipe)
    roles = model.ROLES if role == "all" else (role,)
    terms, symbols = [], []
    for name in roles:
        split = name in chosen.sharded
        terms.append(f"{per_parameter[name]} bytes ({name.replace('_', ' ')}){' ÷ Nd' if split else ''}")
        symbols.append(f"{per_parameter[name]}Ψ{'/Nd' if split else ''}")
    value = sum((by_role[name] for name in roles), Fraction(0))
    words = (
        f"({' + '.join(terms)}) × {count_words}, Nd = {devices}, ZeRO-DP {chosen.name} ({chosen.words}),"
        f" in {model.recipe(recipe).name} (ZeRO §5)"
    )
    return Computed(value, "B", " + ".join(symbols), words, inputs)
