"""Markdown the site does not read is found where the page shows it as typed, and nowhere else."""

from __future__ import annotations

import re
from collections.abc import Sequence

import markdown
import pytest

from macros.data.unrendered import Unrendered, unrendered
from macros.quiz import QuizExtension, StandaloneHost
from tests.unit.test_markup import SITE_MARKDOWN

#: Syntax of extensions mkdocs.yml does not enable, or that Markdown could not apply, and what it is.
UNREAD = [
    ("A claim[^1].", "a footnote"),
    ("[^1]: The note.", "a footnote"),
    ("Term\n:   Its definition.", "a definition list"),
    ("- [ ] a task", "a task list's box"),
    ("- [x] done", "a task list's box"),
    ("Now ~~struck~~.", "strikethrough"),
    ("Now ==marked==.", "a highlight"),
    ("Press ++ctrl+c++.", "a key combination"),
    ("An {++added++} word.", "a CriticMarkup edit"),
    ('=== "Tab one"\n\n    Inside.', "a content tab"),
    ("Smile :smile: please.", "an emoji shortcode"),
    ("$$\nx = 1\n$$", "display math"),
    # Issue 25, round 5: inline math and single-tilde subscript, which no extension of mkdocs.yml reads.
    ("The square $x^2$ here.", "inline math"),
    ("A $y$ alone.", "inline math"),
    ("Water is H~2~O.", "a subscript"),
    ("A ~sub~ word.", "a subscript"),
    ("See [[Lesson 7]].", "a wiki link"),
    ('--8<-- "file.md"', "a snippet include"),
    ("/// tab | Tab\nText\n///", "a /// block no extension reads"),
    ("A paragraph{: .wide }\n\nand more", "an attribute list that attached to nothing"),
    ("[broken](link", "a link Markdown could not read"),
    ("[text][nowhere]", "a link to a reference that is not defined"),
    # Attack round 9: CommonMark's backslash line break, shown as typed ("80\ GB" read past the check).
    ("It holds 80\\\nGB.", "a backslash line break"),
]


@pytest.mark.parametrize(("markdown", "what"), UNREAD)
def test_syntax_the_site_does_not_read_is_found(markdown: str, what: str) -> None:
    assert [found.what for found in unrendered(SITE_MARKDOWN.reset().convert(markdown))] == [what]


@pytest.mark.parametrize(
    "markdown",
    [
        "Code `[^2] ~~x~~ :smile: {: .x }` is shown as typed on purpose.",
        "```text\n[^1]: a footnote in code\n:   a definition\n```",
        "At 10:30:15, a set {i=1,...,k}, a price of $2 and $3, a ratio 2:1, and C++ or a++b.",
        "A lone $ sign, $5 to $10 a day, ~3x and ~4x faster, about ~ that.",
        "A heading\n{: #anchor }",
        "*Emphasis*{: .x } attached.",
        "Note: a colon that starts nothing.",
        "[a link](https://example.org) and [a reference][ref].\n\n[ref]: https://example.org",
        '!!! note "An admonition"\n    Its body.',
    ],
)
def test_what_the_site_reads_or_shows_in_code_is_not_found(markdown: str) -> None:
    assert unrendered(SITE_MARKDOWN.reset().convert(markdown)) == []


class Telling(StandaloneHost):
    """A host that takes each problem, as the build does, and lets the block show it in its box."""

    def report(self, message: str, near: Sequence[re.Pattern[str]]) -> None:
        pass


@pytest.mark.parametrize(
    "source",
    [
        # Attack round 9, F12: the box shows "&nbsp;" as a no-break space, so its text was not the problem reported,
        # and its header was told again, with no line, as a /// block no extension reads.
        "/// checklist | Extra reps\n    items: [l5-rep-x1, l5-rep-x2]\n\n- \n- two\n///\n",
        "/// quiz | Practice 2\n    id: l8-practice-2\n    kind: free\n\nWhy?\n",  # not closed
    ],
)
def test_the_builds_own_problem_box_is_never_read_as_the_pages_text(source: str) -> None:
    """Whatever a box says: it is the build's, reported at its line, never syntax the author left unread."""
    html = markdown.markdown(source, extensions=[QuizExtension(host=Telling())])
    assert 'class="sbn-build-error"' in html
    assert unrendered(html + "<p>/// quiz | Left</p>") == [
        Unrendered("/// quiz | Left", "a /// block no extension reads", "use /// quiz or /// checklist, or no block")
    ]
