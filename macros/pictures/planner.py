"""The layout planner's page face: the model's constants and the catalog as JSON for the page, and the same plan here.

A reader picks a model from the catalog or types a shape, a GPU, the GPUs per node and the nodes, the
sequence length, the global batch in tokens, the share of peak the GEMMs reach, a recipe and, optionally,
a tensor or pipeline degree, the training tokens and a price per GPU-hour; planner.js lays the model out
every way `macros.model.planner` does and shows the best layouts, with memory by role on the most loaded GPU,
step time, tokens per second, MFU and the reason for each rank, and the first rule each kind of broken layout
breaks. The page's script reads everything it computes with from `planner_config`, which this module writes
from `macros.model` and the catalog, so nothing is typed twice; `evaluate` is the same plan in Python, with
the same rules for the reader's input (`read`), and the browser tests hold the two to each other, layout by
layout (`layout_result`) and plan by plan. Nothing here imports MkDocs.

A typed shape is a Llama-style decoder (`CUSTOM_SHAPE`: RMSNorm, rotary positions), with a gated or plain
MLP, tied or untied embeddings, biases on its queries, keys and values or none (`BIAS_CHOICES`: Qwen2's or
Llama's) and a head dimension of its own or the hidden size over the heads; a bandwidth typed for NVLink (GB/s)
or the network port (Gbit/s), decimal and each way, replaces the GPU's; a model of the catalog keeps its own shape
(`data.catalog.transformer_shape`). No price is assumed: the catalog has no sourced one, so the cost is
shown only when the reader gives a price.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from .. import model
from ..data.catalog import Catalog, Gpu, Model, transformer_shape
from ..model import activations, compute, context, experts, parallel_activations, planner, shape, tensor
from .calculator import SPACE, recipe_label
from .svg import SEARCH_EXCLUDE, element

#: The fields a reader fills in, by group in the form's order: (name, label, what it holds, hint).
GROUPS: tuple[tuple[str, tuple[tuple[str, str, str, str], ...]], ...] = (
    (
        "The model",
        (
            ("model", "Model", "select", ""),
            ("layers", "Layers", "number", ""),
            ("hidden", "Hidden size", "number", ""),
            ("heads", "Attention heads", "number", ""),
            ("kv_heads", "Key-value heads", "number", "as many as the heads without grouped-query attention"),
            ("ffn", "MLP width", "number", "the MLP's inner width"),
            ("vocabulary", "Vocabulary", "number", ""),
            ("head_dim", "Head dimension (optional)", "number", "empty: the hidden size over the heads"),
            ("mlp", "MLP", "select", ""),
            ("embeddings", "Embeddings", "select", ""),
            ("biases", "Biases", "select", ""),
        ),
    ),
    (
        "The cluster",
        (
            ("gpu", "GPU", "select", ""),
            ("per_node", "GPUs per node", "number", ""),
            ("nodes", "Nodes", "number", ""),
            (
                "nvlink_gbyte_s",
                "NVLink per GPU, GB/s (optional)",
                "number",
                "each way, in decimal gigabytes a second: empty is the GPU's own NVLink; type what you measured",
            ),
            (
                "network_gbit_s",
                "Network port per GPU, Gbit/s (optional)",
                "number",
                "each way, in decimal gigabits a second: empty is the GPU's own port; type what you measured",
            ),
        ),
    ),
    (
        "The run",
        (
            ("sequence", "Sequence length, in tokens", "number", ""),
            ("global_batch", "Global batch, in tokens", "number", "whole sequences: a multiple of the sequence"),
            ("share", "Share of peak, in percent", "number", "what the GEMMs reach of the dense bf16 peak: assumed"),
            ("recipe", "Training recipe", "select", ""),
            ("tp", "Tensor-parallel degree (optional)", "number", "empty: every degree is tried"),
            ("pp", "Pipeline-parallel degree (optional)", "number", "empty: every degree is tried"),
            ("cp", "Context-parallel degree (optional)", "number", "empty: every degree is tried"),
            (
                "ep",
                "Expert-parallel degree (optional)",
                "number",
                "empty: every degree is tried for a mixture of experts, 1 for a dense model",
            ),
            (
                "training_tokens",
                "Training tokens (optional)",
                "number",
                "such as 1e12, for the steps, days and GPU-hours",
            ),
            ("price", "Price per GPU-hour, in dollars (optional)", "number", "for the cost: none is assumed"),
        ),
    ),
)
FIELDS = tuple(field for _, fields in GROUPS for field in fields)
FIELD_NAMES = tuple(name for name, *_ in FIELDS)
#: The fields of a typed shape, which a model of the catalog fills in for the reader to see.
SHAPE_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocabulary")
#: The value of the model field that means "the shape I typed".
CUSTOM = "custom"
#: A typed shape's choices beside its counts: a Llama-style decoder, its MLP gated or not, its embeddings tied or not.
CUSTOM_SHAPE: Mapping[str, Any] = {"norm": "rmsnorm", "positions": 0, "head_dim": 0}
#: `TransformerShape`'s defaults, beneath a typed shape's choices.
SHAPE_DEFAULTS: Mapping[str, Any] = {
    field.name: field.default
    for field in dataclasses.fields(shape.TransformerShape)
    if field.default is not dataclasses.MISSING
}
#: A typed shape's biases: none, as Llama's, or on the query, key and value projections, as Qwen2's.
BIAS_CHOICES: Mapping[str, str] = {"none": "none (as Llama)", "qkv": "on queries, keys and values (as Qwen2)"}
MLP_CHOICES: Mapping[str, str] = {"gated": "gated (SwiGLU, as Llama)", "plain": "plain (two matrices, as GPT-2)"}
EMBEDDING_CHOICES: Mapping[str, str] = {"untied": "untied (as Llama 3)", "tied": "tied (as GPT-2)"}
#: The rows of the table of layouts, best first.
TOP = 10
#: The most layouts the page weighs for one plan (the planner's); beyond, the reader is asked to fix a degree.
MAX_LAYOUTS = planner.MAX_LAYOUTS
#: What a reader may type: a whole number, its thousands grouped by commas or not; a share in percent and a
#: price with at most two decimals; training tokens whole or as 1e12, 1.5e13. ASCII digits, as JavaScript reads.
WHOLE = r"^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,16})$"
DECIMAL = r"^[0-9]{1,5}(?:\.[0-9]{1,2})?$"
TOKENS = r"^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,16}|[0-9]{1,3}(?:\.[0-9]{1,3})?e[0-9]{1,2})$"
#: Beyond these the input is absurd rather than large, and is told, not computed. The training tokens stay below
#: 2⁵³, where the page's numbers are exact integers.
LIMITS: Mapping[str, int] = {
    "layers": 10_000,
    "hidden": 1_000_000,
    "heads": 100_000,
    "kv_heads": 100_000,
    "ffn": 10_000_000,
    "vocabulary": 10_000_000,
    "per_node": 1_024,
    "nodes": 100_000,
    "gpus": 1_000_000,
    "sequence": 10_000_000,
    "global_batch": 10**12,
    "tp": 1_000_000,
    "pp": 1_000_000,
    "cp": 1_000_000,
    "ep": 1_000_000,
    "head_dim": 100_000,
    "training_tokens": 10**15,
    "price": 10_000,
    "nvlink_gbyte_s": 10_000,
    "network_gbit_s": 10_000,
    "share": 100,
}
#: The least share of peak a plan takes, in percent: below it a reader has typed a fraction (0.4 for 40%), as
#: the command line's --share takes one, where this form reads percent.
LEAST_SHARE = 1
#: The degrees a reader may fix: empty means "search it".
DEGREES = ("tp", "pp", "cp", "ep")
#: The optional fields: empty means "search it" (`DEGREES`) or "leave it out" (GPU-hours, cost).
OPTIONAL = (*DEGREES, "training_tokens", "price", "head_dim", "nvlink_gbyte_s", "network_gbit_s")
#: Decimal gigabits and gigabytes a second in bytes a second: a typed bandwidth times these, in the page's floats.
GIGABIT = 1e9 / 8
GIGABYTE = 1e9
#: The bandwidths a reader may type in place of the GPU's links.
LINK_FIELDS = ("nvlink_gbyte_s", "network_gbit_s")


def planner_defaults() -> dict[str, str]:
    """The fields a lesson need not give: the model's share of peak and recipe (`planner.Run`), the MLP and
    embeddings of a typed shape as Llama's; the optional fields empty."""
    return {
        "share": f"{planner.Run.share * 100}",
        "recipe": planner.Run.recipe,
        "mlp": "gated",
        "embeddings": "untied",
        "biases": "none",
        **{name: "" for name in OPTIONAL},
    }


