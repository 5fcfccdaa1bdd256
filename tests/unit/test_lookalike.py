"""Look-alike letters are read as Unicode's confusables.txt reads them (UTS #39, version 14.0.0)."""

from __future__ import annotations

import pytest

from macros.data.lookalike import as_read

#: A letter, and what confusables.txt reads it as (a Cherokee small letter: as the Latin small capital it reads it
#: as, itself read as the capital its name says it is drawn as).
READINGS = [
    ("\u13f4", "B"),  # CHEROKEE LETTER YV
    ("\u13cf", "b"),  # CHEROKEE LETTER SI: a small b, not a capital
    ("\u13e7", "d"),  # CHEROKEE LETTER TSU
    ("\u13ce", "4"),  # CHEROKEE LETTER SE: a digit
    ("\u13ee", "6"),  # CHEROKEE LETTER WV
    ("\u13d2", "R"),  # CHEROKEE LETTER SV, which the table left out
    ("\uabaa", "s"),  # CHEROKEE SMALL LETTER DU
    ("\uab70", "D"),  # CHEROKEE SMALL LETTER A, read as a small capital D
    ("\u0262", "G"),  # LATIN LETTER SMALL CAPITAL G, a letter of its own to confusables.txt
    ("\u1d21", "w"),  # LATIN LETTER SMALL CAPITAL W: drawn as a small w, as confusables.txt reads it
    ("\u1d04", "c"),  # LATIN LETTER SMALL CAPITAL C
    ("\ua731", "s"),  # LATIN LETTER SMALL CAPITAL S, beyond the block the table read
    ("\ua4d6", "G"),  # LISU LETTER GA (attack round 7: "8 ꓖꓐ" passed as prose)
    ("\ua4d0", "B"),  # LISU LETTER BA
    ("\ua4f2", "l"),  # LISU LETTER I: a small l to confusables.txt
    ("\u15f7", "B"),  # CANADIAN SYLLABICS CARRIER KHE ("8 Gᗷ")
    ("\u1472", "b"),  # CANADIAN SYLLABICS KA
]


@pytest.mark.parametrize(("letter", "read"), READINGS)
def test_a_look_alike_is_read_as_confusables_reads_it(letter: str, read: str) -> None:
    assert as_read(letter) == read
