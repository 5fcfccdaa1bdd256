"""The macro calls in a page's Markdown, found with their line and rendered.

A lesson writes a figure as `{{ name("id", option=true) }}`: a call of a
registered macro with literal arguments (text, numbers, true/false, lists).
This module finds each call with the line of the Markdown file it is on,
calls the macro, and puts what it returns in its place, so that an error names
the file, the line and the call exactly as the author wrote them. It takes the
place of a Jinja pass over the whole page, which costs a template compilation
per page and numbers lines from the end of the front matter. Anything else in
double braces, a Jinja statement, or a call inside a code span is an error: it
would reach the reader as raw template syntax or raw HTML.

A call is checked before its macro runs: its literals are finite numbers of a
bounded size, and its arguments fit the macro's signature and the types its
parameters declare (`schema.check_argument`). Whatever a macro still raises on
an argument it did not foresee is reported at the call's line like any other
problem, never as a traceback.
"""

from __future__ import annotations

import ast
import bisect
import inspect
import logging
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..data.nesting import INDENT
from ..data.schema import check_argument

log = logging.getLogger("mkdocs.plugins.macros.calls")

#: `{{ ... }}`, `{% ... %}` and `{# ... #}`, on one line or several.
_TEMPLATE = re.compile(r"\{\{(?P<call>.*?)\}\}|\{%(?P<statement>.*?)%\}|\{#(?P<comment>.*?)#\}", re.DOTALL)
#: Fenced code blocks and code spans, where a call would render as raw HTML.
_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,}).*?^(?P=indent)(?P=fence)[ \t]*$", re.DOTALL | re.MULTILINE
)
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)", re.DOTALL)
#: The first line of a block whose indented blocks after it are its content, not code: a list item (Python-Markdown's
#: list processors), an admonition or a collapsible one (admonition, pymdownx.details).
_CONTAINER = re.compile(r"[ ]{0,3}(?:[*+-]|\d+\.)[ ]+|(?:!!!|\?\?\?\+?)[ ]")
#: Jinja's lower-case constants, which authors write as in YAML.
_CONSTANTS = {"true": True, "false": False, "none": None, "True": True, "False": False, "None": None}
#: The largest number a call may write: larger than any count or size of training, small enough that
#: arithmetic on it stays instant (a literal `1e999` is infinity; `10**5000` digits take time to print).
LARGEST = 10**30


class CallError(ValueError):
    """A macro call cannot be read or made; the message says what and how to write it instead.

    Macros raise it without the call's text, which `render_calls` adds.
    """


@dataclass(frozen=True)
class Call:
    """One macro call as the author wrote it: its text, its line in the file, the macro and its arguments."""

    text: str
    line: int
    name: str
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]


def _literal(node: ast.expr, text: str) -> Any:
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(item, text) for item in node.elts]
    if isinstance(node, ast.Dict):
        mapping = {}
        for key_node, value_node in zip(node.keys, node.values, strict=True):
            if key_node is None:  # `**` unpacks nothing here
                raise CallError(f"{text}: a mapping's key is text or a number, not **")
            key = _literal(key_node, text)
            if not isinstance(key, str | int | float):  # a list is no key
                raise CallError(f"{text}: a mapping's key is text or a number, not {ast.unparse(key_node)}")
            if key in mapping:  # Python keeps the last value of a key given twice, in silence
                raise CallError(f"{text}: the key {ast.unparse(key_node)} is given twice in a mapping; give it once")
            mapping[key] = _literal(value_node, text)
        return mapping
    try:
        value = ast.literal_eval(node)
    except ValueError:
        raise CallError(
            f'{text}: arguments are written as literals ("text", 3, true, [1, 2]), not {ast.unparse(node)}'
        ) from None
    number = isinstance(value, int | float | complex) and not isinstance(value, bool)
    # A whole number is compared as one: one of 400 digits has no float to be tested as.
    too_large = (
        number
        and not isinstance(value, complex)
        and abs(value) > (LARGEST if isinstance(value, int) else float(LARGEST))
    )
    if number and (isinstance(value, complex) or too_large or not math.isfinite(value)):
        # A whole number's digits are not written out: Python refuses to write one of more than 4,300.
        digits = int(abs(value).bit_length() * math.log10(2)) + 1 if isinstance(value, int) else 0
        written = f"one of about {digits:,} digits" if too_large and isinstance(value, int) else value
        raise CallError(f"{text}: a number in a call is finite and at most 10^30 in size, not {written}")
    return value


@lru_cache(maxsize=4096)
def _syntax(text: str) -> ast.Call | None:
    """The call `text` is, parsed once however often a course writes it; None when it is not a call."""
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return None
    return tree.body if isinstance(tree.body, ast.Call) else None


