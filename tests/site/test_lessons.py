"""Lessons as a reader gets them: the seed's sections in order, real sources, real quotes."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import Tag

from tests.checks import heading_text, lesson_body, soup
from tests.conftest import LESSON_7, LESSON_8

SEED_SECTIONS = [
    "Mission link",
    "Primary source",
    "Prerequisites",
    "Warm-up",
    "Know this",
    "Practice",
    "Real-world reps",
    "Going further",
    "Not landing?",
]
# ZeRO, arXiv v3, §1, word for word.
ZERO_QUOTE = (
    "Basic data parallelism (DP) does not reduce memory per device, and runs out of memory for models with more "
    "than 1.4B parameters on current generation of GPUs with 32 GB memory."
)


def _sections(site_dir: Path, lesson: str) -> list[str]:
    article = lesson_body(soup(site_dir / lesson / "index.html"))
    found = []
    for element in article.select("p > strong:first-child, h2"):
        text = heading_text(element).rstrip(":")
        if element.name == "h2" or text in SEED_SECTIONS[:3]:
            found.append(text)
    return found


@pytest.mark.parametrize("lesson", [LESSON_7, LESSON_8])
def test_a_lesson_has_the_seeds_sections_in_order(site_dir: Path, lesson: str) -> None:
    assert _sections(site_dir, lesson) == SEED_SECTIONS


def test_lesson_8_keeps_the_seeds_know_this_subsections(site_dir: Path) -> None:
    article = lesson_body(soup(site_dir / LESSON_8 / "index.html"))
    assert [heading_text(h) for h in article.select("h3")] == [
        'What "a full copy of the model" actually contains',
        "Where that hits a wall",
        "The shape of the fix",
    ]


def test_lesson_8_quotes_the_zero_paper_word_for_word(site_dir: Path) -> None:
    text = " ".join(lesson_body(soup(site_dir / LESSON_8 / "index.html")).get_text().split())
    assert f'"{ZERO_QUOTE}"' in text


def test_lesson_8_links_its_paper_and_further_reading(site_dir: Path) -> None:
    links = {a["href"] for a in lesson_body(soup(site_dir / LESSON_8 / "index.html")).select("a[href^='https://']")}
    assert {
        "https://arxiv.org/abs/1910.02054v3",
        "https://www.deepspeed.ai/tutorials/zero/",
        "https://docs.pytorch.org/docs/stable/fsdp.html",
    } <= links


def _quizzes(site_dir: Path, lesson: str) -> dict[str, Tag]:
    article = lesson_body(soup(site_dir / lesson / "index.html"))
    return {form["data-quiz-id"]: form for form in article.select("form[data-quiz-id]")}


def test_lesson_8_asks_the_seeds_questions_as_quizzes(site_dir: Path) -> None:
    quizzes = _quizzes(site_dir, LESSON_8)
    assert {quiz_id: form["data-quiz-kind"] for quiz_id, form in quizzes.items()} == {
        "l8-warmup-1": "free",
        "l8-warmup-2": "free",
        "l8-practice-1": "numeric",
        "l8-practice-2": "single",
        "l8-practice-3": "numeric",
        "l8-practice-3-compare": "free",
    }


def test_lesson_8_numeric_keys_are_the_model_state_figures(site_dir: Path) -> None:
    quizzes = _quizzes(site_dir, LESSON_8)
    # 16 bytes × 7 billion, and 16 bytes × 1.4 billion (ZeRO §3.1's count).
    assert (quizzes["l8-practice-1"]["data-key-value"], quizzes["l8-practice-1"]["data-key-unit"]) == (
        "112000000000",
        "B",
    )
    assert quizzes["l8-practice-3"]["data-key-value"] == "22400000000"


def test_lesson_8_practice_2_keeps_the_seeds_four_options_with_feedback(site_dir: Path) -> None:
    form = _quizzes(site_dir, LESSON_8)["l8-practice-2"]
    options = [" ".join(label.get_text().split()) for label in form.select(".sbn-quiz__options label")]
    assert [option[:3] for option in options] == ["a) ", "b) ", "c) ", "d) "]
    assert options[1].startswith("b) Every device holds a full, redundant copy")
    feedback = form.select("details [data-option]")
    assert [entry["data-correct"] for entry in feedback] == ["false", "true", "false", "false"]
    assert all(len(entry.get_text(strip=True)) > 30 for entry in feedback)


@pytest.mark.parametrize(("lesson", "prefix"), [(LESSON_7, "l7-rep-"), (LESSON_8, "l8-rep-")])
def test_a_lessons_reps_are_a_checklist_of_three(site_dir: Path, lesson: str, prefix: str) -> None:
    article = lesson_body(soup(site_dir / lesson / "index.html"))
    boxes = article.select("fieldset.sbn-checklist input[type=checkbox][data-rep-id]")
    assert len(boxes) == 3 and all(box["data-rep-id"].startswith(prefix) for box in boxes)


@pytest.mark.parametrize("lesson", [LESSON_7, LESSON_8])
def test_every_answer_is_readable_behind_a_native_disclosure(site_dir: Path, lesson: str) -> None:
    for form in _quizzes(site_dir, lesson).values():
        details = form.select_one("details.sbn-quiz__answer")
        assert details is not None and details.summary.get_text() in ("Show answer", "Show model answer")
        assert len(details.get_text(strip=True)) > len(details.summary.get_text()) + 20


def test_lesson_7_asks_its_questions_as_quizzes(site_dir: Path) -> None:
    quizzes = _quizzes(site_dir, LESSON_7)
    assert [form["data-quiz-kind"] for form in quizzes.values()] == ["free", "free", "numeric", "single", "free"]
    # 2 × 63/64 × 2 bytes × 1.5 billion parameters
    assert quizzes["l7-practice-1"]["data-key-value"] == "5906250000"
