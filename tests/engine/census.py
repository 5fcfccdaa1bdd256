"""Bytes held, counted by storage: what a process keeps at one moment, split by role.

Two tensors that share a storage (a view, a flat buffer and the gradients
viewing it, a bucket and `gradient_as_bucket_view`) hold its bytes once, so
every count here is over distinct storages, at their size at the moment of
counting: FSDP2 frees a gathered parameter by resizing its storage to zero
bytes, and a resized storage counts what it holds then.

A census takes the roles in order, each a set of tensors (parameters,
gradients, optimizer states...), and gives each storage to the first role that
names it; then every tensor the garbage collector can reach that no role named
is "other", so that what an engine keeps beyond the roles it is asked about is
seen rather than missed. A tensor held only in C++ (autograd's saved tensors,
DDP's reducer) is invisible to the collector: saved tensors are named through
`saved_tensors_hooks` (`SavedTensors`), DDP's buckets through its comm hook.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import torch
from torch.distributed.tensor import DTensor


def local(tensor: torch.Tensor) -> torch.Tensor:
    """The tensor whose storage holds `tensor`'s bytes on this process: a DTensor's local shard."""
    return tensor.to_local() if isinstance(tensor, DTensor) else tensor


def storage_key(tensor: torch.Tensor) -> tuple[int, int]:
    """Which storage holds `tensor`, and its size in bytes now."""
    storage = local(tensor).untyped_storage()
    return storage._cdata, storage.nbytes()


def storage_bytes(tensors: Iterable[torch.Tensor]) -> int:
    """Bytes of the distinct storages behind `tensors`."""
    return sum(dict(storage_key(t) for t in tensors).values())


def reachable_tensors() -> Iterator[torch.Tensor]:
    """Every tensor the garbage collector tracks, meta tensors left out (they hold no bytes)."""
    for candidate in gc.get_objects():
        if isinstance(candidate, torch.Tensor) and not isinstance(candidate, DTensor) and not candidate.is_meta:
            yield candidate


def census(roles: Mapping[str, Iterable[torch.Tensor]], exclude: Iterable[torch.Tensor] = ()) -> dict[str, int]:
    """Bytes by role over distinct storages, then "other" for every reachable storage no role named.

    `exclude` are tensors the caller holds for itself (the batch, the loss), counted nowhere.
    """
    owner: dict[int, str] = {}
    sizes: dict[int, int] = {}
    for name, tensors in [("", exclude), *roles.items()]:
        for tensor in tensors:
            key, size = storage_key(tensor)
            owner.setdefault(key, name)
            sizes[key] = size
    for tensor in reachable_tensors():
        key, size = storage_key(tensor)
        owner.setdefault(key, "other")
        sizes[key] = size
    counts = dict.fromkeys([*roles, "other"], 0)
    for key, name in owner.items():
        if name:
            counts[name] += sizes[key]
    return counts


@dataclass
class SavedTensors:
    """The tensors autograd saves for the backward pass while the context is open, kept by weak reference.

    Packing returns the tensor itself, so nothing changes in what autograd keeps.
    """

    tensors: list[weakref.ref[torch.Tensor]] = field(default_factory=list)

    def pack(self, tensor: torch.Tensor) -> torch.Tensor:
        self.tensors.append(weakref.ref(tensor))
        return tensor

    @staticmethod
    def unpack(tensor: torch.Tensor) -> torch.Tensor:
        return tensor

    def hooks(self) -> torch.autograd.graph.saved_tensors_hooks:
        """The context that records what is saved inside it."""
        return torch.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)

    def alive(self) -> list[torch.Tensor]:
        """The saved tensors still alive (the graph holds them until the backward pass frees it)."""
        return [tensor for ref in self.tensors if (tensor := ref()) is not None]
