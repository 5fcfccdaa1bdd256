"""The one check every function of the model makes of its inputs."""

from __future__ import annotations

from fractions import Fraction


def check_count(name: str, value: object) -> None:
    """Raise TypeError unless `value` is a number, ValueError unless it is above zero; `name` says which input."""
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
