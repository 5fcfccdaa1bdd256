"""A typed figure is refused wherever a reader reads it, once, at the line it was typed on.

A copy of the course gets a typed figure in each place of a page that Markdown
makes (a heading, a table cell, an image's alt, an admonition's title, an
abbreviation, code), behind each class an author can borrow, split by markup or
by characters a reader does not see, in a non-lesson page's front matter, and in
what a macro call shows (its caption, a catalog value): each is reported once,
at its own line, found in the broken file itself.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import Built, build_copy, copy_course, replace_in
from tests.site.test_bad_input import LESSON_8, _lesson_8_with, fails_with, line_of

#: A block of Markdown, the figure typed in it (as reported), where, and the text of the line it is on.
PLACES = [
    ("## A heading of 2.5 TB", "2.5 TB", "the text", "heading of 2.5 TB"),
    ("| a | b |\n| --- | --- |\n| 40 GiB | x |", "40 GiB", "the text", "| 40 GiB |"),
    ("![a picture of 3 days](x.png)", "3 days", "the alt of a <img>", "picture of 3 days"),
    ('!!! note "Takes 4 days"\n    Its body.', "4 days", "the text", "Takes 4 days"),
    ("*[HBM]: 80 GB of memory\n\nHBM, and HBM again.", "80 GB", "the title of a <abbr>", "80 GB of memory"),
    ("Code `21 GB` in a span.", "21 GB", "the text", "`21 GB`"),
    ("```text\nfree: 22 GB\n```", "22 GB", "the text", "free: 22 GB"),
    # An indented code block, at the line it is typed on, not at an earlier HTML comment's that no reader reads
    # (attack round 8: reported at the comment's line).
    ("<!-- a note: 26 GB -->\n\nA paragraph.\n\n    x = 1\n    free: 26 GB", "26 GB", "the text", "free: 26 GB"),
    ('<span class="fig">99 GB</span> forged.', "99 GB", "the text", "99 GB</span>"),
    ("A 77 GB{: .fig } borrowed.", "77 GB", "the text", "A 77 GB"),
    ('<span class="headerlink">55 GB</span> borrowed.', "55 GB", "the text", "55 GB</span>"),
    ('<span class="sbn-quiz__hint">within 44 GB</span>', "44 GB", "the text", "within 44 GB"),
    ('<div class="sbn-build-error">boxed 33 GB</div>', "33 GB", "the text", "boxed 33 GB"),
    ("<kbd>66 GB</kbd> typed.", "66 GB", "the text", "<kbd>66 GB"),
    ("An entity: 23&nbsp;GB.", "23 GB", "the text", "23&nbsp;GB"),
    ("Split 31\nGB over two lines.", "31 GB", "the text", "Split 31"),
    ("Hidden 1&#8203;9 GB and 10⁹ bytes.", "19 GB", "the text", "Hidden 1&#8203;9"),
    ("A superscript: 10⁹ bytes.", "10^9 bytes", "the text", "superscript: 10⁹"),
    ("Full width: ２９ ＧＢ.", "29 GB", "the text", "Full width"),
    ("Three spellings: 312 TFLOPS, 3 weeks, 128k tokens.", "3 weeks", "the text", "Three spellings"),
    # The same text typed twice: each at its own line.
    ("It needs 18 GB here.", "18 GB", "the text", "It needs 18 GB here."),
    ("And 18 GB again.", "18 GB", "the text", "And 18 GB again."),
]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    return _lesson_8_with([block for block, *_ in PLACES], tmp_path_factory)


@pytest.mark.parametrize(("block", "typed", "where", "marker"), PLACES)
def test_a_typed_figure_is_found_wherever_it_is_read_at_its_line(
    places: tuple[Path, Built], block: str, typed: str, where: str, marker: str
) -> None:
    path, built = places
    fails_with(built, f"{LESSON_8}:{line_of(path, marker)}", f"{typed!r} in {where} is a typed figure")


def test_each_typed_figure_is_reported_once(places: tuple[Path, Built]) -> None:
    typed = [message for message in places[1].messages if "is a typed figure" in message]
    assert len(typed) == len(set(typed))


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    """A copy whose typed figures come from what pages show: a macro's caption, front matter. (A catalog text's is
    refused where it is typed, as the catalog is loaded: tests/unit/test_catalog.py.)"""
    copy = copy_course(tmp_path_factory.mktemp("shown"))
    replace_in(copy / "docs/glossary.md", "description: Every term", "description: 24 GB of terms, every term")
    path = copy / LESSON_8
    text = path.read_text(encoding="utf-8")
    text = text.replace(
        "\n## Practice\n",
        '\n{{ diagram("ring_allreduce", devices=4, caption="27 GB a ring") }}\n\n'
        '{{ schedule_table("1f1b", 4, 8, caption="Costs 28 GB") }}\n\n## Practice\n',
        1,
    )
    path.write_text(text, encoding="utf-8")
    return copy, build_copy(copy)


@pytest.mark.parametrize(
    ("call", "said"),
    [
        # A diagram's caption is its list's aria-label too: told once, with both places (it was told twice).
        ("27 GB a ring", "'27 GB' in the aria-label of a <ol> and the text of what it shows"),
        # A schedule table's caption ran on into its legend ("28 GBRows"), and its figure was missed.
        ("Costs 28 GB", "'28 GB' in the text of what it shows"),
    ],
)
def test_a_macros_output_is_reported_once_at_its_call(shown: tuple[Path, Built], call: str, said: str) -> None:
    copy, built = shown
    at = f"{LESSON_8}:{line_of(copy / LESSON_8, call)}: "
    fails_with(built, at.removesuffix(": "), said)
    assert len([message for message in built.messages if message.startswith(at)]) == 1, built.output


def test_a_pages_description_is_checked_on_every_page(shown: tuple[Path, Built]) -> None:
    copy, built = shown
    line = line_of(copy / "docs/glossary.md", "description:")
    fails_with(built, f"docs/glossary.md:{line}", "the front matter's description types '24 GB'")


#: A call of each chart layout, with a place `@…` for each text its author writes: the caption, the axes' titles,
#: labels (of x's values, a series, a stack, a reference line, a mark, a figure beside a bar), a reference line's
#: own label and a range chart's spans.
CHARTS = (
    '{{ chart("bytes_per_parameter", x={"recipe": ["mixed-adam"]}, stack={"state": ["fp16_parameters",'
    ' "fp32_parameters"]}, lines=["v100-32gb"], labels={"mixed-adam": "@bar", "fp32_parameters": "@stack",'
    ' "v100-32gb": "@line"}, x_title="@x_title", y_title="@y_title", caption="@caption") }}',
    '{{ chart("format_value", x={"fmt": ["fp32", "bf16"]}, ranges={"quantity": ["min_subnormal", "min_normal",'
    ' "max_normal"]}, beside={"quantity": "epsilon"}, segments=["@segment", "normals"], labels={"bf16": "@bar",'
    ' "epsilon": "@beside", "min_normal": "@range"}, x_title="@x_title", caption="@caption") }}',
    '{{ chart("ring_bytes", x={"devices": [2, 4]}, series={"precision": ["fp32"]}, fixed={"entry": "gpt2-1.5b"},'
    ' lines=[{"kind": "ring_bytes_limit", "args": ["gpt2-1.5b", "fp32"], "label": "@line"}, "v100-32gb"],'
    ' labels={"fp32": "@series", "v100-32gb": "@catalog_line"}, x_title="@x_title", y_title="@y_title",'
    ' caption="@caption") }}',
)
_PLACE = re.compile(r"@\w+")


def _chart_texts() -> list[tuple[str, str]]:
    """Each chart with a typed figure in one of its texts and plain words in the others, and that figure (each
    its own, to find its line)."""
    calls: list[tuple[str, str]] = []
    for chart in CHARTS:
        for chosen in dict.fromkeys(_PLACE.findall(chart)):
            typed = f"{60 + len(calls)} GB"
            calls.append((_PLACE.sub("words", chart.replace(f'"{chosen}"', f'"{typed}"')), typed))
    return calls


CHART_TEXTS = _chart_texts()


@pytest.fixture(scope="module")
def chart_texts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    return _lesson_8_with([call for call, _ in CHART_TEXTS], tmp_path_factory)


@pytest.mark.parametrize(("call", "typed"), CHART_TEXTS)
def test_a_typed_figure_in_any_charts_text_is_told_at_its_call(
    chart_texts: tuple[Path, Built], call: str, typed: str
) -> None:
    path, built = chart_texts
    fails_with(built, f"{LESSON_8}:{line_of(path, typed)}", f"{typed!r} in the text of what it shows is a typed figure")


#: A typed number or unit joined to a macro's output (attack round 8, F2: each passed, since the page's own
#: text was read with the macros' output taken out): the block, the typed figure as reported, and the text of
#: its line. A term shows its words, which a typed number before them makes a typed figure; a figure followed by
#: a typed unit has that unit typed, not computed.
JOINED = [
    ('It takes 3.14e23 {{ term("FLOPs") }} to train.', "'3.14e23 FLOPs' in the text is a typed figure", "3.14e23"),
    ('Runs on 16 {{ term("ranks") }} at once.', "'16 ranks' in the text is a typed figure", "Runs on 16"),
    ('Its {{ value("gpt2-1.5b", "layers") }}% share.', "'%' typed after a figure", "}}% share"),
    ('A {{ value("gpt2-1.5b", "layers") }}-gigabyte card.', "'-gigabyte' typed after a figure", "-gigabyte card"),
    ('About {{ value("gpt2-1.5b", "layers") }} hours.', "'hours' typed after a figure", "}} hours."),
    # Attack round 9: a time a figure is divided by makes a size a rate.
    ('A rate of {{ value("gpt2-1.5b", "layers") }}/s here.', "'/s' typed after a figure", "}}/s here"),
    ('Moved {{ value("gpt2-1.5b", "layers") }} per second.', "'per second' typed after a figure", "}} per second."),
    # Attack round 10: a digit, a point or a sign typed right before a figure makes it another number.
    ('It holds 1{{ value("gpt2-1.5b", "layers") }} here.', "'1' typed right before a figure", "holds 1{{"),
    ('It holds 0.{{ value("gpt2-1.5b", "layers") }} here.', "'0.' typed right before a figure", "holds 0.{{"),
    ('It holds -{{ value("gpt2-1.5b", "layers") }} here.', "'-' typed right before a figure", "holds -{{"),
    (
        'It has {{ value("gpt2-1.5b", "layers") }} terabytes of weights.',
        "'terabytes' typed after a figure",
        "terabytes of weights",
    ),
]
#: The same in a heading, in Lesson 10, where the term is used for the first time on its page, as above.
LESSON_10 = "docs/stage-5/lesson-10-fsdp-zero-in-pytorch.md"
JOINED_HEADING = ('### On 16 {{ term("ranks") }}', "'16 ranks' in the text is a typed figure", "### On 16")


@pytest.fixture(scope="module")
def joined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    copy = copy_course(tmp_path_factory.mktemp("joined"))
    lesson_8 = copy / LESSON_8
    text = lesson_8.read_text(encoding="utf-8")
    lesson_8.write_text(
        text.replace("\n## Practice\n", "\n" + "\n\n".join(block for block, *_ in JOINED) + "\n\n## Practice\n", 1),
        encoding="utf-8",
    )
    replace_in(copy / LESSON_10, "\n## Practice\n", f"\n{JOINED_HEADING[0]}\n\nIts text.\n\n## Practice\n")
    return copy, build_copy(copy)


@pytest.mark.parametrize(("block", "message", "marker"), JOINED)
def test_a_typed_number_or_unit_joined_to_a_macros_output_is_a_typed_figure_at_its_line(
    joined: tuple[Path, Built], block: str, message: str, marker: str
) -> None:
    copy, built = joined
    fails_with(built, f"{LESSON_8}:{line_of(copy / LESSON_8, marker)}", message)


def test_a_typed_number_joined_to_a_term_in_a_heading_is_a_typed_figure_at_its_line(
    joined: tuple[Path, Built],
) -> None:
    copy, built = joined
    _, message, marker = JOINED_HEADING
    fails_with(built, f"{LESSON_10}:{line_of(copy / LESSON_10, marker)}", message)


def test_a_typed_figure_joined_to_a_macros_output_is_reported_once(joined: tuple[Path, Built]) -> None:
    typed = [message for message in joined[1].messages if "typed figure" in message or "typed after" in message]
    assert len(typed) == len(JOINED) + 1, joined[1].output
