"""What training keeps in a device's memory: model states by recipe, copies, activations, room left."""

from __future__ import annotations

from ... import model
from ...data.catalog import Catalog
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind


def _state_words(state: str) -> str:
    return state.replace("_", " ")


@figure_kind("bytes-per-parameter")
def bytes_per_parameter(catalog: Catalog, state: str = "all", recipe: str = model.DEFAULT_RECIPE) -> Computed:
    """Bytes per parameter of one model state of a recipe, or of all of them ("all")."""
    chosen = model.recipe(recipe)
    if state == "all":
        value = chosen.bytes_per_parameter
        terms = " + ".join(f"{size} ({_state_words(name)})" for name, size in chosen.states.items())
        words = f"{terms} = {value} bytes per parameter in {chosen.name}, {chosen.counted}"
        return Computed(value, "B", f"bytes per parameter ({recipe})", words)
    value = model.state_bytes_per_parameter(state, recipe)
    words = f"{value} bytes per parameter for the {_state_words(state)} in {chosen.name}, {chosen.counted}"
    return Computed(value, "B", f"bytes per parameter ({_state_words(state)})", words)


@figure_kind("model-states")
def model_states(catalog: Catalog, entry: str, state: str = "all", recipe: str = model.DEFAULT_RECIPE) -> Computed:
    """Model-state bytes on every data-parallel device: the recipe's bytes per parameter × the entry's parameters.

    With `state`, one model state alone: "fp16_parameters" gives 2 bytes × parameters.
    """
    parameters = catalog.quantity(entry, "parameters")
    value = model.model_state_bytes(parameters.count, state, recipe)
    per_parameter = value // parameters.value
    what = "model states" if state == "all" else _state_words(state)
    words = f"{per_parameter} bytes × {shown(parameters)}, {what} in {model.recipe(recipe).name}"
    return Computed(value, "B", f"{per_parameter} B × parameters ({what})", words, (parameters,))


@figure_kind("one-copy")
def one_copy(catalog: Catalog, entry: str, precision: str) -> Computed:
    """Bytes of one value per parameter in `precision` (fp16, bf16, fp32, fp8), such as a fused fp32 gradient buffer."""
    parameters = catalog.quantity(entry, "parameters")
    value = model.copy_bytes(parameters.count, precision)
    per_parameter = value // parameters.value
    return Computed(
        value,
        "B",
        f"{per_parameter} B ({precision}) × parameters",
        f"{per_parameter} bytes ({precision}) × {shown(parameters)}",
        (parameters,),
    )


@figure_kind("memory-left")
def memory_left(catalog: Catalog, entry: str, gpu: str = "", recipe: str = model.DEFAULT_RECIPE) -> Computed:
    """Device memory left after the model states: memory − the recipe's bytes (16 unless said) × parameters.

    The memory is the entry's own (a claim's "32 GB", as its source computes
    with it) unless `gpu` names a GPU, whose real capacity is used instead.
    """
    parameters = catalog.quantity(entry, "parameters")
    memory = catalog.quantity(gpu or entry, "memory")
    states = model.model_state_bytes(parameters.count, "all", recipe)
    per_parameter = states // parameters.value
    if states > memory.value:
        raise ValueError(f"the model states ({format_quantity(states, 'B')}) do not fit in {shown(memory)}")
    return Computed(
        memory.value - states,
        "B",
        f"memory − {per_parameter} B × parameters",
        f"{shown(memory)} − {per_parameter} bytes × {shown(parameters)}, model states in {model.recipe(recipe).name}",
        (memory, parameters),
    )


@figure_kind("activations")
def activations(catalog: Catalog, workload: str, precision: str = model.ACTIVATION_PRECISION) -> Computed:
    """Activation bytes of a workload without checkpointing (ZeRO §3.2, footnote 3): 12·h·b·s·l values, in fp16."""
    setting = catalog.workload(workload)
    hidden = catalog.quantity(setting.id, "hidden")
    layers = catalog.quantity(setting.id, "layers")
    batch = catalog.quantity(workload, "batch")
    sequence = catalog.quantity(workload, "sequence")
    value = model.activation_bytes(hidden.count, batch.count, sequence.count, layers.count, precision)
    per_value = model.value_bytes(precision)
    factor = model.ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN
    words = (
        f"{factor} × hidden size {shown(hidden)} × batch {shown(batch)} × sequence {shown(sequence)}"
        f" × {shown(layers)} layers activation values (ZeRO §3.2, footnote 3), at {per_value} bytes each"
        f" in {precision}"
    )
    formula = f"{per_value} B × {factor} × hidden × batch × sequence × layers"
    return Computed(value, "B", formula, words, (hidden, layers, batch, sequence))


#: The part of a training step's memory that grows with its batch, beside the recipe's model states.
ACTIVATIONS = "activations"


@figure_kind("step-bytes")
def step_bytes(
    catalog: Catalog,
    workload: str,
    part: str,
    recipe: str = model.DEFAULT_RECIPE,
    precision: str = model.ACTIVATION_PRECISION,
) -> Computed:
    """Bytes of one part of a workload's training step on one device: a model state of `recipe`, or the activations.

    The parts add up to what the step keeps: each of the recipe's model states
    for the workload's model (`model_states`), and the activations of its
    batch, in `precision` (`activations`, ZeRO §3.2's estimate).

    Raises:
        KeyError: `part` is neither one of the recipe's states nor "activations".
    """
    if part == ACTIVATIONS:
        return activations(catalog, workload, precision)
    states = model.recipe(recipe).states
    if part not in states:
        raise KeyError(f"unknown part {part!r} of a step in {recipe}; known: {', '.join([*states, ACTIVATIONS])}")
    return model_states(catalog, catalog.workload(workload).model.id, part, recipe)
