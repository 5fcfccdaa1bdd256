"""One way to check every record the course reads: catalog entries, glossary terms, front matter, quiz options.

A record's fields are described by small type functions, each of which takes a
raw value and returns a clean one or raises `ValueError` saying what it expected
(the pymdownx `type_*` pattern). `check_record` applies them to a mapping and
alone words "unknown field", "missing field" and "got X; expected Y", so every
data file and block reports its mistakes the same way. `read_text` reads every
file the course reads itself, and `load_yaml` reads YAML strictly: a key given
twice is an error, not "last one wins", and so is a line break that YAML reads and
an editor does not count, which would put every later line YAML tells of elsewhere.
`check_key` tells a problem with a key (an entry's id) at the key's own line.
"""

from __future__ import annotations

import codecs
import difflib
import math
import re
import reprlib
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

import yaml

from .scripts import script_in_text

T = TypeVar("T")
#: A type function: a raw value in, a clean value out, `ValueError` when it does not fit.
Check = Callable[[Any], T]

#: Lower-case words and digits joined by hyphens: glossary ids, question ids.
SLUG = re.compile(r"\A[a-z0-9]+(?:-[a-z0-9]+)*\Z")
#: A catalog id also allows dots, as in `gpt2-1.5b`.
CATALOG_ID = re.compile(r"\A[a-z0-9]+(?:[-.][a-z0-9]+)*\Z")


class SchemaError(ValueError):
    """A record does not fit its schema; the message says where, what was found and what was expected.

    `field` is the field refused, where one is (`check_record`), for a caller that finds its line otherwise.
    """

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class NestedError(ValueError):
    """A check's refusal of one setting inside a field's mapping (`search: {boost: 0}`), at that setting's line,
    which `check_record` reports instead of the field's."""

    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def nested_error(value: Any, key: Any, message: str) -> NestedError:
    """The error `message` about `key` of the mapping `value`, at `key`'s line when `value` came from a file."""
    return NestedError(message, value.lines.get(key) if isinstance(value, Located) else None)


# ------------------------------------------------------------------ type functions


#: How much of a wrong value a message quotes: enough to find it, never a whole file's worth.
_QUOTED = 120


_REPR = reprlib.Repr()
_REPR.maxstring = _REPR.maxother = _QUOTED
_REPR.maxlevel = 3


def _got(value: Any) -> str:
    return f"got {_REPR.repr(value)}"


#: Characters no text of the course holds, a data file's or a page's: C0 and C1 controls but tab and line breaks,
#: and the controls that reorder what follows them (bidirectional embeddings, overrides and isolates), which make
#: text read otherwise than it is written.
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


#: Template syntax, as Jinja2 opens it: a call `{{`, a statement `{%` or a comment `{#`. Data is text, never a
#: template: no page renders it, so what one holds would reach a reader as typed.
_TEMPLATE = re.compile(r"\{[{%#]")


def text(value: Any) -> str:
    """Non-empty text, stripped, without control characters or template syntax: every free-text field of every
    data file is read through it.

    >>> text("Radford et al. 2019 {{ 7 * 7 }}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: got 'Radford et al. 2019 {{ 7 * 7 }}'; expected text without template syntax ('{{' at 21): ...

    >>> text("fp16\\u202e61pf")
    Traceback (most recent call last):
    ...
    ValueError: got 'fp16\\u202e61pf'; expected text without control characters (U+202E at 5)
    """
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{_got(value)}; expected text")
    control = CONTROL.search(value)
    if control:
        where = f"U+{ord(control.group(0)):04X} at {control.start() + 1}"
        raise ValueError(f"{_got(value)}; expected text without control characters ({where})")
    template = _TEMPLATE.search(value)
    if template:
        where = f"{template.group(0)!r} at {template.start() + 1}"
        raise ValueError(
            f"{_got(value)}; expected text without template syntax ({where}): data is shown as typed, never"
            " rendered, so write words only"
        )
    return value.strip()


