"""A numeric question's hint asks for a unit only when its key has one."""

from __future__ import annotations

import textwrap

import markdown
from bs4 import BeautifulSoup

from macros.quiz import KeyFigure, QuizExtension, StandaloneHost
from tests.checks import one

RATIO = (
    '<span class="fig" data-fig-id="zero-traffic-ratio/os-g-p" data-value="1.5" data-unit="1"'
    ' title="3Ψ ÷ 2Ψ" tabindex="0">1.5</span>'
)
BYTES = (
    '<span class="fig" data-fig-id="model-states/example-7b" data-value="112000000000" data-unit="B"'
    ' title="16 bytes × 7 billion parameters" tabindex="0">112 GB</span>'
)
FIGURES = {
    "zero-traffic-ratio/os-g-p": KeyFigure("1.5", "1", "1", "", "1.5"),
    "model-states/example-7b": KeyFigure("112000000000", "B", "1000000000", "GB", "112 GB"),
}


def hint(figure: str) -> str:
    source = (
        "/// quiz | Warm-up 2\n    id: l10-warmup-2\n    kind: numeric\n    tolerance: 1%\n\n"
        f"How many?\n\n//// answer\n{figure}: why.\n////\n///\n"
    )
    extension = QuizExtension(host=StandaloneHost(FIGURES))
    html = markdown.markdown(textwrap.dedent(source), extensions=[extension, "pymdownx.superfences"])
    return one(BeautifulSoup(html, "html.parser"), ".sbn-quiz__hint").get_text()


def test_a_ratio_asks_for_a_number_without_a_unit() -> None:
    assert hint(RATIO) == "A number; within 1% counts."


def test_a_size_asks_for_a_number_with_its_unit() -> None:
    assert hint(BYTES) == "A number with its unit (a bare number counts as GB); within 1% counts."