def _messages() -> dict[str, str]:
    """What the reader is told about each kind of bad input, shared with the page word for word.

    `{name}` fields are filled with the reader's numbers, in Python and on the page alike.
    """
    return {
        "pick": "Pick one from the list.",
        "empty": "This is empty: type a whole number.",
        "whole": "Type a whole number, such as 8, its thousands grouped by commas or not.",
        "below_one": "It must be at least 1.",
        **{
            f"too_many_{name}": f"That is more than {limit:,}: too many to be a real run."
            for name, limit in LIMITS.items()
        },
        "too_many_gpus": f"GPUs per node × nodes is more than {LIMITS['gpus']:,} GPUs: too many to be a real run.",
        "share": f"Type a share in percent, from {LEAST_SHARE} to 100, such as 50 for 50% (not 0.5).",
        "price": f"Type dollars per GPU-hour, above 0 and at most {LIMITS['price']:,}, such as 2.5.",
        "nvlink_gbyte_s": f"Type gigabytes a second, above 0 and at most {LIMITS['nvlink_gbyte_s']:,}, such as 450.",
        "network_gbit_s": f"Type gigabits a second, above 0 and at most {LIMITS['network_gbit_s']:,}, such as 400.",
        "tokens": "Type a whole number of tokens, such as 1000000000000 or 1e12.",
        "batch_sequences": "A global batch of {global_batch} tokens is not whole sequences of {sequence} tokens:"
        " give a multiple of {sequence}.",
        "kv_groups": "The {heads} attention heads do not make whole groups of {kv_heads} key-value heads: give"
        " key-value heads that divide the heads.",
        "head_width": "A hidden size of {hidden} does not split into {heads} heads: give heads that divide it.",
        "degree": "{value} does not divide the {gpus} GPUs: give one of {divisors}.",
        "degree_node": "{value} does not divide a node of {per_node} GPUs: a tensor-parallel group stays on one;"
        " give one of {divisors}.",
        "degrees": "{names} = {product} does not divide the {gpus} GPUs.",
        "too_many_layouts": f"That is more than {MAX_LAYOUTS:,} layouts to weigh: fix the tensor-parallel or"
        " pipeline degree, or give fewer GPUs or a global batch of fewer sequences.",
        "no_layout": "No layout keeps the rules: {message}.",
    }


