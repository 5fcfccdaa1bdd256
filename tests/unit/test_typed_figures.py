"""The build's typed-figure finder reads each page's HTML once per process, however often the page comes back."""

from __future__ import annotations

import time
import unicodedata
from collections import OrderedDict

import pytest

from macros.data import typed_figures as module
from macros.data.typed_figures import CURRENCY_SIGNS, FIGURE, find_in_text, lines_of, typed_figures


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The HTML the finder reads while the test runs, with nothing kept from before it."""
    monkeypatch.setattr(module, "_FOUND", OrderedDict())
    texts: list[str] = []
    feed = module._Finder.feed

    def counting(self: module._Finder, html: str) -> None:
        texts.append(html)
        feed(self, html)

    monkeypatch.setattr(module._Finder, "feed", counting)
    return texts


def test_an_unchanged_page_is_read_once_and_each_caller_gets_its_own_list(reads: list[str]) -> None:
    page = "<p>It needs 99 GB here.</p>"
    first = typed_figures(page)
    first.clear()
    assert [found.text for found in typed_figures(page)] == ["99 GB"]
    assert reads == [page]


def test_a_changed_page_is_read_again(reads: list[str]) -> None:
    page = "<p>It needs 99 GB here.</p>"
    typed_figures(page)
    assert [found.text for found in typed_figures(page.replace("99", "98"))] == ["98 GB"]
    assert len(reads) == 2


def test_the_findings_read_longest_ago_go_first_when_too_many_are_kept(
    reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "_KEPT", 2)
    first, second, third = (f"<p>{number} GB</p>" for number in (1, 2, 3))
    typed_figures(first)
    typed_figures(second)
    typed_figures(first)  # kept, and now the newest
    typed_figures(third)  # the second goes
    typed_figures(first)
    typed_figures(second)
    assert reads == [first, second, third, second]


#: The replay list: a number with a unit in each spelling an author might type, and what the check reports.
#: By class: byte sizes (decimal, binary, words, case), bits and rates, compute, time, counts, scale letters and
#: words, exponents and superscripts, fractions and ranges, separators a reader does not see, other code points.
FORMS = [
    ("2.5 TB", "2.5 TB"),
    ("40 GiB", "40 GiB"),
    ("1 TiB", "1 TiB"),
    ("2 PiB", "2 PiB"),
    ("2 EB", "2 EB"),
    ("4 KB", "4 KB"),
    ("4kB", "4kB"),
    ("24GB", "24GB"),
    ("2.5 tb", "2.5 tb"),
    ("24 gb", "24 gb"),
    ("24 gigabytes", "24 gigabytes"),
    ("24 Gigabytes", "24 Gigabytes"),
    ("16 Gbytes", "16 Gbytes"),
    ("2 TBytes", "2 TBytes"),
    ("30 kbytes", "30 kbytes"),
    (".5 TB", ".5 TB"),
    ("a .25 GiB buffer", ".25 GiB"),
    ("13G tokens", "13G tokens"),
    ("13 G tokens", "13 G tokens"),
    ("40 gibibytes", "40 gibibytes"),
    ("1e9 bytes", "1e9 bytes"),
    ("16 bits", "16 bits"),
    ("400 Gbit/s", "400 Gbit/s"),
    ("200 Gb/s", "200 Gb/s"),
    ("400 Gbps", "400 Gbps"),
    ("600 GB/s", "600 GB/s"),
    ("300 GBps", "300 GBps"),
    ("12 MiB/s", "12 MiB/s"),
    ("16 GT/s", "16 GT/s"),
    ("312 TFLOPS", "312 TFLOPS"),
    ("312 TFLOP/s", "312 TFLOP/s"),
    ("312 teraflops", "312 teraflops"),
    ("312 TFlops", "312 TFlops"),
    ("3.14e23 FLOP", "3.14e23 FLOP"),
    ("1.2e23 FLOPs", "1.2e23 FLOPs"),
    ("2 zettaFLOPs", "2 zettaFLOPs"),
    ("3 PF-days", "3 PF-days"),
    ("3 days", "3 days"),
    ("3 weeks", "3 weeks"),
    ("1 month", "1 month"),
    ("5 years", "5 years"),
    ("2 hours", "2 hours"),
    ("2 hrs", "2 hrs"),
    ("2 h", "2 h"),
    ("5 mins", "5 mins"),
    ("10 sec", "10 sec"),
    ("0.5 s", "0.5 s"),
    ("6 ms", "6 ms"),
    ("6 µs", "6 μs"),  # the micro sign, folded to the Greek letter
    ("6 μs", "6 μs"),
    ("6 us", "6 us"),
    ("6 ns", "6 ns"),
    ("8 GPUs", "8 GPUs"),
    ("1,024 GPUs", "1,024 GPUs"),
    ("3 nodes", "3 nodes"),
    ("2 hosts", "2 hosts"),
    ("64 ranks", "64 ranks"),
    ("32 heads", "32 heads"),
    ("96 layers", "96 layers"),
    ("300 billion tokens", "300 billion"),
    ("1.5 Billion parameters", "1.5 Billion"),
    ("1.5b parameters", "1.5b parameters"),
    ("7B params", "7B"),
    ("175B", "175B"),
    ("128k tokens", "128k tokens"),
    ("128K context", "128K context"),
    ("1.5 bn", "1.5 bn"),
    ("50 %", "50 %"),
    ("50 percent", "50 percent"),
    ("300 W", "300 W"),
    ("1.4 GHz", "1.4 GHz"),
    ("10^9 bytes", "10^9 bytes"),
    ("10⁹ bytes", "10^9 bytes"),
    ("2³⁰ bytes", "2^30 bytes"),
    ("1.2 × 10^11 bytes", "1.2 × 10^11 bytes"),
    ("1.2×10¹¹ bytes", "1.2×10^11 bytes"),
    ("1/2 GB", "1/2 GB"),
    ("½ GB", "1⁄2 GB"),
    ("24-32 GB", "24-32 GB"),
    ("24–32 GB", "24–32 GB"),
    ("~24 GB", "24 GB"),
    ("≈24 GB", "24 GB"),
    ("24-GB card", "24-GB"),
    ("24\xa0GB", "24 GB"),
    ("24\u2009GB", "24 GB"),
    ("24\u202fGB", "24 GB"),
    ("24\u200bGB", "24GB"),
    ("2\u200b4 GB", "24 GB"),
    ("24\u00adGB", "24GB"),
    ("24\u2060GB", "24GB"),
    ("２４ ＧＢ", "24 GB"),
    ("𝟐𝟒 GB", "24 GB"),
    # The second attack run's: marks a reader does not see, blanks Unicode's folding keeps, units and counts.
    ("24\u202aGB", "24GB"),
    ("24\u2066 GB", "24 GB"),
    ("24\ufe00 GB", "24 GB"),
    ("24\U000e0020 GB", "24 GB"),
    ("24\u061c GB", "24 GB"),
    ("24\u2800GB", "24 GB"),
    ("624 TOPS", "624 TOPS"),
    ("700 kWh", "700 kWh"),
    ("128k context", "128k context"),
    ("100 tok/s", "100 tok/s"),
    ("400G link", "400G link"),
    ("3 epochs", "3 epochs"),
    ("1000 steps", "1000 steps"),
    ("3 d", "3 d"),
    ("7b", "7b"),
    # The fourth attack run's: hyphens that read as "-", a word or a GPU's name before a count, more counts.
    ("175\u2011billion parameters", "175-billion"),
    ("350\u2010GB", "350-GB"),
    ("8\u2212GB", "8−GB"),
    ("96 attention heads", "96 attention heads"),
    ("8 H100 GPUs", "8 H100 GPUs"),
    ("12 decoder layers", "12 decoder layers"),
    ("96 transformer blocks", "96 transformer blocks"),
    ("512 A100s", "512 A100s"),
    ("8x A100", "8x A100"),
    ("8 replicas", "8 replicas"),
    ("64 shards", "64 shards"),
    ("8 processes", "8 processes"),
    ("1024 machines", "1024 machines"),
    ("80G cards", "80G cards"),
    ("5 usec", "5 usec"),
    ("12 msec", "12 msec"),
    ("4 millisecs", "4 millisecs"),
    ("3 zettabytes", "3 zettabytes"),
    ("4 stages", "4 stages"),
    ("8 pipeline stages", "8 pipeline stages"),
    ("32 micro-batches", "32 micro-batches"),
    ("16 microbatches", "16 microbatches"),
    ("2 model chunks", "2 model chunks"),
    # Issue 25, round 5. Letters that look like Latin ones (Greek capital Beta, Cyrillic Ve), and Russian's GB.
    ("24 G\u0392", "24 GB"),
    ("24 G\u0412", "24 GB"),
    ("80 \u0413\u0411", "80 ГБ"),
    # Combining marks a reader reads past.
    ("2\u03324\u0332 GB", "24 GB"),
    # A multiplier before a count.
    ("8x GPUs", "8x GPUs"),
    ("16× nodes", "16× nodes"),
    ("4x data-parallel replicas", "4x data-parallel replicas"),
    # Units not listed before.
    ("24 gigs", "24 gigs"),
    ("1 gig", "1 gig"),
    ("3 YB", "3 YB"),
    ("2 QB", "2 QB"),
    ("5 yottabytes", "5 yottabytes"),
    ("5 quettaflops", "5 quettaflops"),
    ("3 mo", "3 mo"),
    ("2 wk", "2 wk"),
    ("2 wks", "2 wks"),
    ("3 decades", "3 decades"),
    ("2 fortnights", "2 fortnights"),
    ("40 ps", "40 ps"),
    ("5 kiloseconds", "5 kiloseconds"),
    ("2 megaseconds", "2 megaseconds"),
    # Money: a price comes from the catalog.
    ("$81,331", "$81,331"),
    ("€2.5 per hour", "€2.5"),
    ("£3", "£3"),
    ("¥1,000", "¥1,000"),
    ("$2.5M", "$2.5M"),
    # A number in words, with a scale word or a unit of size, memory, time or rate.
    ("seven billion parameters", "seven billion"),
    ("ten thousand GPUs", "ten thousand"),
    ("sixteen bytes per parameter", "sixteen bytes"),
    ("one hundred GB", "one hundred GB"),
    ("twenty-four hours", "twenty-four hours"),
    ("Three days", "Three days"),
    ("two TFLOPS", "two TFLOPS"),
    # Attack round 6: units, a scale after "a", and look-alikes beyond Greek and Cyrillic.
    ("24 GBs", "24 GBs"),
    ("80G of HBM", "80G"),
    ("a 400GbE port", "400GbE"),
    ("a trillion tokens", "a trillion tokens"),
    ("a billion model parameters", "a billion model parameters"),
    ("350 watts", "350 watts"),
    ("2 kilowatts", "2 kilowatts"),
    ("24 megs", "24 megs"),
    ("24 G\u13f4", "24 GB"),
    ("24 \u0262\u0299", "24 GB"),
    # Cherokee letters that Unicode's confusables.txt reads as a small b and a digit.
    ("24 G\u13cf", "24 Gb"),
    ("\u13ce GB", "4 GB"),
    ("24 \U0001d406\U0001d401", "24 GB"),
    ("24 \U0001d6a9", "24 B"),
    ("50\u066a", "50\u066a"),
    ("10²⁴ FLOPs", "10^24 FLOPs"),
    # Attack round 8: every "-illion" is a scale, FLOP/s shortened to "TF", a capacity glued into a product's name.
    ("three quadrillion FLOPs", "three quadrillion"),
    ("two quintillion tokens", "two quintillion"),
    ("3 sextillion FLOPs", "3 sextillion"),
    ("300 TF", "300 TF"),
    ("2 PF/s", "2 PF/s"),
    ("an A100-80GB", "80GB"),
    ("an H100-94 GiB card", "94 GiB"),
    # Attack round 9, each watched pass the check before: a scale word hyphened to its unit, fractions and dozens in
    # words, percentages in words and signs, prices by word, code and sign, per-machine times, loop rates, digits
    # grouped by underscores, Russian units in lower case or spelt out, the press's short scales.
    ("a seven-billion-token corpus", "seven-billion"),
    # A model's size, which `value(…, adjective=true)` writes from the catalog (it was exempted as a size class).
    ("a seven-billion-parameter model", "seven-billion"),
    ("the One-Billion-Parameter model", "One-Billion"),
    ("a two-trillion-FLOP run", "two-trillion"),
    ("half a terabyte", "half a terabyte"),
    ("a hundred gigabytes", "a hundred gigabytes"),
    ("two dozen terabytes", "two dozen terabytes"),
    ("a dozen days", "a dozen days"),
    ("one-and-a-half terabytes", "one-and-a-half terabytes"),
    ("a quarter of a petabyte", "a quarter of a petabyte"),
    ("three-quarters of a gigabyte", "three-quarters of a gigabyte"),
    ("forty percent of the peak", "forty percent"),
    ("ten percent", "ten percent"),
    ("fifty per cent", "fifty per cent"),
    ("40 per-cent", "40 per-cent"),
    ("30 pct", "30 pct"),
    ("30 percentage points", "30 percentage points"),
    ("8 ‰", "8 ‰"),
    ("0.3 ‱", "0.3 ‱"),
    ("2.5 dollars an hour", "2.5 dollars"),
    ("3 cents per step", "3 cents"),
    ("2.50 USD", "2.50 USD"),
    ("USD 2.5", "USD 2.5"),
    ("2.5 EUR", "2.5 EUR"),
    ("₩1000", "₩1000"),
    ("forty-eight GPU-hours", "forty-eight GPU-hours"),
    ("2 it/s", "2 it/s"),
    ("`1_000_000 tokens`", "1_000_000 tokens"),
    ("24 гб", "24 гб"),
    ("2 Гбайт", "2 Гбaит"),
    ("2 mn tokens", "2 mn"),
    ("2 tn tokens", "2 tn"),
    ("2 mln tokens", "2 mln"),
    # A capital I where a word's "l" is, which the page's sans-serif fonts draw alike: Latin, Greek (Ι) or
    # Cyrillic (І), in the middle of a word or at the start of one that has no I.
    ("7 biIIion tokens", "7 billion"),
    ("7 bi\u0399\u0399ion tokens", "7 billion"),
    ("7 mi\u0406\u0406ion tokens", "7 million"),
    ("2 TFIops", "2 TFlops"),
    ("96 \u0399ayers", "96 Iayers"),
    ("4 Iinks", "4 Iinks"),
    # Attack round 9: a currency's sign after its number, hexadecimal, a Roman numeral, an accent on a unit.
    ("the card has 80 € of memory", "80 €"),
    ("0x50 bytes", "0x50 bytes"),
    ("\u2167 GB", "8 GB"),
    ("80 G\u0301B", "80 GB"),
    ("1 mil tokens", "1 mil"),
    ("1 crore parameters", "1 crore"),
    ("1 lakh tokens", "1 lakh"),
    # Attack round 10: every currency sign (a list of some missed "₤80" and "₿2"), "₨" as NFKC reads it ("Rs"),
    # the European milliard, centuries and millennia.
    ("it costs \u20a480 here", "\u20a480"),
    ("it costs \u20bf2 here", "\u20bf2"),
    ("it costs 80 \u20a8 here", "80 Rs"),
    ("7 milliard parameters", "7 milliard"),
    ("it ran for 2 centuries", "2 centuries"),
    ("1.5 millennia", "1.5 millennia"),
]


@pytest.mark.parametrize(("text", "found"), FORMS)
def test_every_spelling_of_a_typed_figure_is_found(text: str, found: str) -> None:
    assert find_in_text(f"It takes {text} here.") == [found]


#: Numbers that are names, not figures: a format, a model, a catalog id, a section, a year, a formula's term.
NOT_FIGURES = [
    "fp16 and bf16",
    "a 16-bit format",
    "GPT-2 and GPT-3",
    "gpt2-1.5b and v100-32gb",
    "Lesson 8, Stage 4, Table 1, §3.2, Eq. 2",
    "in 2019",
    "ZeRO-3 and 3D parallelism",
    "1F1B",
    "P = 12lh²(1 + 13/(12h))",
    "2M(W − 1)/W",
    "(p − 1)/m",
    "16Ψ bytes",
    "each N − 1 steps of a chunk",
    "Table 2 b and a 2 d-dimensional grid",
    "SC20 and Figure 1 shows the layers",
    "Stage 4 and Stage 7, Lesson 12",
    "Lessons 8, 9 and 10",
    # Small counts in words are the course's style; a lone dollar sign is no price.
    "four stages, eight GPUs and two copies",
    "one of them, in two steps",
    "a $ sign alone",
    "six FLOPs per parameter per token",
    "fp32 takes four bytes, a two-byte fp16 and one byte of fp8",
    "by as much as a couple of hundred MiB",
    "eight A100 GPUs, and six second generation NVSwitches",
    "a model named for a trillion",
    "an A100, an H100-SXM5, Llama-3-8B and TF32",
    "a machine doing a quadrillion FLOPs every second",
    # A capital I that is a capital: at a word's start, between capitals or digits.
    "Iterations of an MI300X and an OpenAI model",
]


@pytest.mark.parametrize("text", NOT_FIGURES)
def test_a_number_that_is_a_name_is_not_a_typed_figure(text: str) -> None:
    assert find_in_text(text) == []


#: HTML in which a typed figure hides from a check that skips by class or tag: found wherever a reader reads it.
HIDING_PLACES = [
    ("<p>Code <code>24 GB</code> here.</p>", "the text"),
    ("<pre><code>mem = 24 GB</code></pre>", "the text"),
    ("<p><kbd>24 GB</kbd></p>", "the text"),
    ("<p><samp>24 GB</samp></p>", "the text"),
    ('<p><span class="fig">24 GB</span> forged</p>', "the text"),
    ('<p><em class="fig">24 GB</em> borrowed by an attribute list</p>', "the text"),
    ('<p><span class="headerlink">24 GB</span></p>', "the text"),
    ('<p><span class="sbn-quiz__hint">within 24 GB counts</span></p>', "the text"),
    ('<div class="sbn-build-error">24 GB in a box no problem wrote</div>', "the text"),
    ('<h2 id="x">24 GB<a class="headerlink" href="#x">¶</a></h2>', "the text"),
    ("<table><tr><td>24 GB</td></tr></table>", "the text"),
    ('<img alt="24 GB" src="x.png">', "the alt of a <img>"),
    ('<abbr title="24 GB of HBM">HBM</abbr>', "the title of a <abbr>"),
    ('<ol aria-label="24 GB"></ol>', "the aria-label of a <ol>"),
    ('<div class="admonition"><p class="admonition-title">24 GB</p></div>', "the text"),
    ("<p>24 <b>GB</b></p>", "the text"),
    ("<p>24&nbsp;GB and 2&#8203;4 GB</p>", "the text"),
    ('<p><span title="24 GB" title="">x</span></p>', "the title of a <span>"),
    ("<div><!-->24 GB<!-- --></div>", "the text"),
    ("<div><!-- a --!>24 GB<!-- --></div>", "the text"),
    ('<p>It takes 24 <div style="display: inline">GB</div> here.</p>', "the text"),
    # A line break (two spaces before a line's end in Markdown) parts no figure from its unit.
    ("<p>It takes 24<br>\nGB here.</p>", "the text"),
]


@pytest.mark.parametrize(("html", "where"), HIDING_PLACES)
def test_no_class_or_tag_of_the_authors_hides_a_typed_figure(html: str, where: str) -> None:
    assert {(found.text, found.where) for found in typed_figures(html, figures=False)} == {("24 GB", where)}


def test_the_courses_own_figures_hints_and_reported_boxes_are_not_read() -> None:
    fig = '<span class="fig" data-value="24000000000" data-unit="B">24 GB</span>'
    hint = '<span class="sbn-quiz__hint">A number with its unit; within 5% counts.</span>'
    problem = "docs/x.md:3: '24 GB' in the text is a typed figure"
    page = f'<p>{fig} {hint}</p><div class="sbn-build-error">{problem}</div>'
    assert typed_figures(page, reported=[problem]) == []
    # Where the figures are the author's, the same element is text like any other.
    assert [found.text for found in typed_figures(page, figures=False, reported=[problem])] == ["24 GB"]


def test_the_line_of_a_typed_figure_is_where_a_reader_reads_it() -> None:
    source = "\n".join(
        [
            "{{ chart(caption='24 GB') }}",  # 1: a macro's argument, checked with its output
            "It needs 24 **GB**.",  # 2
            "<img alt='3 days'> and 24&nbsp;GB",  # 3
            "Split 31",  # 4
            "GB over lines, 10⁹ bytes, ２４ ＧＢ",  # 5
        ]
    )
    assert lines_of(source, "24 GB", 10) == [11, 12, 14]
    assert lines_of(source, "3 days") == [3]
    assert lines_of(source, "31 GB") == [4]
    assert lines_of(source, "10^9 bytes") == [5]


def test_each_spelling_of_a_typed_figure_is_found_on_its_own_line() -> None:
    # "24GB" is not "24 GB": a space is found only where the figure has one (issue 25, round 5).
    source = "Intro\n\nFirst: 24 GB here.\n\nSecond: 24GB there, 24**GB** and 24<b>GB</b>."
    assert lines_of(source, "24 GB") == [3]
    assert lines_of(source, "24GB") == [5, 5, 5]


#: Text an author or a pull request could write, on which the check once took time growing with its square or
#: faster (attack round 6: 8,000 of "1," took 153 s), each read in a bounded time now.
HOSTILE_TEXTS = [
    "1," * 8000,
    "one " * 8000,
    "1" + " " * 16000 + "x",
    "24 – " * 8000,
]


@pytest.mark.parametrize("text", HOSTILE_TEXTS, ids=lambda text: repr(text[:6]))
def test_a_hostile_text_is_read_in_time_growing_with_its_length(text: str) -> None:
    start = time.perf_counter()
    assert find_in_text(text) == []
    assert time.perf_counter() - start < 10


#: HTML on which the reader of its markup took time growing with its square or faster: each "<" that never
#: closes was tried again from every later one ("<a" * 800 took 63 s, a tag's name giving back its letters to its
#: attributes), each read in a bounded time now, and what follows one that closes still read.
HOSTILE_HTML = [
    "<a" * 8000,
    "<a " * 8000,
    '<a x="' * 8000,
    "<a title=" * 8000,
    "</a" * 8000,
    "<!" * 8000,
    "<?" * 8000,
    "<!--" * 8000,
    "<a/" * 8000,
]


@pytest.mark.parametrize("html", HOSTILE_HTML, ids=lambda html: repr(html[:6]))
def test_a_hostile_html_is_read_in_time_growing_with_its_length(html: str) -> None:
    start = time.perf_counter()
    # Never closed, it runs to the end, and a browser shows none of it.
    assert typed_figures(html + " 24 GB", figures=False) == []
    if not html.startswith("<!--"):  # a comment ends with "-->", not ">"
        assert [found.text for found in typed_figures(html + "> 24 GB", figures=False)] == ["24 GB"]
    assert time.perf_counter() - start < 10


def test_a_tag_of_many_equals_signs_that_never_closes_is_read_at_once() -> None:
    # Each "=" could end one unquoted value or start the next: 2^n readings of a tag with no ">".
    start = time.perf_counter()
    typed_figures("<p " + "=" * 40 + " x", figures=False)
    assert time.perf_counter() - start < 10


def test_a_typed_figure_is_not_found_on_the_line_of_a_longer_one() -> None:
    # Attack round 6: "24 GB" in a code block was reported at an earlier line that held "24 GBytes".
    source = "```\nx = 24 GBytes\ny = 124 GB, 1.24 GB\nz = 24 GB\n```"
    assert lines_of(source, "24 GB") == [4]
    assert lines_of(source, "24 GBytes") == [2]


def test_a_typed_number_beside_a_term_call_is_found_at_its_line() -> None:
    # Attack round 9 (F3): a term linked earlier on the page shows as plain text, so "7000000000 parameters" was
    # found in the page but at no line ("search the page"); the call stands for the word it names.
    source = 'x\n{{ term("parameters") }} first.\nA model of 7000000000 {{ term("parameters") }} is large.\n'
    assert lines_of(source, "7000000000 parameters") == [3]
    assert lines_of("A {{ value('gpt2-1.5b', 'parameters') }} model, 24\nGB", "24 GB") == [1]


#: What a page's own text reads beside a computed figure (`FIGURE`), and the unit typed after it, if any: a unit of
#: size, time, rate, a percentage, a scale, a currency (attack round 8, F2); not a count's noun, a formula's symbol
#: or operator, a word.
AFTER_FIGURE = [
    (f"Its {FIGURE}% share.", [f"{FIGURE}%"]),
    (f"A {FIGURE}-gigabyte card.", [f"{FIGURE}-gigabyte"]),
    (f"About {FIGURE} hours.", [f"{FIGURE} hours"]),
    (f"It has {FIGURE} terabytes of weights.", [f"{FIGURE} terabytes"]),
    (f"A {FIGURE} FLOPs job, {FIGURE}k tokens, {FIGURE} GB, {FIGURE} billion, {FIGURE} dollars.", None),
    (f"The same {FIGURE}Ψ bytes, {FIGURE}Ψ/F, {FIGURE} per parameter, {FIGURE}-way, the {FIGURE}th.", []),
    (f"On {FIGURE} GPUs of {FIGURE} layers, {FIGURE}-token sequences, {FIGURE} times, {FIGURE} × {FIGURE}.", []),
    (f"34 + 5as/h = 34 + {FIGURE} bytes per token.", []),
]


@pytest.mark.parametrize(("text", "found"), AFTER_FIGURE)
def test_a_unit_typed_after_a_figure_is_a_typed_figure(text: str, found: list[str] | None) -> None:
    if found is None:
        assert len(find_in_text(text)) == 5
        assert all(typed.startswith(FIGURE) for typed in find_in_text(text))
    else:
        assert find_in_text(text) == found


def test_a_unit_typed_after_a_figure_is_found_at_the_line_of_its_call() -> None:
    source = 'a {{ term("GB") }}\nb {{ value("x") }}% and {{ value(\n"x") }}%\n{{ value("x") }} {{ term("FLOPs") }}'
    assert lines_of(source, f"{FIGURE}%") == [2, 3]
    assert lines_of(source, f"{FIGURE} FLOPs") == [4]
    assert lines_of(source, f"{FIGURE} GB") == []


def test_the_currency_signs_are_unicodes_category_sc() -> None:
    """Written out, not computed at import (a scan of every code point takes half a second of every reload)."""
    every = "".join(chr(code) for code in range(0x110000) if unicodedata.category(chr(code)) == "Sc")
    assert every == CURRENCY_SIGNS
