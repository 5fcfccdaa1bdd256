"""Lessons as a reader gets them: the seed's sections in order, questions of every kind, real sources."""

from __future__ import annotations

from pathlib import Path

from bs4 import Tag

from macros.data.lessons import SECTIONS, index_lessons
from tests.checks import attribute, heading_text, lesson_body, one
from tests.conftest import course, soup

# ZeRO, arXiv v3, §1, word for word.
ZERO_QUOTE = (
    "Basic data parallelism (DP) does not reduce memory per device, and runs out of memory for models with more "
    "than 1.4B parameters on current generation of GPUs with 32 GB memory."
)


def lesson_page(number: int) -> str:
    """The built page of lesson `number`, found through the lesson index."""
    return index_lessons(course().docs_dir).lessons[number].src_path.removesuffix(".md") + "/index.html"


def _number(lesson: str) -> int:
    lessons = index_lessons(course().docs_dir).lessons.values()
    return next(item.number for item in lessons if item.src_path.removesuffix(".md") + "/index.html" == lesson)


def _sections(article: Tag) -> list[str]:
    found = []
    # The lesson's own sections: not the "What comes next" the template adds after them.
    for element in article.select(":not(.sbn-next) > p > strong:first-child, :not(.sbn-next) > h2"):
        text = heading_text(element).rstrip(":")
        if element.name == "h2" or text in [name for name, _ in SECTIONS[:3]]:
            found.append(text)
    return found


def _quizzes(site_dir: Path, lesson: str) -> list[Tag]:
    return lesson_body(soup(site_dir / lesson)).select("form[data-quiz-id]")


def test_a_lesson_has_the_seeds_sections_in_order(site_dir: Path, lesson: str) -> None:
    """The seed's sections once each, in order; a lesson may add sections of its own between its warm-up and its
    last section (Lesson 15's "Plan your own run"), as the build's check allows (`lessons.check_sections`)."""
    names = [name for name, _ in SECTIONS]
    found = _sections(lesson_body(soup(site_dir / lesson)))
    assert [name for name in found if name in names] == names
    own = [index for index, name in enumerate(found) if name not in names]
    assert all(found.index(names[3]) < index < found.index(names[-1]) for index in own), found


def test_a_lessons_question_and_rep_ids_carry_its_prefix(site_dir: Path, lesson: str) -> None:
    """The prefix it was first published under (`questions:`, else l{number}): readers' progress is kept by id, so
    a lesson that changes its number keeps its ids (the capstone, Lesson 15, keeps Lesson 15's `l13-`)."""
    article = lesson_body(soup(site_dir / lesson))
    ids = [attribute(form, "data-quiz-id") for form in article.select("form[data-quiz-id]")]
    ids += [attribute(box, "data-rep-id") for box in article.select("input[data-rep-id]")]
    lessons = index_lessons(course().docs_dir).lessons
    prefix = lessons[_number(lesson)].prefix
    assert ids and all(question_id.startswith(prefix) for question_id in ids)


def test_no_two_lessons_share_a_prefix_of_question_ids() -> None:
    prefixes = [lesson.prefix for lesson in index_lessons(course().docs_dir).lessons.values()]
    assert len(prefixes) == len(set(prefixes))


def test_a_lesson_asks_a_numeric_question_keyed_by_a_figure(site_dir: Path, lesson: str) -> None:
    numeric = [form for form in _quizzes(site_dir, lesson) if form["data-quiz-kind"] == "numeric"]
    assert numeric
    for form in numeric:
        key = form.select_one(".sbn-quiz__model .fig")
        assert key is not None and form["data-key-value"] and form["data-key-unit"] == key["data-unit"]


def test_a_lesson_asks_a_choice_question_with_feedback_on_every_option(site_dir: Path, lesson: str) -> None:
    choices = [form for form in _quizzes(site_dir, lesson) if form["data-quiz-kind"] in ("single", "multiple")]
    assert choices
    for form in choices:
        options = form.select(".sbn-quiz__options input")
        feedback = form.select("details [data-option] .sbn-quiz__why")
        assert len(options) >= 2 and len(feedback) == len(options)
        assert all(len(entry.get_text(strip=True)) > 20 for entry in feedback)