MESSAGES: Mapping[str, str] = _messages()


def _models(catalog: Catalog, default: str | None) -> list[tuple[Model, shape.TransformerShape]]:
    """The models the list offers: each whole shape the catalog has once (its first entry), and the lesson's own."""
    offered: dict[shape.TransformerShape, Model] = {}
    for record in catalog.records.values():
        if isinstance(record, Model):
            try:
                offered.setdefault(transformer_shape(record), record)
            except ValueError:  # no whole shape: the planner cannot lay it out
                continue
    chosen = catalog.records.get(default or "")
    models = [(record, found) for found, record in offered.items()]
    if isinstance(chosen, Model) and chosen not in offered.values():
        models.insert(0, (chosen, transformer_shape(chosen)))
    return models


def _json_number(value: int | float | Fraction) -> int | float:
    """A catalog amount as JSON has it: an integer when it is one (a peak, a bandwidth), else the nearest float."""
    return int(value) if Fraction(value).denominator == 1 else float(value)


def _gpus(catalog: Catalog) -> list[dict[str, Any]]:
    """The GPUs the planner can use: those whose entry has memory, a dense bf16 peak, NVLink and a network port."""
    return [
        {
            "id": g.id,
            "name": g.name,
            "memory": g.memory,
            "peak_flops": _json_number(g.peak_bf16_flops),
            "nvlink": _json_number(g.nvlink.bandwidth_per_direction),
            "network": _json_number(g.network.bandwidth_per_direction),
            "nvlink_id": g.nvlink.id,
            "network_id": g.network.id,
        }
        for g in catalog.records.values()
        if isinstance(g, Gpu) and g.memory and g.peak_bf16_flops and g.nvlink and g.network
    ]