def integer(value: Any) -> int:
    """A whole number (not a boolean)."""
    if isinstance(value, str) and re.fullmatch(r"\d+", value.strip(), re.ASCII):
        # A number in quotes ("2"), which YAML reads as text: the large-number hint below misled (attack round 10).
        raise ValueError(f"{_got(value)}; expected a whole number, written without quotes")
    if isinstance(value, str) and re.fullmatch(r"[\d.,_]+(?:[eE][+-]?\d+)?", value.strip()):
        raise ValueError(
            f"{_got(value)}; expected a whole number: write large ones as 1_500_000_000 (YAML reads 1.5e9 as text)"
        )
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{_got(value)}; expected a whole number")
    return value


def positive_count(value: Any) -> int:
    """A whole number above zero: a count of layers, devices, parameters."""
    if isinstance(value, float) and value.is_integer() and value > 0:
        raise ValueError(f"{_got(value)}; expected a whole number: write it without a decimal point")
    count = integer(value)
    if count <= 0:
        raise ValueError(f"{_got(value)}; expected a whole number above zero")
    return count


def positive_amount(value: Any) -> int | Fraction:
    """A finite number above zero, kept exact: a whole number stays whole, a decimal becomes its fraction.

    >>> positive_amount(0.5)
    Fraction(1, 2)
    """
    if isinstance(value, str):
        raise ValueError(f"{_got(value)}; expected a number, without quotes; write large ones as 1_500_000_000")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{_got(value)}; expected a number")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{_got(value)}; expected a finite number above zero")
    # YAML's decimal text, not the float's binary approximation: 0.1 stays one tenth.
    return value if isinstance(value, int) else Fraction(repr(value))


def percentage(value: Any) -> Fraction:
    """A share written as a percentage above 0 and at most 100, "5%" or "0.5 %", returned as a fraction of 1.

    >>> percentage("5%")
    Fraction(1, 20)
    """
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*%\s*", str(value)) if isinstance(value, str) else None
    if match is None or not 0 < Fraction(match.group(1)) <= 100:
        raise ValueError(f"{_got(value)}; expected a percentage above 0 and at most 100, like 5%")
    return Fraction(match.group(1)) / 100


def boolean(value: Any) -> bool:
    """true or false, as YAML writes them (not "yes", 1 or "true" in quotes)."""
    if not isinstance(value, bool):
        raise ValueError(f"{_got(value)}; expected true or false")
    return value


def slug(value: Any) -> str:
    """An id of lower-case words and digits joined by hyphens, like `l8-practice-1`."""
    if not isinstance(value, str) or not SLUG.match(value):
        raise ValueError(f"{_got(value)}; expected lower-case words and digits joined by hyphens, like l8-practice-1")
    return value


#: An absolute http(s) address as RFC 3986 writes one: a host name, an optional port, then a path, query and
#: fragment of its unreserved and reserved characters and %-escapes, and nothing else (no space or control
#: character, no quote, bracket of a tag, backslash or character outside ASCII: write them %-escaped).
_WEB_URL = re.compile(
    r"https?://[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::[0-9]{1,5})?(?:[/?#][-\w.~:/?#\[\]@!$&()*+,;=%]*)?",
    re.ASCII,
)


def web_url(value: Any) -> str:
    """An absolute http(s) address (`_WEB_URL`); anything else (javascript:, data:, //host, a relative path, a
    control character or a quote in it) is refused.

    >>> web_url("https://arxiv.org/abs/1910.02054\\x01")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: got 'https://arxiv.org/abs/1910.02054\\x01'; expected an address starting with https:// ...
    """
    if not isinstance(value, str) or not _WEB_URL.fullmatch(value):
        raise ValueError(
            f"{_got(value)}; expected an address starting with https:// (or http://), its other characters those"
            " of RFC 3986 (write others %-escaped)"
        )
    return value


