"""The options a quiz or checklist block takes under its header, each a type function."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..data.schema import Field, list_of, optional, percentage, slug

#: What a quiz asks for: one choice, several, a number with its unit, or words.
KINDS = ("single", "multiple", "numeric", "free")
#: The kinds whose answers the page marks right or wrong by itself.
CHECKED_KINDS = ("single", "multiple", "numeric")


def kind(value: Any) -> str:
    """A quiz kind: one of `KINDS`."""
    if value not in KINDS:
        raise ValueError(f"got {value!r}; expected one of: {', '.join(KINDS)}")
    return str(value)


def tolerance(value: Any) -> Fraction:
    """How close a numeric answer must be, as a percentage above 0 and below 100: "5%" is 1/20. Its one message
    gives both bounds: a share's says "at most 100", which a tolerance of 100% then broke."""
    try:
        share: Fraction | None = percentage(value)
    except ValueError:
        share = None
    if share is None or share >= 1:
        raise ValueError(f"got {value!r}; expected a percentage above 0 and below 100, like 5%")
    return share


#: A quiz's options.
QUIZ_OPTIONS: Mapping[str, Field | Any] = {"id": slug, "kind": kind, "tolerance": optional(tolerance)}
#: A checklist's options: one id per item.
CHECKLIST_OPTIONS: Mapping[str, Field | Any] = {"items": list_of(slug, empty=False)}