def test_a_lessons_reps_are_a_checklist(site_dir: Path, lesson: str) -> None:
    boxes = lesson_body(soup(site_dir / lesson)).select("fieldset.sbn-checklist input[type=checkbox][data-rep-id]")
    assert len(boxes) >= 2


def test_every_answer_is_readable_behind_a_native_disclosure(site_dir: Path, lesson: str) -> None:
    for form in _quizzes(site_dir, lesson):
        details = form.select_one("details.sbn-quiz__answer")
        assert details is not None and one(details, "summary").get_text() in ("Show answer", "Show model answer")
        assert len(details.get_text(strip=True)) > len(one(details, "summary").get_text()) + 20


def test_lesson_8_quotes_the_zero_paper_word_for_word(site_dir: Path) -> None:
    text = " ".join(lesson_body(soup(site_dir / lesson_page(8))).get_text().split())
    assert f'"{ZERO_QUOTE}"' in text


def test_lesson_8_links_its_paper_and_further_reading(site_dir: Path) -> None:
    article = lesson_body(soup(site_dir / lesson_page(8)))
    links = {a["href"] for a in article.select("a[href^='https://']")}
    assert {
        "https://arxiv.org/abs/1910.02054v3",
        "https://www.deepspeed.ai/tutorials/zero/",
        "https://docs.pytorch.org/docs/stable/fsdp.html",
    } <= links


def test_lesson_8_numeric_keys_are_the_model_state_figures(site_dir: Path) -> None:
    quizzes = {form["data-quiz-id"]: form for form in _quizzes(site_dir, lesson_page(8))}
    # 16 bytes × 7 billion, and 16 bytes × 1.4 billion (ZeRO §3.1's count).
    assert (quizzes["l8-practice-1"]["data-key-value"], quizzes["l8-practice-1"]["data-key-unit"]) == (
        "112000000000",
        "B",
    )
    assert quizzes["l8-practice-3"]["data-key-value"] == "22400000000"


def test_lesson_7_keys_its_ring_question_by_the_ring_formula(site_dir: Path) -> None:
    quizzes = {form["data-quiz-id"]: form for form in _quizzes(site_dir, lesson_page(7))}
    # 2 × 63/64 × 2 bytes × 1.5 billion parameters
    assert quizzes["l7-practice-1"]["data-key-value"] == "5906250000"


def _answer_figure_ids(site_dir: Path, lesson: str, quiz_id: str) -> set[str]:
    quizzes = {form["data-quiz-id"]: form for form in _quizzes(site_dir, lesson)}
    return {str(fig["data-fig-id"]) for fig in quizzes[quiz_id].select(".sbn-quiz__model .fig")}


def test_lesson_8_leaves_room_by_the_papers_decimal_reading_the_cards_total_and_what_programs_get(
    site_dir: Path,
) -> None:
    # ZeRO computes with 32 GB as 32 × 10^9 bytes; a "32 GB" V100 holds 32 GiB, nvidia-smi's total; programs get
    # what the driver does not reserve, 32510 MiB in a benchmark under driver 450.
    shown = _answer_figure_ids(site_dir, lesson_page(8), "l8-practice-3")
    left = {"zero-dp-limit", "zero-dp-limit/v100-32gb-nvidia-smi", "zero-dp-limit/v100-32gb-reported"}
    assert {f"memory-left/{ids}" for ids in left} <= shown


def test_lesson_8_counts_activations_for_the_batch_and_for_one_sequence(site_dir: Path) -> None:
    # Activations follow the micro-batch: ZeRO's batch of 32, and one sequence at a time.
    shown = _answer_figure_ids(site_dir, lesson_page(8), "l8-practice-3-compare")
    assert {"activations/zero-gpt2-activations", "activations/zero-gpt2-activations-mb1"} <= shown


def test_lesson_7_sends_the_gradients_of_both_recipes(site_dir: Path) -> None:
    # fp32 gradients under PyTorch's autocast, fp16 ones in the recipe ZeRO counts.
    ids = {fig["data-fig-id"] for fig in lesson_body(soup(site_dir / lesson_page(7))).select(".fig")}
    assert {"allreduce-bytes/gpt2-ring-pcie/fp32", "allreduce-bytes/gpt2-ring-pcie"} <= ids
