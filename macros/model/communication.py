"""What data parallelism sends: the ring all-reduce, and the time a transfer takes at a link's bandwidth."""

from __future__ import annotations

from fractions import Fraction

from .checks import check_count as _check_count


def ring_allreduce_factor(devices: int) -> Fraction:
    """The share of the data each device sends in a ring all-reduce over `devices` devices: 2(N − 1)/N.

    A ring all-reduce is a reduce-scatter then an all-gather, each N - 1 steps
    of a 1/N chunk (Patarasuk and Yuan, 2009; NCCL's bus-bandwidth definition).

    Raises:
        ValueError: fewer than 2 devices, where nothing needs reducing.
    """
    _check_count("devices", devices)
    if devices < 2:
        raise ValueError(f"an all-reduce needs at least 2 devices, got {devices!r}")
    return Fraction(2 * (devices - 1), devices)


def ring_allreduce_bytes_sent(data_bytes: int, devices: int) -> Fraction:
    """Bytes each device sends (and receives) in a ring all-reduce of `data_bytes`: 2(N − 1)/N × the data."""
    _check_count("data_bytes", data_bytes)
    return ring_allreduce_factor(devices) * data_bytes


def transfer_seconds(data_bytes: float | Fraction, bytes_per_second: float | Fraction) -> Fraction:
    """Seconds to move `data_bytes` at `bytes_per_second`: the bandwidth term alone, no latency."""
    _check_count("data_bytes", data_bytes)
    _check_count("bytes_per_second", bytes_per_second)
    return Fraction(data_bytes) / Fraction(bytes_per_second)
