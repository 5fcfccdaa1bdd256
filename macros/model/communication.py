"""What data parallelism sends: the ring all-reduce step by step, what crosses between hosts, and transfer times."""

from __future__ import annotations

from dataclasses import dataclass
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


def cross_host_bytes_per_port(bytes_per_gpu: float | Fraction, members_per_host: int) -> Fraction:
    """Bytes each network port of a host sends to other hosts, for a ring collective spread over several hosts.

    `bytes_per_gpu` is what each GPU of the group sends in the collective (for
    a ring all-reduce, 2(N − 1)/N of the data), `members_per_host` how many of
    the group's GPUs share a host; every GPU of a host belongs to such a group
    and has its own port. NCCL lays its rings out host by host, so that "Ring
    Allreduce requires data to go through each GPU and enter/exit the node
    once" (S. Jeaugey, NVIDIA, https://github.com/NVIDIA/nccl/issues/687), and
    runs several rings at once, each "entering/exiting the node through a NIC"
    (https://github.com/NVIDIA/nccl/issues/412). One link of a ring carries
    what each GPU sends, and one link per ring leaves each host; a host holds
    G/k groups of k members each, and its G ports share their rings, so each
    port sends the per-GPU bytes ÷ k. With one member per host (k = 1), each
    GPU's whole traffic crosses its own port.

    Raises:
        ValueError: fewer than one member per host.
    """
    _check_count("bytes_per_gpu", bytes_per_gpu)
    _check_count("members_per_host", members_per_host)
    return Fraction(bytes_per_gpu) / members_per_host


def transfer_seconds(data_bytes: float | Fraction, bytes_per_second: float | Fraction) -> Fraction:
    """Seconds to move `data_bytes` at `bytes_per_second`: the bandwidth term alone, no latency."""
    _check_count("data_bytes", data_bytes)
    _check_count("bytes_per_second", bytes_per_second)
    return Fraction(data_bytes) / Fraction(bytes_per_second)


@dataclass(frozen=True)
class RingSend:
    """One chunk sent in one step of a ring all-reduce: from a device to the next one round the ring."""

    sender: int
    receiver: int
    chunk: int


@dataclass(frozen=True)
class RingStep:
    """One step of a ring all-reduce: its phase, the chunks sent in it, and what every device holds after it.

    `holds[device][chunk]` is the set of devices whose values that chunk sums.
    """

    phase: str
    sends: tuple[RingSend, ...]
    holds: tuple[tuple[frozenset[int], ...], ...]


#: The phases of a ring all-reduce, after the start: N − 1 steps of each.
RING_PHASES = ("reduce-scatter", "all-gather")


def ring_allreduce_schedule(devices: int) -> tuple[RingStep, ...]:
    """The ring all-reduce over `devices` devices, step by step: the start, then 2(N − 1) steps.

    The data is cut into N chunks. In step s (from 0) of the reduce-scatter,
    device i sends chunk (i − s) mod N to device i + 1, which adds it to its
    own; after N − 1 steps device i holds chunk (i + 1) mod N summed over every
    device. In step s of the all-gather, device i sends chunk (i + 1 − s) mod N,
    which the next device keeps as it is; after N − 1 more steps every device
    holds every chunk summed (Patarasuk and Yuan, 2009). Each device sends
    2(N − 1) chunks of 1/N of the data: `ring_allreduce_factor`.

    Raises:
        ValueError: fewer than 2 devices.
    """
    ring_allreduce_factor(devices)  # checks the count
    holds = [[frozenset({device}) for _ in range(devices)] for device in range(devices)]
    steps = [RingStep("start", (), tuple(map(tuple, holds)))]
    for phase, first in zip(RING_PHASES, (0, 1), strict=True):
        for step in range(devices - 1):
            sends = tuple(
                RingSend(device, (device + 1) % devices, (device + first - step) % devices) for device in range(devices)
            )
            before = [list(row) for row in holds]
            for send in sends:
                received = before[send.sender][send.chunk]
                kept = holds[send.receiver][send.chunk]
                holds[send.receiver][send.chunk] = kept | received if phase == "reduce-scatter" else received
            steps.append(RingStep(phase, sends, tuple(map(tuple, holds))))
    return tuple(steps)
