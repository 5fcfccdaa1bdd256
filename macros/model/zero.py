"""What ZeRO-DP's stages leave on each device, the largest model they fit, and what they send.

Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
Parameter Models" (2019, https://arxiv.org/abs/1910.02054v3). Ψ is the
parameter count, K the optimizer states' bytes per parameter (12 for
mixed-precision Adam, §3.1), N_d the data-parallel degree and N_m the
model-parallel degree. Byte counts are decimal, as the paper's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from .checks import check_count as _check_count
from .checks import lookup


@dataclass(frozen=True)
class ZeroStage:
    """One ZeRO-DP stage: its name, and which of the three model states it partitions."""

    name: str
    #: The paper's symbol for it, as P_os+g.
    symbol: str
    optimizer_states: bool
    gradients: bool
    parameters: bool
    #: Elements each device sends per training step, as a multiple of Ψ (§7).
    communication: int


#: The baseline and ZeRO-DP's three cumulative stages (§5), by id.
ZERO_STAGES: Mapping[str, ZeroStage] = MappingProxyType(
    {
        "dp": ZeroStage("standard data parallelism", "baseline", False, False, False, 2),
        "os": ZeroStage("optimizer state partitioning", "P_os", True, False, False, 2),
        "os-g": ZeroStage("optimizer state and gradient partitioning", "P_os+g", True, True, False, 2),
        "os-g-p": ZeroStage("optimizer state, gradient and parameter partitioning", "P_os+g+p", True, True, True, 3),
    }
)

#: Bytes per parameter of the fp16 parameters and of the fp16 gradients (§3.1: "2Ψ and 2Ψ bytes").
FP16_PARAMETER_BYTES = 2
FP16_GRADIENT_BYTES = 2
#: K of mixed-precision Adam: fp32 parameters, momentum and variance, 4Ψ each (§3.1: "K = 12").
MIXED_ADAM_K = 12


def zero_stage(stage_id: str) -> ZeroStage:
    """The stage `stage_id` ("dp", "os", "os-g" or "os-g-p").

    Raises:
        KeyError: no such stage; the message lists the known ones.
    """
    return lookup(ZERO_STAGES, stage_id, "ZeRO stage")


def zero_bytes_per_parameter(stage_id: str, dp: int, k: int = MIXED_ADAM_K) -> Fraction:
    """Model-state bytes per parameter on each device (§5, Figure 1).

    2 + 2 + K for standard DP; 2 + 2 + K/N_d with P_os (§5.1: 4Ψ + KΨ/N_d);
    2 + (2 + K)/N_d with P_os+g (§5.2: 2Ψ + 14Ψ/N_d, with K = 12); and
    (2 + 2 + K)/N_d with P_os+g+p (§5.3: 16Ψ/N_d).
    """
    chosen = zero_stage(stage_id)
    _check_count("dp", dp)
    _check_count("k", k)
    share = Fraction(1, dp)
    return Fraction(
        FP16_PARAMETER_BYTES * (share if chosen.parameters else 1)
        + FP16_GRADIENT_BYTES * (share if chosen.gradients else 1)
        + k * (share if chosen.optimizer_states else 1)
    )


def zero_state_bytes(parameters: int, stage_id: str, dp: int, k: int = MIXED_ADAM_K) -> Fraction:
    """Model-state bytes on each device for `parameters` parameters: Ψ × `zero_bytes_per_parameter`.

    Figure 1's example, Ψ = 7.5B and N_d = 64, gives 120 GB, 31.4 GB, 16.6 GB
    and 1.875 GB, which §5.3 prints as 1.9 GB and Table 1 as 1.88.
    """
    _check_count("parameters", parameters)
    return parameters * zero_bytes_per_parameter(stage_id, dp, k)


def zero_memory_reduction(stage_id: str, dp: int, k: int = MIXED_ADAM_K) -> Fraction:
    """How many times less model-state memory a device holds under a stage than under standard DP.

    §5.4: the stages "reduces the memory consumption of each data parallel
    process on model states by up to 4x, 8x, and N_d respectively". The first
    two are limits: 16/(4 + 12/N_d) and 16/(2 + 14/N_d) approach 4 and 8 as N_d
    grows but stay below them; P_os+g+p gives exactly N_d.
    """
    return zero_bytes_per_parameter("dp", dp, k) / zero_bytes_per_parameter(stage_id, dp, k)


def zero_max_parameters(
    memory: float | Fraction, stage_id: str, dp: int, mp: int = 1, k: int = MIXED_ADAM_K
) -> Fraction:
    """The most parameters whose model states fit in `memory` bytes per device (Table 2, left).

    Model parallelism of degree N_m splits the model states N_m ways on top of
    ZeRO's N_d, so Ψ_max = memory × N_m / bytes per parameter at N_d. With
    memory = 32 GB (decimal) and N_d = 64, this reproduces Table 2's
    theoretical columns before the paper's own rounding. Residual memory
    (activations, buffers, fragmentation) is left out, as in the paper.
    """
    _check_count("memory", memory)
    _check_count("mp", mp)
    return Fraction(memory) * mp / zero_bytes_per_parameter(stage_id, dp, k)


def zero_communication_elements(parameters: int, stage_id: str) -> int:
    """Elements each device sends per training step (§7): 2Ψ for DP, P_os and P_os+g; 3Ψ for P_os+g+p.

    §7.1: an all-reduce is a reduce-scatter and an all-gather, Ψ each. §7.2.1:
    P_os+g reduce-scatters the gradients (Ψ) and all-gathers the updated
    parameters (Ψ). §7.2.2: P_os+g+p all-gathers the parameters in the forward
    pass and again in the backward pass, and reduce-scatters the gradients.
    Like the paper, this drops the (N_d − 1)/N_d of a ring's actual transfer.
    """
    _check_count("parameters", parameters)
    return zero_stage(stage_id).communication * parameters