#: How an argument's type is said in a message, for the annotations `check_argument` reads.
_ARGUMENT_TYPES: Mapping[Any, str] = {
    str: "text in quotes",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    type(None): "none",
}


def check_argument(name: str, value: Any, annotation: Any) -> None:
    """Raise `ValueError` unless `value` fits `annotation`, the type of the parameter `name`: text, a whole
    number (never true or false), a number, true or false, none, or a union of them; other annotations
    (a mapping, `Any`) say nothing to check here.

    >>> check_argument("devices", 8.5, int)
    Traceback (most recent call last):
    ...
    ValueError: devices is a whole number, got 8.5
    """
    union = isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union
    kinds = typing.get_args(annotation) if union else (annotation,)
    if not all(kind in _ARGUMENT_TYPES for kind in kinds):
        return
    for kind in kinds:
        if isinstance(value, bool):
            if kind is bool:
                return
        elif (kind is float and isinstance(value, int | float)) or isinstance(value, kind):
            return
    raise ValueError(f"{name} is {' or '.join(_ARGUMENT_TYPES[kind] for kind in kinds)}, {_got(value)}")


def one_of(*choices: str) -> Check[str]:
    """A type function that accepts exactly one of `choices`."""

    def check(value: Any) -> str:
        if value not in choices:
            raise ValueError(f"{_got(value)}; expected one of: {', '.join(choices)}")
        return str(value)

    return check


def list_of(item: Check[T], *, empty: bool = True, unique: bool = False) -> Check[tuple[T, ...]]:
    """A type function for a list whose every item passes `item`, returned as a tuple; with `unique`, no item
    given twice.

    >>> list_of(integer, unique=True)([7, 7])
    Traceback (most recent call last):
    ...
    ValueError: item 2: 7 is given twice (as item 1); keep one
    """

    def check(value: Any) -> tuple[T, ...]:
        if not isinstance(value, list) or (not empty and not value):
            raise ValueError(f"{_got(value)}; expected a {'' if empty else 'non-empty '}list, like [a, b]")
        clean = []
        for index, raw in enumerate(value, start=1):
            try:
                clean.append(item(raw))
            except ValueError as error:
                raise ValueError(f"item {index}: {error}") from None
            if unique and clean[-1] in clean[:-1]:
                first = clean.index(clean[-1]) + 1
                raise ValueError(f"item {index}: {_REPR.repr(raw)} is given twice (as item {first}); keep one")
        return tuple(clean)

    return check


def reference(known: Mapping[str, Any], what: str) -> Check[str]:
    """A type function for an id of `known` (another table), with the nearest ids when it is not one."""

    def check(value: Any) -> str:
        if not isinstance(value, str) or value not in known:
            raise ValueError(unknown(what, value, list(known)))
        return value

    return check


def unknown(what: str, name: Any, known: Sequence[str]) -> str:
    """The words for a name that is not one of `known`, with the nearest where there is one."""
    close = difflib.get_close_matches(str(name), list(known), n=3)
    hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
    listed = ", ".join(sorted(known)) or "none"
    return f"unknown {what} {name!r}.{hint} Known: {listed}."


# ------------------------------------------------------------------------ records


@dataclass(frozen=True)
class Field:
    """One field of a record: its type function, and its default when it may be left out."""

    check: Check[Any]
    required: bool = True
    default: Any = None


#: A record's fields: a name to a `Field`, or to a bare type function for a required one.
Fields = Mapping[str, "Field | Check[Any]"]


def optional(check: Check[Any], default: Any = None) -> Field:
    """A field that may be left out, taking `default`."""
    return Field(check, required=False, default=default)


class Located(dict[Any, Any]):
    """A mapping as a data file wrote it (`load_yaml`), with the file's line of each key and of its first."""

    line: int | None = None
    lines: Mapping[Any, int] = types.MappingProxyType({})


class LocatedList(list[Any]):
    """A list as a data file wrote it (`load_yaml`), with the file's line of each item."""

    lines: Sequence[int] = ()


