"""The arithmetic of training memory and communication, with its sources.

Pure functions of plain numbers: no catalog, no formatting, no MkDocs. Byte
counts follow Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training
Trillion Parameter Models" (2019, https://arxiv.org/abs/1910.02054), whose
units are decimal (1 GB = 10**9 bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

#: Bytes that one parameter costs in each model state of mixed-precision
#: training with Adam, as ZeRO §3.1 counts them: 2Ψ + 2Ψ for the fp16
#: parameters and gradients, then K = 12 bytes of optimizer state (fp32
#: parameters, momentum and variance, 4Ψ each).
MIXED_PRECISION_ADAM: Mapping[str, int] = MappingProxyType(
    {
        "fp16_parameters": 2,
        "fp16_gradients": 2,
        "fp32_parameters": 4,
        "fp32_momentum": 4,
        "fp32_variance": 4,
    }
)

#: Bytes per value of each floating-point format.
BYTES_PER_VALUE: Mapping[str, int] = MappingProxyType({"fp16": 2, "bf16": 2, "fp32": 4})

#: ZeRO §3.2: a transformer keeps about 12 × hidden × batch × sequence values
#: of activations per layer.
ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN = 12


def _check_count(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")


def state_bytes_per_parameter(component: str) -> int:
    """Bytes per parameter of one model state of mixed-precision Adam (ZeRO §3.1).

    Raises:
        KeyError: `component` is not one of `MIXED_PRECISION_ADAM`.
    """
    try:
        return MIXED_PRECISION_ADAM[component]
    except KeyError:
        known = ", ".join(MIXED_PRECISION_ADAM)
        raise KeyError(f"unknown model state {component!r}; known: {known}") from None


def model_state_bytes_per_parameter() -> int:
    """Bytes per parameter of all model states of mixed-precision Adam: 16 (ZeRO §3.1)."""
    return sum(MIXED_PRECISION_ADAM.values())


def model_state_bytes(parameters: int, state: str = "all") -> int:
    """Bytes of model states that one data-parallel device holds for `parameters` parameters.

    16Ψ for all of them (ZeRO §3.1), or, for one `state` of
    `MIXED_PRECISION_ADAM`, its share: 2Ψ for the fp16 parameters, say.
    """
    _check_count("parameters", parameters)
    per_parameter = model_state_bytes_per_parameter() if state == "all" else state_bytes_per_parameter(state)
    return per_parameter * parameters


def copy_bytes(parameters: int, precision: str) -> int:
    """Bytes of one value per parameter in `precision`: 4Ψ for an fp32 copy, say.

    ZeRO §3.2 counts one such copy, a fused fp32 gradient buffer, as 6 GB for 1.5B parameters.

    Raises:
        KeyError: `precision` is not one of `BYTES_PER_VALUE`.
    """
    _check_count("parameters", parameters)
    try:
        return BYTES_PER_VALUE[precision] * parameters
    except KeyError:
        raise KeyError(f"unknown precision {precision!r}; known: {', '.join(BYTES_PER_VALUE)}") from None


def activation_values(hidden: int, batch: int, sequence: int, layers: int) -> int:
    """Activation values kept for the backward pass of a transformer, without checkpointing.

    ZeRO §3.2 estimates them as 12 × hidden × batch × sequence × layers.
    """
    for name, value in (("hidden", hidden), ("batch", batch), ("sequence", sequence), ("layers", layers)):
        _check_count(name, value)
    return ACTIVATION_VALUES_PER_LAYER_TOKEN_HIDDEN * hidden * batch * sequence * layers


def activation_bytes(hidden: int, batch: int, sequence: int, layers: int) -> int:
    """Bytes of those activations, kept in fp16 as in ZeRO §3.2."""
    return BYTES_PER_VALUE["fp16"] * activation_values(hidden, batch, sequence, layers)


def ring_allreduce_bytes_sent(data_bytes: int, devices: int) -> Fraction:
    """Bytes each device sends in a ring all-reduce of `data_bytes` over `devices` devices.

    A ring all-reduce is a reduce-scatter then an all-gather, each N - 1 steps
    of a 1/N chunk, so every device sends (and receives) 2(N - 1)/N × the data
    (Patarasuk and Yuan, 2009; NCCL's bus-bandwidth definition).

    Raises:
        ValueError: fewer than 2 devices, where nothing needs reducing.
    """
    _check_count("data_bytes", data_bytes)
    _check_count("devices", devices)
    if devices < 2:
        raise ValueError(f"an all-reduce needs at least 2 devices, got {devices!r}")
    return Fraction(2 * (devices - 1), devices) * data_bytes


def transfer_seconds(data_bytes: float, bytes_per_second: float) -> Fraction:
    """Seconds to move `data_bytes` at `bytes_per_second`: the bandwidth term alone, no latency."""
    _check_count("data_bytes", data_bytes)
    _check_count("bytes_per_second", bytes_per_second)
    return Fraction(data_bytes) / Fraction(bytes_per_second)
