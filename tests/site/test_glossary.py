"""The glossary as built: term links, their tooltips, the page, and search."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup

from macros.build.search import DOCS as SEARCH_DOCS
from macros.data.glossary import load_glossary, usages
from tests.checks import attribute, heading_text, lesson_body, one
from tests.conftest import catalog, course, soup

GLOSSARY = load_glossary(course().glossary_file, catalog().sources)


@pytest.fixture(scope="module")
def glossary_page(site_dir: Path) -> BeautifulSoup:
    return soup(site_dir / "glossary" / "index.html")


def test_every_term_links_to_its_entry_with_its_definition(
    site_dir: Path, glossary_page: BeautifulSoup, page: str
) -> None:
    links = lesson_body(soup(site_dir / page)).select("a.sbn-term")
    for link in links:
        target = urlsplit(attribute(link, "href"))
        assert target.path.endswith("glossary/"), link
        entry = GLOSSARY.entries[target.fragment]
        assert glossary_page.find(id=entry.id) is not None
        assert link["title"] == entry.tooltip


def test_every_lesson_marks_its_terms(site_dir: Path, lesson: str) -> None:
    assert lesson_body(soup(site_dir / lesson)).select("a.sbn-term"), f"no term marked on {lesson}"


def test_a_term_is_linked_on_its_first_use_only(site_dir: Path, page: str) -> None:
    links = Counter(
        urlsplit(attribute(a, "href")).fragment for a in lesson_body(soup(site_dir / page)).select("a.sbn-term")
    )
    assert [entry for entry, count in links.items() if count > 1] == []


def test_the_glossary_page_lists_every_entry_alphabetically(glossary_page: BeautifulSoup) -> None:
    headings = [h for h in lesson_body(glossary_page).select("h2[id]")]
    assert [h["id"] for h in headings] == sorted(GLOSSARY.entries, key=lambda i: GLOSSARY.entries[i].term.casefold())
    assert [heading_text(h) for h in headings] == [GLOSSARY.entries[attribute(h, "id")].term for h in headings]


def test_each_entry_links_its_related_terms_and_the_pages_that_use_it(
    site_dir: Path, glossary_page: BeautifulSoup
) -> None:
    used = usages(course().docs_dir, GLOSSARY)
    entry = GLOSSARY.lookup("all-reduce")
    section = one(glossary_page, f"#{entry.id}").find_next_sibling(lambda tag: "Used in:" in tag.get_text())
    assert section is not None, entry.id
    hrefs = [attribute(a, "href") for a in section.select("a") if attribute(a, "href").startswith("../")]
    assert hrefs == ["../" + (p.removesuffix(".md") + "/").removeprefix("index/") for p in used[entry.id]]
    for related in entry.related:
        assert glossary_page.select_one(f'a[href="#{related}"]') is not None


def test_every_entry_is_used_on_some_page() -> None:
    unused = [entry for entry, pages in usages(course().docs_dir, GLOSSARY).items() if not pages]
    assert unused == [], f"glossary entries no page uses: {unused}"


def test_search_finds_an_entry_by_its_aliases(site_dir: Path) -> None:
    docs = json.loads((site_dir / SEARCH_DOCS).read_text(encoding="utf-8"))
    sections = {doc["location"]: doc["text"] for doc in docs if doc["location"].startswith("glossary/#")}
    entry = GLOSSARY.lookup("all-reduce")
    assert all(alias in sections[f"glossary/#{entry.id}"] for alias in entry.aliases)