def planner_config(catalog: Catalog, default_model: str | None = None) -> dict[str, Any]:
    """Everything planner.js computes with, from the model and the catalog: JSON-ready.

    The catalog's models with their whole shapes and GPUs with their peaks, memory and links; each recipe's bytes
    per parameter by role (`model.role_bytes_per_parameter`) and the roles each ZeRO stage shards; the constants
    of `macros.model.planner` and of the modules it calls (activations, FLOPs, tensor parallelism); the rules'
    and reasons' words; and the form's patterns, limits and messages.
    """
    return {
        "models": [
            {"id": m.id, "name": m.short or m.name, "shape": dataclasses.asdict(found)}
            for m, found in _models(catalog, default_model)
        ],
        "gpus": _gpus(catalog),
        "recipes": [
            {"id": recipe_id, "name": recipe.name, "short": recipe_label(recipe_id), **_recipe_bytes(recipe_id)}
            for recipe_id, recipe in model.RECIPES.items()
        ],
        # The roles each stage shards, named as the planner's memory names them (`planner.MEMORY_ROLES`).
        "stages": {
            str(number): sorted("optimizer" if role == "optimizer_states" else role for role in stage.sharded)
            for number, stage in model.STAGES.items()
        },
        "shape_defaults": dict(SHAPE_DEFAULTS),
        "custom_shape": dict(CUSTOM_SHAPE),
        "mlp": dict(MLP_CHOICES),
        "embeddings": dict(EMBEDDING_CHOICES),
        "biases": dict(BIAS_CHOICES),
        "constants": {
            "norm_vectors": dict(shape.NORM_VECTORS),
            "mlp_matrices": dict(shape.MLP_MATRICES),
            "token_id_bytes": planner.TOKEN_ID_BYTES,
            "embedding_mask_bytes": planner.EMBEDDING_MASK_BYTES,
            "logit_bytes": planner.LOGIT_BYTES,
            "activation_bytes": planner.ACTIVATION_BYTES,
            "replicated_per_hidden": parallel_activations.REPLICATED_PER_HIDDEN,
            "split_bytes_per_width": dict(parallel_activations.SPLIT_BYTES_PER_WIDTH),
            "checkpoint_bytes_per_token_hidden": activations.CHECKPOINT_BYTES_PER_TOKEN_HIDDEN,
            "attention_score_bytes": activations.ATTENTION_SCORE_BYTES,
            "flops_per_parameter": dict(compute.FLOPS_PER_PARAMETER),
            "forward_flops_per_parameter": compute.FORWARD_FLOPS_PER_PARAMETER,
            "backward_flops_per_parameter": compute.BACKWARD_FLOPS_PER_PARAMETER,
            "attention_forward_flops": compute.ATTENTION_FORWARD_FLOPS,
            "allreduces_per_layer": dict(tensor.ALLREDUCES_PER_LAYER),
            "column_parallel_widths": dict(tensor.COLUMN_PARALLEL_WIDTHS),
            # Context parallelism's ring (`context.exposed_ring_seconds`) and expert parallelism's all-to-alls.
            "block_flops_per_token_pair_hidden": context.BLOCK_FLOPS_PER_TOKEN_PAIR_HIDDEN,
            "causal_factor": context.CAUSAL_FACTOR,
            "alltoalls_per_layer": dict(experts.ALLTOALLS_PER_LAYER),
            "zero_stages": sorted(model.STAGES),
            "recomputations": [r for r in planner.RECOMPUTATIONS if r != "selective"],
            "reserve": float(planner.Run.reserve),
            "attention": planner.Run.attention,
        },
        "rules": dict(planner.RULE_MESSAGES),
        "plurals": dict(planner.PLURALS),
        "batch_hint_words": dict(planner.BATCH_HINT_WORDS),
        "link_fields": list(LINK_FIELDS),
        "gigabit": GIGABIT,
        "gigabyte": GIGABYTE,
        "tp_node_where": dict(planner.TP_NODE_WHERE),
        "hybrid_why": dict(planner.HYBRID_WHY),
        "time_parts": list(planner.TIME_PARTS),
        "time_part_words": dict(planner.TIME_PART_WORDS),
        "roles": list(planner.MEMORY_ROLES),
        "top": TOP,
        "tie_digits": planner.TIE_DIGITS,
        "degrees": list(DEGREES),
        "max_layouts": MAX_LAYOUTS,
        "limits": dict(LIMITS),
        "least_share": LEAST_SHARE,
        "optional": list(OPTIONAL),
        "patterns": {"whole": WHOLE, "decimal": DECIMAL, "tokens": TOKENS, "space": SPACE},
        "fields": list(FIELD_NAMES),
        "shape_fields": list(SHAPE_FIELDS),
        "custom": CUSTOM,
        "messages": dict(MESSAGES),
    }


