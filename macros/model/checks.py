"""The checks every function of the model makes of its inputs: a count, and a name from a table."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import TypeVar

T = TypeVar("T")


def check_count(name: str, value: object) -> None:
    """Raise TypeError unless `value` is a number, ValueError unless it is above zero; `name` says which input."""
    if isinstance(value, bool) or not isinstance(value, int | float | Fraction):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value!r}")


def lookup(table: Mapping[str, T], key: object, what: str) -> T:
    """The entry `key` of `table`; `what` names the table's kind in the message.

    >>> lookup({"dp": 1}, "os", "ZeRO stage")
    Traceback (most recent call last):
    ...
    KeyError: "unknown ZeRO stage 'os'; known: dp"
    """
    try:
        return table[key]  # type: ignore[index]
    except (KeyError, TypeError):
        raise KeyError(f"unknown {what} {key!r}; known: {', '.join(table)}") from None
