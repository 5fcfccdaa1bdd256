"""Data is text: no Markdown construct and no script from a data file reaches a page, and no page runs script.

A copy of the course carries, in its glossary and catalog, values that the
pages' own Markdown would have read as structure (an attribute list with an
event handler, an admonition, a heading, a list, a call with a quoted
argument). Without the loader's refusal of script in data files, it builds,
and each value shows on its page as the text it is.
Every page of the real site is checked for anything that would run script.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from macros.data.scripts import script_in
from tests.checks import attribute, lesson_body, one
from tests.conftest import Built, build_copy, copy_course, replace_in, script_refusal_off, soup

#: Appended to the definition of Adam: each would have been markup where the page's Markdown read it.
DEFINITION_PAYLOADS = (
    ' *this*{: tabindex="0" autofocus onfocus="window.__pwned=1" } and f("x"), g(\'y\'), {{ term("zero") }}.'
    ' !!! danger "Pwned" /// quiz | x'
)
#: A stage's summary, one of the catalog's values that the home page's Markdown is made of.
SUMMARY_PAYLOAD = 'Summary.\n\n# Pwned heading\n\n- pwned item\n\n??? note "Pwned"\n    body'


@pytest.fixture(scope="module")
def payload_build(tmp_path_factory: pytest.TempPathFactory) -> Built:
    copy = copy_course(tmp_path_factory.mktemp("payloads"))
    replace_in(
        copy / "glossary/terms.yml",
        "    starting at zero). Each parameter thus gets a step size of its own.",
        f"    starting at zero). Each parameter thus gets a step size of its own.{DEFINITION_PAYLOADS}",
    )
    summary = (
        "How data parallelism keeps every copy of the model identical, what its all-reduce sends, and why the copies"
        " run out of memory."
    )
    replace_in(copy / "catalog/course.yml", f"summary: {summary}", f"summary: {json.dumps(SUMMARY_PAYLOAD)}")
    # The onfocus handler would be refused at its line first (test_bad_input.py); without that refusal, the page
    # still shows every value as text.
    with script_refusal_off():
        built = build_copy(copy)
    assert built.ok, built.output
    return built


def test_a_definition_is_words_on_the_glossary_page(payload_build: Built) -> None:
    page = BeautifulSoup((payload_build.site / "glossary/index.html").read_text(encoding="utf-8"), "html.parser")
    body = lesson_body(page)
    assert body.select("[onfocus], [autofocus], .admonition, form") == []
    definition = one(page, "#adam").find_next_sibling("p")
    assert definition is not None
    assert '{: tabindex="0" autofocus onfocus="window.__pwned=1" }' in definition.get_text()
    assert '!!! danger "Pwned" /// quiz | x' in definition.get_text()


def test_a_definition_with_a_quoted_call_leaves_every_term_link_whole(payload_build: Built) -> None:
    lesson = next((payload_build.site / "stage-4").glob("lesson-08-*/index.html"))
    links = lesson_body(BeautifulSoup(lesson.read_text(encoding="utf-8"), "html.parser")).select("a.sbn-term")
    adam = [link for link in links if attribute(link, "href").endswith("#adam")]
    assert adam and attribute(adam[0], "title").endswith(
        """f("x"), g('y'), {{ term("zero") }}. !!! danger "Pwned" /// quiz | x"""
    )


def test_a_catalog_value_with_line_breaks_is_one_line_of_text(payload_build: Built) -> None:
    home = lesson_body(BeautifulSoup((payload_build.site / "index.html").read_text(encoding="utf-8"), "html.parser"))
    assert [h.get_text() for h in home.select("h1, h2, h3, h4") if "Pwned" in h.get_text()] == []
    assert [li for li in home.select("li") if "pwned item" in li.get_text()] == []
    assert home.select("details") == []
    assert " ".join(SUMMARY_PAYLOAD.split()) in " ".join(home.get_text().split())


def test_no_page_runs_script_of_its_content(site_dir: Path, page: str) -> None:
    assert [found.what for found in script_in(str(lesson_body(soup(site_dir / page))))] == []