def _recipe_bytes(recipe_id: str) -> dict[str, int]:
    by_role = model.role_bytes_per_parameter(recipe_id)
    return {
        "parameters": by_role["parameters"],
        "gradients": by_role["gradients"],
        "optimizer": by_role["optimizer_states"],
    }


# ----------------------------------------------------------------- the reader's input


def _trimmed(text: str) -> str:
    return re.sub(f"^{SPACE}+|{SPACE}+$", "", text)


def _whole(text: str, name: str, problems: dict[str, str]) -> int | None:
    """A whole number from 1 to the field's limit, or None with the problem noted."""
    if not re.fullmatch(WHOLE, text):
        problems[name] = MESSAGES["whole" if text else "empty"]
        return None
    value = int(text.replace(",", ""))
    if value < 1:
        problems[name] = MESSAGES["below_one"]
    elif value > LIMITS[name]:
        problems[name] = MESSAGES[f"too_many_{name}"]
    return None if name in problems else value


def _decimal(text: str, name: str, problems: dict[str, str]) -> Fraction | None:
    """A share in percent or a price: above 0, at most the field's limit, at most two decimals."""
    value = Fraction(text) if re.fullmatch(DECIMAL, text) else None
    least_ok = value is not None and (value >= LEAST_SHARE if name == "share" else value > 0)
    if value is None or not least_ok or value > LIMITS[name]:
        problems[name] = MESSAGES[name]
        return None
    return value


def _tokens(text: str, problems: dict[str, str]) -> int | None:
    value = Fraction(text.replace(",", "")) if re.fullmatch(TOKENS, text) else None
    if value is None or value.denominator != 1:
        problems["training_tokens"] = MESSAGES["tokens"]
    elif value < 1:
        problems["training_tokens"] = MESSAGES["below_one"]
    elif value > LIMITS["training_tokens"]:
        problems["training_tokens"] = MESSAGES["too_many_training_tokens"]
    return None if "training_tokens" in problems else int(value)  # type: ignore[arg-type]


def _divisor_list(n: int) -> str:
    return ", ".join(str(k) for k in planner.divisors(n))


