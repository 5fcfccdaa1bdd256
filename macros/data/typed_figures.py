"""Typed figures: numbers with a unit that a page shows outside a computed figure.

The first check of ARCHITECTURE.md ("Figures"): a number with a unit of size, memory, count, time or
rate in a page must be a figure (`<span class="fig">`), never typed. What reads
as one is `TYPED_FIGURE`, over text normalized as a reader sees it (`normalized`:
invisible characters dropped, full-width and other compatibility forms folded,
superscript exponents written out), so no spelling of a figure hides it: "2.5 TB",
"40 GiB", "312 TFLOPS", "3 days", "10⁹ bytes", "1.5b parameters", "24–32 GB".

`typed_figures` finds them in HTML: in its text, read in runs as a browser
groups it, code included, and in the attributes a reader sees (`title`, `alt`,
`aria-label`). Nothing is skipped for its class or tag but what a reader never
reads as text (a script or a style sheet) and, where the caller says the HTML's
figures are real (`figures=True`: HTML the course made, a built page), the
figures; in a quiz's hint the tolerance it states (a percentage) is not a
figure, and a build error's box that repeats a problem reported already is not
read again. The build reads a page's own HTML with its macros' output taken out
(`figures=False`: an element an author gives the class `fig` hides nothing), and
each macro's output on its own, at the line of its call; `lines_of` finds the
line a typed figure was written on.
"""

from __future__ import annotations

import hashlib
import html as html_module
import re
import unicodedata
from collections import OrderedDict
from collections.abc import Collection
from dataclasses import dataclass

from .lookalike import as_read

#: Characters a reader sees as a blank that Unicode's folding keeps: the braille blank and the Hangul fillers;
#: and the hyphens a reader reads as "-" ("175‑billion" with a non-breaking one), which it keeps too.
_BLANKS = str.maketrans(
    dict.fromkeys("\u2800\u115f\u1160\u3164\uffa0", " ")
    | dict.fromkeys("\u2010\u2011\u2012\u2043\u02d7\u058a\ufe63", "-")
)
_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_FROM_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")


#: A capital I inside a word and beside a small letter, which a reader reads as the "l" it is drawn as in the
#: sans-serif fonts a page uses ("biIIion", "TFIops"; a Greek Ι or a Cyrillic І is read as an I first): no unit
#: has an I there. A word's first I is a capital ("Iterations"); its look-alike words are found by their own
#: pattern ("Iayers", `_COUNTS`).
_CAPITAL_I_AS_L = re.compile(r"(?<=[a-z])I|(?<=[A-Za-z])I(?=[a-z])")


#: Unicode's Roman numerals ("Ⅷ", "ⅻ"), read as the number they are: NFKC folds them to letters ("VIII").
_ROMAN = {
    code: str(int(unicodedata.numeric(chr(code))))
    for code in range(0x2160, 0x2189)
    if unicodedata.numeric(chr(code), -1) >= 0 and unicodedata.numeric(chr(code)).is_integer()
}


