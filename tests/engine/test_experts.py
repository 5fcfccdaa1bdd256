"""A mixture of experts' parameters, counted by transformers' own Mixtral class, built on the meta device.

`MixtralForCausalLM` is built from a `MixtralConfig` of the catalog's Mixtral 8x7B (and of small random
Mixtral-style shapes), on the meta device (shapes, no storage), and its parameters counted: every one,
the routed experts', and those one token uses. The course's counts are `model.parameter_count`'s, as
the figure kind `moe-parameters` gives them (`total`, `experts`, `active`); the planner's reader of a
config.json (`macros.data.hf_config.parse_config`) is checked on the config.json transformers itself
writes.

In transformers 5.24 the experts are not a ModuleList of MLPs any more: `MixtralSparseMoeBlock.experts`
is one `MixtralExperts` module holding two fused tensors over all E experts, `gate_up_proj` of shape
[E, 2f, h] (each expert's gate and up matrices stacked) and `down_proj` of [E, h, f]
(transformers/models/mixtral/modeling_mixtral.py); the router is `mlp.gate`, a `MixtralTopKRouter` whose
`weight` is [E, h], without bias. So the active count takes k/E of each tensor of a `MixtralExperts`
module, after checking that its first dimension is the E experts, and every other parameter whole: it
reads the module tree, not the course's formula.
"""

from __future__ import annotations

import json
import random

import pytest
import torch
from transformers import MixtralConfig, MixtralForCausalLM
from transformers.models.mixtral.modeling_mixtral import MixtralExperts

from macros import model
from macros.data.catalog import transformer_shape
from macros.data.hf_config import parse_config
from macros.model.shape import TransformerShape
from tests.conftest import catalog

from .conftest import FIGURES, Recorder, course_figure

SOFTWARE = ("torch", "transformers")
ENTRY = "mixtral-8x7b"
PARTS = ("total", "experts", "active")


def mixtral_config(shape: TransformerShape) -> MixtralConfig:
    """transformers' config of a Mixtral of `shape` (the MLP's width is each expert's)."""
    return MixtralConfig(
        hidden_size=shape.hidden,
        intermediate_size=shape.expert_ffn,
        num_hidden_layers=shape.layers,
        num_attention_heads=shape.heads,
        num_key_value_heads=shape.kv_heads,
        num_local_experts=shape.experts,
        num_experts_per_tok=shape.experts_per_token,
        vocab_size=shape.vocabulary,
        tie_word_embeddings=shape.tied,
    )


def measure(config: MixtralConfig) -> dict[str, int]:
    """Every parameter of MixtralForCausalLM built from `config`, the experts' tensors, and what one token uses."""
    with torch.device("meta"):
        built = MixtralForCausalLM(config)
    experts, k = config.num_local_experts, config.num_experts_per_tok
    counts = {"total": sum(p.numel() for p in built.parameters()), "experts": 0, "active": 0}
    grouped = [module for module in built.modules() if isinstance(module, MixtralExperts)]
    assert len(grouped) == config.num_hidden_layers, "one MixtralExperts per layer"
    seen: set[int] = set()
    for module in built.modules():
        for parameter in module.parameters(recurse=False):
            # A tied output layer is the token embedding: counted once, as `parameters()` counts it.
            if id(parameter) in seen:
                continue
            seen.add(id(parameter))
            if isinstance(module, MixtralExperts):
                # A fused tensor over the experts: its first dimension is the E experts, each an equal slice.
                assert parameter.shape[0] == experts
                counts["experts"] += parameter.numel()
                counts["active"] += parameter.numel() // experts * k
            else:
                counts["active"] += parameter.numel()
    assert counts["active"] + counts["experts"] * (experts - k) // experts == counts["total"]
    return counts


def course_parts(shape: TransformerShape) -> dict[str, int]:
    """The course's count of `shape`: every parameter, the routed experts', and the active ones."""
    count = model.parameter_count(shape)
    return {"total": count.total, "experts": count.layers * count.layer.experts, "active": count.active}


def catalog_shape() -> TransformerShape:
    """The catalog's Mixtral 8x7B (`load_catalog`, through tests.conftest) as the course reads its shape."""
    return transformer_shape(catalog().model(ENTRY))


@pytest.fixture(scope="module")
def mixtral() -> dict[str, int]:
    return measure(mixtral_config(catalog_shape()))


@pytest.mark.parametrize("part", PARTS)
def test_mixtral_8x7b_parameters(record: Recorder, mixtral: dict[str, int], part: str) -> None:
    """MixtralForCausalLM with Mixtral 8x7B's configuration holds the course's count: total, experts, active."""
    figure_id = "moe-parameters/mixtral-8x7b" + ("" if part == "total" else f"/{part}")
    course_value = course_figure(figure_id).value
    key = f"moe-parameters/{ENTRY}/{part}"
    record(key, ["moe-parameters", "model.parameter_count"], SOFTWARE, mixtral[part], course_value, "param")
    assert FIGURES.get(key) == figure_id
    assert mixtral[part] == course_value


def test_mixtral_8x7b_catalog_total(mixtral: dict[str, int]) -> None:
    """The catalog's stated count (its `parameters`, derived in its `where` from the configuration) is the class's."""
    assert mixtral["total"] == catalog().quantity(ENTRY, "parameters").count


def random_shapes(seed: int, count: int) -> list[TransformerShape]:
    """Small Mixtral-style shapes: GQA, E experts of width f, top-k, tied or not."""
    chosen = random.Random(seed)
    shapes = []
    for _ in range(count):
        kv_heads = chosen.choice([1, 2, 4])
        heads = kv_heads * chosen.choice([1, 2, 3])
        experts = chosen.choice([2, 3, 4, 8])
        shapes.append(
            TransformerShape(
                layers=chosen.randint(1, 4),
                hidden=heads * chosen.choice([4, 8, 16]),
                heads=heads,
                kv_heads=kv_heads,
                ffn=chosen.randint(3, 97),
                vocabulary=chosen.randint(5, 500),
                gated=True,
                tied=chosen.choice([False, True]),
                norm="rmsnorm",
                experts=experts,
                experts_per_token=chosen.randint(1, experts),
                expert_ffn=chosen.randint(3, 97),
            )
        )
    return shapes


@pytest.mark.parametrize("shape", random_shapes(29, 6), ids=lambda s: f"L{s.layers}-h{s.hidden}-E{s.experts}")
def test_random_mixtral_shapes(shape: TransformerShape) -> None:
    """On small random shapes the course's count is the class's, part by part."""
    assert measure(mixtral_config(shape)) == course_parts(shape)


@pytest.mark.parametrize("shape", random_shapes(7, 3), ids=lambda s: f"L{s.layers}-h{s.hidden}-E{s.experts}")
def test_planner_reads_a_mixtral_config_json(shape: TransformerShape) -> None:
    """The config.json transformers writes for a Mixtral, read by the planner, counts what the class builds."""
    config = mixtral_config(shape)
    text = config.to_json_string(use_diff=False)
    assert json.loads(text)["model_type"] == "mixtral"
    read, kind = parse_config(text, "config.json")
    assert kind == "mixtral"
    assert course_parts(read) == measure(config)


def test_planner_reads_mixtral_8x7b_config_json(mixtral: dict[str, int]) -> None:
    """Mixtral 8x7B's config.json as transformers writes it, read by the planner, counts what the class built."""
    text = mixtral_config(catalog_shape()).to_json_string(use_diff=False)
    read, _ = parse_config(text, "config.json")
    assert course_parts(read) == mixtral
