"""The one schema every record is checked with: type functions, check_record, strict YAML."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from macros.data.schema import (
    Fields,
    SchemaError,
    check_record,
    list_of,
    load_yaml,
    one_of,
    optional,
    percentage,
    positive_amount,
    positive_count,
    read_text,
    slug,
    text,
    web_url,
)

FIELDS: Fields = {"name": text, "layers": positive_count, "note": optional(text, "none")}


def test_a_record_is_returned_clean_with_its_defaults() -> None:
    assert check_record("m.yml: a", {"name": " x ", "layers": 48}, FIELDS) == {
        "name": "x",
        "layers": 48,
        "note": "none",
    }


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "x", "layers": 48, "nmae": 1}, "m.yml: a: unknown field(s) nmae; allowed: name, layers, note"),
        ({"layers": 48}, "m.yml: a: missing field(s) name"),
        ({"name": "x", "layers": 48.5}, "m.yml: a.layers: got 48.5; expected a whole number"),
        ({"name": "", "layers": 4}, "m.yml: a.name: got ''; expected text"),
        ([1, 2], "m.yml: a: got [1, 2]; expected a mapping of fields: name, layers, note"),
    ],
)
def test_check_record_alone_words_every_problem(data: object, message: str) -> None:
    with pytest.raises(SchemaError) as raised:
        check_record("m.yml: a", data, FIELDS)
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("check", "value", "clean"),
    [
        (positive_count, 48, 48),
        (positive_amount, 0.1, Fraction(1, 10)),
        (positive_amount, 32_000_000_000, 32_000_000_000),
        (percentage, "5%", Fraction(1, 20)),
        (percentage, "0.5 %", Fraction(1, 200)),
        (slug, "l8-practice-1", "l8-practice-1"),
        (web_url, "https://arxiv.org/abs/1910.02054", "https://arxiv.org/abs/1910.02054"),
        (one_of("a", "b"), "b", "b"),
        (list_of(positive_count), [1, 2], (1, 2)),
    ],
)
def test_a_type_function_returns_the_clean_value(check: object, value: object, clean: object) -> None:
    assert check(value) == clean  # type: ignore[operator]


@pytest.mark.parametrize(
    ("check", "value", "message"),
    [
        (positive_count, 0, "expected a whole number above zero"),
        (positive_count, True, "expected a whole number"),
        (positive_count, 47.0, "write it without a decimal point"),
        (positive_count, "1.5e9", "write large ones as 1_500_000_000"),
        # Attack round 10: a small number in quotes was told to write large ones as 1_500_000_000.
        (positive_count, "2", "expected a whole number, written without quotes"),
        (positive_amount, float("nan"), "expected a finite number above zero"),
        (positive_amount, float("inf"), "expected a finite number above zero"),
        (positive_amount, "32", "expected a number, without quotes"),
        (percentage, "5", "expected a percentage above 0 and at most 100"),
        (percentage, "150%", "expected a percentage above 0 and at most 100"),
        (slug, "L8 Practice", "expected lower-case words and digits joined by hyphens"),
        # Attack round 6: `$` matched before a final newline, so "x-1\n" passed beside "x-1".
        (slug, "l8-practice-1\n", "expected lower-case words and digits joined by hyphens"),
        (web_url, "javascript:alert(1)", "expected an address starting with https://"),
        (web_url, "//evil.example/x", "expected an address starting with https://"),
        (one_of("a", "b"), "c", "expected one of: a, b"),
        (list_of(positive_count), [1, -2], "item 2: got -2; expected a whole number above zero"),
        (list_of(text, empty=False), [], "expected a non-empty list"),
    ],
)
def test_a_type_function_says_what_it_expected(check: object, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check(value)  # type: ignore[operator]


def test_yaml_refuses_a_key_given_twice_with_both_lines() -> None:
    with pytest.raises(SchemaError, match=r"x.yml:3: not valid YAML: the key 'a' is given twice \(lines 1 and 3\)"):
        load_yaml("a: 1\nb: 2\na: 3\n", "x.yml")


def test_yaml_refuses_a_nested_key_given_twice() -> None:
    with pytest.raises(SchemaError, match=r"the key 'layers' is given twice"):
        load_yaml("gpt:\n  layers: 1\n  layers: 2\n", "x.yml")


@pytest.mark.parametrize(
    ("source", "message"),
    [
        # Attack round 6: YAML 1.1 reads these as other numbers, and a build passed with Mixtral's 032 layers as 26.
        ("a: 1\nlayers: 032\n", "x.yml:2: not valid YAML: 032 is not a decimal whole number"),
        ("a: 1\nb: 2\nminutes: 1:30\n", "x.yml:3: not valid YAML: 1:30 is not a decimal whole number"),
        ("bits: 0b101\n", "x.yml:1: not valid YAML: 0b101 is not a decimal whole number"),
        ("mask: 0x1f\n", "x.yml:1: not valid YAML: 0x1f is not a decimal whole number"),
        ("share: 1:30.5\n", "x.yml:1: not valid YAML: 1:30.5 is a number in base 60 to YAML"),
    ],
)
def test_yaml_refuses_a_number_yaml_would_read_in_another_base(source: str, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        load_yaml(source, "x.yml")


def test_yaml_reads_decimal_numbers_as_written() -> None:
    assert load_yaml("a: 46_702_792_704\nb: 0\nc: -3\nd: 2.5\n", "x.yml") == {
        "a": 46_702_792_704,
        "b": 0,
        "c": -3,
        "d": 2.5,
    }


def test_invalid_yaml_names_the_file_and_line() -> None:
    with pytest.raises(SchemaError, match=r"x.yml:2: not valid YAML"):
        load_yaml("a: 1\nb: x: y\n", "x.yml")


#: Addresses a source's `url` must not be, each a way out of an attribute, a scheme that runs, or a character a
#: reader's browser reads otherwise than a reviewer does.
BAD_URLS = [
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "//evil.example/x",
    "https:///x",
    "https://evil.example/\x00",
    "https://evil.example/\x1b[31m",
    "https://evil.example/a\tb",
    "https://evil.example/a\nb",
    "https://evil.example/\x7f",
    "https://evil.example/\x85",
    "https://evil.example/\u200b",
    "https://evil.example/\u202ecod.exe",
    'https://evil.example/" onmouseover="x',
    "https://evil.example/'x",
    "https://evil.example/<script>",
    "https://evil.example\\@good.example/",
    "https://evil.example/ x",
    "https://-evil.example/",
    "https://evil.example:123456/",
    "https://évil.example/",
]


@pytest.mark.parametrize("url", BAD_URLS)
def test_web_url_refuses_an_address_a_browser_reads_otherwise(url: str) -> None:
    with pytest.raises(ValueError, match="expected an address starting with https://"):
        web_url(url)


@pytest.mark.parametrize(
    "url", ["http://a", "https://arxiv.org/abs/1910.02054v3", "https://e.org:8443/a_b/~c?d=1&e=%20#f(g)"]
)
def test_web_url_takes_an_address_as_rfc_3986_writes_it(url: str) -> None:
    assert web_url(url) == url


@pytest.mark.parametrize("control", ["\x00", "\x08", "\x1b", "\x7f", "\x9b", "\u202a", "\u202e", "\u2066", "\u2069"])
def test_text_refuses_a_control_character(control: str) -> None:
    with pytest.raises(ValueError, match=f"expected text without control characters \\(U\\+{ord(control):04X} at 3\\)"):
        text(f"ab{control}c")


def test_text_keeps_tabs_and_line_breaks() -> None:
    assert text(" a\tb\nc\r\nd ") == "a\tb\nc\r\nd"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("[a, b]: 1\n", r"x.yml:1: not valid YAML: a key is a name or a number, not a sequence; quote it"),
        ("a: 1\n{b: 1}: 2\n", r"x.yml:2: not valid YAML: a key is a name or a number, not a mapping"),
        ("? [a]\n: 1\n", r"x.yml:1: not valid YAML: a key is a name or a number, not a sequence"),
        ("x:\n  y:\n    [z]: 1\n", r"x.yml:3: not valid YAML: a key is a name or a number"),
        ("a: &x [1, 2]\nb: *x\n", r"x.yml:1: not valid YAML: this value is used again by an alias"),
        ("a: &x [*x]\n", r"x.yml:1: not valid YAML: this value is used again by an alias"),
        ("a: &a 1\nb: *a\n", r"x.yml:1: not valid YAML: this value is used again by an alias"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n",
            r"x.yml:1: not valid YAML: this value is used again by an alias",
        ),
    ],
)
def test_yaml_refuses_a_key_that_is_not_a_scalar_and_an_alias(source: str, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        load_yaml(source, "x.yml")


def test_a_message_quotes_a_long_value_cut_short() -> None:
    with pytest.raises(SchemaError) as raised:
        check_record("m.yml: a", {"name": "x", "layers": "9" * 10**6}, FIELDS)
    assert len(str(raised.value)) < 400


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            'a:\n  b: "x"\n  c: \'*y*{: onclick="z" }\'\n',
            "x.yml:3: a.c: holds an onclick attribute in an attribute list",
        ),
        (
            "a:\n  note: >-\n    Words, and then\n    <img src=x onerror=y>\n",
            "x.yml:4: a.note: holds an onerror attribute",
        ),
        ("- ok\n- [ok, 'javascript:x']\n", r"x.yml:2: \[1\]\[1\]: holds a javascript: address"),
        ("'<script>x</script>': 1\n", "x.yml:1: holds a <script> that is not one of the course's"),
        ("a: &a '<b onclick=x>'\nb: [*a, *a]\n", "x.yml:1: a: holds an onclick attribute on a <b>"),
    ],
)
def test_yaml_text_that_would_run_script_is_refused_at_its_line(source: str, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        load_yaml(source, "x.yml")


def test_yaml_that_is_not_a_data_file_is_read_as_it_is() -> None:
    """A page's front matter has checks of its own, which say more (a title holds no markup at all)."""
    assert load_yaml("title: '<b onclick=x>'\n", "p.md (front matter)", data_file=False) == {"title": "<b onclick=x>"}