def _without_accents(text: str) -> str:
    """`text` with the accents on its letters dropped: a reader reads "ǴB" (a G with an acute, typed as G and a
    combining mark, which compose) as "GB", as the unit it looks like. Only a figure's reading drops them."""
    if text.isascii():
        return text
    return unicodedata.normalize(
        "NFC", "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    )


def normalized(text: str) -> str:
    """`text` as a reader reads it (`lookalike.as_read`: invisible characters and combining marks dropped, look-alike
    Greek and Cyrillic letters read as Latin, a capital I inside a word as the l it looks like), accents dropped,
    Roman numerals read as numbers, a superscript
    exponent written with `^`, and compatibility forms (full-width digits and letters, ligatures, "½") folded as
    Unicode's NFKC folds them.

    >>> normalized("２４\u200bＧＢ or 10⁹ bytes, 8 G\u0392, 7 bi\u0399\u0399ion, 2 TFIops")
    '24GB or 10^9 bytes, 8 GB, 7 billion, 2 TFlops'
    """
    text = _CAPITAL_I_AS_L.sub("l", _without_accents(as_read(text)).translate(_BLANKS).translate(_ROMAN))
    text = _SUPERSCRIPT_RUN.sub(lambda run: "^" + run.group(0).translate(_FROM_SUPERSCRIPT), text)
    return unicodedata.normalize("NFKC", text)


#: A GPU's name, which counts GPUs after a number ("512 A100s") or a multiplication sign ("8x H100").
_GPU_NAME = r"(?:[ABHKLPV]\d{2,3}|MI\d{3})[A-Z]?s?"
#: Counts of a model's or a cluster's size, which a figure gives: after a number, or a scale letter ("7B params").
_COUNTS = (
    # A word's first "l" may be typed as an I, which a reader reads as the l it looks like: "96 Iayers".
    r"(?i:params?|parameters?|weights|[lI]ayers?|tokens?|toks?|samples?|sequences?|GPUs?|TPUs?|devices?|nodes?"
    r"|hosts?|ranks?|workers?|accelerators?|chips?|heads?|experts?|epochs?|steps?|iterations?|context|[lI]inks?"
    r"|replicas?|shards?|process(?:es)?|cards?|machines?|servers?|blocks?|cores?|stages?|micro-?batch(?:es)?|chunks?)"
    # A GPU's name counts GPUs: "512 A100s", "8 H100 GPUs".
    rf"|{_GPU_NAME}"
)
#: Words a count may have before it, which leave the number a count: "96 attention heads", "8 H100 GPUs".
_MODIFIERS = (
    r"(?i:attention|decoder|encoder|transformer|hidden|query|key|value|kv|key-value|model|pipeline|tensor"
    r"|data|parallel|(?:data|tensor|pipeline|expert)-parallel|training|compute|expert|moe|nvidia|amd|sxm5?|pcie)"
    rf"|{_GPU_NAME}"
)
#: Units of size and memory: bytes and bits, spelt out or with a prefix's letter ("GB", "Gbit/s", "gigs"), and
#: Russian's ("ГБ"; "К", "М" and "Т" are read as the Latin letters they look like, `lookalike`).
_SIZE = (
    r"(?i:(?:kilo|mega|giga|tera|peta|exa|zetta|yotta|ronna|quetta|kibi|mebi|gibi|tebi|pebi)?(?:bytes?|bits?))"
    r"|(?i:[kmgtpezyrq]i?(?:b(?:its?|s)?|bytes?)(?:/s|ps)?)|B(?:/s|ps)?|bits?(?:/s|ps)|(?i:gigs?|megs?)"
    # Russian's, in either case and spelt out ("24 гб", "2 Гбайт"; its "а" is read as a Latin "a" by then, and its
    # "й" as "и", its breve dropped with every accent).
    r"|(?i:[кмгтпkmgtp]?б(?:[aа][йи]т[a-zа-я]*)?)"
    # An Ethernet port's rate: "400GbE", "100 GbE".
    r"|[kMGT]bE"
)
#: Units of compute and its rate: FLOPs with a prefix, PF-days, TOPS, transfers, hertz, watts, tokens a second;
#: and FLOP/s shortened to their prefix and "F", as readers write a GPU's peak ("300 TF", "2 PF/s").
_RATE = (
    r"(?i:(?:kilo|mega|giga|tera|peta|exa|zetta|yotta|ronna|quetta)?flop(?:s|/s)?|[kmgtpezyrq]flop(?:s|/s)?"
    r"|pf-?days?)|[GTPE]F(?:/s)?|(?i:[kmgtp]?tops)|[kMG]?T/s|[kMG]?Hz|[kMGT]?Wh?|(?i:(?:kilo|mega|giga)?watts?)"
    # A training loop's rate, a number of things a second: "2 it/s", "300 samples/s".
    r"|(?i:toks?|tokens?|it|iters?|iterations?|steps?|samples?|sequences?|seqs?|images?|batch(?:es)?)/s"
)
#: Units of time, spelt out or short.
_TIME = (
    # A time spent on each of many machines is a time: "48 GPU-hours", "3 node-days".
    r"(?:(?i:gpus?|tpus?|nodes?|devices?|chips?|cores?|accelerators?|machines?)[\s\-])?"
    r"(?:(?i:(?:pico|nano|micro|milli|kilo|mega)?seconds?|minutes?|hours?|days?|weeks?|fortnights?|months?|years?"
    r"|decades?|centur(?:y|ies)|millenni(?:um|a)|(?:pico|nano|micro|milli|[pnmuµμ])?secs?|mins?|hrs?|wks?|mos|yrs?)"
    r"|ps|ns|[µμu]s|ms|s|mo)"
)
#: Words that scale a number: "7 billion", "seven billion", "three quadrillion". Every "-illion" of the short scale
#: and the long (quadrillion, quintillion, sextillion, … decillion, and zillion's kind) reads as one: a list of
#: them missed each it left out, "quadrillion" first.
_ILLION = r"(?i:[a-z]*illions?)"
#: Their short forms too, as finance and the press write them: "2 bn", "2 mn", "2 mln", "2 tn", "1 mil"; and South
#: Asia's lakh (10⁵) and crore (10⁷): "1 crore parameters".
_SCALE = rf"(?i:thousand|{_ILLION}|milliards?|bn|bln|mn|mln|mil|tn|trn|lakhs?|lacs?|crores?)"
#: A percentage, per mille or per myriad, in its sign or its words: "40%", "8 ‰", "fifty per cent", "30 pct",
#: "30 percentage points".
_PERCENT = r"[%٪‰‱]|(?i:percent(?:age)?(?:\s++points?)?|per[\s\-]?cent|pct|pp)"
#: A price's currency after its number, in words or as its code: "2.5 dollars", "3 cents", "2.50 USD".
_CURRENCY_CODE = r"(?:USD|EUR|GBP|JPY|CNY|RMB|INR|KRW|CHF|CAD|AUD|RUB)"
#: Every currency's sign (Unicode's category Sc: "₩1000", "₽500"), before its number or, as many languages write
#: it, after ("80 €").
#: (Unicode 14.0's category Sc, as Python's unicodedata has it; tests/unit/test_typed_figures.py holds it to that.)
CURRENCY_SIGNS = "$¢£¤¥֏؋߾߿৲৳৻૱௹฿៛₠₡₢₣₤₥₦₧₨₩₪₫€₭₮₯₰₱₲₳₴₵₶₷₸₹₺₻₼₽₾₿⃀꠸﷼﹩＄￠￡￥￦𑿝𑿞𑿟𑿠𞋿𞲰"
_SIGNS = f"[{re.escape(CURRENCY_SIGNS)}]"
_CURRENCY = rf"(?i:dollars?|cents?|euros?|pounds?|bucks?|yen|yuan|rupees?|rs)|{_CURRENCY_CODE}|{_SIGNS}"
#: Words and symbols that make a number a size, memory, count, time or rate.
_UNIT_WORDS = (
    rf"{_SIZE}|{_RATE}|{_SCALE}"
    rf"|(?:[kmbgKMBGT]\s*+-?\s*+)?(?:(?:{_MODIFIERS})\s++){{0,2}}(?:{_COUNTS})"
    rf"|{_TIME}|{_PERCENT}|{_CURRENCY}"
)
#: A number as it is written: "1,024", "2.5" or, without its zero, ".5".
#: A comma after it ends a clause ("Lesson 8, Stage 4"). Its digits are taken whole (`++`) and its groups are at
#: most 20, so that a run of "1,1,1,…" costs each start it is tried at a bounded step, not the rest of the run
#: (quadratic: 8,000 of "1," took 153 s); a longer run's figure is still found, from a later group on.
#: Its groups may be parted by underscores, as code writes them ("1_000_000"); it may be hexadecimal ("0x50").
_NUMBER = r"(?:0[xX][0-9a-fA-F]++|\d++(?:[,_]\d++){0,20}(?:\.\d++)?|\.\d++)"
#: A number (not part of a word or an id, such as fp16, GPT-2 or gpt2-1.5b), in digits, with an exponent
#: (1e9, × 10^9, 2^30), as a fraction (1/2) or a range (24–32), then such a unit; or a scale letter (1.5B,
#: 7b); or a multiplier's sign before a count ("8x GPUs", "8x H100"); or a lone "h" or "d" after a space
#: ("2 h", "3 d": "12h" is a formula's 12·h). A number after an operator and a space is a formula's ("N − 1 steps").
_IN_DIGITS = (
    rf"(?<![\w.\-/^])(?<![−+×÷] ){_NUMBER}"
    rf"(?:[eE][+-]?\d++|\s*+[×x*·]\s*+10\s*+\^\s*+[+-]?\d++|\s*+\^\s*+[+-]?\d++|\s*+[/⁄]\s*+\d++"
    rf"|\s*+[-–—]\s*+{_NUMBER})?"
    # A unit's end: no letter or digit after it; an underscore may be a subscript's ("80 GB<sub>total</sub>").
    rf"(?:\s*+[-–—−]?\s*+(?:{_UNIT_WORDS})(?![^\W_])|[KMGBTkb](?=[\s\-]|$)"
    rf"|\s*+[x×]\s*+(?:(?:{_MODIFIERS})\s++){{0,2}}(?:{_COUNTS})(?![\w])|\s++h(?![\w])|\s++d(?![\w\-]))"
)
#: A price: a currency's sign before a number, with its scale ("$2.5M", "$81,331", "€2.5"); prices come from the
#: catalog. A lone "$" is no price. A currency's code before a number is one too ("USD 2.5").
#: A price's amount, with the scale a price may carry ("$5M", "$2 billion").
_AMOUNT = rf"{_NUMBER}(?:[KMBT](?![\w])|\s*+{_SCALE}(?![\w]))?"
_PRICE = rf"(?<![\w$]){_SIGNS}\s?{_AMOUNT}|(?<![\w]){_CURRENCY_CODE}\s?{_SIGNS}?\s?{_AMOUNT}"
#: A number word. The course writes small counts in words ("four stages", "eight GPUs"), which stay words.
_NUMBER_WORD = (
    r"(?i:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
)
#: A number in words that is a figure: with a scale word ("seven billion", "ten thousand") or a unit of size,
#: memory, time or rate ("sixteen bytes", "one hundred GB", "twenty-four hours"). A small count of plain FLOPs
#: is a formula's constant, which the course writes in words as it writes other small counts ("six FLOPs per
#: parameter per token", Lesson 2's title); a prefix or "/s" makes them a machine's rate ("two TFLOPS").
#: A "hundred" counts only after a number word: "a couple of hundred MiB" says how much it varies, no figure. A
#: singular "second" after one is an ordinal ("six second-generation NVSwitches"). A scale word hyphened on to its
#: unit is one ("seven-billion-token", "two-trillion-FLOP", "seven-billion-parameter": a model's size is a figure,
#: `value(…, adjective=true)`).
_IN_WORDS = (
    rf"(?<![\w\-]){_NUMBER_WORD}(?:[\s\-]++(?:{_NUMBER_WORD}|(?i:hundred))){{0,6}}"
    rf"(?:\s++{_SCALE}|-{_SCALE}|\s++(?:{_PERCENT})|[\s\-]++(?!(?i:flops?|second)(?![\w/]))(?:{_SIZE}|{_RATE}|{_TIME}))(?![\w])"
)
#: A fraction or a dozen of a unit, in words: "half a terabyte", "a quarter of a petabyte", "three-quarters of a
#: gigabyte", "one-and-a-half terabytes", "two dozen terabytes", "a dozen days", "a hundred gigabytes". "A couple
#: of hundred MiB" says how much something varies: no "a" or number word stands right before its "hundred".
_PART = r"(?i:half|halves|quarters?|thirds?|dozens?|hundreds?)"
_IN_PARTS = (
    rf"(?<![\w\-])(?:(?:{_NUMBER_WORD}|(?i:an?))(?:[\s\-]++(?i:and)[\s\-]++(?i:an?))?[\s\-]++{_PART}|(?i:half))"
    r"(?:[\s\-]++(?i:of|an?))*+"
    rf"[\s\-]++(?!(?i:flops?|second)(?![\w/]))(?:{_SIZE}|{_RATE}|{_TIME})(?![\w])"
)
#: A scale word after "a", with what it counts: "a trillion tokens", "a billion parameters". Alone it is mostly a
#: size's round name ("a model named for a trillion"), and "a thousand" is prose's "many"; where the course
#: computes with it, it is a figure macro's, which says what it counts. A larger one after "a" defines a prefix
#: ("a quadrillion FLOPs every second", the glossary's petaflop/s-day), which stays words.
_A_SCALE = (
    r"(?<![\w\-])(?i:an?)\s++(?i:million|billion|trillion)\s++"
    rf"(?:(?:{_MODIFIERS})\s++){{0,2}}(?:{_COUNTS}|{_SIZE}|{_RATE})(?![\w])"
)
#: A memory size glued into a hyphenated name: "A100-80GB", "H100-94 GiB". A number after a hyphen is otherwise part
#: of a name ("GPT-2", "A100", "gpt2-1.5b", "Llama-3-8B" stay names); one with a prefixed byte unit, written as a
#: product is written (a capital "B"), is a typed capacity whatever name it is glued to. A catalog id is lower case
#: ("v100-32gb") and names its entry.
_IN_A_NAME = r"(?<=\w-)" rf"{_NUMBER}\s*+[kKMGTPEZY]i?B(?:ytes?)?(?![\w])"
#: What stands for a computed figure in a page's own text, as the build reads it beside the page's words (its
#: macros' output taken out): a character no author types (private use). What a reader sees there is a number.
FIGURE = "\ue004"
#: A time a figure is divided by, typed after it: "{{ one_copy(…) }}/s" or "… per second" makes a size a rate, which
#: no formula computed.
_PER_TIME = rf"\s*+(?:/|(?i:per|an?|each|every)\s)\s*+(?:{_TIME})(?![\w])"
#: A unit typed right after a computed figure: "{{ value(...) }}%", "{{ value(...) }}-gigabyte", "{{ ... }} hours"
#: show a computed number and a typed unit, which no formula checked. A count's noun after a figure says what it
#: counts ("{{ value(...) }} GPUs", "layers") and a symbol makes it a formula's ("16Ψ bytes"): neither is a unit.
#: A figure after an operator and a space is a formula's term, as a typed number there is, and the unit the whole
#: formula's ("34 + {{ ... }} bytes per token", Lesson 11's count of activations).
_AFTER_FIGURE = (
    rf"(?<![−+×÷] ){FIGURE}(?:\s*+[-–—]?\s*+(?:{_SIZE}|{_RATE}|{_SCALE}|{_TIME}|{_PERCENT}|{_CURRENCY})(?![\w])"
    rf"|[KMGTkb](?=[\s\-]|$)|{_PER_TIME})"
)
#: A digit, a decimal point or a sign typed right before a computed figure: "1{{ … }}" shows "16 GB", "0.{{ … }}"
#: "0.6 GB", "-{{ … }}" "-6 GB", numbers no formula computed (attack round 10). A hyphen after a word is a name's.
_BEFORE_FIGURE = rf"(?:\d++\.?|\.|(?<![\w.])[-−+]){FIGURE}"
#: A typed figure, in any of its forms.
TYPED_FIGURE = re.compile(
    rf"{_PRICE}|{_IN_WORDS}|{_IN_PARTS}|{_A_SCALE}|{_IN_DIGITS}|{_IN_A_NAME}|{_BEFORE_FIGURE}|{_AFTER_FIGURE}"
)

#: A number format's name and width: "16-bit", as fp16 names it, and its bytes in words ("two bytes", "a four-byte
#: value"), as the course writes the width of fp32, fp16 and fp8, a format's definition and not a figure.
_FORMAT_NAME = re.compile(r"\d+-bits?|(?i:one|two|four|eight)[\s\-]bytes?")
#: What every typed figure holds: a digit, a currency's sign, a number word or a scale word's "illion"; most text
#: holds none.
_NUMERAL = re.compile(rf"\d|{_SIGNS}|{_NUMBER_WORD}|{_PART}|(?i:illion)|{FIGURE}")
#: A percentage: what a quiz's hint states of its tolerance.
_PERCENTAGE = re.compile(rf".*(?:{_PERCENT})")


def find_in_text(text: str) -> list[str]:
    """The typed figures in a piece of plain text, such as a glossary definition or a page title, as normalized.

    >>> find_in_text("it takes 24 gigabytes, or 1e9 bytes, on 8 GPUs of fp16, a 16-bit format of 16 bits")
    ['24 gigabytes', '1e9 bytes', '8 GPUs', '16 bits']
    >>> find_in_text("2.5 TB, 40 GiB, 312 TFLOPS, 3 days, 10⁹ bytes, 128k tokens, 24–32 GB; not GPT-2, gpt2-1.5b, 12h")
    ['2.5 TB', '40 GiB', '312 TFLOPS', '3 days', '10^9 bytes', '128k tokens', '24–32 GB']
    >>> find_in_text("16 Gbytes, .5 TB, 13G tokens; not v1.5 TB")
    ['16 Gbytes', '.5 TB', '13G tokens']
    """
    if text.isascii() and not _NUMERAL.search(text):  # most text has no number at all
        return []
    readable = normalized(text)  # "½" and "𝟐" are digits only once folded
    if not _NUMERAL.search(readable):
        return []
    found = (" ".join(match.group(0).split()) for match in TYPED_FIGURE.finditer(readable))
    # "16-bit" names a number format, as fp16 does; "16 bits" counts bits.
    return [text for text in found if not _FORMAT_NAME.fullmatch(text)]


@dataclass(frozen=True)
class TypedFigure:
    """A typed figure found in HTML: its text, and where (the text of an element, or an attribute)."""

    text: str
    where: str


#: What a page's HTML is made of, each piece matched where a "<" starts it: a comment, a declaration, or a tag
#: with its attributes and, for `<br/>`, its closing slash; the text between them is the page's words. As
#: html.parser and browsers read a tag, its name runs to a space, a slash or ">", a quote opens a value only
#: after "=" (a quoted value may hold ">"), and an unquoted value runs to a space or ">", slashes and quotes
#: included.
_MARKUP = re.compile(
    # A comment as the HTML standard ends it: "<!-->" and "<!--->" are whole, "--!>" ends one as "-->" does.
    r"<!--(?:-?>|.*?--!?>|.*\Z)|<![^>]*>|<\?[^>]*>"
    # The name and the attributes are each read once (`*+`, `(?>…)`), as a browser reads them: a name that gave
    # back its letters to the attributes, or "=" after "=" that could end one value or start the next, were
    # readings tried one after another before a tag that never closes was given up (cubic on "<a" * 800).
    r"|<(?P<end>/)?(?P<tag>[a-zA-Z][^\s/>]*+)"
    r"(?P<attributes>(?:[^>=/]|/(?!\s*>)|=(?>\s*(?:\"[^\"]*\"|'[^']*'|[^\s>]*)))*+)(?P<closed>/)?\s*>",
    re.DOTALL,
)
#: The start of a tag, a declaration or a processing instruction: what a browser reads up to a ">". One that
#: `_MARKUP` does not match runs to the end of the HTML, where a browser drops it with everything after it.
_OPENS_MARKUP = re.compile(r"<(?:/?[a-zA-Z]|[!?])")
_ATTRIBUTE = re.compile(r"""([^\s/>=][^\s/>=]*)(?:\s*=+\s*(?:"([^"]*)"|'([^']*)'|(?!["'])([^\s>]*)))?""")
#: Elements whose content is raw text up to their end tag, as browsers read them, and that end tag.
_RAW_TEXT_END = {tag: re.compile(f"</{tag}\\s*>", re.IGNORECASE) for tag in ("script", "style")}


def _attributes(text: str) -> dict[str, str]:
    """A tag's attributes by name, their values unescaped; of an attribute given twice, the first, as a browser
    keeps it."""
    attributes: dict[str, str] = {}
    for name, double, single, bare in _ATTRIBUTE.findall(text):
        attributes.setdefault(name.lower(), html_module.unescape(double or single or bare or ""))
    return attributes


#: Elements whose start or end ends a run of text; inline elements (em, a, span, code) do not split one.
_BLOCKS = frozenset(
    {
        *("p", "li", "ul", "ol", "td", "th", "tr", "table", "dd", "dt", "dl", "div", "section", "article", "pre"),
        *("details", "summary", "fieldset", "legend", "label", "form", "blockquote", "figure", "figcaption"),
        *("hr", "h1", "h2", "h3", "h4", "h5", "h6", "nav", "aside", "header", "footer", "caption"),
        # An SVG text is a label apart from the others: "100" on an axis and "GB" in its title are not "100GB".
        "text",
    }
)
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)
#: Attributes a reader sees as text (Material turns `title` into a tooltip).
_PROSE_ATTRIBUTES = ("title", "alt", "aria-label")
#: Elements whose text is judged as a whole, by their class: a quiz's hint states its tolerance, a percentage
#: that is not a figure; a build error's box quotes a problem the build has reported already.
_HINT, _BOX = "sbn-quiz__hint", "sbn-build-error"


