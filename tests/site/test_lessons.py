"""Lessons as a reader gets them: the seed's sections in order, real sources, real quotes."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_lesson_8_has_its_questions_and_reps(site_dir: Path) -> None:
    article = lesson_body(soup(site_dir / LESSON_8 / "index.html"))
    assert len(article.select("details")) == 5  # two warm-up and three practice answers
    reps = article.find(id="real-world-reps").find_next_sibling("ul")
    assert len(reps.find_all("li", recursive=False)) == 3


def test_practice_answers_are_behind_a_native_disclosure(site_dir: Path) -> None:
    article = lesson_body(soup(site_dir / LESSON_8 / "index.html"))
    summaries = [d.summary.get_text().strip() for d in article.select("details") if d.summary]
    assert summaries == ["Show answer"] * 5
    assert "112 GB" in article.select("details")[2].get_text()
