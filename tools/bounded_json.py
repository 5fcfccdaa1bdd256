"""JSON from a pull request or from GitHub's API, read within bounds: one `Unreadable` error, never a traceback.

The preview tools (`tools.preview_trust`, `tools.preview_comment`, `tools.previews`) read JSON
that a pull request's code wrote (a CI artifact) or that the API relays (a pull request's
fields are the author's). Python's own reader fails on such input in ways no caller expects:
a `RecursionError` for 100,000 nested brackets, a `UnicodeDecodeError` for a byte that is not
UTF-8, a `ValueError` from `int()` for a number of more than 4,300 digits. So, as
`tools.figure_diff` bounds a figures log, the text is bounded before it is parsed: its size
(`MAX_BYTES`), its encoding (UTF-8), how deeply its lists and objects nest (`MAX_DEPTH`, counted
without parsing, so without recursion), and the digits of every number (`MAX_DIGITS`); NaN
and Infinity, which JSON has not, are refused too. Beyond a bound, `Unreadable` at once.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path

#: The largest JSON text read: a page of 100 pull requests from the API is about 2 MB, and a
#: `--paginate --slurp` of every open one a few pages.
MAX_BYTES = 50 * 10**6
#: How deeply lists and objects may nest: a pull request of the API nests about 5 levels, pages of them 7.
MAX_DEPTH = 32
#: The most characters a number may have: the API's ids and counts have about 10 digits.
MAX_DIGITS = 100
#: What opens or closes a list or an object, and what opens, closes or escapes inside a string (which may hold
#: brackets of its own); one character each, as `tools.figure_diff._STRUCTURE`, so no pattern backtracks.
_STRUCTURE = re.compile(r'[\[\]{}"\\]')


class Unreadable(ValueError):
    """A JSON text beyond a bound, not UTF-8, or not JSON; the message says which."""


def depth(text: str) -> int:
    """How deeply the lists and objects of a JSON text nest, counted without parsing it (so without recursion)."""
    level = deepest = 0
    in_string, escaped = False, -1  # `escaped`: where the character a backslash in a string escapes stands
    for match in _STRUCTURE.finditer(text):
        at, token = match.start(), match.group(0)
        if at == escaped:
            continue
        if in_string:
            if token == "\\":
                escaped = at + 1
            elif token == '"':
                in_string = False
        elif token == '"':
            in_string = True
        elif token in "[{":
            level += 1
            deepest = max(deepest, level)
        elif token in "]}":
            level -= 1
    return deepest


def _number(kind: type[int] | type[float]) -> Callable[[str], object]:
    def read(text: str) -> object:
        if len(text) > MAX_DIGITS:
            raise Unreadable(f"a number has at most {MAX_DIGITS} digits, not {text[:20]}… ({len(text):,})")
        number = kind(text)
        if isinstance(number, float) and not math.isfinite(number):
            raise Unreadable(f"a number is finite, not {text}")
        return number

    return read


def _constant(name: str) -> object:
    raise Unreadable(f"{name} is not JSON")


def loads(data: bytes | str) -> object:
    """The value of a JSON text; `Unreadable` when it is over a bound, not UTF-8 or not JSON."""
    if len(data) > MAX_BYTES:
        raise Unreadable(f"larger than {MAX_BYTES:,} bytes")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise Unreadable(f"not UTF-8: byte {error.start:,} is {data[error.start : error.start + 1]!r}") from None
    if depth(data) > MAX_DEPTH:
        raise Unreadable(f"its lists and objects nest more than {MAX_DEPTH} deep")
    try:
        return json.loads(data, parse_int=_number(int), parse_float=_number(float), parse_constant=_constant)
    except Unreadable:
        raise
    except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
        raise Unreadable(f"not JSON: {error}") from None


def load(path: Path | None) -> object:
    """The JSON value in the file at `path`, or on standard input for None; `Unreadable` or `OSError`."""
    if path is not None:
        with path.open("rb") as file:
            return _named(str(path), file.read(MAX_BYTES + 1))
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return _named("standard input", buffer.read(MAX_BYTES + 1))
    try:  # a text stream without bytes beneath (a test's StringIO)
        return _named("standard input", sys.stdin.read(MAX_BYTES + 1))
    except UnicodeDecodeError as error:
        raise Unreadable(f"standard input: not UTF-8: {error}") from None


def _named(origin: str, data: bytes | str) -> object:
    try:
        return loads(data)
    except Unreadable as error:
        raise Unreadable(f"{origin}: {error}") from None