def _at(where: str, line: int | None, detail: str, field: str | None = None) -> SchemaError:
    """The error `detail` about `field` of the record at `where` ("file" or "file: place in it"), at the file's
    `line`."""
    if line is None:
        return SchemaError(f"{where}{detail}", field)
    file, _, place = where.partition(": ")
    located = f"{file}:{line}: {place}{detail}" if place else f"{file}:{line}: {detail.lstrip('.: ')}"
    return SchemaError(located, field)


def record_error(where: str, data: Any, message: str) -> SchemaError:
    """The error `message` about the record `data` at `where` as a whole (two fields that go together, an id
    used twice), at the record's first line when `data` came from a data file."""
    return _at(where, data.line if isinstance(data, Located) else None, f": {message}")


def field_error(where: str, data: Any, name: str, message: str) -> SchemaError:
    """The error `message` about field `name` of the record `data` at `where`, at the field's line when `data`
    came from a data file: for a check that `check_record` cannot make alone (an id of another table)."""
    line = data.lines.get(name) if isinstance(data, Located) else None
    return _at(where, line, f".{name}: {message}", name)


def item_error(where: str, data: Any, name: str, index: int, message: str) -> SchemaError:
    """The error `message` about item `index` (from 0) of the list field `name` of the record `data` at `where`, at
    the item's own line when the list came from a data file (`LocatedList`): a list's items may take a line each.
    """
    items = data.get(name) if isinstance(data, Located) else None
    if isinstance(items, LocatedList) and index < len(items.lines):
        return _at(where, items.lines[index], f".{name}: item {index + 1}: {message}", name)
    return field_error(where, data, name, f"item {index + 1}: {message}")


def check_key(where: str, data: Any, key: Any, check: Check[T]) -> T:
    """`key` of the mapping `data` (an entry's id, a stage's number) passed through `check`; `SchemaError` at the
    key's own line when `data` came from a data file, as `field_error` tells a field's value.

    >>> check_key("terms.yml", load_yaml("a: 1\\n__b: 2", "terms.yml"), "__b", slug)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    macros.data.schema.SchemaError: terms.yml:2: __b: got '__b'; expected lower-case words and digits joined ...
    """
    try:
        return check(key)
    except ValueError as error:
        line = data.lines.get(key) if isinstance(data, Located) else None
        raise _at(where, line, f".{key}: {error}", str(key)) from None


def check_record(where: str, data: Any, fields: Fields, noun: str = "field") -> dict[str, Any]:
    """The record `data` with every field checked and defaults filled in.

    `fields` maps a name to a `Field`, or to a bare type function for a
    required field. Raises `SchemaError` naming `where` (a file, then ": " and
    the record's place in it, if any), the line of the field where `data` came
    from a data file (`Located`), and the field: unknown fields first (with the
    allowed ones), then missing ones, then the first value of the wrong type.

    >>> check_record("models.yml: gpt", {"layers": 47.5}, {"layers": positive_count})
    Traceback (most recent call last):
    ...
    macros.data.schema.SchemaError: models.yml: gpt.layers: got 47.5; expected a whole number
    >>> check_record("models.yml: gpt", load_yaml("gpt:\\n  layers: 47.5", "models.yml")["gpt"], {"layers": integer})
    Traceback (most recent call last):
    ...
    macros.data.schema.SchemaError: models.yml:2: gpt.layers: got 47.5; expected a whole number
    """
    if not isinstance(data, Mapping):
        raise SchemaError(f"{where}: {_got(data)}; expected a mapping of {noun}s: {', '.join(fields)}")
    lines: Mapping[Any, int] = data.lines if isinstance(data, Located) else {}
    spec = {name: kind if isinstance(kind, Field) else Field(kind) for name, kind in fields.items()}
    unknown_names = [name for name in data if name not in spec]
    if unknown_names:
        listed = ", ".join(sorted(map(str, unknown_names)))
        detail = f": unknown {noun}(s) {listed}; allowed: {', '.join(spec)}"
        raise _at(where, lines.get(unknown_names[0]), detail, str(unknown_names[0]))
    missing = [name for name, field in spec.items() if field.required and name not in data]
    if missing:
        line = data.line if isinstance(data, Located) else None
        raise _at(where, line, f": missing {noun}(s) {', '.join(missing)}")
    clean = {}
    for name, field in spec.items():
        if name not in data:
            clean[name] = field.default
            continue
        try:
            clean[name] = field.check(data[name])
        except ValueError as error:
            line = (error.line if isinstance(error, NestedError) else None) or lines.get(name)
            raise _at(where, line, f".{name}: {error}", name) from None
    return clean


