"""JSON from a pull request or from GitHub's API, read within bounds: one `Unreadable` error, never a traceback.

The preview tools (`tools.preview_trust`, `tools.preview_comment`, `tools.previews`) read JSON
that a pull request's code wrote (a CI artifact) or that the API relays (a pull request's
fields are the author's). Python's own reader fails on such input in ways no caller expects:
a `RecursionError` for 100,000 nested brackets, a `UnicodeDecodeError` for a byte that is not
UTF-8, a `ValueError` from `int()` for a number of more than 4,300 digits. So the text is
bounded before it is parsed (`tools.figure_diff` reads a figures log so, within bounds of its own): its size
(`MAX_BYTES`), its encoding (UTF-8), how deeply its lists and objects nest (`MAX_DEPTH`, counted
without parsing, so without recursion), and the digits of every number (`MAX_DIGITS`); NaN
and Infinity, which JSON has not, are refused too. Beyond a bound, `Unreadable` at once.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import reprlib
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
#: A JSON string once its escapes are gone (`depth`). Each character is read once, so an unterminated string costs
#: no backtracking, where a pattern of whole strings with their escapes took 43 s for 100 KB of backslash-quotes.
_STRING = re.compile(r'"[^"]*"')
#: Everything of a JSON text but the brackets that open and close its lists and objects.
_BRACKETS = re.compile(r"[^\[\]{}]+")


#: How a value read from such a text is shown in a message: cut short, however long it is, since the text is
#: untrusted and a message goes into a workflow's log (a refusal once echoed a 5 MB record whole).
_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 60


def quoted(value: object) -> str:
    """`value`, read from an untrusted JSON text, as a message shows it: its repr, cut short.

    >>> quoted("x" * 1000)[:10], len(quoted("x" * 1000)), quoted([1] * 1000)
    ("'xxxxxxxxx", 60, '[1, 1, 1, 1, 1, 1, ...]')
    """
    return _REPR.repr(value)


class Unreadable(ValueError):
    """A JSON text beyond a bound, not UTF-8, or not JSON; the message says which."""


def depth(text: str) -> int:
    """How deeply the lists and objects of a JSON text nest, counted without parsing it (so without recursion):
    its escapes and then its strings taken out, which may hold brackets of their own, and the brackets left
    counted in order. Each step runs in C over the text, where a loop over every quote took 5 s for 35 MB."""
    brackets = _BRACKETS.sub("", _STRING.sub("", text.replace("\\\\", "").replace('\\"', "")))
    return max(itertools.accumulate(1 if bracket in "[{" else -1 for bracket in brackets), default=0)


def _number(kind: type[int] | type[float], max_digits: int) -> Callable[[str], object]:
    def read(text: str) -> object:
        if len(text) > max_digits:
            raise Unreadable(f"a number has at most {max_digits} digits, not {text[:20]}… ({len(text):,})")
        number = kind(text)
        if isinstance(number, float) and not math.isfinite(number):
            raise Unreadable(f"a number is finite, not {text}")
        return number

    return read


def _object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """A JSON object, refused when it gives a key twice: Python keeps the last, another reader the first, and what
    a tool decided on would not be what another reads (no API writes one)."""
    read = dict(pairs)
    if len(read) != len(pairs):
        twice = next(key for key in read if [name for name, _ in pairs].count(key) > 1)
        raise Unreadable(f"an object gives the key {quoted(twice)} twice")
    return read


def _constant(name: str) -> object:
    raise Unreadable(f"{name} is not JSON")


def loads(
    data: bytes | str, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH, max_digits: int = MAX_DIGITS
) -> object:
    """The value of a JSON text; `Unreadable` when it is over a bound (by default the module's), not UTF-8 or not
    JSON."""
    if len(data) > max_bytes:
        raise Unreadable(f"larger than {max_bytes:,} bytes")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise Unreadable(f"not UTF-8: byte {error.start:,} is {data[error.start : error.start + 1]!r}") from None
    if depth(data) > max_depth:
        raise Unreadable(f"its lists and objects nest more than {max_depth} deep")
    try:
        return json.loads(
            data,
            parse_int=_number(int, max_digits),
            parse_float=_number(float, max_digits),
            parse_constant=_constant,
            object_pairs_hook=_object,
        )
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