def read(config: Mapping[str, Any], inputs: Mapping[str, str]) -> tuple[dict[str, str], dict[str, Any] | None]:
    """The reader's input (each field's text as typed) read as a request, or the problems by field.

    A request is plain JSON: `shape` (`TransformerShape`'s fields), `hardware` (`Hardware`'s), `run` (`Run`'s,
    the share and the price as numbers) and `fixed` (the degrees given). planner.js reads the same way.
    """
    problems: dict[str, str] = {}
    text = {name: _trimmed(str(inputs.get(name, ""))) for name in FIELD_NAMES}
    models = {m["id"]: m for m in config["models"]}
    chosen = models.get(text["model"])
    if chosen is None and text["model"] != CUSTOM:
        problems["model"] = MESSAGES["pick"]
    typed: dict[str, Any] = {}
    if chosen is None and text["model"] == CUSTOM:
        typed = {name: _whole(text[name], name, problems) for name in SHAPE_FIELDS}
        for name, known in (("mlp", MLP_CHOICES), ("embeddings", EMBEDDING_CHOICES), ("biases", BIAS_CHOICES)):
            if text[name] not in known:
                problems[name] = MESSAGES["pick"]
        # A head dimension given is the model's own (Mistral-Nemo's 128 for 5,120 over 32 heads); empty, h ÷ heads.
        typed["head_dim"] = _whole(text["head_dim"], "head_dim", problems) if text["head_dim"] else 0
        heads, kv_heads, hidden = typed["heads"], typed["kv_heads"], typed["hidden"]
        if heads and kv_heads and heads % kv_heads:
            problems["kv_heads"] = MESSAGES["kv_groups"].format(heads=heads, kv_heads=kv_heads)
        if heads and hidden and hidden % heads and not text["head_dim"]:
            problems["heads"] = MESSAGES["head_width"].format(hidden=hidden, heads=heads)
    gpus = {g["id"]: g for g in config["gpus"]}
    if text["gpu"] not in gpus:
        problems["gpu"] = MESSAGES["pick"]
    if text["recipe"] not in {r["id"] for r in config["recipes"]}:
        problems["recipe"] = MESSAGES["pick"]
    counts = {name: _whole(text[name], name, problems) for name in ("per_node", "nodes", "sequence", "global_batch")}
    share = _decimal(text["share"], "share", problems)
    fixed = {name: _whole(text[name], name, problems) for name in DEGREES if text[name]}
    training_tokens = _tokens(text["training_tokens"], problems) if text["training_tokens"] else None
    price = _decimal(text["price"], "price", problems) if text["price"] else None
    links = {name: _decimal(text[name], name, problems) if text[name] else None for name in LINK_FIELDS}
    per_node, nodes = counts["per_node"], counts["nodes"]
    n = per_node * nodes if per_node and nodes else None
    if n is not None and n > LIMITS["gpus"]:
        problems["nodes"] = MESSAGES["too_many_gpus"]
    elif n is not None:
        for name in DEGREES:
            value = fixed.get(name)
            # A tensor-parallel group stays on a node (rule "tp-node"): only degrees that keep it are offered.
            within = math.gcd(n, per_node) if name == "tp" and per_node else n
            if value is not None and n % value:
                problems[name] = MESSAGES["degree"].format(value=value, gpus=n, divisors=_divisor_list(within))
            elif value is not None and within % value:
                problems[name] = MESSAGES["degree_node"].format(
                    value=value, per_node=per_node, divisors=_divisor_list(within)
                )
        # tp × cp × pp are a layout's model-parallel degrees (ep regroups tp·cp·dp): their product divides the GPUs.
        given = [name for name in ("tp", "cp", "pp") if fixed.get(name) and name not in problems]
        product = math.prod(fixed[name] or 1 for name in given)
        if len(given) > 1 and n % product:
            problems[given[-1]] = MESSAGES["degrees"].format(names=" × ".join(given), product=product, gpus=n)
    sequence, global_batch = counts["sequence"], counts["global_batch"]
    if sequence and global_batch and global_batch % sequence:
        problems["global_batch"] = MESSAGES["batch_sequences"].format(global_batch=global_batch, sequence=sequence)
    if problems:
        return problems, None
    if chosen is not None:
        found = dict(chosen["shape"])
    else:
        found = {
            **{
                f.name: f.default
                for f in dataclasses.fields(shape.TransformerShape)
                if f.default is not dataclasses.MISSING
            },
            **CUSTOM_SHAPE,
            **typed,
            "gated": text["mlp"] == "gated",
            "tied": text["embeddings"] == "tied",
            "attention_bias": text["biases"] == "qkv",
        }
    gpu = gpus[text["gpu"]]
    nvlink, network = links["nvlink_gbyte_s"], links["network_gbit_s"]
    return {}, {
        "shape": found,
        "hardware": {
            "peak_flops": gpu["peak_flops"],
            "memory": gpu["memory"],
            # Multiplied in floats, as the page multiplies them, so that both get the same bytes a second.
            "nvlink_bandwidth": gpu["nvlink"] if nvlink is None else float(nvlink) * GIGABYTE,
            "network_bandwidth": gpu["network"] if network is None else float(network) * GIGABIT,
            "per_node": per_node,
            "nodes": nodes,
        },
        "run": {
            "sequence": sequence,
            "global_batch": global_batch,
            "share": float(share / 100),  # type: ignore[operator]
            "recipe": text["recipe"],
            "training_tokens": training_tokens,
            "price": None if price is None else float(price),
        },
        "fixed": {name: value for name, value in fixed.items() if value is not None},
    }