# -------------------------------------------------------------------------- files


def check_file(path: Path, where: str) -> None:
    """Raise `SchemaError` if `path`, which messages call `where`, is there but is a folder or another thing
    than a regular file (a pipe, whose reading would never end)."""
    if path.exists() and not path.is_file():
        kind = "a folder" if path.is_dir() else "not a regular file"
        raise SchemaError(f"{where}: is {kind}; expected a text file: remove it or give it another name")


def read_text(path: Path, where: str) -> str:
    """The text of the file at `path`, which messages call `where`: every file the course reads itself.

    Raises:
        SchemaError: `path` is not a regular file (`check_file`), cannot be read, or is not UTF-8, at the line
            of its first byte that is not (Python's own error names no file).
    """
    check_file(path, where)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise SchemaError(f"{where}: cannot be read: {error.strerror}") from None
    # A byte order mark, which some editors write first, is no text: MkDocs drops it from a page, and so does the
    # course from every file (a lesson's front matter behind one was not found: "its front matter needs lesson:").
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line_start = data.rfind(b"\n", 0, error.start) + 1
        line = data.count(b"\n", 0, error.start) + 1
        # What comes before the error decodes, so the column counts characters as an editor does.
        column = len(data[line_start : error.start].decode("utf-8")) + 1
        found = "UTF-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else f"the byte 0x{data[error.start]:02X}"
        raise SchemaError(
            f"{where}:{line}: not UTF-8 ({found} at column {column}): save the file as UTF-8"
            ' (an editor\'s "Save with Encoding")'
        ) from None


# --------------------------------------------------------------------------- YAML


#: The most digits a data file's whole number may have: the course's largest (a run's FLOPs) has 24, and
#: Python refuses to read one of more than 4,300 (`sys.get_int_max_str_digits`) with an error naming no file.
MAX_DIGITS = 40


#: A whole number as a data file writes one: decimal digits, grouped by underscores if they like (46_702_792_704).
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)")


