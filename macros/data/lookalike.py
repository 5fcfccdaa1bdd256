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
        # Cherokee capitals (Unicode's confusables: "Ᏼ" is drawn as "B").
        **dict(zip("ᎪᏴᏟᎠᎬᏀᎻᎫᏦᏞᎷᏢᎡᏚᎢᏙᎳᏃ", "ABCDEGHJKLMPRSTVWZ", strict=True)),
        # Latin small capitals ("ɢʙ"), which a reader reads as the capitals they are drawn as, smaller: every one
        # Unicode names so.
        **{
            chr(code): name[-1]
            for code in range(0x0250, 0x1D2C)
            if (name := unicodedata.name(chr(code), "")).startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == 28
        },
    }
)
#: The compatibility forms that are a letter or digit in another font or width: mathematical alphanumerics
#: ("𝐆𝐁", "𝖦𝖡"), full-width and half-width forms ("ＧＢ"). NFKC folds them to the letter itself; its other foldings
#: (a superscript to a digit, "½" to "1⁄2") change what a text says, and are left to the readers that want them.
_OTHER_FONT = ("<font>", "<wide>", "<narrow>")
#: Unicode's categories of combining marks: nonspacing and enclosing.
_COMBINING = frozenset({"Mn", "Me"})


def as_read(text: str) -> str:
    """`text` letter by letter as a person reads it: without invisible characters, without combining marks that
    do not compose with their letter (an accent that does, as in "é", stays), letters in another font or width read
    as themselves, look-alike letters read as Latin.

    >>> as_read("2\\u03324\\u0332 G\\u0392, P\\u0430ris, caf\\u0065\\u0301, 24 G\\u13f4")
    '24 GB, Paris, café, 24 GB'
    >>> as_read("24 \\u0262\\u0299, \\U0001d406\\U0001d401, 10²")
    '24 GB, GB, 10²'
    """
    composed = unicodedata.normalize("NFC", visible(text))
    if composed.isascii():  # most text: nothing to drop or fold
        return composed
    kept = "".join(
        unicodedata.normalize("NFKC", character)
        if unicodedata.decomposition(character).startswith(_OTHER_FONT)
        else character
        for character in composed
        if unicodedata.category(character) not in _COMBINING
    )
    return kept.translate(CONFUSABLES)
