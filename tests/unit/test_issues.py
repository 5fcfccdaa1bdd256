"""New-issue links: encoded so that real URL parsing gets every field back whole."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import yaml

from macros.pages import issues
from tests.conftest import ROOT

CONTEXT = issues.PageContext(
    lesson="Lesson 8. Why & how: 16Ψ?",
    page_url="https://example.org/course/stage-4/lesson-08/?a=1#top",
    source_file="docs/stage-4/lesson 08.md",
    commit="0123456789abcdef0123456789abcdef01234567",
)


def _fields(url: str) -> dict[str, str]:
    parts = urlsplit(url)
    assert (parts.scheme, parts.netloc, parts.path) == ("https", "github.com", "/owner/course/issues/new")
    assert parts.fragment == ""
    return {key: values[0] for key, values in parse_qs(parts.query, strict_parsing=True).items()}


def test_every_field_survives_real_url_parsing() -> None:
    url = issues.new_issue_url(
        "https://github.com/owner/course/", issues.QUIZ_FORM, CONTEXT, {"title": "Quiz: a+b #1", "question-id": "l8-p1"}
    )
    assert _fields(url) == {
        "template": "quiz-answer-wrong.yml",
        "lesson": "Lesson 8. Why & how: 16Ψ?",
        "page-url": "https://example.org/course/stage-4/lesson-08/?a=1#top",
        "source-file": "docs/stage-4/lesson 08.md",
        "commit": "0123456789abcdef0123456789abcdef01234567",
        "title": "Quiz: a+b #1",
        "question-id": "l8-p1",
    }


def test_spaces_are_percent_encoded_not_plus() -> None:
    url = issues.new_issue_url("https://github.com/owner/course", issues.LESSON_FORM, CONTEXT, {})
    assert "+" not in url and "%20" in url


@pytest.mark.parametrize("form", [issues.LESSON_FORM, issues.FIGURE_FORM, issues.QUIZ_FORM])
def test_the_fields_the_site_fills_exist_in_each_issue_form(form: str) -> None:
    data = yaml.safe_load((ROOT / ".github" / "ISSUE_TEMPLATE" / form).read_text(encoding="utf-8"))
    ids = {item["id"] for item in data["body"] if "id" in item}
    assert set(CONTEXT.fields()) <= ids
    if form != issues.FIGURE_FORM:
        assert "question-id" in ids


def test_the_commit_comes_from_github_actions_when_there(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GITHUB_SHA", "f" * 40)
    assert issues.built_commit(tmp_path) == "f" * 40


def test_the_commit_is_gits_head_in_a_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_SHA", raising=False)
    assert re.fullmatch(r"[0-9a-f]{40}", issues.built_commit(ROOT))


def test_the_commit_is_unknown_outside_a_checkout(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("GITHUB_SHA", raising=False)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    assert issues.built_commit(tmp_path) == "unknown"
