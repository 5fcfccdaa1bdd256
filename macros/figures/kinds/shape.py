"""How many parameters a model's shape implies (Kaplan et al. 2020, eq. 2.1 and Table 1), beside what it publishes.

"total" is Kaplan's count, blocks and embeddings; "vectors" are the biases and
layer norms it leaves out, counted for GPT-2's layout; "all" is both.
"""

from __future__ import annotations

from fractions import Fraction

from ... import model
from ...data.catalog import Catalog, Quantity
from ...data.quantities import format_quantity
from ..figure import Computed, shown
from .registry import figure_kind

#: The parts of a shape's count a figure can name.
PARTS = ("blocks", "embeddings", "total", "vectors", "all")
#: The parts that are a whole model's count, which shape_parameters shows.
TOTALS = ("total", "all")
#: Counts in the explanations keep four digits, enough to tell 174.6 billion from 175.
_WORD_DIGITS = 4


def _count(value: int) -> str:
    return format_quantity(value, "param", digits=_WORD_DIGITS)


def _part(catalog: Catalog, entry: str, part: str) -> tuple[int, str, str, tuple[Quantity, ...]]:
    """One part of the count: its value, its formula in symbols and in words, and its inputs."""
    if part not in PARTS:
        raise KeyError(f"unknown part {part!r} of a shape's count; known: {', '.join(PARTS)}")
    factor = model.BLOCK_PARAMETERS_PER_LAYER_PER_HIDDEN_SQUARED
    hidden = catalog.quantity(entry, "hidden")
    if part == "vectors":
        layers = catalog.quantity(entry, "layers")
        per_layer, final = model.GPT2_VECTORS_PER_LAYER_PER_HIDDEN, model.GPT2_FINAL_VECTORS_PER_HIDDEN
        value = model.vector_parameters(layers.count, hidden.count)
        words = (
            f"({per_layer} × {shown(layers)} layers + {final}) × {shown(hidden)}: per layer, the biases of the"
            " four linear layers and two layer norms' gains and biases, then the final layer norm (GPT-2's layout)"
        )
        return value, f"({per_layer} × n_layer + {final}) × d_model", words, (layers, hidden)
    if part == "all":
        total, total_formula, total_words, inputs = _part(catalog, entry, "total")
        vectors, vectors_formula, vectors_words, _ = _part(catalog, entry, "vectors")
        return total + vectors, f"{total_formula} + {vectors_formula}", f"{total_words} + {vectors_words}", inputs
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


@figure_kind("vector-parameters")
def vector_parameters(catalog: Catalog, entry: str) -> Computed:
    """GPT-2's biases and layer norms, which Kaplan's count leaves out: (13 × layers + 2) × hidden."""
    value, formula, words, inputs = _part(catalog, entry, "vectors")
    return Computed(value, "param", formula, words, inputs)


@figure_kind("shape-parameters")
def shape_parameters(catalog: Catalog, entry: str, part: str = "total") -> Computed:
    """Every parameter the shape implies: blocks plus embeddings ("total"), and GPT-2's vectors too ("all")."""
    if part not in TOTALS:
        raise KeyError(f"shape_parameters counts a whole model; part is one of {', '.join(TOTALS)}, not {part!r}")
    value, formula, words, inputs = _part(catalog, entry, part)
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
        f"{words} = {_count(value)}, {side} the published {shown(published)}",
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
        f"{words} = {_count(value)}, divided by the published {shown(published)}",
        (*inputs, published),
        {"percent": True},
    )
