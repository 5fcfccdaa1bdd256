"""The HTML checks themselves must catch what they are for."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from tests.checks import bare_figures, parse_display, rederives


def _article(html: str) -> BeautifulSoup:
    return BeautifulSoup(f"<article>{html}</article>", "html.parser")


@pytest.mark.parametrize(
    "text",
    [
        "needs 99 GB",
        "about 1,024 tokens",
        "a 7-billion-parameter model",
        "1.4B parameters",
        "at 300 GB/s",
        "takes 164 ms",
        "on 8 GPUs",
        "16 bytes per parameter",
        "200 Gb/s links",
        "0.5 s",
    ],
)
def test_a_bare_figure_is_found(text: str) -> None:
    assert bare_figures(_article(f"<p>It {text} here.</p>"))


@pytest.mark.parametrize(
    "text",
    [
        "Lesson 7 and Stage 5",
        "fp16 and fp32 and bf16",
        "GPT-2's size",
        "the same 16Ψ figure",
        "2(N − 1)/N times",
        "Practice 1",
    ],
)
def test_words_with_digits_are_not_figures(text: str) -> None:
    assert bare_figures(_article(f"<p>{text}</p>")) == []


def test_a_figure_element_is_not_bare() -> None:
    html = '<p>It needs <span class="fig" data-value="24000000000" data-unit="B">24 GB</span>.</p>'
    assert bare_figures(_article(html)) == []


@pytest.mark.parametrize(
    ("display", "unit", "value"),
    [
        ("24 GB", "B", "24000000000"),
        ("60 GB", "B", "60397977600"),
        ("2 bytes", "B", "2"),
        ("16", "B", "16"),
        ("1.5-billion-parameter", "param", "1500000000"),
        ("1.4B parameters", "param", "1400000000"),
        ("164 ms", "s", "0.1640625"),
        ("32 GB/s", "B/s", "32000000000"),
        ("1,024", "1", "1024"),
    ],
)
def test_a_faithful_display_rederives(display: str, unit: str, value: str) -> None:
    assert rederives(display, value, unit)


@pytest.mark.parametrize(
    ("display", "unit", "value"),
    [
        ("24 GB", "B", "25000000000"),
        ("61 GB", "B", "60397977600"),
        ("1.5 million parameters", "param", "1500000000"),
        ("164 s", "s", "0.1640625"),
    ],
)
def test_a_wrong_display_does_not(display: str, unit: str, value: str) -> None:
    assert not rederives(display, value, unit)


def test_a_display_in_the_wrong_unit_is_refused() -> None:
    with pytest.raises(ValueError, match="is not a display of a quantity in 'B'"):
        parse_display("24 GB/s", "B")
