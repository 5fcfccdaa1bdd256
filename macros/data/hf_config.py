"""A Hugging Face `config.json` read into a model's shape (`model.shape.TransformerShape`), strictly.

The planner reads the configs of five model classes of transformers, with the defaults each class's config
gives a field it leaves out (transformers' `configuration_*.py`):

- `gpt2` (GPT2Config: `n_layer`, `n_embd`, `n_head`, `n_inner` or 4 × `n_embd`, `vocab_size`,
  `n_positions`): LayerNorm, learned positions, biases on every linear layer, embeddings tied unless
  `tie_word_embeddings` is false;
- `llama` and `mistral` (LlamaConfig, MistralConfig: `num_hidden_layers`, `hidden_size`,
  `num_attention_heads`, `num_key_value_heads` or the heads, `intermediate_size`, `vocab_size`, `head_dim`
  or hidden ÷ heads): RMSNorm, rotary positions, a SwiGLU MLP, untied unless `tie_word_embeddings` is true;
  Llama's `attention_bias` puts a bias on all four attention projections, its `mlp_bias` on the MLP's three;
- `qwen2` (Qwen2Config): as Llama, with biases on the query, key and value projections (Qwen2Attention's
  `bias=True`) and none on the output projection;
- `mixtral` (MixtralConfig): as Mistral, the MLP replaced by `num_local_experts` experts of width
  `intermediate_size`, `num_experts_per_tok` of them per token, and a router without bias.

Anything else is refused with one line that names the file and what to fix: text that is not JSON, a
`model_type` the planner does not read, a field missing or of the wrong type, a size beyond `LIMITS`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..model.shape import TransformerShape

#: The most characters of a value a message quotes: a config's value may be 900,000 characters long.
SHOWN = 80


def shown(value: object) -> str:
    """`value` as JSON writes it (control characters escaped, so a message stays one line), cut at `SHOWN`."""
    text = json.dumps(value)
    return text if len(text) <= SHOWN else f"{text[:SHOWN]}… ({len(text):,} characters)"


#: The model types the planner reads, as `config.json`'s `model_type` names them.
MODEL_TYPES = ("gpt2", "llama", "mistral", "qwen2", "mixtral")
#: Beyond these a size is absurd rather than large, and is refused.
LIMITS: Mapping[str, int] = {
    "layers": 10_000,
    "hidden": 1_000_000,
    "heads": 100_000,
    "ffn": 10_000_000,
    "vocabulary": 100_000_000,
    "positions": 100_000_000,
    "experts": 100_000,
}


class ConfigError(ValueError):
    """A config.json the planner cannot read; the message names the file and the fix, in one line."""


def _whole(where: str, config: Mapping[str, Any], key: str, limit: str, default: int | None = None) -> int:
    value = config.get(key, default)
    if value is None:
        raise ConfigError(f'{where}: needs "{key}", a whole number')
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f'{where}: "{key}" is {json.dumps(value)}; expected a whole number')
    if value < 1:
        raise ConfigError(f'{where}: "{key}" is {value}; expected a whole number of at least 1')
    if value > LIMITS[limit]:
        raise ConfigError(f'{where}: "{key}" is {value}, beyond {LIMITS[limit]:,}: too large to be a real model')
    return value


def _flag(where: str, config: Mapping[str, Any], key: str, default: bool) -> bool:
    value = config.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ConfigError(f'{where}: "{key}" is {json.dumps(value)}; expected true or false')
    return value


#: The longest config.json read: Hugging Face's are a few thousand characters; this leaves room for long lists
#: (a model's per-layer settings) and refuses a file of weights passed by mistake before it is parsed.
MAX_CONFIG_CHARACTERS = 1_000_000


def _one_value_a_key(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's fields, refusing a key given twice: json keeps the last value of one in silence."""
    fields: dict[str, Any] = {}
    for key, value in pairs:
        if key in fields:
            raise ValueError(f"{json.dumps(key)} is given twice; give it once")
        fields[key] = value
    return fields


def parse_config(text: str, where: str) -> tuple[TransformerShape, str]:
    """The shape a config.json's `text` describes, and its `model_type`; `where` names the file in messages.

    Raises:
        ConfigError: the text is not a config the planner reads (see the module's docstring).
    """
    if len(text) > MAX_CONFIG_CHARACTERS:
        raise ConfigError(
            f"{where}: {len(text):,} characters, more than the {MAX_CONFIG_CHARACTERS:,} of any model's config.json"
            " (a few thousand): give the model's config.json, not its weights or index"
        )
    # A byte-order mark is how Windows' editors begin a UTF-8 file (Notepad's "UTF-8 with BOM"): JSON's RFC 8259
    # lets a reader ignore it, and the file means the same without it; json.loads refuses it.
    text = text.removeprefix("\ufeff")
    try:
        config = json.loads(text, object_pairs_hook=_one_value_a_key)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{where}: not JSON (line {error.lineno}, column {error.colno}: {error.msg})") from None
    except (ValueError, RecursionError) as error:
        # Python's own limits: an integer of more than 4,300 digits, arrays nested past the recursion limit.
        raise ConfigError(f"{where}: not a config.json the planner reads ({error})") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{where}: expected a JSON object of a model's fields, as a Hugging Face config.json is")
    kind = config.get("model_type")
    if kind not in MODEL_TYPES:
        raise ConfigError(
            f"{where}: model_type {shown(kind)} is not one the planner reads; it reads {', '.join(MODEL_TYPES)}"
        )
    try:
        shape = _shape(where, config, kind)
    except ConfigError:
        raise
    except (TypeError, ValueError) as error:
        raise ConfigError(f"{where}: {error}") from None
    return shape, kind


def _shape(where: str, c: Mapping[str, Any], kind: str) -> TransformerShape:
    if kind == "gpt2":
        hidden = _whole(where, c, "n_embd", "hidden")
        heads = _whole(where, c, "n_head", "heads")
        return TransformerShape(
            layers=_whole(where, c, "n_layer", "layers"),
            hidden=hidden,
            heads=heads,
            kv_heads=heads,
            ffn=_whole(where, c, "n_inner", "ffn", 4 * hidden),
            vocabulary=_whole(where, c, "vocab_size", "vocabulary"),
            gated=False,
            tied=_flag(where, c, "tie_word_embeddings", True),
            norm="layernorm",
            attention_bias=True,
            output_bias=True,
            mlp_bias=True,
            positions=_whole(where, c, "n_positions", "positions"),
        )
    hidden = _whole(where, c, "hidden_size", "hidden")
    heads = _whole(where, c, "num_attention_heads", "heads")
    bias = _flag(where, c, "attention_bias", False) if kind == "llama" else False
    experts = _whole(where, c, "num_local_experts", "experts") if kind == "mixtral" else 0
    head_dim = c.get("head_dim")
    width = _whole(where, c, "intermediate_size", "ffn")
    return TransformerShape(
        layers=_whole(where, c, "num_hidden_layers", "layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=_whole(where, c, "num_key_value_heads", "heads", heads),
        ffn=width,
        vocabulary=_whole(where, c, "vocab_size", "vocabulary"),
        gated=True,
        tied=_flag(where, c, "tie_word_embeddings", False),
        norm="rmsnorm",
        attention_bias=bias or kind == "qwen2",
        output_bias=bias,
        mlp_bias=_flag(where, c, "mlp_bias", False) if kind == "llama" else False,
        head_dim=_whole(where, c, "head_dim", "hidden") if head_dim is not None else 0,
        experts=experts,
        experts_per_token=_whole(where, c, "num_experts_per_tok", "experts") if experts else 0,
        expert_ffn=width if experts else 0,
    )