@pytest.mark.parametrize("character", ["\u2028", "\u2029", "\x85", "\r"])
def test_a_line_break_only_yaml_reads_is_told_at_the_files_line(character: str) -> None:
    """YAML counts it as a line break, an editor and every other message of the course do not: a data file's lines
    after it would be told one too far (attack round 9, F13)."""
    with pytest.raises(SchemaError, match=r"^x.yml:2: not valid YAML here: .* at column 7, which YAML reads as"):
        load_yaml(f"a: 1\nb: 'x {character} y'\nc: [1\n", "x.yml")


def test_a_file_with_windows_line_endings_is_read_as_it_is() -> None:
    assert load_yaml("a: 1\r\nb: [x, y]\r\n", "x.yml") == {"a": 1, "b": ["x", "y"]}


def test_a_character_yaml_refuses_is_told_at_its_line() -> None:
    with pytest.raises(SchemaError, match=r"x.yml:3: not valid YAML: unacceptable character #x0001"):
        load_yaml("a: 1\nb: 2\nc: 'x\x01'\n", "x.yml")


def test_a_file_is_read_as_utf_8_or_refused_at_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "terms.yml"
    path.write_bytes("a: naïve\n".encode() + b"b: caf\xe9\n")
    with pytest.raises(SchemaError) as raised:
        read_text(path, "glossary/terms.yml")
    assert str(raised.value).startswith("glossary/terms.yml:2: not UTF-8 (the byte 0xE9 at column 7): save the file")
    path.write_text("a: naïve\n", encoding="utf-8")
    assert read_text(path, "glossary/terms.yml") == "a: naïve\n"


def test_a_folder_or_a_missing_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(SchemaError, match=r"^units\.yml: is a folder; expected a text file"):
        read_text(tmp_path, "units.yml")
    with pytest.raises(SchemaError, match=r"^units\.yml: cannot be read: No such file or directory"):
        read_text(tmp_path / "units.yml", "units.yml")