#: What a superscript and a subscript read as before their text: a raised number is an exponent ("10<sup>9</sup>",
#: as "10⁹" is) or a note's mark ("80 GB<sup>1</sup>"), neither of them digits run on from the text before it ("80
#: GB1" hid the figure); a lowered one is part of a symbol's name, as in code ("2k<sub>g</sub>" is 2·k_g).
_RAISED_OR_LOWERED = {"sup": "^", "sub": "_"}


class _Finder:
    """Reads HTML in document order as a browser groups its text: runs of text parted by block elements, and
    the attributes readers see; the figures left out where they are real (`figures`), and each box that says
    one of the problems of `reported` not read again."""

    def __init__(self, figures: bool, reported: Collection[str]) -> None:
        self.found: list[TypedFigure] = []
        self._figures = figures
        self._reported = reported
        self._skipping: list[str] = []  # the tags of open figures
        #: The open block elements given a style, which may show them inline: their ends part no text.
        self._styled: list[str] = []
        self._chunks: list[str] = []
        #: The open hint or box: its tag, its class, how many of its tag are open in it, and its text so far.
        self._judged: tuple[str, str] | None = None
        self._depth = 0
        self._judged_chunks: list[str] = []

    def feed(self, html: str) -> None:
        # Each "<" is tried once, where it stands (a search would try every later one each time: quadratic on
        # thousands of them that never close); the text between two pieces of markup is read as it is.
        position, end, start = 0, len(html), -1
        while (start := html.find("<", max(position, start + 1))) != -1:
            match = _MARKUP.match(html, start)
            if match is None:
                if _OPENS_MARKUP.match(html, start):
                    end = start
                    break
                continue
            self._text(html[position : match.start()])
            position = match.end()
            tag = (match.group("tag") or "").lower()
            if not tag:  # a comment or a declaration
                continue
            if match.group("end"):
                self._end(tag)
                continue
            self._start(tag, match.group("attributes"))
            if match.group("closed") and tag not in _VOID:
                self._end(tag)
            if tag in _RAW_TEXT_END:  # its content is never markup, nor read as text
                raw_end = _RAW_TEXT_END[tag].search(html, position)
                position = raw_end.start() if raw_end else len(html)
        self._text(html[position:end])
        self._flush()

    def _text(self, text: str) -> None:
        if self._skipping:
            return
        (self._judged_chunks if self._judged else self._chunks).append(text)

    def _start(self, tag: str, text: str) -> None:
        if self._skipping:
            if tag not in _VOID:
                self._skipping.append(tag)
            return
        # Most tags carry neither a class nor a reader's text: their attributes need no reading.
        attributes = _attributes(text) if "=" in text else {}
        classes = set(attributes.get("class", "").split())
        if self._figures and "fig" in classes:
            if tag not in _VOID:
                self._skipping.append(tag)
            return
        for name in _PROSE_ATTRIBUTES:
            if name in attributes:
                for found in find_in_text(attributes[name]):
                    self.found.append(TypedFigure(found, f"the {name} of a <{tag}>"))
        if tag in _RAISED_OR_LOWERED:
            (self._judged_chunks if self._judged else self._chunks).append(_RAISED_OR_LOWERED[tag])
        if self._judged:
            self._depth += tag == self._judged[0] and tag not in _VOID
            return
        if tag == "br":  # a line break within a paragraph: its words read on, as after a space
            self._chunks.append(" ")
        elif tag in _BLOCKS and "style" in attributes and tag not in _VOID:
            self._styled.append(tag)  # `display: inline` runs its text on with the text around it
        elif tag in _BLOCKS:
            self._flush()
        judged = _HINT if _HINT in classes else _BOX if _BOX in classes else None
        if judged and tag not in _VOID:
            self._flush()
            self._judged, self._depth, self._judged_chunks = (tag, judged), 1, []

    def _end(self, tag: str) -> None:
        if self._skipping:
            if tag in self._skipping:
                while self._skipping and self._skipping.pop() != tag:
                    pass
            return
        if self._judged:
            if tag == self._judged[0]:
                self._depth -= 1
                if not self._depth:
                    self._judge(self._judged[1], html_module.unescape("".join(self._judged_chunks)))
                    self._judged = None
            return
        if self._styled and tag == self._styled[-1]:
            self._styled.pop()
        elif tag in _BLOCKS:
            self._flush()

    def _judge(self, kind: str, text: str) -> None:
        if kind == _BOX and " ".join(text.split()) in self._reported:
            return
        found = find_in_text(text)
        if kind == _HINT:
            found = [text for text in found if not _PERCENTAGE.fullmatch(text)]
        self.found.extend(TypedFigure(text, "the text") for text in found)

    def _flush(self) -> None:
        text = html_module.unescape("".join(self._chunks))
        self._chunks = []
        self.found.extend(TypedFigure(found, "the text") for found in find_in_text(text))


