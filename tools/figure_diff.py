"""The figure diff: which figures a pull request changed, as a Markdown report.

Compares two `figures.json` files, as `macros.figures.figure.FigureLog` writes them: the base
branch's and the pull request's. A record says that one page showed one figure in one
display text; a page may show the same figure several times in different words ("16" and
"16 bytes"), one record each. So records are grouped by page and figure id, and a group
changed when its set of exact values, its unit or its set of display texts differs. A group
only in the pull request is added; one only in the base is removed. A figure whose formula,
explanation or inputs changed while every number it shows stayed the same is not reported:
the report is about what a reader sees.

The report is Markdown for a pull-request comment. Everything in it that comes from the
files is untrusted (a pull request's build writes its own `figures.json`), so each such text
is shown as a code span, where GitHub renders no link, mention, image or HTML, with `|`
escaped for the table it sits in.

Run it as `python -m tools.figure_diff BASE PR [--site-url URL]`: it prints the report, or
nothing when no figure changed, and exits 0 either way; 2 when a file is not a figures log.

A pull request's `figures.json` comes from a build no one reviewed, so it is bounded before it
is read: its size (`MAX_BYTES`), how deeply its lists and objects nest (`MAX_DEPTH`), and the
digits of every number and exact value (`MAX_DIGITS`, with no exponent: "1e99999999" is a
hundred million digits once exact). Beyond a bound the file is refused, at once.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from tools import bounded_json

#: An exact value, as `figures.json` stores it: "24000000000", "0.1640625" or "1/3" (older logs: a number).
Value = Fraction
#: A group of records: the page's source path and the figure's id.
Key = tuple[str, str]

#: The fields every record must have, with their type.
_REQUIRED: Mapping[str, type | tuple[type, ...]] = {
    "page": str,
    "url": str,
    "id": str,
    "value": (str, int, float),
    "unit": str,
    "display": str,
}
#: A page URL as MkDocs writes it, relative to the site: safe to append to a trusted base URL.
#: A site's address as a link of the report may start with it: https://, then no space, quote or Markdown bracket.
_SITE_URL = re.compile(r"https://[^\s\"'<>()\[\]`|\\]+")
_RELATIVE_URL = re.compile(r"(?:[A-Za-z0-9_~-][A-Za-z0-9._~/-]*)?")
#: A text longer than this is cut in the report, so one odd record cannot flood a comment.
_MAX_TEXT = 120
#: The most display texts of one figure a cell shows: a page shows one in a few texts (the course's most is 3).
_MAX_DISPLAYS = 5
#: The largest figures log read: the course's is about 1 MB, and a preview's whole build at most 50 MB.
MAX_BYTES = 50 * 10**6
#: The most rows a table of the report shows.
MAX_ROWS = 100
#: The most characters of the report's tables: a pull-request comment holds at most 65,536 (GitHub's limit), and
#: the preview's comment adds its own lines around the report.
MAX_REPORT = 60_000
#: How deeply a log's lists and objects may nest: FigureLog writes 4 levels (records, inputs, an input).
MAX_DEPTH = 16
#: The most digits a number or an exact value may have: the course's longest value has 74.
MAX_DIGITS = 200
#: An exact value as FigureLog writes one: whole, decimal or a fraction, in ASCII digits only (int() and Fraction()
#: read "١٢٣" too, which FigureLog never writes).
_EXACT = re.compile(rf"-?\d{{1,{MAX_DIGITS}}}(?:\.\d{{1,{MAX_DIGITS}}}|/\d{{1,{MAX_DIGITS}}})?", re.ASCII)


@dataclass(frozen=True)
class Shown:
    """What one page showed of one figure: its exact values and display texts, deduplicated and sorted."""

    page: str
    url: str
    id: str
    unit: str
    values: tuple[Value, ...]
    displays: tuple[str, ...]


@dataclass(frozen=True)
class Change:
    """One page's figure as the base showed it and as the pull request shows it."""

    old: Shown
    new: Shown


@dataclass(frozen=True)
class FigureDiff:
    """Changed, added and removed figures, each ordered by page, then figure id."""

    changed: tuple[Change, ...]
    added: tuple[Shown, ...]
    removed: tuple[Shown, ...]

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.removed)


