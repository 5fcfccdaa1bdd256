"""Checks shared by every data file and block the course reads: which keys it may have."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

#: An id of a glossary entry or a question: lower-case words and digits joined by hyphens.
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def key_problem(
    data: Mapping[str, Any], allowed: Iterable[str], required: Iterable[str], noun: str = "field"
) -> str | None:
    """What is wrong with the keys of `data`: unknown ones, else missing ones; None when nothing is.

    >>> key_problem({"nmae": 1}, ["name"], ["name"])
    'unknown field(s) nmae; allowed: name'
    """
    allowed = list(allowed)
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        return f"unknown {noun}(s) {', '.join(unknown)}; allowed: {', '.join(allowed)}"
    missing = [name for name in required if name not in data]
    if missing:
        return f"missing {noun}(s) {', '.join(missing)}"
    return None
