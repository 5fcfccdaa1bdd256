"""What would run script in a reader's browser: in a page's finished HTML, or in a data file's text.

A page is text, figures and the course's own pictures; nothing in it runs code
of its own. `script_in` reads a page's HTML as a browser does and finds each
event handler (`on...=`), `javascript:`, `vbscript:` or `data:` address, script
that is not one of the course's files, and element that embeds a document of
its own, however it got there; the build refuses each at the line it was typed
on. `script_in_text` finds the same in a value of a data file, which the pages
show as text: written there, it is an author's mistake or an attack, and the
build refuses it at its file and line rather than show it as words.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, replace
from html.parser import HTMLParser

#: Attributes that hold an address a browser follows or loads (HTML's and SVG's).
_ADDRESS_ATTRIBUTES = frozenset(
    {"href", "src", "action", "formaction", "xlink:href", "poster", "data", "background", "cite", "ping", "srcset"}
)
#: Schemes whose address runs script, or carries a document of its own, where a browser follows it.
_SCRIPT_SCHEMES = ("javascript:", "vbscript:", "data:")
#: Elements that load or run a document or code of their own.
_EMBEDDING = frozenset({"iframe", "frame", "object", "embed", "applet", "base", "portal"})
#: The one script a page's content may load: one of the course's own, by a relative address, with no body.
_COURSE_SCRIPT = re.compile(r"(?:\.\./)*assets/javascripts/[a-z0-9-]+\.js")
#: What a browser drops from an address before it reads its scheme: spaces and control characters.
_ADDRESS_BLANKS = re.compile(r"[\x00-\x20\x7f]+")


@dataclass(frozen=True)
class ScriptFound:
    """What in a page would run script (`what`); the name it is written with (an attribute's or element's) and
    its value as the browser reads it, to find the line it was typed on."""

    what: str
    name: str
    value: str = ""


class _ScriptFinder(HTMLParser):
    """Reads HTML as a browser does (character references in attributes decoded) and notes what runs script."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[ScriptFound] = []
        self._script_src: str | None = None
        #: The finding of an inline script not the course's, whose value its code's first line becomes.
        self._inline: int | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(ScriptFound(f"an {name} attribute on a <{tag}>", name, value or ""))
            elif name in _ADDRESS_ATTRIBUTES and value is not None:
                # As a browser reads an address: spaces and control characters around and inside it are dropped.
                address = _ADDRESS_BLANKS.sub("", value).lower()
                scheme = next((s for s in _SCRIPT_SCHEMES if address.startswith(s) or f",{s}" in address), None)
                if scheme:
                    self.found.append(ScriptFound(f"a {scheme} address in the {name} of a <{tag}>", name, value))
            elif name == "srcdoc":
                self.found.append(ScriptFound(f"a srcdoc attribute on a <{tag}>", name, value or ""))
        if tag in _EMBEDDING:
            self.found.append(ScriptFound(f"a <{tag}> element", f"<{tag}"))
        elif tag == "meta" and any(n == "http-equiv" and (v or "").lower() == "refresh" for n, v in attrs):
            self.found.append(ScriptFound("a <meta http-equiv=refresh>", "http-equiv"))
        elif tag == "script":
            src = dict(attrs).get("src") or ""
            # One of ours is checked for a body of code; any other is reported once, as it is.
            self._script_src = src if _COURSE_SCRIPT.fullmatch(src) else None
            if self._script_src is None:
                self.found.append(
                    ScriptFound(f"a <script> that is not one of the course's ({src or 'inline'})", "<script", src)
                )
                self._inline = None if src else len(self.found) - 1

    def handle_data(self, data: str) -> None:
        code = data.strip().split("\n", 1)[0].strip()
        if self._script_src is not None and code:
            self.found.append(ScriptFound("a <script> with code in it", "<script", code))
        elif self._inline is not None and code:
            self.found[self._inline] = replace(self.found[self._inline], value=code)
            self._inline = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script_src = self._inline = None


def script_in(page_html: str) -> list[ScriptFound]:
    """What in an HTML fragment would run script or load a document of its own, in order: each place once,
    so that two links of the same address are two findings, each at its own line.

    >>> [found.what for found in script_in('<p><em onfocus="x()">a</em> <a href=" JaVa&#x09;script:x">b</a></p>')]
    ['an onfocus attribute on a <em>', 'a javascript: address in the href of a <a>']
    """
    finder = _ScriptFinder()
    finder.feed(page_html)
    finder.close()
    return finder.found


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
