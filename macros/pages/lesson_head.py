"""What follows a lesson's title: how long it takes to read, and its progress line.

The build puts them into the lesson's HTML right after its `<h1>`, so that a phone
shows the lesson first and no theme template has to take the page's content apart
(the host's templates only place `page.content`). `course.js` fills the progress
line in from the answers kept in the reader's browser, and shows "Reset" only when
there is something to reset; its room is kept, so nothing moves when it appears.
Without JavaScript it stays empty and unseen. Neither is a search entry's text
(Material leaves out an element marked `data-search-exclude`). Nothing here
imports MkDocs.
"""

from __future__ import annotations

#: The end of a lesson's title, after which its head goes.
_TITLE_END = "</h1>"

_HEAD = (
    '<p class="sbn-reading" data-search-exclude>About {reading} of reading, straight through; the questions and reps'
    " take longer.</p>\n"
    '<div class="sbn-progress" data-sbn-progress data-search-exclude>\n'
    '  <p class="sbn-progress__text" role="status"></p>\n'
    '  <button type="button" class="sbn-progress__reset" data-sbn-reset hidden>Reset this page\'s answers</button>\n'
    '  <p class="sbn-progress__note" role="alert" hidden></p>\n'
    "</div>\n"
)


def with_head(html: str, reading: str) -> str:
    """A lesson's converted `html` with its head after its title: `reading`, the element of its reading time
    (a figure's HTML), then the progress line. A lesson without a title of its own (the theme writes one
    above the content) gets its head first.

    >>> with_head("<h1>Lesson 1</h1>\\n<p>Text</p>", "<span>9 minutes</span>").split("\\n")[:2]
    ['<h1>Lesson 1</h1>', '<p class="sbn-reading" data-search-exclude>About <span>9 minutes</span> of reading, \
straight through; the questions and reps take longer.</p>']
    """
    head = _HEAD.format(reading=reading)
    title, end, body = html.partition(_TITLE_END)
    return f"{title}{end}\n{head}{body.lstrip(chr(10))}" if end else head + html
