"""What one data-parallel device holds under ZeRO's stages: model states by role, sharded or whole.

Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
Parameter Models" (2019, https://arxiv.org/abs/1910.02054), §5, partition the
model states of Nd data-parallel devices in three cumulative stages. With Ψ
parameters, 2 + 2 bytes of fp16 parameters and gradients, and K bytes of
optimizer states per parameter, a device holds (Figure 1; §5.1 to §5.3):

- plain data parallelism: (2 + 2 + K)Ψ;
- P_os, the optimizer states sharded (§5.1): 2Ψ + 2Ψ + KΨ/Nd;
- P_os+g, the gradients too (§5.2): 2Ψ + (2 + K)Ψ/Nd;
- P_os+g+p, the parameters too (§5.3): (2 + 2 + K)Ψ/Nd.

The same arithmetic holds for any recipe once each of its model states has a
role: the parameters the passes use, their gradients, and the optimizer
states (ZeRO counts the fp32 master copy among the latter, in K). Bytes are
exact fractions: Ψ/Nd need not be whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from .checks import check_count as _check_count
from .memory import DEFAULT_RECIPE, recipe
from .zero import zero_stage

#: The roles of model states, in the order ZeRO counts them (2Ψ + 2Ψ + KΨ).
ROLES = ("parameters", "gradients", "optimizer_states")


@dataclass(frozen=True)
class Stage:
    """A ZeRO-DP stage by the number DeepSpeed gives it: its symbol in the paper, in words, and the roles it shards."""

    name: str
    words: str
    sharded: frozenset[str]


def _stage(zero_id: str) -> Stage:
    """A stage of `zero.ZERO_STAGES`, the model's one list of what each stage partitions, seen by role."""
    chosen = zero_stage(zero_id)
    flags = {
        "parameters": chosen.parameters,
        "gradients": chosen.gradients,
        "optimizer_states": chosen.optimizer_states,
    }
    symbol = "DP" if zero_id == "dp" else chosen.symbol
    return Stage(
        symbol, "plain data parallelism" if zero_id == "dp" else chosen.name, frozenset(r for r in ROLES if flags[r])
    )


#: ZeRO-DP's stages by number, 0 being plain data parallelism, as DeepSpeed numbers them (§5: P_os, P_g and
#: P_p, enabled cumulatively), from `zero.ZERO_STAGES`.
STAGES: Mapping[int, Stage] = MappingProxyType(
    {number: _stage(zero_id) for number, zero_id in enumerate(("dp", "os", "os-g", "os-g-p"))}
)


def stage(number: object) -> Stage:
    """The ZeRO-DP stage `number`, 0 to 3.

    Raises:
        KeyError: no such stage; the message lists them.
    """
    if isinstance(number, bool) or not isinstance(number, int) or number not in STAGES:
        known = ", ".join(f"{n} ({s.words})" for n, s in STAGES.items())
        raise KeyError(f"unknown ZeRO stage {number!r}; the stages are {known}")
    return STAGES[number]


def role_bytes_per_parameter(recipe_id: str = DEFAULT_RECIPE) -> Mapping[str, int]:
    """Bytes per parameter of each role in a recipe: 2, 2 and K = 12 in ZeRO's mixed-precision Adam (§3.1).

    A recipe lists its states in the order they are counted: its first state is
    the parameters the forward and backward passes use, the first state whose id
    ends in `_gradients` is the gradients the backward pass writes, and every
    other state is the optimizer's: ZeRO counts the fp32 master parameters,
    momentum and variance in K, and Megatron-LM's distributed optimizer shards
    its fp32 copy of fp16 gradients with them ("4 + 16/d" bytes for "`fp16`
    parameters, `fp16` gradients", "6 + 12/d" for "`bf16` parameters, `fp32`
    gradients", in its distributed-optimizer guide).

    Raises:
        KeyError: an unknown recipe.
        ValueError: a recipe whose first state is not parameters, or that has no gradients.
    """
    states = recipe(recipe_id).states
    names = list(states)
    gradients = next((name for name in names if name.endswith("_gradients")), None)
    if not names[0].endswith("_parameters") or gradients is None:
        raise ValueError(
            f"recipe {recipe_id!r} lists {names}: its first state must be the parameters and one state must end"
            " in _gradients, so that each state has a role"
        )
    optimizer = sum(size for name, size in states.items() if name not in (names[0], gradients))
    return MappingProxyType(
        {"parameters": states[names[0]], "gradients": states[gradients], "optimizer_states": optimizer}
    )


def device_bytes_by_role(
    parameters: int | Fraction, devices: int, stage_number: int, recipe_id: str = DEFAULT_RECIPE
) -> Mapping[str, Fraction]:
    """Bytes of each role of the model states that one of `devices` data-parallel devices holds at a ZeRO stage.

    A role the stage shards is split evenly across the devices (bytes/Nd); the
    others are whole on every device (ZeRO §5.1 to §5.3, Figure 1).

    Raises:
        TypeError, ValueError: a count that is not a positive number, or devices not a whole number.
        KeyError: an unknown stage or recipe.
    """
    _check_count("parameters", parameters)
    _check_count("devices", devices)
    if not isinstance(devices, int):
        raise ValueError(f"devices must be a whole number, got {devices!r}")
    sharded = stage(stage_number).sharded
    return MappingProxyType(
        {
            role: Fraction(per_parameter) * Fraction(parameters) / (devices if role in sharded else 1)
            for role, per_parameter in role_bytes_per_parameter(recipe_id).items()
        }
    )


def device_state_bytes(
    parameters: int | Fraction, devices: int, stage_number: int, recipe_id: str = DEFAULT_RECIPE
) -> Fraction:
    """Bytes of model states one data-parallel device holds: the roles of `device_bytes_by_role` added up.

    In ZeRO's recipe (K = 12), Ψ = 7.5B and Nd = 64 give 120 GB, 31.4 GB, 16.6 GB
    and 1.88 GB at stages 0 to 3 (Figure 1; Table 1).
    """
    return sum(device_bytes_by_role(parameters, devices, stage_number, recipe_id).values(), Fraction(0))
