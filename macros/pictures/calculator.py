"""The memory calculator: the model's coefficients and the catalog as JSON for the page, and the same sum here.

A reader picks a model from the catalog or types a parameter count, a
recipe, a GPU, the number of data-parallel devices Nd and a ZeRO stage, and
optionally a batch and a sequence length, with what each layer keeps of its
activations, for an activation estimate; calculator.js shows the bytes per
device by role and whether they fit. The page's script reads everything it
computes with from `calculator_config`, which this module writes from
`macros.model` and the catalog, so nothing is typed twice; `evaluate` is the
same computation in Python, with the same rules for the reader's input, and the
browser tests hold the two to each other. Nothing here imports MkDocs.

Activations are Korthikanti et al.'s count (2022, §4.1, the count the lessons use
for a full layer, 34sbh + 5as²b bytes in 16-bit), at the bytes per value the
recipe's passes run in (`model.pass_activations`).
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from .. import model
from ..data.catalog import Catalog, Gpu, Model
from ..model import pass_activations
from .svg import SEARCH_EXCLUDE, element

#: The fields a reader fills in, in the form's order: (name, label, what it holds, hint).
FIELDS = (
    ("model", "Model", "select", ""),
    ("parameters", "Parameters, in billions", "number", "such as 1.5"),
    ("recipe", "Training recipe", "select", ""),
    ("gpu", "GPU", "select", ""),
    ("devices", "Data-parallel devices, Nd", "number", "a whole number, 1 for one device"),
    ("stage", "ZeRO stage", "select", ""),
    ("batch", "Batch per device, in sequences (optional)", "number", "for an activation estimate"),
    ("sequence", "Sequence length, in tokens (optional)", "number", "for an activation estimate"),
    (
        "recompute",
        "Activations each layer keeps",
        "select",
        "Korthikanti et al.'s count of a layer's bytes in 16-bit: everything, 34sbh + 5as²b; without the"
        " attention scores (recomputed, or never stored, as by FlashAttention), 34sbh; its input alone, 2sbh."
        " Values take twice the bytes where the recipe's passes run in fp32.",
    ),
)
#: The lists whose options are short names, each described in full under the list as it changes.
DESCRIBED = ("recipe", "stage")
#: The value of the model field that means "the parameter count I typed".
CUSTOM = "custom"
#: What each layer keeps, as the list names it.
RECOMPUTE_NAMES: Mapping[str, str] = {
    "none": "everything",
    "selective": "all but the attention scores",
    "full": "its input alone (full recomputation)",
}
#: What a reader may type: whole numbers, or a count of billions with at most 9 decimals (a whole parameter count),
#: its thousands grouped by commas or not. The same patterns go to the page, which reads them as JavaScript regular
#: expressions: ASCII digits only. A comma anywhere else is a decimal comma the reader is asked about.
BILLIONS = r"^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]{1,7})?(?:\.[0-9]{0,9})?$"
WHOLE = r"^[0-9]{1,9}$"
#: What is left off both ends of a field: white space, and the invisible characters pasted text brings (a
#: byte-order mark, zero-width spaces), as one class that Python and JavaScript read alike.
SPACE = "[\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200b\\u2028\\u2029\\u202f\\u205f\\u2060\\u3000\\ufeff]"
#: Beyond these the input is absurd rather than large, and is told, not computed.
LIMITS: Mapping[str, int] = {
    "parameters": 10**15,
    "devices": 10**6,
    "batch": 10**6,
    "sequence": 10**7,
    "tokens": 10**7,
}
#: The fewest parameters the calculator counts: a smaller model has no states worth sharding, and its bytes per
#: device would come out as fractions of a byte.
FEWEST_PARAMETERS = 10**6


def _messages() -> dict[str, str]:
    """What the reader is told about each kind of bad input, shared with the page word for word."""
    return {
        "pick": "Pick one from the list.",
        "empty_billions": "This is empty: type a number of billions, such as 1.5.",
        "billions": "Type a number of billions, such as 1.5, with at most 9 decimals.",
        "comma": "Is the comma a decimal point? Write it with a point, such as 1.5: a comma only groups"
        " thousands, by three.",
        "no_parameters": f"That is fewer than {FEWEST_PARAMETERS:,} parameters ({FEWEST_PARAMETERS / 10**9:g}"
        " billion): too few for a calculator of sharded training; type at least that.",
        "too_many_parameters": f"That is more than {LIMITS['parameters'] // 10**9:,} billion parameters: too many"
        " to be a real model.",
        "empty_whole": "This is empty: type a whole number.",
        "whole": "Type a whole number, such as 8.",
        "below_one": "It must be at least 1.",
        **{
            f"too_many_{field}": f"That is more than {limit:,}: too many to be a real run."
            for field, limit in LIMITS.items()
            if field not in ("parameters", "tokens")
        },
        "too_many_tokens": f"Batch × sequence is more than {LIMITS['tokens']:,} tokens on one device at once: no GPU"
        " holds the activations of so many.",
        "no_shape": "An activation estimate needs the model's layers, hidden size and attention heads: pick a model"
        " from the list that has them, or leave batch and sequence empty.",
        "both": "Give both batch and sequence length, or neither.",
    }


MESSAGES: Mapping[str, str] = _messages()


def recipe_label(recipe_id: str) -> str:
    """A recipe as short as a list on a phone shows whole, from its states: its optimizer, the precision its
    passes run in (its first state's), and its gradients' where they differ ("Adam in bf16, fp32 gradients").
    Its full name is described under the list."""
    states = list(model.recipe(recipe_id).states)
    passes = states[0].split("_")[0]
    gradients = [name.split("_")[0] for name in states if name.endswith("_gradients")]
    optimizer = "Adam" if "fp32_variance" in states else "SGD with momentum" if "fp32_momentum" in states else "SGD"
    extra = "" if gradients == [passes] else f", {' and '.join(gradients)} gradients"
    return f"{optimizer} in {passes}{extra}"


def _models(catalog: Catalog, default: str | None) -> list[Model]:
    """The models the list offers: each shape the catalog publishes once (layers, hidden size and heads beside
    the parameter count: the first entry of it), and the model a lesson's calculator starts from."""
    offered: dict[tuple[int, int, int, int], Model] = {}
    for record in catalog.records.values():
        if isinstance(record, Model) and record.layers and record.hidden and record.heads:
            offered.setdefault((record.parameters, record.layers, record.hidden, record.heads), record)
    models = list(offered.values())
    chosen = catalog.records.get(default or "")
    if isinstance(chosen, Model) and chosen not in models:
        models.insert(0, chosen)
    return models


def calculator_config(catalog: Catalog, default_model: str | None = None) -> dict[str, Any]:
    """Everything calculator.js computes with, from the model and the catalog: JSON-ready.

    Bytes per parameter of each role per recipe (`model.role_bytes_per_parameter`)
    and the bytes per value its passes run in, the roles each ZeRO stage shards
    (`model.STAGES`), Korthikanti et al.'s activation coefficients split into
    values and masks (`model.pass_activations`), the catalog's models (`_models`)
    and GPUs (the memory CUDA gives programs, in bytes: only those whose catalog
    entry has it), and the input limits.
    """
    gpus = [r for r in catalog.records.values() if isinstance(r, Gpu) and r.memory is not None]
    return {
        "roles": list(model.ROLES),
        "recipes": [
            {
                "id": recipe_id,
                "name": recipe.name,
                "short": recipe_label(recipe_id),
                "roles": dict(model.role_bytes_per_parameter(recipe_id)),
                "activation_bytes": pass_activations.passes_bytes_per_value(recipe_id),
            }
            for recipe_id, recipe in model.RECIPES.items()
        ],
        "stages": [
            {"id": number, "name": stage.name, "words": stage.words, "sharded": sorted(stage.sharded)}
            for number, stage in model.STAGES.items()
        ],
        "recompute": [
            {"id": choice, "name": name, **vars(pass_activations.coefficients(choice))}
            for choice, name in RECOMPUTE_NAMES.items()
        ],
        "paper_bytes_per_value": pass_activations.PAPER_BYTES_PER_VALUE,
        "models": [
            {
                "id": m.id,
                "name": m.short or m.name,
                "parameters": m.parameters,
                "hidden": m.hidden,
                "layers": m.layers,
                "heads": m.heads,
            }
            for m in _models(catalog, default_model)
        ],
        "gpus": [{"id": g.id, "name": g.name, "memory": g.memory} for g in gpus],
        "limits": dict(LIMITS),
        "fewest_parameters": FEWEST_PARAMETERS,
        "patterns": {"billions": BILLIONS, "whole": WHOLE, "space": SPACE},
        "custom": CUSTOM,
        "messages": dict(MESSAGES),
    }


def _trimmed(text: str) -> str:
    """A field's text without white space or invisible characters at either end, as the page trims it."""
    return re.sub(f"^{SPACE}+|{SPACE}+$", "", text)


def _count(text: str, field: str, problems: dict[str, str]) -> int | None:
    """A whole number from 1 to the field's limit, or None with the problem noted."""
    if not re.fullmatch(WHOLE, text):
        problems[field] = MESSAGES["whole" if text else "empty_whole"]
        return None
    value = int(text)
    if value < 1:
        problems[field] = MESSAGES["below_one"]
    elif value > LIMITS[field]:
        problems[field] = MESSAGES[f"too_many_{field}"]
    return value if field not in problems else None


def _parameters(text: str, problems: dict[str, str]) -> int | None:
    """A parameter count typed in billions, or None with the problem noted."""
    if not text:
        problems["parameters"] = MESSAGES["empty_billions"]
        return None
    if not re.fullmatch(BILLIONS, text) or text == ".":
        problems["parameters"] = MESSAGES["comma" if "," in text else "billions"]
        return None
    count = int(Fraction(text.replace(",", "") or "0") * 10**9)  # exact: at most 9 decimals
    if count < FEWEST_PARAMETERS:
        problems["parameters"] = MESSAGES["no_parameters"]
    elif count > LIMITS["parameters"]:
        problems["parameters"] = MESSAGES["too_many_parameters"]
    return count if "parameters" not in problems else None


def evaluate(config: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, Any]:
    """What the calculator shows for `inputs` (each field's text as typed): problems by field, or bytes by role.

    The result has `problems` (field: message), and when there are none,
    `bytes` (parameters, gradients, optimizer_states, and activations or None),
    `total`, `capacity` (the GPU's memory in bytes) and `fits`. Computed with
    `model.device_bytes_by_role` and `model.pass_activations.model_bytes`;
    calculator.js computes the same from `config`.
    """
    problems: dict[str, str] = {}
    text = {name: _trimmed(str(inputs.get(name, ""))) for name, *_ in FIELDS}
    models = {m["id"]: m for m in config["models"]}
    chosen = models.get(text["model"])
    if chosen is None and text["model"] != CUSTOM:
        problems["model"] = MESSAGES["pick"]
    parameters = int(chosen["parameters"]) if chosen is not None else _parameters(text["parameters"], problems)
    for field, known in (("recipe", config["recipes"]), ("gpu", config["gpus"]), ("stage", config["stages"])):
        if text[field] not in {str(item["id"]) for item in known}:
            problems[field] = MESSAGES["pick"]
    devices = _count(text["devices"], "devices", problems)
    batch = sequence = None
    if text["batch"] or text["sequence"]:
        if not (text["batch"] and text["sequence"]):
            problems["batch" if not text["batch"] else "sequence"] = MESSAGES["both"]
        else:
            batch = _count(text["batch"], "batch", problems)
            sequence = _count(text["sequence"], "sequence", problems)
            if batch is not None and sequence is not None and batch * sequence > LIMITS["tokens"]:
                problems["batch"] = MESSAGES["too_many_tokens"]
            if chosen is None or None in (chosen["hidden"], chosen["layers"], chosen["heads"]):
                problems["batch"] = MESSAGES["no_shape"]
            if text["recompute"] not in {item["id"] for item in config["recompute"]}:
                problems["recompute"] = MESSAGES["pick"]
    if problems or parameters is None or devices is None:
        return {"problems": problems}
    by_role = model.device_bytes_by_role(parameters, devices, int(text["stage"]), text["recipe"])
    activations = None
    if batch is not None and sequence is not None and chosen is not None:
        activations = pass_activations.model_bytes(
            sequence,
            batch,
            chosen["hidden"],
            chosen["heads"],
            chosen["layers"],
            text["recompute"],
            pass_activations.passes_bytes_per_value(text["recipe"]),
        )
    total = sum(by_role.values(), Fraction(activations or 0))
    capacity = next(g["memory"] for g in config["gpus"] if g["id"] == text["gpu"])
    return {
        "problems": {},
        "bytes": {**by_role, "activations": activations},
        "total": total,
        "capacity": capacity,
        "fits": total <= capacity,
    }


def calculator_html(config: Mapping[str, Any], ident: str, defaults: Mapping[str, str], script: str | None) -> str:
    """The calculator's form: labelled fields, a result region, and the JSON it computes with.

    The lists of models, recipes, GPUs and stages are filled in by calculator.js
    from the JSON (catalog names are data, not prose). `defaults` are the
    fields' first values, which the reader's remembered inputs replace;
    `script` is the address of calculator.js, on a page's first calculator only.
    """
    form = element(
        "form",
        {
            "class": "sbn-calculator",
            "id": ident,
            "data-sbn-calculator": ident,
            # In an attribute, not a <script type="application/json">: Material's instant navigation
            # re-creates a page's scripts without their type, which would run the JSON as code.
            "data-sbn-config": json.dumps(config, separators=(",", ":")),
            "data-sbn-defaults": json.dumps(dict(defaults), separators=(",", ":")),
            "novalidate": "",
            # Its labels and hints are controls, not text to find; the lesson's prose says what it computes.
            **SEARCH_EXCLUDE,
        },
    )
    fields = element("fieldset", {"class": "sbn-calculator__fields"}, form)
    element("legend", {}, fields, "Your model and setup")
    for name, label, what, hint in FIELDS:
        field_id = f"{ident}-{name}"
        row = element("div", {"class": "sbn-calculator__field"}, fields)
        element("label", {"for": field_id}, row, label)
        described = f"{field_id}-hint {field_id}-problem" if hint or name in DESCRIBED else f"{field_id}-problem"
        attributes = {"id": field_id, "name": name, "aria-describedby": described}
        if what == "select":
            element("select", attributes, row).text = ""
        else:
            mode = "decimal" if name == "parameters" else "numeric"
            element("input", {**attributes, "type": "text", "inputmode": mode, "autocomplete": "off"}, row)
        if hint or name in DESCRIBED:
            element("span", {"class": "sbn-calculator__hint", "id": f"{field_id}-hint"}, row).text = hint
        element("span", {"class": "sbn-calculator__problem", "id": f"{field_id}-problem"}, row).text = ""
    actions = element("div", {"class": "sbn-calculator__actions", "hidden": ""}, form)
    element("button", {"type": "submit", "class": "md-button md-button--primary"}, actions, "Compute")
    element("div", {"class": "sbn-calculator__result", "role": "status", "aria-live": "polite"}, form).text = ""
    element(
        "p",
        {"class": "sbn-calculator__noscript"},
        form,
        "The calculator runs in your browser, with JavaScript; the lesson's own figures show the same arithmetic.",
    )
    # Every element but the inputs has an end tag: HTML reads <select/> as a start tag.
    html = ET.tostring(form, encoding="unicode", short_empty_elements=False).replace("></input>", ">")
    if script:
        html += ET.tostring(
            element("script", {"src": script, "defer": ""}), encoding="unicode", short_empty_elements=False
        )
    return html
