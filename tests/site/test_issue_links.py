"""Every lesson, and every question in it, links to a prefilled new issue."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from bs4 import BeautifulSoup, Tag

from tests.checks import attribute, lesson_body, one
from tests.conftest import ROOT, course, soup


def _issue(href: str) -> dict[str, str]:
    parts = urlsplit(href)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{course().repo_url}/issues/new"
    return {key: values[0] for key, values in parse_qs(parts.query, strict_parsing=True).items()}


def _check_context(fields: dict[str, str], lesson: str, title: str) -> None:
    url = lesson.removesuffix("index.html")
    assert fields["lesson"] == title
    assert fields["page-url"] == f"{course().site_url}{url}"
    assert fields["source-file"] == f"docs/{url.rstrip('/')}.md" and (ROOT / fields["source-file"]).is_file()
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", fields["commit"])


def _title(page: BeautifulSoup) -> str:
    return one(page, "h1").get_text(strip=True).rstrip("¶")


def test_every_question_links_to_an_issue_about_itself(site_dir: Path, lesson: str) -> None:
    page = soup(site_dir / lesson)
    forms = lesson_body(page).select("form[data-quiz-id]")
    assert forms
    for form in forms:
        fields = _issue(attribute(one(form, ".sbn-quiz__report a"), "href"))
        checked = form["data-quiz-kind"] != "free"
        assert fields["template"] == ("quiz-answer-wrong.yml" if checked else "lesson-unclear.yml")
        assert fields["question-id"] == form["data-quiz-id"]
        assert fields["title"] == f"{'Quiz answer' if checked else 'Unclear question'}: {form['data-quiz-id']}"
        _check_context(fields, lesson, _title(page))


def test_the_closing_paragraph_and_the_footer_open_a_lesson_issue(site_dir: Path, lesson: str) -> None:
    page = soup(site_dir / lesson)
    closing = page.find("a", string="open an issue")
    footer = one(page, ".sbn-report a")
    assert isinstance(closing, Tag) and closing["href"] == footer["href"]
    fields = _issue(attribute(footer, "href"))
    assert fields["template"] == "lesson-unclear.yml" and fields["title"] == f"Unclear: {_title(page)}"
    _check_context(fields, lesson, _title(page))


def test_pages_that_are_not_lessons_have_no_issue_footer(site_dir: Path, other_page: str) -> None:
    assert soup(site_dir / other_page).select_one(".sbn-report") is None


def test_every_glossary_entry_links_to_an_issue_about_itself(site_dir: Path) -> None:
    page = soup(site_dir / "glossary" / "index.html")
    entries = lesson_body(page).select("h2[id]")
    links = lesson_body(page).select("a.sbn-glossary-report")
    assert len(links) == len(entries) > 0
    for heading, link in zip(entries, links, strict=True):
        fields = _issue(attribute(link, "href"))
        assert fields["template"] == "lesson-unclear.yml"
        assert fields["title"] == f"Glossary: {_title_of(heading)}"
        assert fields["page-url"] == f"{course().site_url}glossary/#{heading['id']}"
        assert fields["source-file"] == "glossary/terms.yml" and (ROOT / fields["source-file"]).is_file()
        assert heading.find_next("a", class_="sbn-glossary-report") is link


def _title_of(heading: Tag) -> str:
    return heading.get_text(strip=True).rstrip("¶")
