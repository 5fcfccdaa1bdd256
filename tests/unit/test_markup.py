"""Data in a page: a value written as Markdown text is one line of text wherever it goes, and script is found."""

from __future__ import annotations

import markdown
import pytest
from bs4 import BeautifulSoup
from mkdocs.config import load_config

from macros.data.markup import link_html, markdown_text
from macros.data.scripts import markup_not_allowed, script_in, script_in_text
from tests.conftest import ROOT

_CONFIG = load_config(str(ROOT / "mkdocs.yml"))
#: The site's own Markdown: every extension mkdocs.yml enables (and MkDocs' own), with their settings.
SITE_MARKDOWN = markdown.Markdown(extensions=_CONFIG.markdown_extensions, extension_configs=_CONFIG.mdx_configs)

#: Values a catalog or glossary file might hold that Markdown would read as structure, each a class of its own.
BLOCK_PAYLOADS = [
    "x\n\n# a heading",
    "Title\n=====",
    "- a list",
    "+ a list",
    "* a list",
    "1. a list",
    "3) a list",
    "---",
    "***",
    "> a quote",
    "    indented code",
    "```\ncode\n```",
    "~~~\ncode\n~~~",
    '!!! danger "Pwned"\n    body',
    '??? note "Open"\n    body',
    "/// quiz | x\n    id: a\n///",
    "| a | b |\n| --- | --- |\n| c | d |",
    "*[HTML]: an abbreviation",
    "[x]: javascript:alert(1)",
    "term\n:   definition",
    '=== "Tab"\n    body',
    "a  \nline break",
    '*a*{: onclick="alert(1)" }',
    '<div markdown="1">*x*</div>',
    "<img src=x onerror=alert(1)>",
    "&lt;b&gt; &amp; &#60;",
    "[a](javascript:alert(1)) ![b](x.png) <https://example.org>",
    "^^insert^^ ^sup^ ~~strike~~ ==mark==",
    "a\\*b\\\\",
    "%, :colon, ?x, =x, /x, @x, $x, ;x",
]


@pytest.mark.parametrize("payload", BLOCK_PAYLOADS)
@pytest.mark.parametrize("where", ["{}", "Before {} after", "1. {}"])
def test_a_value_renders_as_the_one_line_of_text_it_is(payload: str, where: str) -> None:
    written = where.format(markdown_text(payload))
    rendered = BeautifulSoup(SITE_MARKDOWN.reset().convert(written), "html.parser")
    expected = {"{}": {"p"}, "Before {} after": {"p"}, "1. {}": {"ol", "li"}}[where]
    assert {tag.name for tag in rendered.find_all(True)} == expected, rendered
    shown = where.format(" ".join(payload.split()))
    assert rendered.get_text().strip() == (shown.removeprefix("1. ") if where == "1. {}" else shown)


def test_a_link_shows_its_text_and_attributes_as_they_are() -> None:
    link = BeautifulSoup(link_html('<b> &lt; "x"', "https://e.org/?a=1&b=2", title="&amp; <i>"), "html.parser").a
    assert link is not None
    assert (link.get_text(), link["href"], link["title"]) == ('<b> &lt; "x"', "https://e.org/?a=1&b=2", "&amp; <i>")
    assert link.find(True) is None


#: HTML that would run script in a reader's browser, and what `script_in` says of it.
SCRIPTS = [
    ('<em tabindex="0" autofocus onfocus="alert(1)">x</em>', "an onfocus attribute on a <em>"),
    ("<svg><animate onbegin=alert(1) /></svg>", "an onbegin attribute on a <animate>"),
    ('<a href="javascript:alert(1)">x</a>', "a javascript: address in the href of a <a>"),
    ('<a href=" &#x4A;ava&#9;Script:alert(1)">x</a>', "a javascript: address in the href of a <a>"),
    ('<a href="\x01javascript:alert(1)">x</a>', "a javascript: address in the href of a <a>"),
    ('<a href="vbscript:x">x</a>', "a vbscript: address in the href of a <a>"),
    ('<img src="data:image/svg+xml,<svg onload=alert(1)>">', "a data: address in the src of a <img>"),
    ('<img srcset="a.png 1x, data:image/png;base64,AA 2x">', "a data: address in the srcset of a <img>"),
    ('<form action="javascript:alert(1)"></form>', "a javascript: address in the action of a <form>"),
    ('<button formaction="javascript:x">x</button>', "a javascript: address in the formaction of a <button>"),
    ('<svg><a xlink:href="javascript:x">x</a></svg>', "a javascript: address in the xlink:href of a <a>"),
    ('<iframe srcdoc="<script>x</script>"></iframe>', "a srcdoc attribute on a <iframe>, a <iframe> element"),
    ("<iframe src=https://e.org></iframe>", "a <iframe> element"),
    ("<object data=x.swf></object>", "a <object> element"),
    ('<base href="https://e.org/">', "a <base> element"),
    ('<meta http-equiv="Refresh" content="0;url=https://e.org">', "a <meta http-equiv=refresh>"),
    ("<script>alert(1)</script>", "a <script> that is not one of the course's (inline)"),
    ('<script src="https://e.org/x.js"></script>', "a <script> that is not one of the course's (https://e.org/x.js)"),
    ('<script src="../assets/javascripts/frames.js">alert(1)</script>', "a <script> with code in it"),
    # Where Python's html.parser and a browser part: SVG's <style> holds markup, "<!-->" is a whole comment,
    # "--!>" ends one, and SVG's animations set an address no attribute spells.
    ("<svg><style><img src=x onerror=alert(1)></style></svg>", "an onerror attribute on a <img>"),
    ("<!--><img src=x onerror=alert(1)>-->", "an onerror attribute on a <img>"),
    ("<p>a</p><!-- a --!><img src=x onerror=alert(1)>-->", "an onerror attribute on a <img>"),
    (
        '<svg><a><animate attributeName="href" values="javascript:alert(1)"/></a></svg>',
        "a javascript: address in the values of a <animate>, a <animate> that changes a link's address",
    ),
    (
        '<svg><a><set attributeName="xlink:href" to="https://e.org/"/></a></svg>',
        "a <set> that changes a link's address",
    ),
    ("<svg><script>alert(1)</script></svg>", "a <script> that is not one of the course's (inline)"),
    ('<p>a</p><body onload="alert(1)">', "an onload attribute on a <body>"),
    ("<div><template shadowrootmode=open><img src=x onerror=alert(1)></template></div>", "a <template> element"),
    ('<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>', "a <noscript> element"),
    ('<html onmouseover="alert(1)"><p>a</p>', "an onmouseover attribute on a <html>"),
]