#: Findings by a digest of what they were found in, newest last: a page's HTML is large, its digest is not.
_FOUND: OrderedDict[bytes, tuple[TypedFigure, ...]] = OrderedDict()
#: How many findings are kept: a build's pages and their headings, several builds over.
_KEPT = 4096


def typed_figures(html: str, *, figures: bool = True, reported: Collection[str] = ()) -> list[TypedFigure]:
    """Every typed figure in an HTML fragment or page, in document order.

    `figures`: the HTML's figure elements are the course's own (HTML the course made, a built page), and
    are left out; an author's HTML is read with `figures=False`, so that the class hides nothing.
    `reported`: the problems reported already, whose boxes in the HTML are not read again.

    What a page holds depends on its HTML alone, which is the same from one build to the next
    while the page and what it shows are: `mkdocs serve`'s rebuilds and the tests' copies of the
    course read each unchanged page once.
    """
    reported = frozenset(" ".join(message.split()) for message in reported)
    digest = hashlib.blake2b(html.encode(), digest_size=16)
    digest.update(repr((figures, sorted(reported))).encode())
    key = digest.digest()
    found = _FOUND.get(key)
    if found is None:
        finder = _Finder(figures, reported)
        finder.feed(html)
        found = _FOUND[key] = tuple(finder.found)
        if len(_FOUND) > _KEPT:
            _FOUND.popitem(last=False)
    else:
        _FOUND.move_to_end(key)
    return list(found)


