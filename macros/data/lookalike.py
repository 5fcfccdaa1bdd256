"""Letters that look like others: one table and one reading, for every reader that compares text as a person does.

A person reads "24 GΒ" (a Greek capital Beta) as "24 GB", and "Pаris" (a
Cyrillic а) as "Paris"; a program compares code points and sees two other
words. So that no check is fooled by a look-alike (a typed figure hiding from
the typed-figure check, two quiz options a reader cannot tell apart), every
reader that compares text as a person reads it goes through `as_read`: the
invisible characters dropped (`invisible`), the combining marks that join no
letter into one (an underline "2̲4̲") dropped, and the Greek, Cyrillic, Cherokee, Lisu and
Canadian Syllabics letters and Latin small capitals that look like Latin ones read as those.
"""

from __future__ import annotations

import unicodedata

from .invisible import visible

#: Latin small capitals ("ɢʙ"), read as Unicode's confusables.txt reads them where it gives one a Latin letter
#: (UTS #39, version 14.0.0 of 2021-05-29: "ᴄ" as "c", "ᴡ" as "w", drawn as the small letters are), and elsewhere
#: as the capitals their names say they are drawn as, smaller ("ɢ" as "G"), which confusables.txt leaves letters
#: of their own or reads as other look-alikes ("ᴋ" as the kra, "ĸ"). Every small capital Unicode names so.
_SMALL_CAPITALS = {
    **{
        chr(code): name[-1]
        for block in (range(0x0250, 0x02B0), range(0x1D00, 0x1D2C), range(0xA720, 0xA800))
        for code in block
        if (name := unicodedata.name(chr(code), "")).startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == 28
    },
    **dict(zip("ɪʏᴄᴏᴜᴠᴡᴢꜱ", "iycouvwzs", strict=True)),
}
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
        # Cherokee letters, each as confusables.txt (version 14.0.0, as above) reads it: every one it gives one
        # Latin letter or digit ("Ꮟ" is "b", "Ꮞ" is "4"), and the small letters it reads as Latin small capitals,
        # read as those are.
        **dict(zip("ᎠᎡᎢᎥᎩᎪᎫᎬᎳᎷᎻᎽᏀᏂᏃᏎᏏᏒᏔᏕᏙᏚᏞᏟᏢᏦᏧᏮᏳᏴ", "DRTiYAJEWMHYGhZ4bRWSVSLCPKd6GB", strict=True)),
        **dict(zip("ꭵꮁꮃꮓꮩꮪꮯ", "irwzvsc", strict=True)),
        **{letter: _SMALL_CAPITALS[small] for letter, small in zip("ᏻᏼꭰꭱꭲꭺꭻꭼꮋꮐꮢꮮꮲ", "ɢʙᴅʀᴛᴀᴊᴇʜɢʀʟᴘ", strict=True)},
        # Lisu and Canadian Syllabics letters, as confusables.txt (14.0.0) reads them: every one it gives one Latin
        # letter or digit ("ꓖ" is "G", "ᗷ" is "B"; attack round 7 hid "8 ꓖꓐ" and "8 Gᗷ" from the typed-figure check).
        **dict(zip("ꓮꓐꓚꓒꓓꓰꓝꓖꓧꓙꓗꓲꓡꓟꓠꓳꓑꓣꓢꓔꓴꓦꓪꓫꓬꓜ", "ABCdDEFGHJKlLMNOPRSTUVWXYZ", strict=True)),
        **dict(zip("ᒿᗅᑲᖯᗷᑯᗞᗪᖴᕼᒍᒪᗰᑭᖇᑌᐯ᙮ᕁᕽ᙭", "2AbbBdDDFHJLMPRUVxxxX", strict=True)),
        **_SMALL_CAPITALS,
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
