"""How deeply a page nests its blocks, and the lines nested beyond what the site reads.

Python-Markdown reads a container (a list item, an admonition, a quote, an HTML
element with `markdown`, a `///` block) by calling itself on its content, so a
page nested a few hundred levels deep ends its build in a RecursionError (in
Python-Markdown 3.11.3, indented containers give out between 300 and 500 levels),
and a `///` block nested a thousand deep takes minutes. No page needs more than a
handful of levels: `MAX_NESTING` bounds them well below where reading fails, and
`too_deep` finds the lines beyond it, so that the build can say where and leave
them out. The depth is counted line by line, without recursion: the columns of
indentation in fours, the quote markers, and the HTML elements and `///` blocks
open around the line. It never imports MkDocs.
"""

from __future__ import annotations

import re

#: The deepest a line of a page may be nested. The course's pages nest four or five levels.
MAX_NESTING = 50
#: How many columns make a level of indentation, and indent a code block (Python-Markdown's `tab_length`).
INDENT = 4
_FENCE = re.compile(r"[ \t]*(`{3,}|~{3,})")
_QUOTES = re.compile(r"[ \t]*(?:>[ \t]?)+")
#: A `///` block's header (`/// quiz | Title`) and its end (a line of slashes alone).
_BLOCK_START = re.compile(r"[ \t]*/{3,}[ \t]*[\w-]")
_BLOCK_END = re.compile(r"[ \t]*/{3,}[ \t]*$")
#: An element's start tag (its name ends at a space, a slash or ">", so that an autolink `<https://…>` is none).
_HTML_OPEN = re.compile(r"<([A-Za-z][\w-]*)(?=[\s/>])[^>]*?(/?)>")
_HTML_CLOSE = re.compile(r"</[A-Za-z][\w-]*\s*>")
#: HTML elements that have no content, and so never nest what follows them.
_VOID = frozenset(
    ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]
)


def depths(markdown: str) -> list[int]:
    """How deeply each line of `markdown` is nested (0 for a line of no container); lines of fenced code are
    counted as deep as their fence.

    >>> depths("!!! note\\n\\n    > quoted\\n<div markdown>\\ntext\\n</div>")
    [0, 0, 2, 0, 1, 0]
    """
    found: list[int] = []
    open_around = 0  # HTML elements and /// blocks open before the line
    fence: tuple[str, int] | None = None  # the open fence's characters and its line's depth
    for line in markdown.splitlines():
        text = line.expandtabs(INDENT)
        if fence is not None:
            found.append(fence[1])
            if text.strip().startswith(fence[0]) and not text.strip().strip(fence[0][0]):
                fence = None
            continue
        indented = (len(text) - len(text.lstrip(" "))) // INDENT
        quotes = _QUOTES.match(text)
        quoted = quotes.group(0).count(">") if quotes else 0
        opened = open_around
        if _BLOCK_START.match(text):
            open_around += 1
        elif _BLOCK_END.match(text):
            open_around = max(0, open_around - 1)
        else:
            for tag in _HTML_OPEN.finditer(text):
                if not tag.group(2) and tag.group(1).lower() not in _VOID:
                    open_around += 1
            open_around = max(0, open_around - len(_HTML_CLOSE.findall(text)))
        depth = min(opened, open_around) + indented + quoted
        found.append(depth)
        fenced = _FENCE.match(text)
        if fenced:
            fence = (fenced.group(1), depth)
    return found


def too_deep(markdown: str) -> tuple[list[int], str]:
    """Where `markdown` is nested deeper than `MAX_NESTING`: the 0-based index of the first line of each stretch
    of such lines (blank lines do not end one), and `markdown` with every such line left blank. The page then
    nests no deeper than that, and each line left keeps its number, which later messages name.

    >>> too_deep("a\\n" + "> " * 60 + "deep\\n\\n" + "> " * 60 + "deeper\\nb\\n" + "> " * 60 + "c")
    ([1, 5], 'a\\n\\n\\n\\nb\\n\\n')
    """
    lines = markdown.splitlines(keepends=True)
    deep = [depth > MAX_NESTING for depth in depths(markdown)]
    starts: list[int] = []
    within = False
    for index, (line, beyond) in enumerate(zip(lines, deep, strict=True)):
        if beyond and not within and line.strip():
            starts.append(index)
        within = (beyond and bool(line.strip())) or (within and not line.strip())
    kept = ("\n" if beyond else line for line, beyond in zip(lines, deep, strict=True))
    return starts, "".join(kept)
