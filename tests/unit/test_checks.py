"""The HTML checks themselves must catch what they are for."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from tests.checks import bare_figures, parse_display, rederives


def _article(html: str) -> BeautifulSoup:
    return BeautifulSoup(f"<article>{html}</article>", "html.parser")


@pytest.mark.parametrize(
    "html",
    [
        "<p>It needs 99 GB here.</p>",
        "<p>about 1,024 tokens</p>",
        "<p>a 7-billion-parameter model</p>",
        "<p>1.4B parameters</p>",
        "<p>1.5 Billion parameters</p>",
        "<p>at 300 GB/s</p>",
        "<p>at 300 GBps</p>",
        "<p>takes 164 ms</p>",
        "<p>on 8 GPUs</p>",
        "<p>16 bytes per parameter</p>",
        "<p>24 gigabytes</p>",
        "<p>1e9 bytes</p>",
        "<p>200 Gb/s links</p>",
        "<p>0.5 s</p>",
        "<p>a 5% loss</p>",
        "<p>split 24 <em>GB</em> across</p>",
        '<p><a href="x" title="it takes 24 GB">link</a></p>',
        '<p><img src="x.png" alt="a 24 GB bar"></p>',
        '<p><abbr title="80 GB of HBM3">HBM</abbr></p>',
        # At the start of a block after one that ends in a word: two runs of text, not "GPT-224 GB".
        "<table><tr><td>GPT-2</td><td>24 GB</td></tr></table>",
        "<p>Lesson</p><p>24 GB a copy</p>",
        '<p title="more than 3 GB > less">text</p>',
        "<script>const tag = '<p>';</script><p>99 GB</p>",
        # A quote in an unquoted value opens nothing: the text after the tag is still read.
        "<p><img alt=Bob's src=x.png> and then 24 GB of memory, it's</p>",
    ],
)
def test_a_bare_figure_is_found(html: str) -> None:
    assert bare_figures(_article(html))


@pytest.mark.parametrize(
    "text",
    [
        "Lesson 7 and Stage 5",
        "fp16 and fp32 and bf16",
        "GPT-2's size",
        "the same 16Ψ figure",
        "2(N − 1)/N times",
        "Practice 1",
        "a 16-bit format",
    ],
)
def test_words_with_digits_are_not_figures(text: str) -> None:
    assert bare_figures(_article(f"<p>{text}</p>")) == []


@pytest.mark.parametrize(
    "html",
    [
        '<p>It needs <span class="fig" title="16 B × 1.5 billion" data-unit="B">24 GB</span>.</p>',
        '<p><span class="sbn-quiz__hint">within 5% counts</span></p>',
        "<!-- 99 GB --><p>text</p>",
        '<script>const text = "<p>99 GB</p>";</script><style>p::after { content: "99 GB"; }</style>',
        # An unquoted value ending in a slash leaves the element what it is.
        "<span class=fig data-u=/x/>4 GB</span>",
    ],
)
def test_figures_and_quiz_settings_are_not_bare(html: str) -> None:
    assert bare_figures(_article(html)) == []


@pytest.mark.parametrize(
    ("html", "typed"),
    [
        ("<p>Write <code>24 GB</code> as a macro.</p>", "24 GB"),
        ("<pre><code>memory: 32 GiB</code></pre>", "32 GiB"),
        # A stray quote leaves the element what it is.
        ("<code x'y>4 GB</code>", "4 GB"),
    ],
)
def test_code_hides_no_typed_figure(html: str, typed: str) -> None:
    """As the build reads a page (issue 25): a reader reads a number in code as one, so it is computed too."""
    assert bare_figures(_article(html)) == [typed]


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
        ("34 days", "s", "2937600"),
        ("32 GB/s", "B/s", "32000000000"),
        ("15.1 PFLOP/s", "FLOP/s", "15100000000000000"),
        ("1,024", "1", "1024"),
        ("76%", "1", "0.76"),
        ("32 GiB", "B", "34359738368"),
        # What CUDA gives programs of an H100 80GB and of a V100 32 GB, beside the capacity each is sold with.
        ("80 GB (79.2 GiB to programs)", "B", "85028896768"),
        ("32 GB (31.7 GiB to programs)", "B", "34089730048"),
        # The same on a chart's decimal axis: 85,028,896,768 B is 85.0 GB and 79.19 GiB, 42,298,834,944 B 42.3 GB.
        ("85 GB to programs (79.2 GiB)", "B", "85028896768"),
        ("42.3 GB to programs (39.4 GiB)", "B", "42298834944"),
        ("3.14 × 10²³ FLOP", "FLOP", "314260018790400000000000"),
        ("5.96 × 10⁻⁸", "1", "0.000000059604644775390625"),
        ("2⁻²⁴", "1", "0.000000059604644775390625"),
        ("1.75 × 2⁸", "1", "448"),
        ("300 billion", "1", "300000000000"),
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
        ("80 GB (79.3 GiB to programs)", "B", "85028896768"),
        ("85.1 GB to programs (79.2 GiB)", "B", "85028896768"),
        ("32 GB", "B", "34359738368"),
        ("77%", "1", "0.76"),
        ("3.15 × 10²³ FLOP", "FLOP", "314260018790400000000000"),
        ("3.14 × 10²² FLOP", "FLOP", "314260018790400000000000"),
        ("2⁻²³", "1", "0.000000059604644775390625"),
        ("10⁴", "1", "9996"),
        ("1.5 × 2⁸", "1", "448"),
        ("300 million", "1", "300000000000"),
    ],
)
def test_a_wrong_display_does_not(display: str, unit: str, value: str) -> None:
    assert not rederives(display, value, unit)


@pytest.mark.parametrize(
    ("display", "unit"),
    [
        ("24 GB/s", "B"),
        ("80 GB (79.2 GiB)", "B"),
        ("24 GB (79.2 GiB to programs)", "B"),
        # 85 GB is not 24 GiB, nor 79.2 GB 79.2 GiB.
        ("85 GB to programs (24 GiB)", "B"),
        ("79.2 GB to programs (79.2 GiB)", "B"),
        ("80 GB (79.2 GiB to programs)", "1"),
        ("76%", "B"),
        ("3.14 × 10²³ bytes", "FLOP"),
        ("300 billion", "B"),
    ],
)
def test_a_display_that_is_not_of_the_unit_is_refused(display: str, unit: str) -> None:
    with pytest.raises(
        ValueError, match=r"is not a display of a quantity|more than the card is sold with|two different amounts"
    ):
        parse_display(display, unit)