def parse_records(records: object, origin: str) -> dict[Key, Shown]:
    """Group a figures log's records by (page, figure id).

    `origin` names the file in error messages. Raises `ValueError` when `records` is not a
    list of objects with the fields FigureLog writes (page, url, id, value, unit, display),
    naming the record and the field; other fields (formula, inputs, printed…) are not read.
    """
    if not isinstance(records, list):
        raise ValueError(f"{origin}: expected a JSON list of figure records, got {type(records).__name__}")
    grouped: dict[Key, list[tuple[Mapping[str, object], Value]]] = {}
    for index, record in enumerate(records):
        where = f"{origin}: record {index}"
        if not isinstance(record, dict):
            raise ValueError(f"{where}: expected an object, got {type(record).__name__}")
        for field, kind in _REQUIRED.items():
            if field not in record:
                raise ValueError(f"{where}: missing field {field!r}")
            given = record[field]
            if not isinstance(given, kind) or isinstance(given, bool):
                raise ValueError(f"{where}: field {field!r} has the wrong type: {bounded_json.quoted(given)}")
        try:
            value = _value(record)
        except (ValueError, ZeroDivisionError) as error:
            raise ValueError(
                f"{where}: field 'value' is not an exact number: {bounded_json.quoted(record['value'])} ({error})"
            ) from None
        grouped.setdefault((record["page"], record["id"]), []).append((record, value))
    return {key: _shown(key, group) for key, group in grouped.items()}


def _shown(key: Key, group: Sequence[tuple[Mapping[str, object], Value]]) -> Shown:
    """What one page showed of one figure: its records, each with its exact value, read once (`parse_records`)."""
    page, figure_id = key
    units = sorted({str(record["unit"]) for record, _ in group})
    return Shown(
        page=page,
        url=str(group[0][0]["url"]),
        id=figure_id,
        unit=" or ".join(units),
        values=tuple(sorted({value for _, value in group})),
        displays=tuple(sorted({str(record["display"]) for record, _ in group})),
    )


def _value(record: Mapping[str, object]) -> Value:
    value = record["value"]
    assert isinstance(value, str | int | float)  # checked by parse_records
    if isinstance(value, float):  # an older log's: finite, its exponent a float's, so its exact value small
        return Fraction(repr(value))
    if isinstance(value, str) and not _EXACT.fullmatch(value):  # before Fraction() spends its time on "1e99999999"
        raise ValueError(f"at most {MAX_DIGITS} digits, whole, decimal or a fraction, without an exponent")
    if isinstance(value, int) or value.isdigit():  # most values are whole: int() reads them ten times as fast
        return Fraction(int(value))
    return Fraction(value)


def load_figures(path: Path) -> dict[Key, Shown]:
    """Read a `figures.json` file and group its records; `ValueError` if it is not one, or is beyond a bound."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
        records = bounded_json.loads(data, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH, max_digits=MAX_DIGITS)
    except (OSError, bounded_json.Unreadable) as error:
        raise ValueError(f"{path}: cannot read a figures log: {error}") from None
    return parse_records(records, str(path))


def diff_figures(base: Mapping[Key, Shown], new: Mapping[Key, Shown]) -> FigureDiff:
    """What changed from `base` to `new`: a figure's values, unit or display texts on one page."""
    changed = tuple(
        Change(base[key], new[key])
        for key in sorted(base.keys() & new.keys())
        if (base[key].values, base[key].unit, base[key].displays) != (new[key].values, new[key].unit, new[key].displays)
    )
    added = tuple(new[key] for key in sorted(new.keys() - base.keys()))
    removed = tuple(base[key] for key in sorted(base.keys() - new.keys()))
    return FigureDiff(changed, added, removed)


