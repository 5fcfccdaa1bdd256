"""Markdown the site does not read: syntax left in a page as the characters an author typed.

mkdocs.yml enables a few Markdown extensions; syntax of one it does not enable
(a footnote, a definition list, a task list, tabs, strikethrough, a subscript, inline
math, an emoji shortcode) and syntax Markdown could not apply (an attribute list that attached
to nothing, a link or reference it could not read, a `///` block no extension
took) is not an error to Python-Markdown: it shows on the page as typed. This
module finds it in a page's HTML, in the text a reader reads outside code (where
showing syntax is the point), so that the build can refuse it. It never
imports MkDocs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser, LexborNode

#: A piece of syntax to find: its pattern, what it is, and what to write instead.
Syntax = tuple[re.Pattern[str], str, str]
#: One attribute of an attribute list, as attr_list reads it: `.class`, `#id` or `name=value`.
_ATTRIBUTE = r"""(?:[.#][\w-]+|[\w-]+=(?:"[^"]*"|'[^']*'|[\w.-]+))"""
#: Each piece of syntax that should never reach a reader as text: what it is, and what to do instead.
_SYNTAX: tuple[Syntax, ...] = (
    (re.compile(r"\[\^[^\]\s]+\]:?"), "a footnote", "put the note in the sentence, or in parentheses"),
    (re.compile(r"(?m)^:[ \t]+\S.*"), "a definition list", "write the term in bold and its definition after it"),
    (re.compile(r"(?m)^\[[ xX]\][ \t]"), "a task list's box", "use a /// checklist block for reps, or a plain list"),
    (re.compile(r"~~[^~\s][^~]*~~"), "strikethrough", "say what changed in words"),
    (re.compile(r"==[^=\s][^=]*=="), "a highlight", "use *emphasis*"),
    (re.compile(r"(?<!\{)\+\+[\w+-]+\+\+(?!\})"), "a key combination", "write the keys in <kbd> or in words"),
    (re.compile(r"\{(?:\+\+|--|~~|==|>>)[^}\n]*\}?"), "a CriticMarkup edit", "make the edit"),
    (re.compile(r'(?m)^===[+!]?[ \t]+"[^"\n]*"?'), "a content tab", "use headings or an admonition"),
    (re.compile(r"(?<![\w:]):[a-z][a-z0-9_+-]*[a-z0-9]:(?![\w:])"), "an emoji shortcode", "leave it out"),
    (re.compile(r"\$\$"), "display math", "write the formula in words or in code"),
    # CommonMark's hard line break; Python-Markdown shows the backslash, and the line's words run on past it.
    (re.compile(r"\\\n"), "a backslash line break", "end the line with two spaces for a line break, or join the lines"),
    # As Pandoc and arithmatex read inline math: no space inside either dollar, no digit after the closing one,
    # so that prices ("$5 to $10") are not math.
    (
        re.compile(r"(?<![\\$])\$[^\s$](?:[^$\n]*[^\s$])?\$(?![\d$])"),
        "inline math",
        "write the formula in words or in code",
    ),
    # pymdownx.tilde's subscript ("H~2~O"); a lone "~" is "about", a double one strikethrough, found above.
    (re.compile(r"(?<!~)~[^~\s](?:[^~\n]*[^~\s])?~(?!~)"), "a subscript", "write it in words, or as <sub>"),
    (re.compile(r"\[\[[^\]]+\]\]"), "a wiki link", "write a Markdown link to the page's file"),
    (re.compile(r"--8<--"), "a snippet include", "write the text in the page"),
    (
        re.compile(r"(?m)^/{3,}[ \t]*\S.*"),
        "a /// block no extension reads",
        "use /// quiz or /// checklist, or no block",
    ),
    (
        re.compile(rf"\{{:?[ \t]*{_ATTRIBUTE}(?:[ \t]+{_ATTRIBUTE})*[ \t]*\}}"),
        "an attribute list that attached to nothing",
        "put it right after the element it is for, or leave it out",
    ),
    (
        re.compile(r"\[[^\]\n]*\]\((?![^)\n]*\))[^\n]*"),
        "a link Markdown could not read",
        "check its brackets and parentheses: [text](address)",
    ),
    (
        re.compile(r"\[[^\]\n]+\]\[[^\]\n]*\]"),
        "a link to a reference that is not defined",
        "define it ([name]: address) or write the address",
    ),
)
#: Elements whose text shows syntax on purpose, or is not read as text at all.
_LITERAL = frozenset({"code", "pre", "kbd", "samp", "script", "style"})
#: The class of the build's own box that shows a problem where it happened (a quiz block's, `build.state`'s):
#: reported at its line already, its words are the build's, never the page's, whatever they quote.
PROBLEM_BOX = "sbn-build-error"
#: Elements whose start or end ends a run of text (a line-start pattern then means a line of the page).
_BLOCKS = frozenset(
    {"p", "li", "td", "th", "dd", "dt", "div", "blockquote", "summary", "figcaption", "caption", "br", "hr"}
    | {"h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table", "tr", "details", "section", "article", "label"}
)


@dataclass(frozen=True)
class Unrendered:
    """Syntax a page shows as typed: the text found, what it is, and what to write instead."""

    text: str
    what: str
    fix: str


def _runs(page_html: str) -> list[str]:
    """The runs of text a reader reads in HTML, block by block, outside code and the build's problem boxes,
    character references decoded.

    Read with Lexbor, as the page check reads a page (`scripts`): a walk of its
    tree (with a stack of its own, so that no depth of nesting ends it), where
    Python's `html.parser` took a sixth of a rebuild.
    """
    runs: list[str] = []
    run: list[str] = []
    root = LexborHTMLParser(page_html).root
    # Nodes to read, last first; None where a block ends.
    waiting: list[LexborNode | None] = [root] if root is not None else []
    while waiting:
        node = waiting.pop()
        tag = "" if node is None else node.tag or ""
        if node is not None and tag == "-text":
            run.append(node.text_content or "")
            continue
        if (node is None or tag in _BLOCKS) and run:
            runs.append("".join(run).strip())
            run.clear()
        if node is None or tag in _LITERAL or tag.startswith("-") or _is_problem_box(node):  # code, comments
            continue
        if tag in _BLOCKS:
            waiting.append(None)
        waiting.extend(reversed(list(node.iter(include_text=True))))
    if run:
        runs.append("".join(run).strip())
    return runs


def _is_problem_box(node: LexborNode) -> bool:
    return PROBLEM_BOX in (node.attributes.get("class") or "").split()


def unrendered(page_html: str, also: Sequence[Syntax] = ()) -> list[Unrendered]:
    """The Markdown syntax left as text in an HTML page or fragment, each piece once, in order. A build problem's
    box is not read: it quotes the block it is about, and its text is not always the problem's as reported (a
    box shows "&nbsp;" as the space it stands for). `also` is syntax to find besides, that the fragment's
    renderer (not a page's) does not read.

    >>> [(found.text, found.what) for found in unrendered("<p>As shown[^1]; see <code>[^2]</code>.</p>")]
    [('[^1]', 'a footnote')]
    """
    found: dict[str, Unrendered] = {}
    for run in _runs(page_html):
        for pattern, what, fix in (*_SYNTAX, *also):
            for match in pattern.finditer(run):
                text = match.group(0).strip()
                found.setdefault(text, Unrendered(text[:60], what, fix))
    return list(found.values())
