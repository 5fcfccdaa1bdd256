"""The glossary loader, its checks, look-ups, and the page it writes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import markdown
import pytest
from bs4 import BeautifulSoup

from macros.data.glossary import Entry, GlossaryError, glossary_markdown, jump_list, load_glossary, term_link, usages
from macros.data.lessons import LessonIndex
from tests.conftest import catalog

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


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "terms.yml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_term_is_found_by_its_name_or_an_alias_in_any_case(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD), SOURCES)
    assert glossary.lookup("All-reduces").id == "all-reduce"
    assert glossary.lookup("allreduce").id == "all-reduce"
    assert glossary.lookup("Ring all-reduce").id == "ring-all-reduce"


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


def test_a_term_links_to_its_anchor_relative_to_the_page(tmp_path: Path) -> None:
    entry = load_glossary(write(tmp_path, GOOD), SOURCES).lookup("all-reduce")
    link = term_link(entry, "all-reduces", "stage-4/lesson-07.md", "glossary.md")
    assert link == f'[all-reduces](../glossary.md#all-reduce "{entry.tooltip}"){{ .sbn-term }}'


def test_a_definition_is_data_its_markup_never_runs(tmp_path: Path) -> None:
    """A definition shows as it is written: its tags and character references are text, its emphasis renders."""
    written = '&lt;img src=x onerror=alert(1)&gt; "quoted" <b>x</b> *so*'
    text = GOOD.replace("the *sum* of all devices' data.", written)
    glossary = load_glossary(write(tmp_path, text), SOURCES)
    entry = glossary.lookup("all-reduce")
    assert (
        entry.tooltip
        == 'A collective in which every device ends with &lt;img src=x onerror=alert(1)&gt; "quoted" <b>x</b> so'
    )
    # A double quote cannot end the link's title; Markdown decodes the title once, back to the tooltip.
    link = term_link(entry, "all-reduce", "index.md", "glossary.md")
    assert '"quoted"' not in link
    html = markdown.markdown(link, extensions=["attr_list"])
    assert BeautifulSoup(html, "html.parser").a["title"] == entry.tooltip.replace('"', "”")
    page = BeautifulSoup(markdown.markdown(glossary_markdown(glossary, {}, LessonIndex({}), "g.md")), "html.parser")
    assert page.find("b") is None and "so" in [em.get_text() for em in page.find_all("em")]
    assert written.replace("*so*", "so") in page.get_text()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            GOOD + "gradient:\n  term: gradient\n  aliases: [allreduce]\n  definition: d\n  related: []\n",
            r"gradient: the name 'allreduce' is also all-reduce's",
        ),
        (
            GOOD + "x:\n  term: All-Reduce\n  aliases: []\n  definition: d\n  related: []\n",
            r"x: the name 'All-Reduce' is also all-reduce's",
        ),
        (
            GOOD.replace("related: [ring-all-reduce]", "related: [ring]"),
            r"all-reduce\.related: unknown entry 'ring'",
        ),
        (GOOD.replace("source: nccl-tests", "source: nccl"), r"all-reduce\.source: unknown source 'nccl'"),
        (GOOD.replace("  where: Bus bandwidth\n", ""), "give `source` and `where` together"),
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
            GOOD.replace("the *sum*", "the [sum](javascript:alert(1))"),
            r"all-reduce\.definition: holds a link or an image; a definition is words only",
        ),
        (GOOD.replace("the *sum*", "the ![sum](x.png)"), r"all-reduce\.definition: holds a link or an image"),
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
    assert "*Related:* [ring all-reduce](#ring-all-reduce)" in page
    assert "*Source:* “[Performance reported by NCCL tests](<https://github.com" in page
    assert "*Used in:* [Home](index.md)" in page


def test_the_page_opens_with_a_jump_to_each_letters_first_entry(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD.replace("term: ring all-reduce", "term: Ψ ring")), SOURCES)
    nav = BeautifulSoup(glossary_markdown(glossary, {}, LessonIndex({}), "glossary.md"), "html.parser").nav
    assert nav["aria-label"] == "Terms from A to Z"
    assert [(a.get_text(), a["href"]) for a in nav.select("a")] == [("A", "#all-reduce"), ("Ψ", "#ring-all-reduce")]
    assert [span.get_text() for span in nav.select("span[aria-hidden=true]")] == list("BCDEFGHIJKLMNOPQRSTUVWXYZ")


def test_a_term_starting_with_a_digit_jumps_from_before_a() -> None:
    entries = [Entry("one-bit", "1-bit Adam", (), "d", (), "d"), Entry("adam", "Adam", (), "d", (), "d")]
    assert [a.get_text() for a in BeautifulSoup(jump_list(entries), "html.parser").select("a")] == ["1", "A"]


def test_each_entry_gets_its_report_link(tmp_path: Path) -> None:
    glossary = load_glossary(write(tmp_path, GOOD), SOURCES)
    page = glossary_markdown(glossary, {}, LessonIndex({}), "g.md", lambda entry: f"https://x/new?t={entry.id}")
    assert "[Report a problem with this entry](<https://x/new?t=all-reduce>){ .sbn-glossary-report }" in page
    assert "[Report a problem with this entry](<https://x/new?t=ring-all-reduce>)" in page
