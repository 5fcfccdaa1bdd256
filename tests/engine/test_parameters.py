"""Parameter counts from shapes against transformers' own model classes, built on the meta device.

The meta device gives every tensor its shape and no storage, so GPT-3 and
Llama 2 7B are built whole in no memory. `parameters()` counts a tied weight
once, as a trained model holds it. The shapes come from the catalog; the
count is `macros.model`'s (Kaplan's blocks and embeddings plus GPT-2's
vectors, or Narayanan et al.'s Eq. 2), or, for Llama 2, the catalog's own
count, which its entry derives from the configuration.
"""

from __future__ import annotations

import pytest
import torch
from transformers import GPT2Config, GPT2LMHeadModel, LlamaConfig, LlamaForCausalLM

from macros import model
from tests.conftest import catalog

from .conftest import Recorder

SOFTWARE = ("torch", "transformers")
#: Llama 2 7B's configuration values the catalog's entry quotes in its `where` (source llama2-config)
#: but keeps no field for: the MLP's width and the vocabulary.
LLAMA2_7B_INTERMEDIATE = 11008
LLAMA2_7B_VOCABULARY = 32000


def _count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def _gpt2(entry: str, heads_entry: str, tied: bool) -> int:
    shape = catalog()
    config = GPT2Config(
        n_layer=shape.quantity(entry, "layers").count,
        n_embd=shape.quantity(entry, "hidden").count,
        n_head=shape.quantity(heads_entry, "heads").count,
        vocab_size=shape.quantity(entry, "vocabulary").count,
        n_positions=shape.quantity(entry, "context").count,
        tie_word_embeddings=tied,
    )
    with torch.device("meta"):
        return _count(GPT2LMHeadModel(config))


def _shape_count(entry: str) -> tuple[int, int, int, int, int]:
    """Kaplan's count plus GPT-2's vectors for `entry`, and the shape it came from."""
    shape = catalog()
    layers, hidden, vocabulary, context = (
        shape.quantity(entry, field).count for field in ("layers", "hidden", "vocabulary", "context")
    )
    count = model.shape_parameters(layers, hidden, vocabulary, context) + model.vector_parameters(layers, hidden)
    return count, layers, hidden, vocabulary, context


@pytest.mark.parametrize(("entry", "heads_entry"), [("gpt2-xl-released", "gpt2-1.5b"), ("gpt3-175b", "gpt3-175b")])
def test_gpt2_layout_count_is_shape_plus_vectors(record: Recorder, entry: str, heads_entry: str) -> None:
    """GPT2LMHeadModel (tied) holds exactly 12Lh² + (V + n_ctx)h + (13L + 2)h."""
    course, *_ = _shape_count(entry)
    measured = _gpt2(entry, heads_entry, tied=True)
    record(
        f"shape-parameters/{entry}/all/tied",
        ["shape-parameters", "vector-parameters", "model.shape_parameters", "model.vector_parameters"],
        SOFTWARE,
        measured,
        course,
        "param",
    )
    assert measured == course


def test_untied_output_layer_adds_one_embedding(record: Recorder) -> None:
    """Untying GPT-2's output layer adds n_vocab × d_model parameters that the course's (tied) count leaves out."""
    course, _, hidden, vocabulary, _ = _shape_count("gpt2-xl-released")
    measured = _gpt2("gpt2-xl-released", "gpt2-1.5b", tied=False)
    extra = vocabulary * hidden
    record(
        "shape-parameters/gpt2-xl-released/all/untied",
        ["shape-parameters", "model.shape_parameters", "model.embedding_parameters"],
        SOFTWARE,
        measured,
        course,
        "param",
        differs=(
            "an untied output layer is a second n_vocab × d_model matrix; the course counts GPT-2's weights,"
            " whose output layer is the token embedding (tied)"
        ),
    )
    assert measured == course + extra


def test_narayanan_eq2_leaves_out_the_final_layer_norm(record: Recorder) -> None:
    """Eq. 2, 12lh² + 13lh + (V + s)h, is GPT-3's count less its final layer norm's 2h."""
    shape = catalog()
    layers, hidden, vocabulary, context = (
        shape.quantity("gpt3-175b", field).count for field in ("layers", "hidden", "vocabulary", "context")
    )
    course = model.layout.transformer_parameters(layers, hidden, vocabulary, context)
    measured = _gpt2("gpt3-175b", "gpt3-175b", tied=True)
    record(
        "transformer-parameters/gpt3-175b",
        ["transformer-parameters", "model.layout.transformer_parameters"],
        SOFTWARE,
        measured,
        course,
        "param",
        differs="Eq. 2 counts 13h of vectors per layer and none after the last layer: the final layer norm's gain and"
        " bias, 2h",
    )
    assert measured == course + model.GPT2_FINAL_VECTORS_PER_HIDDEN * hidden


@pytest.mark.parametrize("tied", [False, True])
def test_llama2_7b_count(record: Recorder, tied: bool) -> None:
    """LlamaForCausalLM with Llama 2 7B's configuration holds the catalog's count; tied, one embedding less."""
    shape = catalog()
    hidden = shape.quantity("llama-2-7b", "hidden").count
    config = LlamaConfig(
        hidden_size=hidden,
        intermediate_size=LLAMA2_7B_INTERMEDIATE,
        num_hidden_layers=shape.quantity("llama-2-7b", "layers").count,
        num_attention_heads=shape.quantity("llama-2-7b", "heads").count,
        vocab_size=LLAMA2_7B_VOCABULARY,
        tie_word_embeddings=tied,
    )
    with torch.device("meta"):
        measured = _count(LlamaForCausalLM(config))
    course = shape.quantity("llama-2-7b", "parameters").count
    embedding = LLAMA2_7B_VOCABULARY * hidden
    record(
        f"catalog/llama-2-7b/parameters/{'tied' if tied else 'untied'}",
        ["catalog"],
        SOFTWARE,
        measured,
        course,
        "param",
        differs="tying the output layer to the embedding removes one n_vocab × d_model matrix" if tied else "",
    )
    assert measured == course - (embedding if tied else 0)
