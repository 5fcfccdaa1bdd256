"""The issue forms keep the field ids that the site's "open an issue" links prefill."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

FORMS = ROOT / ".github" / "ISSUE_TEMPLATE"
#: Each form and its field ids, as CONTRIBUTING.md documents them. A link prefills a field
#: with `?template=<form>&<field id>=<value>`, so renaming one silently empties it.
FIELD_IDS = {
    "lesson-unclear.yml": ["lesson", "page-url", "source-file", "commit", "question-id", "description"],
    "figure-wrong.yml": ["lesson", "page-url", "source-file", "commit", "figure-id", "description"],
    "quiz-answer-wrong.yml": ["lesson", "page-url", "source-file", "commit", "question-id", "description"],
}


def form(name: str) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((FORMS / name).read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize(("name", "ids"), FIELD_IDS.items())
def test_a_form_has_the_documented_field_ids_in_order(name: str, ids: list[str]) -> None:
    body = form(name)["body"]
    assert isinstance(body, list)
    assert [field["id"] for field in body if "id" in field] == ids


def test_every_form_in_the_folder_is_documented() -> None:
    assert sorted(p.name for p in FORMS.glob("*.yml") if p.name != "config.yml") == sorted(FIELD_IDS)


def test_the_contributing_guide_names_every_form_and_field_id() -> None:
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    missing = [f"`{word}`" for name, ids in FIELD_IDS.items() for word in (name, *ids) if f"`{word}`" not in guide]
    assert missing == []


def test_the_forms_name_the_quiz_question_where_a_quiz_answer_is_wrong() -> None:
    fields = {field["id"]: field for field in form("quiz-answer-wrong.yml")["body"] if "id" in field}
    assert fields["question-id"]["validations"]["required"] is True
