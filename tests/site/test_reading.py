"""Reading times as built: under each lesson's title and beside it on the home page, from the lesson's words."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from bs4 import BeautifulSoup

from macros.data.lessons import index_lessons
from tests.checks import attribute, lesson_body
from tests.conftest import catalog, course, soup

LESSONS = index_lessons(course().docs_dir).lessons
#: What a lesson's page holds beside the lesson itself, and what is not read straight through.
_NOT_READ = "svg, details, script, .sbn-reading, .sbn-progress, .sbn-report, .sbn-next, .sbn-print-choice, .headerlink"


def _words(article: BeautifulSoup) -> int:
    """The words of an article read straight through, counted apart from the build's own count."""
    for element in article.select(_NOT_READ):
        element.decompose()
    return len(re.findall(r"[A-Za-z0-9][A-Za-z0-9'’.,-]*", article.get_text(" ")))


def test_the_rate_is_what_its_source_says() -> None:
    rate = catalog().quantity("silent-reading-rate", "ratio")
    quote = catalog().records["silent-reading-rate"].provenance.quote
    assert quote is not None and f"is {rate.value} words per minute (wpm) for non-fiction" in quote


def test_each_lesson_shows_its_reading_time_under_its_title_and_on_the_home_page(site_dir: Path, lesson: str) -> None:
    number = next(n for n, entry in LESSONS.items() if lesson == entry.src_path.removesuffix(".md") + "/index.html")
    page = soup(site_dir / lesson)
    shown = page.select_one(f"h1 + p.sbn-reading .fig[data-fig-id='reading-time/{number}']")
    assert shown is not None, "no reading time under the title"
    home = soup(site_dir / "index.html").select_one(f".sbn-lesson-reading .fig[data-fig-id='reading-time/{number}']")
    assert home is not None and home["data-value"] == shown["data-value"]
    counted = re.match(r"([\d,]+) words", attribute(shown, "title"))
    assert counted is not None, shown
    words = int(counted.group(1).replace(",", ""))
    rate = catalog().quantity("silent-reading-rate", "ratio").value
    exact = Fraction(words * 60) / Fraction(rate)
    # 20 digits of a value no decimal ends
    assert abs(Fraction(attribute(shown, "data-value")) - exact) <= exact / 10**19
    ours = _words(BeautifulSoup(str(lesson_body(page)), "html.parser"))
    assert abs(ours - words) <= 0.03 * words, (ours, words)
