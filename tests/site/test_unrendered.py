"""Markdown the site does not read fails the build at its line, instead of showing on the page as typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Built
from tests.site.test_bad_input import LESSON_8, _lesson_8_with, fails_with, line_of

#: A block of Markdown a page might hold, what the build says of it, and the text of its line.
UNREAD = [
    ("A claim with a footnote[^1].", "'[^1]' is a footnote", "footnote[^1]"),
    ("Term\n:   Its definition.", "':   Its definition.' is a definition list", ":   Its definition."),
    ("- [ ] a task", "'[ ]' is a task list's box", "- [ ] a task"),
    ("Now ~~struck~~ out.", "'~~struck~~' is strikethrough", "~~struck~~"),
    ('=== "Tab one"\n\n    Inside.', "'=== \"Tab one\"' is a content tab", '=== "Tab one"'),
    ("Smile :smile: please.", "':smile:' is an emoji shortcode", ":smile:"),
    ("/// tab | A tab\nText\n///", "'/// tab | A tab' is a /// block no extension reads", "/// tab | A tab"),
    ("A paragraph{: .wide }\n\nand more.", "'{: .wide }' is an attribute list that attached to nothing", "{: .wide }"),
    ("A [broken](link", "'[broken](link' is a link Markdown could not read", "[broken](link"),
    # MathJax's inline math, which Markdown shows as "(y)": read in the source (issue 25), outside code.
    (
        "Let \\(y = 2x\\) hold, as `\\(code\\)` shows.",
        "'\\\\(y = 2x\\\\)' is MathJax's inline math: the site does not enable MathJax",
        "\\(y = 2x\\)",
    ),
    # Its display math, which Markdown shows as "[…]", over one line or more (attack round 8: a typed figure in it
    # passed), at the line it starts on.
    (
        "Memory: \\[ 80\\,\\text{GB} \\] per GPU.",
        "'\\\\[ 80\\\\,\\\\text{GB} \\\\]' is MathJax's display math: the site does not enable MathJax",
        "Memory: \\[",
    ),
    (
        "Then \\[\nM = 16\\,\\text{GB}\n\\]",
        "'\\\\[\\nM = 16\\\\,\\\\text{GB}\\n\\\\]' is MathJax's display math",
        "Then \\[",
    ),
    # An admonition's body is indented, and not code.
    ("!!! note\n\n    Inside, \\(w\\) too.", "'\\\\(w\\\\)' is MathJax's inline math", "Inside, \\(w\\)"),
]
#: MathJax's inline math in an indented code block, which shows it as written: no problem.
MATH_IN_CODE = "A paragraph.\n\n    \\(z\\) in an indented code block"


@pytest.fixture(scope="module")
def unread(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    return _lesson_8_with([block for block, *_ in UNREAD] + [MATH_IN_CODE], tmp_path_factory)


@pytest.mark.parametrize(("block", "message", "marker"), UNREAD)
def test_markdown_the_site_does_not_read_fails_at_its_line(
    unread: tuple[Path, Built], block: str, message: str, marker: str
) -> None:
    path, built = unread
    fails_with(built, f"{LESSON_8}:{line_of(path, marker)}", message)


def test_math_in_an_indented_code_block_is_code(unread: tuple[Path, Built]) -> None:
    path, built = unread
    assert not [said for said in built.messages if f"{LESSON_8}:{line_of(path, '(z')}" in said], built.output
