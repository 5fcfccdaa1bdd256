"""What training keeps in memory: model states by recipe, copies, and activations.

Byte counts follow Rajbhandari et al., "ZeRO: Memory Optimizations Toward
Training Trillion Parameter Models" (2019, https://arxiv.org/abs/1910.02054),
whose units are decimal (1 GB = 10**9 bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from .checks import check_count as _check_count
from .checks import lookup

#: Bytes per value of each floating-point format; "fp8" is either of FP8 Formats for Deep Learning's two 8-bit
#: formats, E4M3 and E5M2 (Micikevicius et al. 2022, Table 1).
BYTES_PER_VALUE: Mapping[str, int] = MappingProxyType({"fp16": 2, "bf16": 2, "fp32": 4, "fp8": 1})


def value_bytes(precision: str) -> int:
    """Bytes per value of the floating-point format `precision`, or KeyError naming the formats there are.

    >>> value_bytes("fp7")
    Traceback (most recent call last):
    ...
    KeyError: "unknown format 'fp7'; known: fp16, bf16, fp32, fp8"
    """
    return lookup(BYTES_PER_VALUE, precision, "format")


@dataclass(frozen=True)
class Recipe:
    """What one training recipe keeps per parameter: each model state's bytes, in the order they are counted."""

    name: str
    #: Bytes per parameter of each model state, by the state's id (`fp16_parameters`).
    states: Mapping[str, int]
    #: Who counts it so.
    counted: str

    @property
    def bytes_per_parameter(self) -> int:
        """The recipe's model-state bytes per parameter, all states together."""
        return sum(self.states.values())


#: Training recipes by id. "mixed-adam" is the one ZeRO §3.1 counts: 2Ψ + 2Ψ for
#: the fp16 parameters and gradients, then K = 12 bytes of optimizer state (fp32
#: parameters, momentum and variance, 4Ψ each).
RECIPES: Mapping[str, Recipe] = MappingProxyType(
    {
        "mixed-adam": Recipe(
            "mixed-precision Adam with fp16 gradients",
            MappingProxyType(
                {
                    "fp16_parameters": 2,
                    "fp16_gradients": 2,
                    "fp32_parameters": 4,
                    "fp32_momentum": 4,
                    "fp32_variance": 4,
                }
            ),
            "as Rajbhandari et al. 2019 count them (§3.1)",
        ),
        "bf16-adam": Recipe(
            "bf16 mixed-precision Adam with fp32 gradients",
            MappingProxyType(
                {
                    "bf16_parameters": 2,
                    "fp32_gradients": 4,
                    "fp32_parameters": 4,
                    "fp32_momentum": 4,
                    "fp32_variance": 4,
                }
            ),
            "as Megatron-LM's distributed-optimizer guide counts them, and as Megatron-LM keeps them by default"
            " for bf16 (gradients accumulated and all-reduced in fp32)",
        ),
        "fp16-adam-fp32-grads": Recipe(
            "fp16 mixed-precision Adam with fp16 gradients and an fp32 copy of them",
            MappingProxyType(
                {
                    "fp16_parameters": 2,
                    "fp16_gradients": 2,
                    "fp32_gradients": 4,
                    "fp32_parameters": 4,
                    "fp32_momentum": 4,
                    "fp32_variance": 4,
                }
            ),
            "as Megatron-LM's distributed-optimizer guide counts them for fp16: its optimizer copies the fp16"
            " gradients to fp32 for the step (megatron/core/optimizer/optimizer.py, _copy_model_grads_to_main_grads)",
        ),
        "fp32-adam": Recipe(
            "fp32 Adam",
            MappingProxyType({"fp32_parameters": 4, "fp32_gradients": 4, "fp32_momentum": 4, "fp32_variance": 4}),
            "as Kingma and Ba 2014's Adam keeps two moments beside each fp32 parameter, and as PyTorch's autocast"
            " leaves them: it keeps the model itself in fp32",
        ),
        "fp32-sgd": Recipe(
            "fp32 SGD",
            MappingProxyType({"fp32_parameters": 4, "fp32_gradients": 4}),
            "plain SGD keeps no state beyond each fp32 parameter and its gradient",
        ),
        "fp32-sgd-momentum": Recipe(
            "fp32 SGD with momentum",
            MappingProxyType({"fp32_parameters": 4, "fp32_gradients": 4, "fp32_momentum": 4}),
            "one momentum value beside each fp32 parameter",
        ),
    }
)
#: The recipe the course's figures assume unless they say otherwise: ZeRO's.
DEFAULT_RECIPE = "mixed-adam"