# ------------------------------------------------------------------- the plan


def _exact(value: float | int) -> Fraction:
    """A number of the request as the reader wrote it: the shortest decimal that is this float (0.45, not the
    binary fraction nearest it), which keeps the model's fractions small and its plan quick."""
    return Fraction(repr(value))


def model_inputs(request: Mapping[str, Any]) -> tuple[shape.TransformerShape, planner.Hardware, planner.Run]:
    """A request's shape, cluster and run as the model's types, each number as the reader wrote it (`_exact`)."""
    hardware, run = request["hardware"], request["run"]
    return (
        shape.TransformerShape(**request["shape"]),
        planner.Hardware(
            peak_flops=_exact(hardware["peak_flops"]),
            memory=hardware["memory"],
            nvlink_bandwidth=_exact(hardware["nvlink_bandwidth"]),
            network_bandwidth=_exact(hardware["network_bandwidth"]),
            per_node=hardware["per_node"],
            nodes=hardware["nodes"],
        ),
        planner.Run(
            sequence=run["sequence"],
            global_batch=run["global_batch"],
            share=_exact(run["share"]),
            recipe=run["recipe"],
            training_tokens=run["training_tokens"],
            price=None if run["price"] is None else _exact(run["price"]),
        ),
    )


def _number(value: Fraction | int | None) -> float | None:
    return None if value is None else float(value)


def plan_result(result: planner.Plan) -> dict[str, Any]:
    """One evaluated layout as the page shows it: degrees, bytes by role, time by part, rates and the reason."""
    lay, reason = result.layout, result.reason
    return {
        "layout": dataclasses.asdict(lay),
        "memory": {role: float(value) for role, value in result.memory.by_role().items()},
        "stage": result.stage,
        "capacity": result.capacity,
        "fits": result.fits,
        "time": {part: float(value) for part, value in result.time.by_part().items()},
        "step_seconds": float(result.step_seconds),
        "tokens_per_second": float(result.tokens_per_second),
        "share_of_peak": float(result.share_of_peak),
        "gpu_hours": _number(result.gpu_hours),
        "cost": _number(result.cost),
        "days": _number(result.days),
        "reason": {
            "kind": reason.kind,
            "slower_by": float(reason.slower_by),
            "part": reason.part,
            "extra": float(reason.extra),
        },
    }


def layout_result(request: Mapping[str, Any], layout: Mapping[str, Any]) -> dict[str, Any]:
    """One layout of a request, evaluated by the model: the rule it breaks, or its plan (`plan_result`)."""
    found, hardware, run = model_inputs(request)
    result = planner.evaluate(found, hardware, run, planner.Layout(**layout))
    if isinstance(result, planner.Rule):
        return {"rule": result.id, "message": result.message}
    return plan_result(result)


