"""Letters that look like others: one table and one reading, for every reader that compares text as a person does.

A person reads "24 GΒ" (a Greek capital Beta) as "24 GB", and "Pаris" (a
Cyrillic а) as "Paris"; a program compares code points and sees two other
words. So that no check is fooled by a look-alike (a typed figure hiding from
the typed-figure check, two quiz options a reader cannot tell apart), every
reader that compares text as a person reads it goes through `as_read`: the
invisible characters dropped (`invisible`), the combining marks that join no
letter into one (an underline "2̲4̲") dropped, and the Greek and Cyrillic letters
that look like Latin ones read as those.
"""

from __future__ import annotations

import unicodedata

from .invisible import visible

#: Greek and Cyrillic letters drawn as a Latin letter is in the fonts a page uses, and that Latin letter. Only
#: letters that look the same: a Greek μ (micro, a unit's prefix), α or β, and Cyrillic letters such as Г or Б,
#: are letters of their own to a reader.
CONFUSABLES = str.maketrans(
    {
        # Greek capitals.
        **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX", strict=True)),
        # Greek small letters.
        **dict(zip("οιν", "oiv", strict=True)),
        # Cyrillic capitals.
        **dict(zip("АВСЕНІЈКМОРЅТХУҮԚԜ", "ABCEHIJKMOPSTXYYQW", strict=True)),
        # Cyrillic small letters.
        **dict(zip("асеіјорѕхуүһԁԛԝ", "aceijopsxyyhdqw", strict=True)),
    }
)
#: Unicode's categories of combining marks: nonspacing and enclosing.
_COMBINING = frozenset({"Mn", "Me"})


def as_read(text: str) -> str:
    """`text` letter by letter as a person reads it: without invisible characters, without combining marks that
    do not compose with their letter (an accent that does, as in "é", stays), look-alike letters read as Latin.

    >>> as_read("2\\u03324\\u0332 G\\u0392, P\\u0430ris, caf\\u0065\\u0301")
    '24 GB, Paris, café'
    """
    composed = unicodedata.normalize("NFC", visible(text))
    if composed.isascii():  # most text: nothing to drop or fold
        return composed
    kept = "".join(character for character in composed if unicodedata.category(character) not in _COMBINING)
    return kept.translate(CONFUSABLES)