def parse_call(text: str, line: int) -> Call:
    """The call in `text`, the inside of `{{ }}`.

    >>> parse_call(' value("gpt2-1.5b", "parameters", short=true) ', 12).kwargs
    {'short': True}
    """
    written = "{{" + text + "}}"
    call = _syntax(text.strip())
    if call is None or not isinstance(call.func, ast.Name):
        raise CallError(
            f'{written}: write a macro call with literal arguments, such as {{{{ value("gpt2-1.5b", "parameters") }}}}'
        )
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        raise CallError(f"{written}: write every argument out; * and ** are not read")
    names = [keyword.arg for keyword in call.keywords]
    twice = next((name for index, name in enumerate(names) if name in names[:index]), None)
    if twice is not None:  # Python's parser keeps the last of an argument given twice, in silence
        raise CallError(f"{written}: {twice} is given twice; give it once")
    try:
        args = tuple(_literal(arg, written) for arg in call.args)
        kwargs = {keyword.arg: _literal(keyword.value, written) for keyword in call.keywords if keyword.arg}
    except RecursionError:  # an argument nested hundreds deep (- - - … 1, [[[…]]]): no value is written so
        raise CallError(f"{written}: an argument is nested too deeply to read; write its value out") from None
    return Call(text=" ".join(written.split()), line=line, name=call.func.id, args=args, kwargs=kwargs)


def code_ranges(markdown: str) -> list[tuple[int, int]]:
    """Where `markdown` holds code (fenced blocks, indented code blocks and code spans), as ranges of its
    characters, in order. Each is looked up by bisection (`in_code`), so that a page of 20,000 code spans is read
    in linear time, where a scan of the ranges so far for each span took the build from 8 to 42 s."""
    fences = [match.span() for match in _FENCE.finditer(markdown)]
    blocks = sorted(fences + [span for span in _indented_code(markdown) if not in_code(fences, span[0])])
    spans = [match.span() for match in _CODE_SPAN.finditer(markdown) if not in_code(blocks, match.start())]
    return sorted(blocks + spans)


def fences_blanked(markdown: str) -> str:
    r"""`markdown` with its fenced code blocks blanked, their line breaks kept: where a line is looked for by what it
    says (a quiz's header), one that a code block shows as an example is not it.

    >>> fences_blanked("```\n/// quiz\n```\n/// quiz")
    '\n\n\n/// quiz'
    """
    return _FENCE.sub(lambda fence: re.sub(r"[^\n]", "", fence.group(0)), markdown)


def in_code(ranges: list[tuple[int, int]], position: int) -> bool:
    """Whether `position` is inside one of `ranges`, sorted ranges that do not overlap (`code_ranges`)."""
    index = bisect.bisect_right(ranges, (position, math.inf)) - 1
    return index >= 0 and ranges[index][0] <= position < ranges[index][1]


def _indented_code(markdown: str) -> list[tuple[int, int]]:
    r"""Where `markdown` holds indented code blocks, as ranges of its characters, as Python-Markdown reads them:
    a block (its lines between blank lines) whose first line is indented by four columns, unless it follows a
    list item or an admonition, whose content it is (read again four columns in, where a block indented by
    four more is code).

    >>> text = "A\n\n    code\n\n!!! note\n\n    not code\n\n        code"
    >>> [text[start:end] for start, end in _indented_code(text)]
    ['    code\n', '        code']
    """
    lines = markdown.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    ranges: list[tuple[int, int]] = []

    def read(first: int, end: int, indent: int) -> None:
        """Read lines `first` to `end` as the blocks of one container, each line `indent` columns in."""
        blocks: list[tuple[int, int]] = []
        for number in range(first, end):
            if not lines[number].strip():
                continue
            if blocks and blocks[-1][1] == number:
                blocks[-1] = (blocks[-1][0], number + 1)
            else:
                blocks.append((number, number + 1))
        content: tuple[int, int] | None = None  # the indented blocks of the container before them, so far
        container = False
        for start, stop in blocks:
            text = lines[start].expandtabs(INDENT)[indent:]
            if text.startswith(" " * INDENT) and (container or content is not None):
                content = (content[0] if content else start, stop)
                continue
            if content is not None:
                read(*content, indent + INDENT)
                content = None
            if text.startswith(" " * INDENT):
                ranges.append((offsets[start], offsets[stop]))
            container = _CONTAINER.match(text) is not None
        if content is not None:
            read(*content, indent + INDENT)

    read(0, len(lines), 0)
    return ranges


#: What rendering does with a problem: report it (file, line, message) and return what to show in its place.
Report = Callable[[int, str], str]
#: What rendering hands on about each call that rendered: the call, and what its macro returned.
Inspect = Callable[[Call, str], None]


@lru_cache(maxsize=1024)
def _signature(macro: Callable[..., str]) -> inspect.Signature | None:
    """The macro's signature, with its annotations read; None where it has none to read."""
    try:
        return inspect.signature(macro, eval_str=True)
    except (TypeError, ValueError, NameError):
        return None


def usage(name: str, signature: inspect.Signature) -> str:
    """How to call a macro, as a page writes it: `term(name, link=None)`."""
    written = []
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            written.append("arguments…")
        elif parameter.kind is parameter.VAR_KEYWORD:
            written.append("options…")
        else:
            default = parameter.default
            written.append(parameter.name if default is parameter.empty else f"{parameter.name}={default!r}")
    return f"{name}({', '.join(written)})"


