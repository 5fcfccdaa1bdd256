"""Data as Markdown text: catalog and glossary values never become markup.

Authors and reviewers read the catalog and the glossary as data, so a value from
them enters a page only escaped: `<`, `&` and Markdown's own punctuation show as
the characters they are. A source's address is known to be http(s), checked
when the catalog loads. A page's title and description are refused when they
hold markup, since the theme writes them into the page unescaped; data a
script reads goes into the page as JSON that cannot end its `<script>`.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from .catalog import Source

#: What is markup where a theme writes text unescaped: a tag's bracket, a double quote that ends an
#: attribute, an ampersand that starts a character reference.
_MARKUP = re.compile(r'[<>"]|&(?=[#A-Za-z])')
#: Why a page's title and description must be plain, for a message.
PLAIN_FIELDS = (
    "a page's title and description are plain text, which the theme writes unescaped into the navigation,"
    " the browser tab, the search index and a meta tag: write them without <, > or double quotes, and without"
    " character references such as &lt;"
)

#: Markdown punctuation that could start emphasis, a link, code or an attribute list.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+!|~^])")


def markdown_text(value: str) -> str:
    """`value` as Markdown that renders exactly as `value` reads: no HTML, no emphasis, no link.

    >>> markdown_text('<img src=x onerror=alert(1)> *not* [a](b)')
    '&lt;img src=x onerror=alert\\\\(1\\\\)&gt; \\\\*not\\\\* \\\\[a\\\\]\\\\(b\\\\)'
    """
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(value, quote=False))


def markup_in(value: str) -> list[str]:
    """The characters of `value` that would be markup where a theme writes it unescaped, each once, in order.

    >>> markup_in('Tensor & pipeline <b>"x"</b> &amp;')
    ['<', '>', '"', '&']
    """
    return list(dict.fromkeys(match.group(0) for match in _MARKUP.finditer(value)))


def without_markup(value: str) -> str:
    """`value` without the characters `markup_in` finds: what a page shows while its problem is reported."""
    return _MARKUP.sub("", value)


def link_title(value: str) -> str:
    """`value` for the "title" of a Markdown link, which reads as `value`: one line, its double quotes made
    typographic, its `&` escaped (Markdown passes a character reference in a title through, to be decoded).

    >>> link_title('say "&lt;b&gt;"')
    'say ”&amp;lt;b&amp;gt;”'
    """
    return " ".join(value.split()).replace('"', "”").replace("&", "&amp;")


def source_citation(source: Source) -> str:
    """A source as Markdown: its title in quotes, linked where it has an address, then its citation."""
    title = markdown_text(source.title)
    linked = f"[{title}](<{source.url}>)" if source.url else title
    return f"“{linked}”, {markdown_text(source.cite)}"


def script_json(data: Any) -> str:
    """`data` as compact JSON to sit in a `<script type="application/json">`: it can neither end that element nor
    start markup, since `<`, `>` and `&` are written as JSON escapes.

    >>> print(script_json({"name": "</script><img src=x>&amp;"}))
    {"name":"\\u003c/script\\u003e\\u003cimg src=x\\u003e\\u0026amp;"}
    """
    encoded = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return encoded.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