#: Recipes a lesson counts that the memory calculator and the layout planner do not offer: both read a recipe's
#: first state as the format its passes run in (`pass_activations.passes_bytes_per_value`), and an FP8 recipe's
#: passes are no one format. "deepseek-v3-fp8" is what DeepSeek-AI 2024 (DeepSeek-V3 Technical Report,
#: https://arxiv.org/abs/2412.19437) §3.3.3 keeps per parameter: "We adopt the BF16 data format instead of FP32
#: to track the first and second moments in the AdamW optimizer", while "the master weights (stored by the
#: optimizer) and gradients (used for batch size accumulation) are still retained in FP32". The FP8 weights the
#: GEMMs read, cast from the master weights (its Figure 6), are not counted: the paper gives no count of them.
COUNTED_RECIPES: Mapping[str, Recipe] = MappingProxyType(
    {
        "deepseek-v3-fp8": Recipe(
            "DeepSeek-V3's FP8 training with AdamW's moments in bf16",
            MappingProxyType(
                {
                    "fp32_parameters": 4,
                    "fp32_gradients": 4,
                    "bf16_momentum": 2,
                    "bf16_variance": 2,
                }
            ),
            "as DeepSeek-AI 2024 keeps them (§3.3.3): fp32 master weights and gradients, AdamW's two moments in"
            " bf16; the FP8 copies of the weights the GEMMs read are not counted",
        ),
    }
)

#: ZeRO §3.2: a transformer keeps about 12 × hidden × batch × sequence values
#: of activations per layer.
ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN = 12
#: ...which ZeRO §3.2 counts in fp16.
ACTIVATION_PRECISION = "fp16"


_ALL_RECIPES: Mapping[str, Recipe] = MappingProxyType({**RECIPES, **COUNTED_RECIPES})


def recipe(recipe_id: str) -> Recipe:
    """The recipe `recipe_id`.

    Raises:
        KeyError: no such recipe; the message lists the known ones.
    """
    return lookup(_ALL_RECIPES, recipe_id, "recipe")


def state_bytes_per_parameter(state: str, recipe_id: str = DEFAULT_RECIPE) -> int:
    """Bytes per parameter of one model state of a recipe: 2 for ZeRO's fp16 parameters, say.

    Raises:
        KeyError: `state` is not one of the recipe's states.
    """
    states = recipe(recipe_id).states
    try:
        return states[state]
    except (KeyError, TypeError):
        raise KeyError(f"unknown model state {state!r} of {recipe_id}; known: {', '.join(states)}") from None


def model_state_bytes(parameters: int, state: str = "all", recipe_id: str = DEFAULT_RECIPE) -> int:
    """Bytes of model states that one data-parallel device holds for `parameters` parameters.

    16Ψ for all of them in ZeRO's recipe (§3.1), or, for one `state`, its share:
    2Ψ for the fp16 parameters, say.
    """
    _check_count("parameters", parameters)
    chosen = recipe(recipe_id)
    per_parameter = chosen.bytes_per_parameter if state == "all" else state_bytes_per_parameter(state, recipe_id)
    return per_parameter * parameters


def copy_bytes(parameters: int, precision: str) -> int:
    """Bytes of one value per parameter in `precision`: 4Ψ for an fp32 copy, say.

    ZeRO §3.2 counts one such copy, a fused fp32 gradient buffer, as 6 GB for 1.5B parameters.

    Raises:
        KeyError: `precision` is not one of `BYTES_PER_VALUE`.
    """
    _check_count("parameters", parameters)
    try:
        return value_bytes(precision) * parameters
    except (KeyError, TypeError):
        raise KeyError(f"unknown precision {precision!r}; known: {', '.join(BYTES_PER_VALUE)}") from None


def activation_values(hidden: int, batch: int, sequence: int, layers: int) -> int:
    """Activation values kept for the backward pass of a transformer, without checkpointing.

    ZeRO §3.2 estimates them as 12 × hidden × batch × sequence × layers.
    """
    for name, value in (("hidden", hidden), ("batch", batch), ("sequence", sequence), ("layers", layers)):
        _check_count(name, value)
    return ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN * hidden * batch * sequence * layers


def activation_bytes(hidden: int, batch: int, sequence: int, layers: int, precision: str = ACTIVATION_PRECISION) -> int:
    """Bytes of those activations, kept in fp16 as in ZeRO §3.2 unless `precision` says (fp32 before Stage 3).

    Raises:
        KeyError: `precision` is not one of `BYTES_PER_VALUE`.
    """
    values = activation_values(hidden, batch, sequence, layers)
    try:
        return value_bytes(precision) * values
    except (KeyError, TypeError):
        raise KeyError(f"unknown precision {precision!r}; known: {', '.join(BYTES_PER_VALUE)}") from None
