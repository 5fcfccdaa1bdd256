"""Data as Markdown text: catalog and glossary values never become markup.

Authors and reviewers read the catalog and the glossary as data, so a value from
them enters a page only escaped: `<`, `&` and Markdown's own punctuation show as
the characters they are. A source's address is known to be http(s), checked
when the catalog loads.
"""

from __future__ import annotations

import html
import re

from .catalog import Source

#: Markdown punctuation that could start emphasis, a link, code or an attribute list.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+!|~^])")


def markdown_text(value: str) -> str:
    """`value` as Markdown that renders exactly as `value` reads: no HTML, no emphasis, no link.

    >>> markdown_text('<img src=x onerror=alert(1)> *not* [a](b)')
    '&lt;img src=x onerror=alert\\\\(1\\\\)&gt; \\\\*not\\\\* \\\\[a\\\\]\\\\(b\\\\)'
    """
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(value, quote=False))


def link_title(value: str) -> str:
    """`value` for the "title" of a Markdown link: one line, its double quotes made typographic."""
    return " ".join(value.split()).replace('"', "”")


def source_citation(source: Source) -> str:
    """A source as Markdown: its title in quotes, linked where it has an address, then its citation."""
    title = markdown_text(source.title)
    linked = f"[{title}](<{source.url}>)" if source.url else title
    return f"“{linked}”, {markdown_text(source.cite)}"