def check_call(macro: Callable[..., str], call: Call) -> None:
    """Raise `CallError` unless `call`'s arguments fit the macro's signature and its parameters' types.

    >>> def term(name: str, link: bool | None = None) -> str: ...
    >>> check_call(term, Call('{{ term("x", link="no") }}', 1, "term", ("x",), {"link": "no"}))
    Traceback (most recent call last):
    ...
    macros.build.calls.CallError: link is true or false or none, got 'no'; call it as term(name, link=None)
    """
    signature = _signature(macro)
    if signature is None:
        return
    try:
        bound = signature.bind(*call.args, **call.kwargs)
        for name, value in bound.arguments.items():
            check_argument(name, value, signature.parameters[name].annotation)
    except (TypeError, ValueError) as error:
        raise CallError(f"{error}; call it as {usage(call.name, signature)}") from None


#: The places of a line where Markdown or HTML writes an attribute, not text, as what comes before a call on its line
#: ends: an open HTML tag, an image's alt text, a link's address or title, an abbreviation's or a reference's
#: definition, an attribute list (`{: title="…" }`).
_ATTRIBUTE_PLACES = (
    (re.compile(r"<[A-Za-z][^<>]*$"), "an HTML tag"),
    (re.compile(r"!\[[^\]]*$"), "an image's alt text"),
    (re.compile(r"\]\([^)]*$"), "a link's or an image's address or title"),
    (re.compile(r"^\s*\*\[[^\]]*\]:"), "an abbreviation's definition"),
    (re.compile(r"^\s{0,3}\[[^\]]+\]:"), "a reference's definition"),
    (re.compile(r"\{:[^{}]*$"), "an attribute list"),
)


def attribute_place(markdown: str, position: int) -> str | None:
    """Where a call at `position` of `markdown` stands if it is in an attribute (`_ATTRIBUTE_PLACES`), else None.

    >>> attribute_place("![alt {{ x() }}](a.png)", 6), attribute_place("A {{ x() }} b", 2)
    ("an image's alt text", None)
    """
    before = markdown[markdown.rfind("\n", 0, position) + 1 : position]
    return next((place for pattern, place in _ATTRIBUTE_PLACES if pattern.search(before)), None)


def render_calls(
    markdown: str,
    macros: Mapping[str, Callable[..., str]],
    report: Report,
    first_line: int = 1,
    inspect_call: Inspect | None = None,
) -> str:
    """`markdown` with every macro call replaced by what its macro returns.

    `first_line` is the file's line number of the Markdown's first line (after
    the front matter). A call that cannot be read or made, a template
    statement, or a call inside code is passed to `report` with its line, and
    replaced by what `report` returns; `inspect_call`, if given, sees every call
    that rendered, with what its macro returned.
    """
    code = code_ranges(markdown)
    parts: list[str] = []
    position = 0
    for match in _TEMPLATE.finditer(markdown):
        parts.append(markdown[position : match.start()])
        position = match.end()
        line = first_line + markdown.count("\n", 0, match.start())
        written = " ".join(match.group(0).split())
        if match.group("call") is None:
            parts.append(report(line, f"{written}: a page holds macro calls only, {{{{ name(arguments) }}}}"))
            continue
        if in_code(code, match.start()):
            parts.append(report(line, f"{written} is inside code, where it would show as raw HTML; move it out"))
            continue
        place = attribute_place(markdown, match.start())
        if place is not None:
            # Its HTML would land inside the attribute, unescaped, and end it: the image lost its source, the link
            # its address (attack round 10). Told, and left out of the attribute meanwhile.
            report(
                line, f"{written} is inside {place}, which holds text, not a figure's HTML; write it in the sentence"
            )
            continue
        try:
            call = parse_call(match.group("call"), line)
        except CallError as error:
            parts.append(report(line, str(error)))
            continue
        macro = macros.get(call.name)
        if macro is None:
            known = ", ".join(sorted(macros))
            parts.append(report(line, f"{call.text}: there is no macro {call.name!r}; the macros are {known}"))
            continue
        try:
            check_call(macro, call)
            output = macro(*call.args, **call.kwargs)
        except CallError as error:
            parts.append(report(line, f"{call.text}: {error}"))
            continue
        except Exception as error:  # an argument the macro did not foresee: still the author's line, no traceback
            log.debug("%s raised", call.text, exc_info=True)
            signature = _signature(macro)
            how = f"; call it as {usage(call.name, signature)}" if signature else ""
            detail = f"{type(error).__name__}: {error}"[:300]
            parts.append(report(line, f"{call.text}: an argument is not one the macro takes ({detail}){how}"))
            continue
        if inspect_call is not None:
            inspect_call(call, output)
        parts.append(output)
    parts.append(markdown[position:])
    return "".join(parts)