# ------------------------------------------------------------------ where it was typed

#: What may stand between two characters of a typed figure in a page's Markdown and leave it as readers read
#: it: a tag, a character reference, Markdown's emphasis and escape characters. A space is not among them:
#: "24GB" and "24 GB" are two spellings, each found at its own line.
_BETWEEN = r"<[^<>]*>|&#?\w+;|[*_`~^\\]"
_GAP = rf"(?:{_BETWEEN})*"
#: What stands where the figure has a space: at least one space or line break, among the same.
_SPACE = rf"{_GAP}\s(?:\s|{_BETWEEN})*"
#: A macro call, whose arguments are not the page's text (its output is checked at its line).
_CALL = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def lines_of(source: str, text: str, first_line: int = 1) -> list[int]:
    """The lines of a page's Markdown `source` (its first line numbered `first_line`) on which the typed
    figure `text` (as `find_in_text` gives it) starts, in order: read as the source is read, normalized,
    with markup or character references between its characters, spaces and line breaks only where `text` has a
    space, and outside macro calls; a unit typed after a figure (`FIGURE` and the unit), right after a call.

    >>> lines_of("a\\n24 **GB** and 3 da<i>ys</i>\\n24&nbsp;GB\\n{{ x(caption='24 GB') }}\\n124 GBytes", "24 GB")
    [2, 3]
    >>> lines_of("a {{ x() }} GB\\nits {{ y(\\n) }}%", FIGURE + "%")
    [3]
    >>> lines_of("a {{ x() }} GB\\nits {{ y() }} {{ term('FLOPs') }}", FIGURE + " FLOPs")
    [2]
    """
    if FIGURE in text:
        # A unit typed after a figure: read with each call standing for the figure it shows (a term's for its words,
        # which may be the unit), at the line the call ends on.
        return _lines_in(_CALL.sub(_as_figure, source), text, first_line)
    found = _lines_in(_CALL.sub(lambda call: re.sub(r"[^\n]", " ", call.group(0)), source), text, first_line)
    # A typed number beside a call that shows a word (a term already linked shows as plain text): the figure is
    # read across the call, the call standing for the words it names, at the line the number was typed on.
    return found or _lines_in(_CALL.sub(_named, source), text, first_line)


