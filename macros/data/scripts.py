"""What would run script in a reader's browser: in a page's finished HTML, or in a data file's text.

A page is text, figures and the course's own pictures; nothing in it runs code
of its own. `script_in` reads a page's HTML as a browser does (with Lexbor, a
browser engine's parser of the HTML standard, through selectolax: Python's
`html.parser` reads `<svg><style>`, `<!-->` and the like otherwise) and finds each
event handler (`on...=`), `javascript:`, `vbscript:` or `data:` address,
animation of an address, script that is not one of the course's files, and
element that embeds a document of its own, however it got there; the build
refuses each at the line it was typed on. `markup_not_allowed` finds, in the
HTML an author typed, any element or style outside the few a lesson needs (no
`<svg>`, `<style>`, `<link>`, `<noscript>`, `<form>`...): what is not on the
list is refused, so that a browser's reading no check foresaw never reaches a
page. `script_in_text` finds the same in a value of a data file, which the
pages show as text: written there, it is an author's mistake or an attack, and
the build refuses it at its file and line rather than show it as words.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

#: Attributes that hold an address a browser follows or loads (HTML's and SVG's), and the values an SVG
#: animation gives an attribute (`values`, `to`, `from`, `by`), which may be an address.
_ADDRESS_ATTRIBUTES = frozenset(
    {"href", "src", "action", "formaction", "xlink:href", "poster", "data", "background", "cite", "ping", "srcset"}
    | {"values", "to", "from", "by"}
)
#: Schemes whose address runs script, or carries a document of its own, where a browser follows it.
_SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:")
#: Elements that load or run a document or code of their own; a `<template>`'s content is a document apart,
#: which a parser does not show as the page's (and `shadowrootmode` makes it one that runs); a `<noscript>`'s
#: is text to a browser that runs scripts and markup to this parser, which has none: what ends it differs.
_EMBEDDING = frozenset({"iframe", "frame", "object", "embed", "applet", "base", "portal", "template", "noscript"})
#: SVG's elements that change another attribute while the page is open: pointed at a link's address, one makes
#: a `javascript:` link that no attribute of the page's HTML spells.
_ANIMATIONS = frozenset({"animate", "set", "animatemotion", "animatetransform"})
#: The one script a page's content may load: one of the course's own, by a relative address, with no body.
_COURSE_SCRIPT = re.compile(r"(?:\.\./)*assets/javascripts/[a-z0-9-]+\.js")
#: What a browser drops from an address before it reads its scheme: spaces and control characters.
_ADDRESS_BLANKS = re.compile(r"[\x00-\x20\x7f]+")

#: The elements an author may type as HTML in a page: the few a lesson writes by hand (`<div markdown>`,
#: `<sub>`) and the Markdown syntax's own (an author may spell `<em>` for `*`). Anything else (SVG or MathML
#: typed by hand, `<style>`, `<link>`, `<noscript>`, `<template>`, a form) is refused: a picture is a macro's,
#: a style the course's, and a browser's reading of the rest is where checks and browsers part.
ALLOWED_ELEMENTS = frozenset(
    {"p", "div", "span", "a", "em", "strong", "b", "i", "code", "pre", "kbd", "sub", "sup", "ins", "del", "mark"}
    | {"h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "blockquote", "hr", "br", "img", "abbr"}
    | {"details", "summary", "figure", "figcaption", "table", "thead", "tbody", "tr", "th", "td", "caption"}
)
#: The attributes an author may give an element, in HTML or with an attribute list (`{: ... }`), beside the
#: event handlers and addresses that `script_in` tells of. The rest belong to the theme's scripts and the
#: course's, which find their elements by them: a `data-*` attribute they read (`data-md-component`), `hidden`,
#: `tabindex` or an `aria-*` that changes what a reader can reach or hears (and hides words from the checks).
AUTHOR_ATTRIBUTES = frozenset(
    {"id", "class", "title", "lang", "dir", "style", "markdown", "href", "src", "alt", "width", "height"}
    | {"colspan", "rowspan", "scope", "start", "open"}
)
#: The classes an author may give: Material's wrappers of a table, which a lesson puts around a wide one, and
#: its grids (style alone). Any other is a name the theme or the course acts on (`mermaid` makes Material load
#: a script from another host, `annotate`, `md-*`, `sbn-*`) or styles as its own.
AUTHOR_CLASSES = frozenset({"md-typeset__scrollwrap", "md-typeset__table", "grid", "cards"})
#: The classes the highlighter gives fenced code's wrapper.
_CODE_CLASS = re.compile(r"highlight|language-[\w+#.-]+")
#: Ids the theme's scripts look up (`__config`, which holds its whole configuration: the first element of that
#: id wins, and a page's content comes before the theme's own) and the course's (`sbn-figures`), and the names of
#: the course's globals (`window.sbnAnswers`, `sbnFrames`, ...): a browser makes an element's id a global of that
#: name where none is set yet, so an element `id="sbnAnswers"` would stand in for the script that sets it.
_RESERVED_ID = re.compile(r"__|sbn", re.IGNORECASE)
#: What in a `style` attribute loads from elsewhere or runs: an address, an import, IE's expression().
_STYLE_LOADS = re.compile(r"(?:url|image-set|expression)(?=\s*\()|@import", re.IGNORECASE)
#: CSS's escapes (`\75` or `\u` for "u") and comments, which a browser reads before any name.
_CSS_ESCAPE = re.compile(r"\\(?:([0-9a-fA-F]{1,6})\s?|(.))", re.DOTALL)
_CSS_COMMENT = re.compile(r"/\*.*?(?:\*/|$)", re.DOTALL)
#: Elements that `script_in` already tells of: off the list too, but told once, as script.
_TOLD_AS_SCRIPT = _EMBEDDING | {"script"}


@dataclass(frozen=True)
class ScriptFound:
    """What in a page would run script (`what`); the name it is written with (an attribute's or element's) and
    its value as the browser reads it, to find the line it was typed on."""

    what: str
    name: str
    value: str = ""


def _parse(fragment: str) -> LexborHTMLParser:
    """An HTML fragment in a page's `<body>`, as a browser's parser builds it (the HTML standard's algorithm)."""
    return LexborHTMLParser(f"<!DOCTYPE html><body>{fragment}")


def _body(fragment: str) -> LexborNode:
    """The `<body>` that holds an HTML fragment once parsed."""
    body = _parse(fragment).body
    assert body is not None, "a parser always makes a <body>"
    return body


def _children(element: LexborNode) -> Iterator[tuple[str, LexborNode]]:
    """`element`'s child elements with their names as HTML writes them (lowercase; SVG's and MathML's alike),
    comments and text left out."""
    for child in element.iter(include_text=False):
        name = (child.tag or "-").lower()
        if not name.startswith("-"):  # "-comment"
            yield name, child


def _elements(fragment: str) -> Iterator[tuple[str, dict[str, str], str]]:
    """Each element of an HTML fragment as a browser's parser builds it, in document order, with the document's
    own `<html>` and `<body>` (which take the attributes of any typed in it): its name, its attributes (names
    lowercase, xlink's as `xlink:href`) and, for a script, its code."""
    root = _parse(fragment).root
    for element in root.traverse(include_text=False) if root is not None else ():
        name = (element.tag or "-").lower()
        if name.startswith("-"):
            continue  # a comment, whose text no browser runs
        attributes = {key.lower(): value or "" for key, value in element.attributes.items()}
        yield name, attributes, element.text(deep=False) if name == "script" else ""


def script_in(page_html: str) -> list[ScriptFound]:
    """What in an HTML fragment would run script or load a document of its own, in order: each place once,
    so that two links of the same address are two findings, each at its own line.

    >>> [found.what for found in script_in('<p><em onfocus="x()">a</em> <a href=" JaVa&#x09;script:x">b</a></p>')]
    ['an onfocus attribute on a <em>', 'a javascript: address in the href of a <a>']
    >>> [found.what for found in script_in('<svg><style><img src=x onerror=y()></style></svg>')]
    ['an onerror attribute on a <img>']
    """
    found: list[ScriptFound] = []
    for tag, attributes, text in _elements(page_html):
        for name, value in attributes.items():
            if name.startswith("on"):
                found.append(ScriptFound(f"an {name} attribute on a <{tag}>", name, value))
            elif name in _ADDRESS_ATTRIBUTES:
                # As a browser reads an address: spaces and control characters around and inside it are dropped.
                address = _ADDRESS_BLANKS.sub("", value).lower()
                scheme = next((s for s in _SCRIPT_SCHEMES if address.startswith(s) or f",{s}" in address), None)
                if scheme:
                    found.append(ScriptFound(f"a {scheme} address in the {name} of a <{tag}>", name, value))
            elif name == "srcdoc":
                found.append(ScriptFound(f"a srcdoc attribute on a <{tag}>", name, value))
        if tag in _EMBEDDING:
            found.append(ScriptFound(f"a <{tag}> element", f"<{tag}"))
        elif tag in _ANIMATIONS and attributes.get("attributename", "").lower() in {"href", "xlink:href"}:
            found.append(
                ScriptFound(f"a <{tag}> that changes a link's address", f"<{tag}", attributes["attributename"])
            )
        elif tag == "meta" and attributes.get("http-equiv", "").lower() == "refresh":
            found.append(ScriptFound("a <meta http-equiv=refresh>", "http-equiv"))
        elif tag == "script":
            src = attributes.get("src", "")
            code = text.strip().split("\n", 1)[0].strip()
            if not _COURSE_SCRIPT.fullmatch(src):
                found.append(
                    ScriptFound(
                        f"a <script> that is not one of the course's ({src or 'inline'})", "<script", src or code
                    )
                )
            elif code:
                found.append(ScriptFound("a <script> with code in it", "<script", code))
    return found


def attributes_not_allowed(tag: str, attributes: Mapping[str, str]) -> list[ScriptFound]:
    """The attributes of an element an author gave (`tag`, `attributes`) that a page's content does not take:
    one outside `AUTHOR_ATTRIBUTES`, a class outside `AUTHOR_CLASSES`, an id of the theme's or the course's.
    Event handlers are left to `script_in`, which tells them as script.

    >>> [found.what for found in attributes_not_allowed("div", {"id": "__config", "hidden": ""})]
    ["an id='__config', which the theme's or the course's scripts look up", 'a hidden attribute on a <div>']
    >>> [found.what for found in attributes_not_allowed("pre", {"class": "mermaid"})]
    ["a class='mermaid' on a <pre>, which the theme's or the course's scripts act on"]
    """
    found: list[ScriptFound] = []
    for name, value in attributes.items():
        if name.startswith("on"):
            continue
        if name not in AUTHOR_ATTRIBUTES:
            article = "an" if name[:1] in "aeiou" else "a"
            found.append(ScriptFound(f"{article} {name} attribute on a <{tag}>", name, value))
        elif name == "id" and reserved_id(value):
            found.append(
                ScriptFound(f"an id={value!r}, which the theme's or the course's scripts look up", name, value)
            )
        elif name == "class":
            found.extend(
                ScriptFound(
                    f"a class={token!r} on a <{tag}>, which the theme's or the course's scripts act on", name, value
                )
                for token in value.split()
                if token not in AUTHOR_CLASSES
            )
    return found


def reserved_id(value: str) -> bool:
    """Whether an element's id `value` is one the theme's or the course's scripts look up (`_RESERVED_ID`): one the
    page's content may not give, whether an author writes it or the glossary makes it an entry's anchor.

    >>> reserved_id("sbn-tip-text"), reserved_id(" __palette"), reserved_id("all-reduce")
    (True, True, False)
    """
    return _RESERVED_ID.match(value.strip()) is not None


def ids_given_twice(page_html: str) -> dict[str, int]:
    """The ids that two elements or more of a whole page share, in order, with how many hold each: a script that
    looks one up finds the first.

    >>> ids_given_twice('<p id="a"></p><div id="b"></div><script id="a"></script>')
    {'a': 2}
    """
    root = _parse(page_html).root
    ids = [element.attributes.get("id") or "" for element in root.css("[id]")] if root is not None else []
    return {name: count for name, count in Counter(ids).items() if count > 1}


@dataclass(frozen=True)
class Renamed:
    """A heading the toc extension gave a suffixed id (`notes_1`): the id its text would give (`notes`), which
    another element holds, its text, and whether that element is a heading too."""

    taken: str
    text: str
    by_heading: bool


def headings_renamed(page_html: str) -> dict[str, Renamed]:
    """The headings of a page whose id the toc extension suffixed (`notes_1`) because another element held the id
    it would have given (`notes`), by their suffixed ids. (Two headings of one text are among them.)

    >>> headings_renamed('<p id="notes"></p><h2 id="notes_1">Notes</h2><h2 id="a_1">A</h2>')
    {'notes_1': Renamed(taken='notes', text='Notes', by_heading=False)}
    """
    root = _parse(page_html).root
    if root is None:
        return {}
    holders = {element.attributes.get("id") or "": element.tag for element in reversed(root.css("[id]"))}
    renamed = {}
    for heading in root.css("h1, h2, h3, h4, h5, h6"):
        suffixed = re.fullmatch(r"(.+)_\d+", heading.attributes.get("id") or "")
        if suffixed and suffixed.group(1) in holders:
            by_heading = re.fullmatch(r"h[1-6]", holders[suffixed.group(1)] or "") is not None
            text = heading.text(deep=True)
            permalink = heading.css_first("a.headerlink")  # the toc's own "¶", after the heading's text
            if permalink is not None:
                text = text.removesuffix(permalink.text(deep=True))
            text = " ".join(text.split())
            renamed[suffixed.group(0)] = Renamed(suffixed.group(1), text, by_heading)
    return renamed


#: An ATX heading's line: its text, without closing hashes or an attribute list.
_ATX_HEADING = re.compile(r" {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*(?:\{[^{}]*\})?[ \t]*")
#: Inline markup that a heading's text loses in its HTML.
_INLINE_MARKS = re.compile(r"[*_`~]")


def heading_lines(source: str, text: str) -> list[int]:
    r"""The lines of a page's `source` (numbered from 1) that write an ATX heading of the text `text` as its HTML
    shows it (inline emphasis and code marks dropped, spaces collapsed, in any case).

    >>> heading_lines("# A\n\n## Quiz *l8* practice {#x}\n### Quiz l8\n", "Quiz l8 practice")
    [3]
    """
    wanted = " ".join(text.split()).casefold()
    found = []
    for number, line in enumerate(source.splitlines(), start=1):
        heading = _ATX_HEADING.fullmatch(line)
        if heading and " ".join(_INLINE_MARKS.sub("", heading.group(1)).split()).casefold() == wanted:
            found.append(number)
    return found


#: The prefixes the course's blocks put before an id the author gave (`id:` of a quiz, `items:` of a checklist).
_BLOCK_PREFIXES = ("quiz-", "check-")


def lines_repeating_id(source: str, element_id: str, count: int) -> list[int]:
    r"""The lines of a page's `source` (numbered from 1) that give an element the id `element_id`, which the page's
    HTML holds `count` times: each line that writes it (`{#id}`, `{: #id }`, `id="id"`) when the page's own
    blocks give it too (a quiz's form, a checklist's box), else each written after the first; where none writes
    it, the block lines (`id:`, `items:`) after the first that give it; none when the source spells it nowhere.

    >>> lines_repeating_id("/// quiz | P\n    id: a\n///\n\n## Notes {#quiz-a}\n", "quiz-a", 2)
    [5]
    >>> lines_repeating_id('<p id="b">x</p>\n\nY\n{: #b }\n', "b", 2)
    [4]
    """
    name = re.escape(element_id)
    written = re.compile(
        rf"\{{:?[^{{}}\n]*(?<![\w-])#{name}(?![\w-])[^{{}}\n]*\}}|(?<![\w-])id\s*=\s*([\"']?){name}\1(?![\w-])"
    )
    lines = source.splitlines()
    found = [number for number, line in enumerate(lines, start=1) if written.search(line)]
    if found:
        return found if count > len(found) else found[1:]
    prefix = next((prefix for prefix in _BLOCK_PREFIXES if element_id.startswith(prefix)), None)
    if prefix is None:
        return []
    given = re.escape(element_id.removeprefix(prefix))
    block = re.compile(rf"(?:(?<![\w-])id\s*:\s*|items\s*:.*)([\"']?)(?<![\w-]){given}\1(?![\w-])")
    return [number for number, line in enumerate(lines, start=1) if block.search(line)][1:]


def _css_as_read(css: str) -> str:
    r"""CSS as a browser reads its names: comments dropped, escapes decoded.

    >>> _css_as_read("background: \\75 rl(x) /* a */ u\\rl(y)")
    'background: url(x)  url(y)'
    """

    def decoded(match: re.Match[str]) -> str:
        if match.group(2) is not None:
            return match.group(2)
        point = int(match.group(1), 16)
        return chr(point) if 0 < point <= 0x10FFFF else "\ufffd"

    return _CSS_ESCAPE.sub(decoded, _CSS_COMMENT.sub("", css))


def markup_not_allowed(typed: Iterable[str], own_html: str, code: Iterable[str] = ()) -> list[ScriptFound]:
    """What the HTML an author typed (`typed`, piece by piece as Markdown stashed it) holds that is not on the
    course's list (`ALLOWED_ELEMENTS`): each place, but none inside one already told and none that `script_in`
    tells of, and each attribute of the others that an author does not give (`attributes_not_allowed`); and
    each `style` attribute in the page's own HTML (`own_html`, attribute lists' too) that loads something.
    Fenced code as the highlighter wrote it (`code`) is held to the attributes alone, on its wrapper: the
    highlighter's classes (`highlight`, `language-*`) are its own, and it escapes the code's words.

    >>> typed = ['<div><sub>2</sub>', '<style>p{}</style>', '<div data-md-component="tabs">']
    >>> [found.what for found in markup_not_allowed(typed, '<p style="x:url(y)">')]
    ['a <style> element', 'a data-md-component attribute on a <div>', 'a style attribute that loads url(']
    """

    def outside_the_list(element: LexborNode) -> Iterator[ScriptFound]:
        """`element`'s descendants not on the list, an element's own inside it left untold, and the attributes
        of those on it that an author does not give."""
        for name, child in _children(element):
            if name not in ALLOWED_ELEMENTS:
                if name not in _TOLD_AS_SCRIPT:
                    yield ScriptFound(f"a <{name}> element", f"<{name}")
            else:
                attributes = {key.lower(): value or "" for key, value in child.attributes.items()}
                yield from attributes_not_allowed(name, attributes)
                yield from outside_the_list(child)

    def code_wrapper(element: LexborNode) -> Iterator[ScriptFound]:
        """The attributes a fence gave its highlighted code's wrapper (`{#id .class key=value}`)."""
        for name, child in _children(element):
            if name != "code":
                attributes = {key.lower(): value or "" for key, value in child.attributes.items()}
                classes = " ".join(
                    token for token in attributes.get("class", "").split() if not _CODE_CLASS.fullmatch(token)
                )
                yield from attributes_not_allowed(name, {**attributes, "class": classes})
                yield from code_wrapper(child)

    # Each piece alone: read together, one unclosed element (a <noscript>) would take in the rest, untold.
    found = [finding for piece in typed for finding in outside_the_list(_body(piece))]
    found += [finding for piece in code for finding in code_wrapper(_body(piece))]
    for _, attributes, _ in _elements(own_html):
        loads = _STYLE_LOADS.search(_css_as_read(attributes.get("style", "")))
        if loads:
            what = f"a style attribute that loads {loads.group(0).lower()}{'' if loads.group(0)[0] == '@' else '('}"
            found.append(ScriptFound(what, "style", attributes["style"]))
    return found


#: An attribute list (attr_list's `{: ... }`) that sets an event handler, as the site's Markdown would read it.
_ATTRIBUTE_LIST_HANDLER = re.compile(r"\{[^{}\n]*?(?<![\w:.-])(on[a-z]+)\s*=", re.IGNORECASE)
#: An address whose scheme runs script, as a Markdown link, a reference or an autolink would carry it: the scheme
#: not part of a longer word, and a data: address with its media type or its comma (not "data: the weights").
_SCRIPT_ADDRESS = re.compile(
    r"(?<![\w+.-])(?:(javascript|vbscript|livescript):|(data):(?:[a-z]+/[\w.+-]+)?[;,])", re.IGNORECASE
)
#: What a browser drops inside an address (tabs, line breaks and other controls), and a value's text keeps.
_INSIDE_ADDRESS = re.compile(r"[\x00-\x1f\x7f]+")


def script_in_text(value: str) -> list[ScriptFound]:
    """What in a data file's `value` would run script, were it ever read as HTML or as the site's Markdown: an
    event handler or an address of `script_in` in a tag, written as it is or with character references
    (`&lt;img onerror=...&gt;`); an event handler in an attribute list; a `javascript:`, `vbscript:` or
    `data:` address. Each finding's `name` is the text to look for on the value's lines.

    >>> [found.what for found in script_in_text('*x*{: onclick="y" } and [a](JavaScript:x)')]
    ['an onclick attribute in an attribute list', 'a javascript: address']
    >>> script_in_text("Two kinds of data: weights and activations, in 16-bit; see https://e.org/?q=on=1")
    []
    """
    found: list[ScriptFound] = []
    unescaped = html.unescape(value)
    for text in dict.fromkeys((value, unescaped)):
        if "<" in text:
            found.extend(script_in(text))
    for match in _ATTRIBUTE_LIST_HANDLER.finditer(unescaped):
        found.append(ScriptFound(f"an {match.group(1).lower()} attribute in an attribute list", match.group(1)))
    for match in _SCRIPT_ADDRESS.finditer(_INSIDE_ADDRESS.sub("", unescaped)):
        scheme = (match.group(1) or match.group(2)).lower()
        if not any(scheme in finding.what for finding in found):  # a tag's address is already told
            found.append(ScriptFound(f"a {scheme}: address", scheme))
    return list({finding.what: finding for finding in found}.values())
