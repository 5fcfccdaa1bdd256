"""The glossary loader, its checks, look-ups, and the page it writes."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from macros.data.glossary import Entry, GlossaryError, glossary_markdown, jump_list, load_glossary, term_link, usages
from macros.data.lessons import LessonIndex
from tests.checks import one
from tests.conftest import catalog, script_refusal_off

SOURCES = catalog().sources
GOOD = """
all-reduce:
  term: all-reduce
  aliases: [all-reduces, allreduce]
  definition: A collective in which every device ends with the *sum* of all devices' data.
  related: [ring-all-reduce]
  source: nccl-tests
  where: Bus bandwidth
ring-all-reduce:
  term: ring all-reduce
  aliases: []
  definition: An all-reduce that passes chunks around a ring.
  related: [all-reduce]
"""


def ring_defined(definition: str) -> str:
    """The good glossary with the ring all-reduce defined as `definition` (as a JSON string, which YAML reads)."""
    return GOOD.replace(
        "definition: An all-reduce that passes chunks around a ring.", f"definition: {json.dumps(definition)}"
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "terms.yml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_term_is_found_by_its_name_or_an_alias_in_any_case(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD), SOURCES)
    assert glossary.lookup("All-reduces").id == "all-reduce"
    assert glossary.lookup("allreduce").id == "all-reduce"
    assert glossary.lookup("Ring all-reduce").id == "ring-all-reduce"
    # A look-alike letter is read as the letter it looks like: a Cyrillic е, a mathematical bold l.
    assert glossary.lookup("all-r\u0435duce").id == "all-reduce"
    assert glossary.lookup("a\U0001d425lreduce").id == "all-reduce"


def test_an_unknown_term_names_the_nearest(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD), SOURCES)
    with pytest.raises(GlossaryError, match=r"unknown term 'all-reduced'\. Nearest: all-reduce"):
        glossary.lookup("all-reduced")


def test_the_tooltip_is_the_definition_as_plain_text(tmp_path: Path) -> None:
    entry = load_glossary(write(tmp_path, GOOD), SOURCES).lookup("all-reduce")
    assert entry.tooltip == "A collective in which every device ends with the sum of all devices' data."


def test_the_tooltip_keeps_underscores_in_code(tmp_path: Path) -> None:
    text = GOOD.replace("An all-reduce that passes chunks around a ring.", "Skipped inside `no_sync()`, *all* of it.")
    entry = load_glossary(write(tmp_path, text), SOURCES).lookup("ring all-reduce")
    assert entry.tooltip == "Skipped inside no_sync(), all of it."


def test_a_term_links_to_its_anchor_with_its_definition_as_title(tmp_path: Path) -> None:
    entry = load_glossary(write(tmp_path, GOOD), SOURCES).lookup("all-reduce")
    link = one(BeautifulSoup(term_link(entry, "all-reduces", "../glossary/"), "html.parser"), "a")
    assert (link["href"], link["title"], link["class"], link.get_text()) == (
        "../glossary/#all-reduce",
        entry.tooltip,
        ["sbn-term"],
        "all-reduces",
    )


def test_a_definition_is_data_its_markup_never_runs(tmp_path: Path) -> None:
    """A definition shows as it is written: its tags and character references are text, its emphasis renders;
    so even a script the loader would refuse (`test_script_in_a_definition_is_refused_at_its_line`)."""
    written = '&lt;img src=x onerror=alert(1)&gt; "quoted" <b>x</b> *so* f("x") g(\'y\')'
    with script_refusal_off():
        glossary = load_glossary(write(tmp_path, ring_defined(written)), SOURCES)
    entry = glossary.entries["ring-all-reduce"]
    shown = '&lt;img src=x onerror=alert(1)&gt; "quoted" <b>x</b> so f("x") g(\'y\')'
    assert entry.tooltip == shown
    # The link's title is the tooltip exactly, quotes and all: it is HTML, never read as Markdown.
    assert one(BeautifulSoup(term_link(entry, "all-reduce", "glossary/"), "html.parser"), "a")["title"] == entry.tooltip
    page = BeautifulSoup(glossary_markdown(glossary, {}, LessonIndex({}), "g.md"), "html.parser")
    assert page.find("b") is None and page.find("img") is None
    assert "so" in [em.get_text() for em in page.find_all("em")]
    assert shown in page.get_text()


#: Definitions that, read by the glossary page's Markdown, would have made markup of their own; rendered alone
#: with plain Markdown, each is text (what a reader sees, the Markdown markers of emphasis aside).
INERT_DEFINITIONS = [
    ('*this*{: tabindex="0" autofocus onfocus="alert(1)" }', 'this{: tabindex="0" autofocus onfocus="alert(1)" }'),
    ('!!! danger "Pwned"', '!!! danger "Pwned"'),
    ("/// quiz | x", "/// quiz | x"),
    ('<div markdown="1">*x*</div>', '<div markdown="1">x</div>'),
    ("*[HTML]: Hyper Text", "*[HTML]: Hyper Text"),
    ("see [here][x] and <https://example.org>", "see [here][x] and <https://example.org>"),
    ("{{ term('x') }} and {% if %}", "{{ term('x') }} and {% if %}"),
]


@pytest.mark.parametrize(("written", "shown"), INERT_DEFINITIONS)
def test_a_definition_renders_alone_as_words(
    tmp_path: Path, written: str, shown: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The onfocus one is refused first, and syntax a page would refuse too (a /// block, a reference that is not
    # defined: `test_a_bad_glossary_is_refused_with_the_fix`); this is the defence behind those refusals.
    monkeypatch.setattr("macros.data.glossary.unrendered", lambda *arguments, **options: [])
    with script_refusal_off():
        entry = load_glossary(write(tmp_path, ring_defined(written)), SOURCES).entries["ring-all-reduce"]
    fragment = BeautifulSoup(entry.definition, "html.parser")
    assert {tag.name for tag in fragment.find_all(True)} <= {"p", "em", "strong", "code"}
    assert all(not tag.attrs for tag in fragment.find_all(True))
    assert entry.tooltip == shown


#: Definitions that would run script were they read as markup, and what the loader says at their line.
SCRIPT_DEFINITIONS = [
    ('*this*{: tabindex="0" autofocus onfocus="alert(1)" }', "an onfocus attribute in an attribute list"),
    ('<img src=x onerror="alert(1)">', "an onerror attribute on a <img>"),
    ("&lt;svg onload=alert(1)&gt;", "an onload attribute on a <svg>"),
    ('<a href="javascript:alert(1)">x</a>', "a javascript: address in the href of a <a>"),
    ("see [here](JavaScript:alert(1))", "a javascript: address"),
    ("[x]: java\tscript:alert(1)", "a javascript: address"),
    ("![x](data:image/svg+xml;base64,PHN2Zz4=)", "a data: address"),
    ("<script>alert(1)</script>", "a <script> that is not one of the course's (inline)"),
]


@pytest.mark.parametrize(("written", "what"), SCRIPT_DEFINITIONS)
def test_script_in_a_definition_is_refused_at_its_line(tmp_path: Path, written: str, what: str) -> None:
    text = ring_defined(written)
    rows = text.splitlines()
    entry = rows.index("ring-all-reduce:") + 1
    line = next(n for n, row in enumerate(rows, start=1) if n > entry and row.startswith("  definition: "))
    with pytest.raises(GlossaryError) as refused:
        load_glossary(write(tmp_path, text), SOURCES)
    assert str(refused.value).startswith(f"terms.yml:{line}: ring-all-reduce.definition: holds {what}, which would run")
    assert "write words only" in str(refused.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            GOOD + "gradient:\n  term: gradient\n  aliases: [allreduce]\n  definition: d\n  related: []\n",
            r"terms.yml:\d+: gradient\.aliases: the name 'allreduce' is also all-reduce's",
        ),
        (
            GOOD + "x:\n  term: All-Reduce\n  aliases: []\n  definition: d\n  related: []\n",
            r"terms.yml:\d+: x\.term: the name 'All-Reduce' is also all-reduce's",
        ),
        # Attack round 6: an alias with a look-alike letter (a Cyrillic е, a Cherokee Ꭺ) is the name it reads as.
        (
            GOOD + "gradient:\n  term: gradient\n  aliases: [all-r\u0435duce]\n  definition: d\n  related: []\n",
            r"terms.yml:\d+: gradient\.aliases: the name 'all-r\u0435duce' is also all-reduce's",
        ),
        (
            GOOD + "x:\n  term: \u13aaLL-REDUCE\n  aliases: []\n  definition: d\n  related: []\n",
            r"terms.yml:\d+: x\.term: the name '\u13aaLL-REDUCE' is also all-reduce's",
        ),
        (
            GOOD.replace("related: [ring-all-reduce]", "related: [ring]"),
            r"terms.yml:\d+: all-reduce\.related: unknown entry 'ring'",
        ),
        (GOOD.replace("source: nccl-tests", "source: nccl"), r"all-reduce\.source: unknown source 'nccl'"),
        (
            GOOD.replace("  where: Bus bandwidth\n", ""),
            r"terms.yml:\d+: all-reduce: give `source` and `where` together",
        ),
        (GOOD.replace("aliases: []", "aliases: []\n  plural: rings"), r"unknown field\(s\) plural"),
        (
            GOOD.replace("  definition: An all-reduce that passes chunks around a ring.\n", ""),
            r"missing field\(s\) definition",
        ),
        (
            GOOD.replace("the *sum*", "the sum, 24 GB of it,"),
            r"all-reduce.definition: types '24 GB'; a definition holds no figure",
        ),
        (
            GOOD.replace("the *sum*", "the [sum](https://example.org)"),
            r"all-reduce\.definition: holds a link or an image; a definition is words only",
        ),
        (
            GOOD.replace("the *sum*", "the [sum](javascript:alert(1))"),
            r"terms.yml:\d+: all-reduce\.definition: holds a javascript: address, which would run script",
        ),
        (GOOD.replace("the *sum*", "the ![sum](x.png)"), r"all-reduce\.definition: holds a link or an image"),
        # A reference's target alone: with another definition's "[text][x]" on one page, a link.
        (ring_defined("[x]: https://example.org"), r"ring-all-reduce\.definition: holds a link's reference"),
        (ring_defined("[x]: javascript:alert(1)"), r"ring-all-reduce\.definition: holds a javascript: address"),
        (ring_defined("# A heading"), r"ring-all-reduce\.definition: renders as a <h1>"),
        (ring_defined("Title\n=====\n\nwords"), r"renders as a <h1>"),
        (ring_defined("- a list"), r"renders as a <ul>"),
        (ring_defined("1. a list"), r"renders as a <ol>"),
        (ring_defined("A\n\n---\n\nrule"), r"renders as a <hr>"),
        (ring_defined("A  \nbreak"), r"renders as a <br>"),
        (ring_defined("A\n\n    code\n\nblock"), r"renders as a <pre>"),
        # Syntax a page reads (or refuses) that a definition, rendered alone, would show as typed.
        (ring_defined("~~struck~~ words"), r"ring-all-reduce\.definition: shows '~~struck~~' as typed: strikethrough"),
        (ring_defined("^^inserted^^ words"), r"shows '\^\^inserted\^\^' as typed: an insertion"),
        (ring_defined("a ^superscript^ word"), r"shows '\^superscript\^' as typed: a superscript"),
        (ring_defined("the `sum of it"), r"shows '`' as typed: a backtick that opens no code"),
        (ring_defined("a footnote[^1]"), r"shows '\[\^1\]' as typed: a footnote"),
        (ring_defined("see [here][x]"), r"shows '\[here\]\[x\]' as typed: a link to a reference that is not defined"),
        (
            GOOD.replace("ring-all-reduce:\n", "Ring_All_Reduce:\n"),
            "expected lower-case words and digits joined by hyphens",
        ),
        (
            GOOD + "ring-all-reduce:\n  term: x\n  aliases: []\n  definition: d\n  related: []\n",
            "the key 'ring-all-reduce' is given twice",
        ),
    ],
)
def test_a_bad_glossary_is_refused_with_the_fix(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(GlossaryError, match=message):
        load_glossary(write(tmp_path, text), SOURCES)


def test_a_definition_is_refused_at_its_line(tmp_path: Path) -> None:
    with pytest.raises(GlossaryError) as refused:
        load_glossary(write(tmp_path, GOOD.replace("the *sum*", "the ~~sum~~")), SOURCES, "glossary/terms.yml")
    line = 1 + textwrap.dedent(GOOD).splitlines().index(
        "  definition: A collective in which every device ends with the *sum* of all devices' data."
    )
    assert str(refused.value).startswith(f"glossary/terms.yml:{line}: all-reduce.definition: shows '~~sum~~' as")


def test_usages_find_the_pages_that_name_each_term(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD), SOURCES)
    docs = tmp_path / "docs"
    (docs / "stage-4").mkdir(parents=True)
    (docs / "index.md").write_text("{{ term('allreduce') }}")
    (docs / "stage-4" / "l7.md").write_text('An {{ term("all-reduce") }} and {{ term("All-reduces", link=true) }}.')
    assert usages(docs, glossary) == {"all-reduce": ["index.md", "stage-4/l7.md"], "ring-all-reduce": []}


def test_the_page_lists_entries_alphabetically_with_anchors_related_source_and_users(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD), SOURCES)
    page = glossary_markdown(glossary, {"all-reduce": ["index.md"]}, LessonIndex({}), "glossary.md")
    assert page.index("## all-reduce {#all-reduce}") < page.index("## ring all-reduce {#ring-all-reduce}")
    assert "*Also written:* all-reduces, allreduce" in page
    assert '*Related:* <a href="#ring-all-reduce">ring all-reduce</a>' in page
    assert '*Source:* “<a href="https://github.com' in page
    assert "*Used in:* [Home](index.md)" in page


def test_every_value_from_the_file_reaches_the_page_through_the_stash(tmp_path: Path) -> None:
    """The page's own Markdown never reads data: with a stash that keeps each piece, no term, alias, definition,
    citation or address is left in the Markdown."""
    glossary = load_glossary(write(tmp_path, GOOD), SOURCES)
    kept: list[str] = []

    def stash(fragment: str) -> str:
        kept.append(fragment)
        return f"@{len(kept) - 1}@"

    page = glossary_markdown(
        glossary, {"all-reduce": ["index.md"]}, LessonIndex({}), "g.md", lambda e: f"https://x/?{e.id}", stash
    )
    for value in ("all-reduces", "sum", "Performance reported by NCCL", "Bus bandwidth", "https://x/", "ring all-"):
        assert value not in page and any(value in fragment for fragment in kept), value


def test_the_page_opens_with_a_jump_to_each_letters_first_entry(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD.replace("term: ring all-reduce", "term: Ψ ring")), SOURCES)
    nav = one(BeautifulSoup(glossary_markdown(glossary, {}, LessonIndex({}), "glossary.md"), "html.parser"), "nav")
    assert nav["aria-label"] == "Terms from A to Z"
    assert [(a.get_text(), a["href"]) for a in nav.select("a")] == [("A", "#all-reduce"), ("Ψ", "#ring-all-reduce")]
    assert [span.get_text() for span in nav.select("span[aria-hidden=true]")] == list("BCDEFGHIJKLMNOPQRSTUVWXYZ")


def test_a_term_starting_with_a_digit_jumps_from_before_a() -> None:
    entries = [Entry("one-bit", "1-bit Adam", (), "d", (), "d"), Entry("adam", "Adam", (), "d", (), "d")]
    assert [a.get_text() for a in BeautifulSoup(jump_list(entries), "html.parser").select("a")] == ["1", "A"]


def test_each_entry_gets_its_report_link(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD), SOURCES)
    page = glossary_markdown(glossary, {}, LessonIndex({}), "g.md", lambda entry: f"https://x/new?t={entry.id}")
    links = BeautifulSoup(page, "html.parser").select("a.sbn-glossary-report")
    assert [(a["href"], a.get_text()) for a in links] == [
        ("https://x/new?t=all-reduce", "Report a problem with this entry"),
        ("https://x/new?t=ring-all-reduce", "Report a problem with this entry"),
    ]


def test_template_syntax_in_a_definition_is_refused_at_its_line(tmp_path: Path) -> None:
    # Attack round 8: "It is {{ 7 * 7 }} here." showed raw on the glossary page and in every tooltip.
    written = GOOD.replace("of all devices' data.", "of all devices' data. It is {{ 7 * 7 }} here.")
    with pytest.raises(GlossaryError) as refused:
        load_glossary(write(tmp_path, written), SOURCES, "glossary/terms.yml")
    line = 1 + textwrap.dedent(written).splitlines().index(
        "  definition: A collective in which every device ends with the *sum* of all devices' data. It is {{ 7 * 7 }}"
        " here."
    )
    assert str(refused.value).startswith(f"glossary/terms.yml:{line}: all-reduce.definition: got ")
    assert "expected text without template syntax ('{{' at" in str(refused.value)


@pytest.mark.parametrize(
    ("written", "replaced", "field", "message"),
    [
        (
            "aliases: [all-reduces, allreduce]",
            "aliases: [all-reduces, allreduce, allreduce]",
            "aliases",
            "the name 'allreduce' is given twice",
        ),
        (
            # The file's header says case-insensitively, as lessons look a name up.
            "aliases: [all-reduces, allreduce]",
            "aliases: [all-reduces, allreduce, AllReduce]",
            "aliases",
            "the name 'AllReduce' is given twice (as 'allreduce')",
        ),
        (
            "related: [ring-all-reduce]\n  source",
            "related: [ring-all-reduce, ring-all-reduce]\n  source",
            "related",
            "'ring-all-reduce' is given twice",
        ),
        (
            "related: [ring-all-reduce]\n  source",
            "related: [ring-all-reduce, all-reduce]\n  source",
            "related",
            "'all-reduce' is this entry itself",
        ),
    ],
)
def test_a_name_or_related_term_given_twice_is_refused_at_its_line(
    tmp_path: Path, written: str, replaced: str, field: str, message: str
) -> None:
    # Attack round 8: a repeated alias and related term were shown twice, the entry itself as related "(itself)".
    source = textwrap.dedent(GOOD)
    assert written in source
    source = source.replace(written, replaced, 1)
    with pytest.raises(GlossaryError) as refused:
        load_glossary(write(tmp_path, source), SOURCES, "glossary/terms.yml")
    line = 1 + source.splitlines().index(f"  {replaced.splitlines()[0]}")
    assert str(refused.value).startswith(f"glossary/terms.yml:{line}: all-reduce.{field}: {message}")


#: Ids that are no slug of lower-case words and digits joined by hyphens.
NO_SLUGS = ("__palette", "Ring_All_Reduce", "ring--all-reduce")


@pytest.mark.parametrize(
    ("entry_id", "says"),
    [
        # Attack round 9, F17: `__palette:` was refused as "terms.yml: __palette: the id got ...", with no line.
        *((entry_id, f"the id got {entry_id!r}; expected lower-case words and digits") for entry_id in NO_SLUGS),
        # F16: the entry's anchor took an id of the course's scripts, told only at docs/glossary.md.
        *(
            (entry_id, f"the id {entry_id!r} is one the theme's or the course's scripts look up")
            for entry_id in ("sbn-tip-text", "sbn-figures", "sbnanswers")
        ),
    ],
)
def test_an_id_that_is_no_slug_or_the_scripts_own_is_refused_at_its_keys_line(
    tmp_path: Path, entry_id: str, says: str
) -> None:
    source = textwrap.dedent(GOOD).replace("ring-all-reduce:\n", f"{entry_id}:\n")
    line = 1 + source.splitlines().index(f"{entry_id}:")
    with pytest.raises(GlossaryError) as refused:
        load_glossary(write(tmp_path, source), SOURCES, "glossary/terms.yml")
    assert str(refused.value).startswith(f"glossary/terms.yml:{line}: {entry_id}: {says}")