#: The first quoted argument of a call, what a term call shows: `{{ term("parameters") }}` shows "parameters".
_NAMED = re.compile(r"""\{\{\s*\w+\s*\(\s*(?:"([^"\n]*)"|'([^'\n]*)')""")


#: A term's call, which shows its words, never a figure.
_TERM_CALL = re.compile(r"\{\{\s*term\s*\(")


def _as_figure(call: re.Match[str]) -> str:
    """A call as `FIGURE` after its line breaks; a term's call as the words it names."""
    if _TERM_CALL.match(call.group(0)):
        return _named(call)
    return "\n" * call.group(0).count("\n") + FIGURE


def _named(call: re.Match[str]) -> str:
    """A call as the words it names, its line breaks kept; a call that names none, as spaces."""
    named = _NAMED.match(call.group(0))
    breaks = "\n" * call.group(0).count("\n")
    if named is None:
        return re.sub(r"[^\n]", " ", call.group(0))
    return f" {named.group(1) or named.group(2)} {breaks}"


def _lines_in(readable: str, text: str, first_line: int) -> list[int]:
    """The lines of `readable` (calls taken out) on which `text` starts, as `lines_of` reads them."""
    readable = "\n".join(normalized(html_module.unescape(line)) for line in readable.split("\n"))
    # A "^" is an exponent's, which the source may raise with <sup> instead.
    pattern = _SPACE.join(_GAP.join(re.escape(c) if c != "^" else r"\^?" for c in word) for word in text.split())
    # Where the figure starts or ends with a letter or a digit, a longer one is not it: "24 GB" is not on the line
    # of "124 GB", "1.24 GB" or "24 GBytes", each a typed figure found on its own.
    start = r"(?<![\w.])" if text[:1].isalnum() else ""
    end = r"(?!\w)" if text[-1:].isalnum() else ""
    pattern = f"{start}{pattern}{end}"
    return [first_line + readable.count("\n", 0, match.start()) for match in re.finditer(pattern, readable)]