class _GivenTwice(yaml.constructor.ConstructorError):
    """A key given twice in one mapping, which `load_yaml` names as its error's field: a caller that reads YAML
    from within another file (a block's options in a page) tells it at that file's line of the second."""

    def __init__(self, key: Any, message: str, node: yaml.Node) -> None:
        super().__init__(None, None, message, node.start_mark)
        self.key = key


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """libyaml's safe loader (ten times faster where PyYAML has it) that refuses a key given twice, a key that
    is not a scalar (a list or a mapping), an alias (`*name`), and a whole number of more than `MAX_DIGITS`."""

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        # YAML 1.1, which PyYAML reads, takes a leading zero for octal (032 is 26), a colon for base 60 (1:30 is
        # 90) and 0b for binary: a value that changes in silence. A data file's whole numbers are decimal.
        written = str(node.value)
        if not _DECIMAL.fullmatch(written):
            shown = written if len(written) <= 20 else written[:20] + "…"
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"{shown} is not a decimal whole number (YAML would read it as octal, binary, hexadecimal or"
                " base 60): write it in decimal digits, without a leading zero",
                node.start_mark,
            )
        # Counted before it is read (Python refuses to read one of more than 4,300 decimal digits), and again
        # once read: hexadecimal (0xfff...) and base 60 (1:0:0...) write a large one in fewer digits.
        digits = sum(character.isdigit() for character in str(node.value))
        number: int = super().construct_yaml_int(node) if digits <= MAX_DIGITS else 0
        if digits > MAX_DIGITS or abs(number) >= 10**MAX_DIGITS:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"a whole number of more than {MAX_DIGITS} digits; a data file's have at most {MAX_DIGITS}: write"
                " it with an exponent (3.14e23) if it is that large",
                node.start_mark,
            )
        return number

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        # Base 60 again (1:30.5 is 90.5).
        if ":" in str(node.value):
            written = str(node.value)
            shown = written if len(written) <= 20 else written[:20] + "…"
            raise yaml.constructor.ConstructorError(
                None, None, f"{shown} is a number in base 60 to YAML: write it in decimal", node.start_mark
            )
        value: float = super().construct_yaml_float(node)
        return value

    def construct_document(self, node: yaml.Node) -> Any:
        # A data file is written out in full: an alias reuses a value, so that a few lines can stand for a
        # structure of any size (a "billion laughs") or one that holds itself.
        seen: set[int] = set()
        stack = [node]
        while stack:
            current = stack.pop()
            if id(current) in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, "this value is used again by an alias (*name): write it out", current.start_mark
                )
            seen.add(id(current))
            if isinstance(current, yaml.SequenceNode):
                stack.extend(current.value)
            elif isinstance(current, yaml.MappingNode):
                stack.extend(item for pair in current.value for item in pair)
        return super().construct_document(node)

    #: The file's line of the text's first line (a page's front matter starts below its `---`).
    first_line = 1

    def construct_located(self, node: yaml.MappingNode) -> Iterator[Located]:
        """A mapping, as `Located`: PyYAML's own `construct_yaml_map`, keeping its lines for `check_record`."""
        data = Located()
        yield data
        data.update(self.construct_mapping(node))
        data.line = node.start_mark.line + self.first_line
        data.lines = {self.construct_object(key): key.start_mark.line + self.first_line for key, _ in node.value}

    def construct_located_list(self, node: yaml.SequenceNode) -> Iterator[LocatedList]:
        """A list, as `LocatedList`: PyYAML's own `construct_yaml_seq`, keeping each item's line."""
        data = LocatedList()
        yield data
        data.extend(self.construct_sequence(node))
        data.lines = tuple(item.start_mark.line + self.first_line for item in node.value)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise yaml.constructor.ConstructorError(
                    None, None, f"a key is a name or a number, not a {key_node.id}; quote it", key_node.start_mark
                )
            key = self.construct_object(key_node, deep=True)
            # The file's lines, as `Located` numbers them: a front matter's text starts at the file's line 2.
            line = key_node.start_mark.line + self.first_line
            if key in seen:
                # Its mark, so that the message opens with the line, as every other YAML error's does.
                raise _GivenTwice(
                    key, f"the key {key!r} is given twice (lines {seen[key]} and {line}); keep one", key_node
                )
            seen[key] = line
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)
        return mapping


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _StrictLoader.construct_yaml_int)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _StrictLoader.construct_yaml_float)
_StrictLoader.add_constructor("tag:yaml.org,2002:map", _StrictLoader.construct_located)
_StrictLoader.add_constructor("tag:yaml.org,2002:seq", _StrictLoader.construct_located_list)


#: What YAML (1.1, as PyYAML reads it) takes for a line break beside a line feed and CR LF, by name. An editor may
#: show none, and the course counts a file's lines by its line feeds, as editors do: YAML's line of all that
#: follows one, in its messages and in `Located`'s lines, would not be the file's.
_OTHER_BREAKS: Mapping[str, str] = {
    "\r": "a carriage return (\\r) not followed by a line feed",
    "\x85": "U+0085 NEXT LINE",
    "\u2028": "U+2028 LINE SEPARATOR",
    "\u2029": "U+2029 PARAGRAPH SEPARATOR",
}
_OTHER_BREAK = re.compile("\r(?!\n)|[\x85\u2028\u2029]")