def evaluate(config: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, Any]:
    """What the planner shows for `inputs`: problems by field, or the model's parameters and its plan.

    The result has `problems`; when there are none, `parameters` (total and active), `gpus`, `plans` (the best
    `TOP`, `plan_result`), `valid`, `fitting` and `broken` (layouts counted), and `invalid` (each rule broken, in
    its words, with the first layout that breaks it and how many do). A plan with no valid layout has the problem
    `layouts`, the first rule's words. planner.js computes the same from `config`.
    """
    problems, request = read(config, inputs)
    if request is None:
        return {"problems": problems}
    found, hardware, run = model_inputs(request)
    if planner.too_many_layouts(found, hardware, run, request["fixed"]):
        return {"problems": {"layouts": MESSAGES["too_many_layouts"]}}
    planned = planner.plan(found, hardware, run, request["fixed"])
    if not planned.plans:
        message = planned.invalid[0].rule.message if planned.invalid else ""
        return {"problems": {"layouts": MESSAGES["no_layout"].format(message=message)}}
    flops = planner.model_flops(found, planned.parameters, run.sequence)
    return {
        "problems": {},
        "parameters": {"total": planned.parameters.total, "active": planned.parameters.active},
        "gpus": hardware.gpus,
        "flops": {"matmul": flops.matmul, "attention": flops.attention, "total": flops.total},
        "steps": planner.training_steps(run),
        "batch_hint": planner.batch_hint_words(planned.batch, run.sequence) if planned.batch else None,
        "plans": [plan_result(p) for p in planned.plans[:TOP]],
        "valid": len(planned.plans),
        "fitting": sum(p.fits for p in planned.plans),
        "broken": sum(item.count for item in planned.invalid),
        "invalid": [
            {
                "rule": item.rule.id,
                "message": item.rule.message,
                "layouts": item.count,
                "layout": dataclasses.asdict(item.layout),
            }
            for item in planned.invalid
        ],
    }


# ------------------------------------------------------------------- the form


def planner_html(config: Mapping[str, Any], ident: str, defaults: Mapping[str, str], script: str | None) -> str:
    """The planner's form: labelled fields in three groups, a result region, and the JSON it computes with.

    The lists (models, GPUs, recipes, the MLP and embeddings) are filled in by planner.js from the JSON;
    `defaults` are the fields' first values, which the reader's remembered inputs replace; `script` is the
    address of planner.js, on a page's first planner only.
    """
    form = element(
        "form",
        {
            "class": "sbn-planner",
            "id": ident,
            "data-sbn-planner": ident,
            # In an attribute, as the calculator's: instant navigation would run a JSON script element as code.
            "data-sbn-config": json.dumps(config, separators=(",", ":")),
            "data-sbn-defaults": json.dumps(dict(defaults), separators=(",", ":")),
            "novalidate": "",
            **SEARCH_EXCLUDE,
        },
    )
    for legend, fields in GROUPS:
        group = element("fieldset", {"class": "sbn-planner__fields"}, form)
        element("legend", {}, group, legend)
        for name, label, what, hint in fields:
            field_id = f"{ident}-{name}"
            row = element("div", {"class": "sbn-planner__field"}, group)
            element("label", {"for": field_id}, row, label)
            described = f"{field_id}-hint {field_id}-problem" if hint else f"{field_id}-problem"
            attributes = {"id": field_id, "name": name, "aria-describedby": described}
            if what == "select":
                element("select", attributes, row).text = ""
            else:
                mode = "decimal" if name in ("share", "price") else "text" if name == "training_tokens" else "numeric"
                element("input", {**attributes, "type": "text", "inputmode": mode, "autocomplete": "off"}, row)
            if hint:
                element("span", {"class": "sbn-planner__hint", "id": f"{field_id}-hint"}, row).text = hint
            element("span", {"class": "sbn-planner__problem", "id": f"{field_id}-problem"}, row).text = ""
    actions = element("div", {"class": "sbn-planner__actions", "hidden": ""}, form)
    element("button", {"type": "submit", "class": "md-button md-button--primary"}, actions, "Plan")
    element("button", {"type": "button", "class": "md-button", "data-sbn-reset": ""}, actions, "Reset")
    element("div", {"class": "sbn-planner__result", "role": "status", "aria-live": "polite"}, form).text = ""
    element(
        "p",
        {"class": "sbn-planner__noscript"},
        form,
        "The planner runs in your browser, with JavaScript; python -m tools.plan prints the same table.",
    )
    html = ET.tostring(form, encoding="unicode", short_empty_elements=False).replace("></input>", ">")
    if script:
        html += ET.tostring(
            element("script", {"src": script, "defer": ""}), encoding="unicode", short_empty_elements=False
        )
    return html
