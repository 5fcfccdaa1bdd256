"""The memory calculator: the model's coefficients and the catalog as JSON for the page, and the same sum here.

A reader picks a model from the catalog or types a parameter count, a
recipe, a GPU, the number of data-parallel devices Nd and a ZeRO stage, and
optionally a batch and a sequence length for an activation estimate;
calculator.js shows the bytes per device by role and whether they fit. The
page's script reads everything it computes with from `calculator_config`,
which this module writes from `macros.model` and the catalog, so nothing is
typed twice; `evaluate` is the same computation in Python, with the same
rules for the reader's input, and the browser tests hold the two to each
other. Nothing here imports MkDocs.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from . import model
from .catalog import Catalog, Gpu, Model
from .plot import SEARCH_EXCLUDE, element

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
)
#: The value of the model field that means "the parameter count I typed".
CUSTOM = "custom"
#: What a reader may type: whole numbers, or a count of billions with at most 9 decimals (a whole parameter count).
#: The same patterns go to the page, which reads them as JavaScript regular expressions: ASCII digits only.
BILLIONS = r"^(?:[0-9]{1,7}(?:\.[0-9]{0,9})?|\.[0-9]{1,9})$"
WHOLE = r"^[0-9]{1,9}$"
#: Beyond these the input is absurd rather than large, and is told, not computed.
LIMITS: Mapping[str, int] = {
    "parameters": 10**15,
    "devices": 10**6,
    "batch": 10**6,
    "sequence": 10**7,
}


def _messages() -> dict[str, str]:
    """What the reader is told about each kind of bad input, shared with the page word for word."""
    return {
        "pick": "Pick one from the list.",
        "empty_billions": "This is empty: type a number of billions, such as 1.5.",
        "billions": "Type a number of billions, such as 1.5, with at most 9 decimals.",
        "no_parameters": "A model has at least one parameter.",
        "too_many_parameters": f"That is more than {LIMITS['parameters'] // 10**9:,} billion parameters: too many"
        " to be a real model.",
        "empty_whole": "This is empty: type a whole number.",
        "whole": "Type a whole number, such as 8.",
        "below_one": "It must be at least 1.",
        **{
            f"too_many_{field}": f"That is more than {limit:,}: too many to be a real run."
            for field, limit in LIMITS.items()
            if field != "parameters"
        },
        "no_shape": "An activation estimate needs the model's layers and hidden size: pick a model from the list that"
        " has them, or leave batch and sequence empty.",
        "both": "Give both batch and sequence length, or neither.",
    }


MESSAGES: Mapping[str, str] = _messages()


def calculator_config(catalog: Catalog) -> dict[str, Any]:
    """Everything calculator.js computes with, from the model and the catalog: JSON-ready.

    Bytes per parameter of each role per recipe (`model.role_bytes_per_parameter`),
    the roles each ZeRO stage shards (`model.STAGES`), ZeRO §3.2's activation
    coefficients, the catalog's models (with their shapes where known) and GPUs
    (memory in bytes, binary as the hardware has it), and the input limits.
    """
    models = [r for r in catalog.records.values() if isinstance(r, Model)]
    gpus = [r for r in catalog.records.values() if isinstance(r, Gpu)]
    return {
        "roles": list(model.ROLES),
        "recipes": [
            {"id": recipe_id, "name": recipe.name, "roles": dict(model.role_bytes_per_parameter(recipe_id))}
            for recipe_id, recipe in model.RECIPES.items()
        ],
        "stages": [
            {"id": number, "name": stage.name, "words": stage.words, "sharded": sorted(stage.sharded)}
            for number, stage in model.STAGES.items()
        ],
        "activations": {
            "values_per_layer_token_hidden": model.ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN,
            "bytes_per_value": model.BYTES_PER_VALUE[model.ACTIVATION_PRECISION],
        },
        "models": [
            {"id": m.id, "name": m.name, "parameters": m.parameters, "hidden": m.hidden, "layers": m.layers}
            for m in models
        ],
        "gpus": [{"id": g.id, "name": g.name, "memory": g.memory} for g in gpus],
        "limits": dict(LIMITS),
        "patterns": {"billions": BILLIONS, "whole": WHOLE},
        "custom": CUSTOM,
        "messages": dict(MESSAGES),
    }


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
    if not re.fullmatch(BILLIONS, text.replace(",", "")):
        problems["parameters"] = MESSAGES["billions"]
        return None
    count = int(Fraction(text.replace(",", "")) * 10**9)  # exact: at most 9 decimals
    if count < 1:
        problems["parameters"] = MESSAGES["no_parameters"]
    elif count > LIMITS["parameters"]:
        problems["parameters"] = MESSAGES["too_many_parameters"]
    return count if "parameters" not in problems else None


def evaluate(config: Mapping[str, Any], inputs: Mapping[str, str]) -> dict[str, Any]:
    """What the calculator shows for `inputs` (each field's text as typed): problems by field, or bytes by role.

    The result has `problems` (field: message), and when there are none,
    `bytes` (parameters, gradients, optimizer_states, and activations or None),
    `total`, `capacity` (the GPU's memory in bytes) and `fits`. Computed with
    `model.device_bytes_by_role` and `model.activation_bytes`; calculator.js
    computes the same from `config`.
    """
    problems: dict[str, str] = {}
    text = {name: str(inputs.get(name, "")).strip() for name, *_ in FIELDS}
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
            if chosen is None or chosen["hidden"] is None or chosen["layers"] is None:
                problems["batch"] = MESSAGES["no_shape"]
    if problems or parameters is None or devices is None:
        return {"problems": problems}
    by_role = model.device_bytes_by_role(parameters, devices, int(text["stage"]), text["recipe"])
    activations = None
    if batch is not None and sequence is not None and chosen is not None:
        activations = model.activation_bytes(chosen["hidden"], batch, sequence, chosen["layers"])
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
        described = f"{field_id}-hint {field_id}-problem" if hint else f"{field_id}-problem"
        attributes = {"id": field_id, "name": name, "aria-describedby": described}
        if what == "select":
            element("select", attributes, row).text = ""
        else:
            mode = "decimal" if name == "parameters" else "numeric"
            element("input", {**attributes, "type": "text", "inputmode": mode, "autocomplete": "off"}, row)
        if hint:
            element("span", {"class": "sbn-calculator__hint", "id": f"{field_id}-hint"}, row, hint)
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
