"""Characters a reader does not see: one list, for every reader of typed text.

A soft hyphen, a zero-width space or a direction mark shows nothing, yet parts
"112" from "GB" for a program. What an answer carries of them (pasted with it,
or typed by a keyboard layout) is dropped before it is read, by the build
(`quiz.answers`) and by the page (`answers.js`, which gets `INVISIBLE_RANGES`
with the units table, `quiz.units.page_json`), so that both read the same.
"""

from __future__ import annotations

import re

#: Unicode's format characters that show nothing (the soft hyphen, the Arabic letter mark, the Mongolian vowel
#: separator, zero-width spaces and joiners, direction marks, embeddings and isolates, the word joiner and the
#: invisible operators, the byte order mark, tags), variation selectors and the combining grapheme joiner: first
#: and last code points of each run.
INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xE0000, 0xE007F),
    (0xE0100, 0xE01EF),
)
#: Any one of them.
INVISIBLE = re.compile("[" + "".join(f"{chr(first)}-{chr(last)}" for first, last in INVISIBLE_RANGES) + "]")


def visible(text: str) -> str:
    """`text` without the characters a reader does not see.

    >>> visible("112\\u200bGB\\u200e")
    '112GB'
    """
    return INVISIBLE.sub("", text)
