"""How many parameters a model's shape implies (Kaplan et al. 2020, eq. 2.1 and Table 1), beside what it publishes."""

from __future__ import annotations

from fractions import Fraction

from .. import model
from ..catalog import Catalog, Quantity
from ..figures import Computed, shown
from ..quantities import format_quantity
from .registry import figure_kind

#: The parts of a shape's count a figure can name.
PARTS = ("blocks", "embeddings", "total")


def _part(catalog: Catalog, entry: str, part: str) -> tuple[int, str, str, tuple[Quantity, ...]]:
    """One part of the count: its value, its formula in symbols and in words, and its inputs."""
    if part not in PARTS:
        raise KeyError(f"unknown part {part!r} of a shape's count; known: {', '.join(PARTS)}")
    factor = model.BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED
    hidden = catalog.quantity(entry, "hidden")
    if part == "embeddings":
        vocabulary, context = catalog.quantity(entry, "vocabulary"), catalog.quantity(entry, "context")
        value = model.embedding_parameters(vocabulary.count, context.count, hidden.count)
        words = f"({shown(vocabulary)} vocabulary + {shown(context)} positions) × {shown(hidden)}"
        return value, "(n_vocab + n_ctx) × d_model", words, (vocabulary, context, hidden)
    layers = catalog.quantity(entry, "layers")
    blocks = model.block_parameters(layers.count, hidden.count)
    blocks_words = f"{factor} × {shown(layers)} layers × {shown(hidden)}² (d_model)"
    if part == "blocks":
        return blocks, f"{factor} × n_layer × d_model²", blocks_words, (layers, hidden)
    embeddings, _, embeddings_words, (vocabulary, context, _) = _part(catalog, entry, "embeddings")
    formula = f"{factor} × n_layer × d_model² + (n_vocab + n_ctx) × d_model"
    return blocks + embeddings, formula, f"{blocks_words} + {embeddings_words}", (layers, hidden, vocabulary, context)


@figure_kind("block-parameters")
def block_parameters(catalog: Catalog, entry: str) -> Computed:
    """Kaplan's N, the transformer blocks' parameters: 12 × layers × hidden²."""
    value, formula, words, inputs = _part(catalog, entry, "blocks")
    return Computed(value, "param", formula, f"{words} (Kaplan et al. eq. 2.1)", inputs)


@figure_kind("embedding-parameters")
def embedding_parameters(catalog: Catalog, entry: str) -> Computed:
    """The token and position embeddings' parameters: (vocabulary + context) × hidden."""
    value, formula, words, inputs = _part(catalog, entry, "embeddings")
    return Computed(value, "param", formula, f"{words} (Kaplan et al. Table 1)", inputs)


@figure_kind("shape-parameters")
def shape_parameters(catalog: Catalog, entry: str) -> Computed:
    """Every parameter the shape implies: blocks plus embeddings, biases and layer norms left out."""
    value, formula, words, inputs = _part(catalog, entry, "total")
    return Computed(value, "param", formula, words, inputs)


@figure_kind("shape-gap")
def shape_gap(catalog: Catalog, entry: str, part: str = "total") -> Computed:
    """How far a part of the shape's count is from the parameter count the model publishes, either way."""
    value, _, words, inputs = _part(catalog, entry, part)
    published = catalog.quantity(entry, "parameters")
    gap = abs(value - published.count)
    side = "above" if value > published.count else "below"
    return Computed(
        gap,
        "param",
        f"|{part} by shape − published parameters|",
        f"{words} = {format_quantity(value, 'param')}, {side} the published {shown(published)}",
        (*inputs, published),
    )


@figure_kind("shape-share")
def shape_share(catalog: Catalog, entry: str, part: str) -> Computed:
    """A part of the shape's count as a share of the parameter count the model publishes."""
    value, _, words, inputs = _part(catalog, entry, part)
    published = catalog.quantity(entry, "parameters")
    return Computed(
        Fraction(value, published.count),
        "1",
        f"{part} by shape ÷ published parameters",
        f"{words} = {format_quantity(value, 'param')}, over the published {shown(published)}",
        (*inputs, published),
        {"percent": True},
    )