@pytest.mark.parametrize(("fragment", "what"), SCRIPTS)
def test_script_in_html_is_found(fragment: str, what: str) -> None:
    assert ", ".join(found.what for found in script_in(fragment)) == what


@pytest.mark.parametrize(
    "fragment",
    [
        '<script src="../../assets/javascripts/frames.js" defer></script>',
        '<a href="https://e.org/?q=javascript:x" title="onfocus=x">data: javascript:</a>',
        '<a href="#on">on</a> <img alt="x" src="../x.png">',
    ],
)
def test_the_courses_own_markup_runs_nothing(fragment: str) -> None:
    assert script_in(fragment) == []


#: HTML an author might type that no page uses, and what `markup_not_allowed` says of it: an element not on
#: the list once, none inside it, and a style that loads something.
NOT_ALLOWED = [
    ('<link rel="stylesheet" href="https://e.org/x.css">', "a <link> element"),
    ("<style>body{display:none}</style>", "a <style> element"),
    ("<svg><text>x</text><style>p{}</style></svg>", "a <svg> element"),
    ("<math><mi>x</mi></math>", "a <math> element"),
    ('<form action="https://e.org/"><input name=q></form>', "a <form> element"),
    ('<p style="background: URL (https://e.org/x.png)">x</p>', "a style attribute that loads url("),
    ('<p style="background: \\75 rl(https://e.org/x.png)">x</p>', "a style attribute that loads url("),
    (
        '<p style="x: 1">@import "https://e.org/x.css"</p><div style="@IMPORT x">',
        "a style attribute that loads @import",
    ),
]


@pytest.mark.parametrize(("typed", "what"), NOT_ALLOWED)
def test_markup_an_author_typed_off_the_list_is_found(typed: str, what: str) -> None:
    assert ", ".join(found.what for found in markup_not_allowed([typed], typed)) == what


def test_a_lessons_own_markup_is_on_the_list() -> None:
    typed = '<div markdown="1" class="grid"><p>H<sub>2</sub>O is <em>not</em> <abbr title="x">x</abbr></p></div>'
    assert markup_not_allowed([typed, "<sub>", "</sub>"], typed + '<p style="color: red">x</p>') == []


def test_each_place_that_would_run_script_is_found_once() -> None:
    """Two links of the same address are two findings, so the build reports each at its own line."""
    found = script_in('<a href="javascript:x">a</a> <a href="javascript:x">b</a>')
    assert [(f.what, f.name, f.value) for f in found] == [
        ("a javascript: address in the href of a <a>", "href", "javascript:x"),
    ] * 2


#: A data file's text that would run script were it read as markup, and what `script_in_text` says of it.
SCRIPTS_IN_TEXT = [
    ('*x*{: onclick="y" }', "an onclick attribute in an attribute list"),
    ('{ #id .c ONMouseOver="y" }', "an onmouseover attribute in an attribute list"),
    ("<img src=x onerror=y>", "an onerror attribute on a <img>"),
    ("&lt;img src=x onerror=y&gt;", "an onerror attribute on a <img>"),
    ("&#60;svg onload=y&#62;", "an onload attribute on a <svg>"),
    ('GPT-2 <noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>', "a <noscript> element"),
    ("[a](javascript:x)", "a javascript: address"),
    ("[a]( JaVaScRiPt:x)", "a javascript: address"),
    ("[a](java\nscript:x)", "a javascript: address"),
    ("[a]: vbscript:x", "a vbscript: address"),
    ("<javascript:x>", "a javascript: address"),
    ("&#106;avascript:x", "a javascript: address"),
    ("![a](data:image/png;base64,AA)", "a data: address"),
    ("[a](data:text/html,<b>)", "a data: address"),
    ("[a](data:,x)", "a data: address"),
    ('<a href="data:text/html,x">a</a>', "a data: address in the href of a <a>"),
]


@pytest.mark.parametrize(("value", "what"), SCRIPTS_IN_TEXT)
def test_script_in_a_data_value_is_found(value: str, what: str) -> None:
    assert [found.what for found in script_in_text(value)] == [what]


@pytest.mark.parametrize(
    "value",
    [
        "Two kinds of data: weights and activations",
        "the data:model ratio, one=1, {x = 1}, done = true",
        "Megatron-LM's data: see https://github.com/NVIDIA/Megatron-LM?on=1#data:x",
        "<b>bold</b> &lt;i&gt; and `code {: .c }`",
        "a JavaScript library; the metadata: 40 GB",
    ],
)
def test_words_about_data_or_code_are_not_script(value: str) -> None:
    assert script_in_text(value) == []
