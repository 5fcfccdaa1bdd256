"""Data in a page: catalog and glossary values never become markup, and no page's content runs script.

Authors and reviewers read the catalog and the glossary as data, so a value
from them enters a page only as text. Where it can, the build puts it into a
page as HTML made here (`source_html`, `link_html`), escaped and stashed as a
figure's element is, so the page's Markdown never reads it (the front door's
summaries and descriptions too); where a value must be Markdown (a title in a
heading or a link's text), `markdown_text` writes it as one line of Markdown
that renders exactly as it reads. A source's
address is known to be http(s), checked when the catalog loads. A page's title
and description are refused when they hold markup, since the theme writes them
into the page unescaped; data a script reads goes into the page as JSON that
cannot end its `<script>`. Last, `macros.data.scripts` finds what in a page's
finished HTML, or in a data file's text, would run script (an event handler, a
`javascript:` or `data:` address, a script of no course file), reading HTML as
a browser does, and any element an author typed that is not on the course's
short list (no `<svg>`, `<style>` or `<link>` by hand): the build refuses each,
at its file and line.
"""

from __future__ import annotations

import html
import json
import re
import xml.etree.ElementTree as etree
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import markdown

if TYPE_CHECKING:  # the catalog checks its stages' text with `markup_in`: only the type is needed here
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

#: A lesson's heading, rendered as its page renders it (`# ` and the title, with the inline syntax of mkdocs.yml's
#: extensions that reads there), to compare with the title as the tab, the navigation and search show it.
_HEADING = markdown.Markdown(extensions=["attr_list", "pymdownx.caret"])


def heading_html(title: str) -> str:
    """The HTML of a heading that reads `title`, as its page renders it.

    >>> heading_html("Why *ZeRO* shards")
    '<h1>Why <em>ZeRO</em> shards</h1>'
    """
    return _HEADING.reset().convert(f"# {title}")


def markdown_in(title: str) -> str | None:
    """What the heading of `title` reads, where Markdown renders it otherwise than `title` is written (emphasis, a
    link, code, a backslash escape); None where it reads as written. Markup (`markup_in`) is refused first.

    >>> markdown_in("Why *ZeRO* shards"), markdown_in("ZeRO_1 and 2 * 3")
    ('Why ZeRO shards', None)
    """
    shown = " ".join(html.unescape(re.sub(r"<[^>]*>", "", heading_html(title))).split())
    return shown if shown != " ".join(title.split()) else None


#: Why a lesson's title must not render as Markdown, for a message.
PLAIN_TITLE = (
    "its heading would render what the tab, the navigation and search show as typed: write the title in plain"
    " words, without Markdown's *, _, `, [ ](...), ^^ or backslash escapes"
)

#: Punctuation that starts Markdown's inline syntax, which a backslash escapes: the characters Python-Markdown's
#: backslash escapes accept (`markdown.Markdown.ESCAPED_CHARS`, with the site's tables and caret), so that
#: each renders as itself, its backslash gone.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()#+\-.!|^])")
#: Other ASCII punctuation, which no backslash escapes: as the first character of a line it can open a block
#: (`???` details, `///` blocks, `~~~` a fence, `===` or `:` of extensions); written as a character reference.
_LEADING = re.compile(r"^([!-/:-@\[-`{-~])")


def markdown_text(value: str) -> str:
    """`value` as one line of Markdown that renders exactly as `value` reads: no HTML, no emphasis, no link, and no
    block (a list, a heading, a rule, a details block) wherever the line is put; its line breaks become spaces.

    >>> markdown_text('<img src=x onerror=alert(1)> *not* [a](b)')
    '&lt;img src=x onerror=alert\\\\(1\\\\)&gt; \\\\*not\\\\* \\\\[a\\\\]\\\\(b\\\\)'
    >>> markdown_text('??? note\\n\\n- a list')
    '&#63;?? note \\\\- a list'
    """
    text = " ".join(value.split())
    head = ""
    if _LEADING.match(text) and not _MARKDOWN_PUNCTUATION.match(text) and text[0] not in "<>&":
        head, text = f"&#{ord(text[0])};", text[1:]
    return head + _MARKDOWN_PUNCTUATION.sub(r"\\\1", html.escape(text, quote=False))


def markup_in(value: str) -> list[str]:
    """The characters of `value` that would be markup where a theme writes it unescaped, each once, in order.

    >>> markup_in('Tensor & pipeline <b>"x"</b> &amp;')
    ['<', '>', '"', '&']
    """
    return list(dict.fromkeys(match.group(0) for match in _MARKUP.finditer(value)))


def without_markup(value: str) -> str:
    """`value` without the characters `markup_in` finds: what a page shows while its problem is reported."""
    return _MARKUP.sub("", value)


def link_html(text: str, href: str, **attributes: str) -> str:
    """A link as HTML: `text` shown as it reads, every attribute escaped (in the order Python-Markdown writes them).

    >>> link_html('a "b" <c> &lt;', "https://x/?a=1&b=2", title='say "hi" &lt;')
    '<a href="https://x/?a=1&amp;b=2" title="say &quot;hi&quot; &amp;lt;">a "b" &lt;c&gt; &amp;lt;</a>'
    """
    # xml.etree, not Python-Markdown's serializer, which leaves a character reference in data as it is.
    link = etree.Element("a", dict(sorted({"href": href, **attributes}.items())))
    link.text = text
    return etree.tostring(link, encoding="unicode", method="html")


def source_html(source: Source) -> str:
    """A source as HTML: its title in quotes, linked where it has an address, then its citation."""
    title = link_html(source.title, source.url) if source.url else html.escape(source.title, quote=False)
    return f"“{title}”, {html.escape(source.cite, quote=False)}"


def source_citations(sources: Iterable[Source]) -> tuple[str, ...]:
    """Each source's citation as `source_html` writes it, longest first, to be read past: a source's title and
    citation are its name, quoted, and hold the numbers their authors gave them ("Llama 3 8B", "12,000 tokens/sec"),
    which no figure of the course's could stand for."""
    return tuple(sorted({source_html(source) for source in sources}, key=len, reverse=True))


def without_citations(html_text: str, citations: Iterable[str]) -> str:
    """`html_text` with each of `citations` (`source_citations`) in it blanked.

    >>> from macros.data.catalog import Source
    >>> source = Source("h200", "H200 does 12,000 tokens/sec", authors="NVIDIA", cite="NVIDIA 2024", year=2024)
    >>> without_citations(f"<p>See {source_html(source)}, 8 GB</p>", source_citations([source]))
    '<p>See  , 8 GB</p>'
    """
    if "“" not in html_text:  # every citation opens with its title's quotation mark
        return html_text
    for citation in citations:
        html_text = html_text.replace(citation, " ")
    return html_text


def script_json(data: Any) -> str:
    """`data` as compact JSON to sit in a `<script type="application/json">`: it can neither end that element nor
    start markup, since `<`, `>` and `&` are written as JSON escapes.

    >>> print(script_json({"name": "</script><img src=x>&amp;"}))
    {"name":"\\u003c/script\\u003e\\u003cimg src=x\\u003e\\u0026amp;"}
    """
    encoded = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return encoded.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