def code(text: str) -> str:
    """`text` as one Markdown code span for a table cell: one line, `|` escaped, cut if long.

    In a code span GitHub renders no link, mention, emphasis or HTML, so untrusted text shows
    as it is; GitHub's tables take `\\|` as a literal pipe, inside code spans too.
    """
    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    if len(text) > _MAX_TEXT:
        text = text[: _MAX_TEXT - 1] + "…"
    if not text:
        return "(empty)"
    fence = "`" * (1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{padding}{text.replace('|', chr(92) + '|')}{padding}{fence}"


def _number(value: Value) -> str:
    """An exact value with its digits grouped: 24,000,000,000, 0.0175, or 1/3 where no decimal ends. A decimal is
    written out in all its digits (a value of 1/2^50 in 50), which no precision of `Decimal` division promises."""
    if value.denominator == 1:
        return f"{value.numerator:,}"
    twos = fives = 0
    denominator = value.denominator
    while denominator % 2 == 0:
        denominator, twos = denominator // 2, twos + 1
    while denominator % 5 == 0:
        denominator, fives = denominator // 5, fives + 1
    if denominator != 1:
        return f"{value.numerator:,}/{value.denominator:,}"
    places = max(twos, fives)  # value × 10^places is whole
    digits = str(abs(value.numerator) * 10**places // value.denominator).rjust(places + 1, "0")
    sign = "-" if value < 0 else ""
    return f"{sign}{int(digits[:-places]):,}.{digits[-places:]}"


def _exact(shown: Shown) -> str:
    return code(", ".join(_number(v) for v in shown.values) + f" {shown.unit}")


def _displays(shown: Shown) -> str:
    """The texts a page showed a figure in, at most `_MAX_DISPLAYS` of them, so that one cell stays short."""
    cells = [code(display) for display in shown.displays[:_MAX_DISPLAYS]]
    more = len(shown.displays) - _MAX_DISPLAYS
    return ", ".join(cells) + (f" and {more:,} more" if more > 0 else "")


def _page(shown: Shown, site_url: str | None) -> str:
    """The page's source path, linked to the page on `site_url` when its URL is a plain relative path."""
    cell = code(shown.page)
    if site_url and _RELATIVE_URL.fullmatch(shown.url) and "//" not in shown.url and ".." not in shown.url:
        return f"[{cell}]({site_url.rstrip('/')}/{shown.url})"
    return cell


def _table(header: Sequence[str], rows: Iterable[Sequence[str]], count: int, budget: int) -> list[str]:
    """A table of the first of `count` rows, as many as `MAX_ROWS` and `budget` characters allow, and a line that
    says how many more there are."""
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    budget -= sum(len(line) + 1 for line in lines)
    for row in itertools.islice(rows, MAX_ROWS):
        line = "| " + " | ".join(row) + " |"
        budget -= len(line) + 1
        if budget < 0:
            break
        lines.append(line)
    shown = len(lines) - 2
    if count > shown:
        lines += ["", f"… and {count - shown:,} more, not shown: the first {shown} are."]
    return lines


def _count(number: int, singular: str) -> str:
    return f"{number} {singular}" if number == 1 else f"{number} {singular}s"


def render_markdown(diff: FigureDiff, site_url: str | None = None) -> str:
    """The report: a summary line and a table each of changed, added and removed figures.

    Empty when nothing changed. With `site_url` (trusted: the preview's address), each page
    of the pull request links to its preview.
    """
    if not diff:
        return ""
    summary = ", ".join(
        [
            _count(len(diff.changed), "figure") + " changed",
            f"{len(diff.added)} added",
            f"{len(diff.removed)} removed",
        ]
    )
    lines = [f"**{summary}.**"]
    if diff.changed:
        lines += ["", "Changed, old → new:", ""]
        lines += _table(
            ["page", "figure", "shown as", "exact value"],
            (
                [
                    _page(change.new, site_url),
                    code(change.new.id),
                    f"{_displays(change.old)} → {_displays(change.new)}",
                    f"{_exact(change.old)} → {_exact(change.new)}"
                    if (change.old.values, change.old.unit) != (change.new.values, change.new.unit)
                    else f"{_exact(change.new)} (unchanged)",
                ]
                for change in diff.changed
            ),
            len(diff.changed),
            MAX_REPORT - sum(len(line) + 1 for line in lines),
        )
    for title, group, link in (("Added", diff.added, site_url), ("Removed", diff.removed, None)):
        if group:
            lines += ["", f"{title}:", ""]
            lines += _table(
                ["page", "figure", "shown as", "exact value"],
                ([_page(shown, link), code(shown.id), _displays(shown), _exact(shown)] for shown in group),
                len(group),
                MAX_REPORT - sum(len(line) + 1 for line in lines),
            )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Print the figure diff of two `figures.json` files; see the module's docstring."""
    parser = argparse.ArgumentParser(
        prog="python -m tools.figure_diff",
        description="Print, as Markdown, the figures whose value or display text changed between two builds.",
    )
    parser.add_argument("base", type=Path, help="figures.json of the base branch's build")
    parser.add_argument("new", type=Path, metavar="pr", help="figures.json of the pull request's build")
    parser.add_argument("--site-url", help="where the pull request's build is published, to link its pages")
    arguments = parser.parse_args(argv)
    if arguments.site_url is not None and not _SITE_URL.fullmatch(arguments.site_url):
        # Written into every page's link: a javascript: address or a line break would be the report's own markup.
        parser.error(f"--site-url {arguments.site_url!r}: expected a plain https:// address")
    try:
        diff = diff_figures(load_figures(arguments.base), load_figures(arguments.new))
    except ValueError as error:
        parser.error(str(error))
    sys.stdout.write(render_markdown(diff, arguments.site_url))
    return 0


if __name__ == "__main__":
    sys.exit(main())
