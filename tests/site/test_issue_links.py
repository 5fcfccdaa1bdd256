"""Every lesson, and every question in it, links to a prefilled new issue."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from mkdocs.config import load_config

from tests.checks import lesson_body, soup
from tests.conftest import LESSON_7, LESSON_8, ROOT

CONFIG = load_config(str(ROOT / "mkdocs.yml"))


def _issue(href: str) -> dict[str, str]:
    parts = urlsplit(href)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{CONFIG.repo_url.rstrip('/')}/issues/new"
    return {key: values[0] for key, values in parse_qs(parts.query, strict_parsing=True).items()}


def _check_context(fields: dict[str, str], lesson: str, title: str) -> None:
    assert fields["lesson"] == title
    assert fields["page-url"] == f"{CONFIG.site_url}{lesson}/"
    assert fields["source-file"] == f"docs/{lesson}.md" and (ROOT / fields["source-file"]).is_file()
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", fields["commit"])


@pytest.mark.parametrize("lesson", [LESSON_7, LESSON_8])
def test_every_question_links_to_a_quiz_issue_about_itself(site_dir: Path, lesson: str) -> None:
    page = soup(site_dir / lesson / "index.html")
    title = page.select_one("h1").get_text(strip=True).rstrip("¶")
    forms = lesson_body(page).select("form[data-quiz-id]")
    assert forms
    for form in forms:
        fields = _issue(form.select_one(".sbn-quiz__report a")["href"])
        assert fields["template"] == "quiz-answer-wrong.yml"
        assert fields["question-id"] == form["data-quiz-id"]
        assert fields["title"] == f"Quiz answer: {form['data-quiz-id']}"
        _check_context(fields, lesson, title)


@pytest.mark.parametrize("lesson", [LESSON_7, LESSON_8])
def test_the_closing_paragraph_and_the_footer_open_a_lesson_issue(site_dir: Path, lesson: str) -> None:
    page = soup(site_dir / lesson / "index.html")
    title = page.select_one("h1").get_text(strip=True).rstrip("¶")
    closing = page.find("a", string="open an issue")
    footer = page.select_one(".sbn-report a")
    assert closing["href"] == footer["href"]
    fields = _issue(footer["href"])
    assert fields["template"] == "lesson-unclear.yml" and fields["title"] == f"Unclear: {title}"
    _check_context(fields, lesson, title)


def test_pages_that_are_not_lessons_have_no_issue_footer(site_dir: Path) -> None:
    assert soup(site_dir / "index.html").select_one(".sbn-report") is None
