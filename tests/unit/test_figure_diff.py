"""The figure diff over small, hand-written figures logs."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from tools import figure_diff
from tools.figure_diff import diff_figures, load_figures, main, parse_records, render_markdown

PAGE = "stage-4/lesson-08-why-data-parallelism-alone-runs-out-of-memory.md"
URL = "stage-4/lesson-08-why-data-parallelism-alone-runs-out-of-memory/"


def record(figure_id: str, value: float, display: str, unit: str = "B", page: str = PAGE) -> dict[str, Any]:
    """One record as FigureLog writes it; the fields the diff does not read are filled in too."""
    return {
        "page": page,
        "url": URL,
        "id": figure_id,
        "value": value,
        "unit": unit,
        "display": display,
        "formula": "16 B × parameters",
        "explanation": "16 bytes × 1.5 billion parameters",
        "inputs": [],
    }


BASE = [
    record("model-states/gpt2-1.5b", 24_000_000_000, "24 GB"),
    record("bytes-per-parameter/all", 16, "16"),
    record("bytes-per-parameter/all", 16, "16 bytes"),
    record("allreduce-seconds/gpt2-ring-pcie", 0.1640625, "164 ms", unit="s"),
]


def report(base: list[dict[str, Any]], new: list[dict[str, Any]], site_url: str | None = None) -> str:
    return render_markdown(diff_figures(parse_records(base, "base"), parse_records(new, "pr")), site_url)


def test_nothing_changed_gives_an_empty_report() -> None:
    assert report(BASE, list(reversed(BASE))) == ""


def test_a_changed_value_shows_old_and_new_with_page_and_id() -> None:
    new = [record("model-states/gpt2-1.5b", 25_600_000_000, "25.6 GB"), *BASE[1:]]
    text = report(BASE, new)
    assert text.startswith("**1 figure changed, 0 added, 0 removed.**")
    row = next(line for line in text.splitlines() if "model-states/gpt2-1.5b" in line)
    assert f"`{PAGE}`" in row
    assert "`24 GB` → `25.6 GB`" in row
    assert "`24,000,000,000 B` → `25,600,000,000 B`" in row


def test_a_changed_value_with_the_same_display_is_reported() -> None:
    new = [record("model-states/gpt2-1.5b", 24_000_000_001, "24 GB"), *BASE[1:]]
    row = next(line for line in report(BASE, new).splitlines() if "model-states" in line)
    assert "`24 GB` → `24 GB`" in row
    assert "`24,000,000,000 B` → `24,000,000,001 B`" in row


def test_a_changed_display_alone_is_reported_with_the_value_unchanged() -> None:
    new = [record("allreduce-seconds/gpt2-ring-pcie", 0.1640625, "0.164 s", unit="s"), *BASE[:3]]
    row = next(line for line in report(BASE, new).splitlines() if "allreduce-seconds" in line)
    assert "`164 ms` → `0.164 s`" in row
    assert "`0.1640625 s` (unchanged)" in row


def test_one_figure_shown_in_several_words_compares_the_set_of_displays() -> None:
    # The page stops writing "16" on its own, but still writes "16 bytes".
    new = [BASE[0], BASE[2], BASE[3]]
    row = next(line for line in report(BASE, new).splitlines() if "bytes-per-parameter/all" in line)
    assert "`16`, `16 bytes` → `16 bytes`" in row


def test_an_added_figure_is_listed_under_added() -> None:
    new = [*BASE, record("model-states/example-7b", 112_000_000_000, "112 GB")]
    text = report(BASE, new)
    assert text.startswith("**0 figures changed, 1 added, 0 removed.**")
    added = text.split("Added:", 1)[1]
    assert "`model-states/example-7b` | `112 GB` | `112,000,000,000 B` |" in added


def test_a_removed_figure_is_listed_under_removed() -> None:
    text = report(BASE, BASE[1:])
    assert text.startswith("**0 figures changed, 0 added, 1 removed.**")
    removed = text.split("Removed:", 1)[1]
    assert "`model-states/gpt2-1.5b` | `24 GB` | `24,000,000,000 B` |" in removed


def test_the_same_figure_on_another_page_is_added_not_changed() -> None:
    moved = record("model-states/gpt2-1.5b", 24_000_000_000, "24 GB", page="stage-4/other.md")
    diff = diff_figures(parse_records(BASE, "base"), parse_records([moved, *BASE[1:]], "pr"))
    assert ([s.page for s in diff.added], [s.page for s in diff.removed], diff.changed) == (
        ["stage-4/other.md"],
        [PAGE],
        (),
    )


@pytest.mark.parametrize(
    ("display", "cell"),
    [
        ("1 | 2 GB", r"`1 \| 2 GB`"),
        ("`a`|b", r"`` `a`\|b ``"),
        (
            "<!-- sbn-preview --> @someone [x](https://example.com)",
            "`<!-- sbn-preview --> @someone [x](https://example.com)`",
        ),
        ("two\nlines", "`two lines`"),
    ],
)
def test_text_from_the_files_is_a_code_span_with_pipes_escaped(display: str, cell: str) -> None:
    new = [record("model-states/gpt2-1.5b", 24_000_000_000, display), *BASE[1:]]
    row = next(line for line in report(BASE, new).splitlines() if "model-states" in line)
    assert f"`24 GB` → {cell} |" in row
    # Every unescaped | is a cell border: the row keeps its five.
    assert row.replace(r"\|", "").count("|") == 5


def test_pages_link_to_the_preview_only_for_a_plain_relative_url() -> None:
    new = [record("model-states/gpt2-1.5b", 1, "1 B"), *BASE[1:]]
    linked = report(BASE, new, site_url="https://example.github.io/course/pr-5/")
    assert f"[`{PAGE}`](https://example.github.io/course/pr-5/{URL})" in linked
    new[0]["url"] = "https://elsewhere.example/"
    assert f"| `{PAGE}` |" in report(BASE, new, site_url="https://example.github.io/course/pr-5/")


@pytest.mark.parametrize(
    ("records", "message"),
    [
        ({"page": PAGE}, "base: expected a JSON list of figure records, got dict"),
        (["x"], "base: record 0: expected an object, got str"),
        ([{k: v for k, v in BASE[0].items() if k != "display"}], "base: record 0: missing field 'display'"),
        ([{**BASE[0], "value": "24 GB"}], "base: record 0: field 'value' is not an exact number: '24 GB'"),
        ([{**BASE[0], "value": True}], "base: record 0: field 'value' has the wrong type: True"),
    ],
)
def test_a_malformed_log_is_rejected_naming_record_and_field(records: object, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        parse_records(records, "base")


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_the_command_prints_nothing_and_exits_0_when_nothing_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write(tmp_path / "base.json", BASE)
    assert main([str(base), str(base)]) == 0
    assert capsys.readouterr().out == ""


def test_the_command_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = write(tmp_path / "base.json", BASE)
    new = write(tmp_path / "pr.json", BASE[1:])
    assert main([str(base), str(new)]) == 0
    assert "Removed:" in capsys.readouterr().out


def test_the_command_exits_2_naming_a_file_that_is_not_a_figures_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = write(tmp_path / "base.json", BASE)
    broken = tmp_path / "pr.json"
    broken.write_text("{", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        main([str(base), str(broken)])
    assert exit_info.value.code == 2
    assert f"{broken}: cannot read a figures log" in capsys.readouterr().err


#: A figures log a fork's build could upload, beyond a bound, and what the diff says of it, at once.
HOSTILE_LOGS = [
    ('[{"page":"p","url":"u","id":"x","value":"1e99999999","unit":"B","display":"d"}]', "without an exponent"),
    ('[{"page":"p","url":"u","id":"x","value":"1e5000","unit":"B","display":"d"}]', "without an exponent"),
    ('[{"page":"p","url":"u","id":"x","value":"' + "9" * 5000 + '","unit":"B","display":"d"}]', "at most 200 digits"),
    ('[{"page":"p","url":"u","id":"x","value":"1/' + "7" * 5000 + '","unit":"B","display":"d"}]', "at most 200 digits"),
    ('[{"page":"p","url":"u","id":"x","value":' + "9" * 100_000 + ',"unit":"B","display":"d"}]', "at most 200 digits"),
    ('[{"page":"p","url":"u","id":"x","value":NaN,"unit":"B","display":"d"}]', "NaN is not JSON"),
    ('[{"page":"p","url":"u","id":"x","value":1e999,"unit":"B","display":"d"}]', "a number is finite, not 1e999"),
    # Attack round 10: digits of another script, which int() reads, and a key given twice (Python keeps the last).
    ('[{"page":"p","url":"u","id":"x","value":"\u0661\u0662\u0663","unit":"B","display":"d"}]', "without an exponent"),
    (
        '[{"page":"p","url":"u","id":"x","value":"1","value":"2","unit":"B","display":"d"}]',
        "gives the key 'value' twice",
    ),
    ("[" * 100_000 + "]" * 100_000, "nest more than 16 deep"),
    ('{"a":' * 50_000 + "1" + "}" * 50_000, "nest more than 16 deep"),
    # Attack round 6: an unterminated string of escaped quotes, which a whole-string pattern backtracked over
    # from each quote (43 s for these 100 KB).
    ('"' + '\\"' * 50_000, "Unterminated string"),
    ('["' + '\\"' * 50_000 + '[[[[[[[[[[[[[[[[[[[["]', "expected an object, got str"),
    (
        '[{"page":"p","url":"u","id":"x","value":"1","unit":"B","display":"d","x":' + "[" * 20 + "]" * 20 + "}]",
        "16 deep",
    ),
]


@pytest.mark.parametrize(("text", "message"), HOSTILE_LOGS)
def test_a_hostile_log_is_refused_at_once_with_its_bound(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "figures.json"
    path.write_text(text, encoding="utf-8")
    start = time.perf_counter()
    with pytest.raises(ValueError, match=re.escape(message)) as raised:
        load_figures(path)
    assert time.perf_counter() - start < 1 and len(str(raised.value)) < 400


def test_a_log_larger_than_any_build_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(figure_diff, "MAX_BYTES", 1000)
    path = tmp_path / "figures.json"
    path.write_text(json.dumps(BASE * 10), encoding="utf-8")
    with pytest.raises(ValueError, match="larger than 1,000 bytes"):
        load_figures(path)


def test_brackets_inside_strings_are_not_nesting(tmp_path: Path) -> None:
    path = tmp_path / "figures.json"
    path.write_text(json.dumps([record("x", 1, '[[[[[[[[[[[[[[[[[[[[ {{{{{{{{{{{{{{{{{{ \\"[[[[')]), encoding="utf-8")
    assert list(load_figures(path)) == [(PAGE, "x")]


@pytest.mark.parametrize(
    ("old", "new", "old_shown", "new_shown"),
    [
        # Attack round 8: Decimal division at 28 digits showed both as 0.1000000000000000000000000000.
        # 1/2^k is 5^k/10^k: k decimals, the digits of 5^k.
        (
            "0.1000000000000000000000000000001",
            "0.1000000000000000000000000000002",
            "0.1" + "0" * 29 + "1",
            "0.1" + "0" * 29 + "2",
        ),
        ("1/1125899906842624", "1/562949953421312", "0." + str(5**50).rjust(50, "0"), "0." + str(5**49).rjust(49, "0")),
        ("-1234567.25", "3/8", "-1,234,567.25", "0.375"),
    ],
)
def test_an_exact_value_is_shown_in_all_its_digits(old: str, new: str, old_shown: str, new_shown: str) -> None:
    row = next(line for line in report([record("x", old, "d")], [record("x", new, "d")]).splitlines() if "`x`" in line)  # type: ignore[arg-type]
    assert f"`{old_shown} B` → `{new_shown} B`" in row


def test_a_report_of_more_figures_than_a_comment_holds_shows_the_first_and_counts_the_rest() -> None:
    changes = 5_000
    base = [record(f"figure-{n}", n, "x" * 200) for n in range(changes)]
    new = [record(f"figure-{n}", n + 1, "y" * 200) for n in range(changes)]
    text = report(base, new)
    rows = [line for line in text.splitlines() if line.startswith("| [") or line.startswith("| `")]
    assert len(text) <= 65_536 and 0 < len(rows) <= figure_diff.MAX_ROWS
    assert f"… and {changes - len(rows):,} more, not shown: the first {len(rows)} are." in text


def test_a_figure_shown_in_many_texts_lists_the_first_and_counts_the_rest() -> None:
    texts = [f"text {n:02}" for n in range(40)]
    text = report([], [record("x", 1, display) for display in texts])
    row = next(line for line in text.splitlines() if "`x`" in line)
    assert row.count("`text ") == 5 and f"and {len(texts) - 5} more" in row


@pytest.mark.parametrize("site_url", ["javascript:alert(1)//", "https://x.example/\n# Heading", "https://x.example/)"])
def test_the_command_refuses_a_site_url_its_links_could_not_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], site_url: str
) -> None:
    """Attack round 10: it was written into every page's link as it was given."""
    base = write(tmp_path / "base.json", BASE)
    with pytest.raises(SystemExit) as exit_info:
        main([str(base), str(base), "--site-url", site_url])
    assert exit_info.value.code == 2
    assert "expected a plain https:// address" in capsys.readouterr().err