def _refuse_other_breaks(source: str, where: str, first_line: int) -> None:
    """`SchemaError` at the file's line and column of the first of `_OTHER_BREAKS` in `source`."""
    found = _OTHER_BREAK.search(source)
    if found is None:
        return
    line = source.count("\n", 0, found.start()) + first_line
    column = found.start() - source.rfind("\n", 0, found.start())
    raise SchemaError(
        f"{where}:{line}: not valid YAML here: {_OTHER_BREAKS[found.group(0)]} at column {column}, which YAML reads as"
        " a line break where an editor may show none, and the lines YAML tells of after it are not the file's:"
        " delete it, and start a new line where one is meant"
    )


def load_yaml(source: str, where: str, *, data_file: bool = True, first_line: int = 1) -> Any:
    """Parse YAML text strictly; `SchemaError` naming `where` and the line for invalid YAML or a repeated key
    (the key, its `field`).

    Its mappings are `Located` and its lists `LocatedList`, numbering lines from `first_line`, the file's line of
    the text's first.

    A data file's text (`data_file`; not a page's front matter, which has checks of its own) holds nothing
    that would run script were it read as markup (`scripts.script_in_text`): the pages show it as text, and
    an event handler or a javascript: address there is a mistake or an attack, refused at its line. So is a line
    break that YAML reads and an editor does not count (`_OTHER_BREAKS`), in any text.
    """
    _refuse_other_breaks(source, where, first_line)
    loader = _StrictLoader(source)
    loader.first_line = first_line
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if data_file:
            _refuse_script(node, source, where)
        return loader.construct_document(node)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        # The file's line: the text's own line counted from `first_line`, where the text starts in its file.
        line = f":{mark.line + first_line}" if mark is not None else ""
        if isinstance(error, yaml.reader.ReaderError):  # a character YAML refuses: at its position, not a mark
            line = f":{source.count(chr(10), 0, error.position) + first_line}"
        problem = getattr(error, "problem", None) or str(error)
        twice = str(error.key) if isinstance(error, _GivenTwice) else None
        raise SchemaError(f"{where}{line}: not valid YAML: {problem}", twice) from None
    finally:
        loader.dispose()


def _refuse_script(node: yaml.Node, source: str, where: str) -> None:
    """`SchemaError` at the line of the first text in the document `node` that would run script as markup."""
    lines = source.splitlines()
    stack: list[tuple[yaml.Node, str]] = [(node, "")]
    seen: set[int] = set()  # a node used again (an alias) is read once here, and refused as one when built
    while stack:
        current, path = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, yaml.MappingNode):
            for key, value in reversed(current.value):
                label = key.value if isinstance(key, yaml.ScalarNode) else "?"
                name = f"{path}.{label}" if path else str(label)
                stack.extend([(value, name), (key, path)])
        elif isinstance(current, yaml.SequenceNode):
            stack.extend((item, f"{path}[{index}]") for index, item in reversed(list(enumerate(current.value))))
        elif isinstance(current, yaml.ScalarNode) and isinstance(current.value, str):
            found = script_in_text(current.value)
            if not found:
                continue
            first, last = current.start_mark.line, current.end_mark.line
            span = range(first, min(last, len(lines) - 1) + 1)
            needles = [text.lower() for text in (found[0].value, found[0].name) if text]
            line = next((n for needle in needles for n in span if needle in lines[n].lower()), first) + 1
            field = f" {path}:" if path else ""
            raise SchemaError(
                f"{where}:{line}:{field} holds {found[0].what}, which would run script in a reader's browser were it"
                " read as markup (a page shows it as text): write words only, with no event handler (on...=),"
                " <script>, javascript: or data: address; an address is a source's url, https://"
            )
