"""The preview comment's text, and how the workflow finds the comment to edit."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tools.preview_comment import (
    BOT,
    GITHUB_COMMENT_LIMIT,
    MARKER,
    comment_body,
    find_comment,
    main,
    preview_url,
    removed_body,
    site_url_of,
)

URL = "https://scale-by-the-numbers.github.io/course/pr-5/"
SHA = "0123456789abcdef0123456789abcdef01234567"
DIFF = "**1 figure changed, 0 added, 0 removed.**\n\n| page | figure | shown as | exact value |\n"


def test_the_body_starts_with_the_marker_and_links_the_preview_and_commit() -> None:
    body = comment_body(URL, SHA, DIFF)
    assert body.startswith(MARKER + "\n")
    assert f"[Open the preview of this pull request]({URL})" in body
    assert SHA in body


def test_the_body_carries_the_figure_diff() -> None:
    assert DIFF.strip() in comment_body(URL, SHA, DIFF)


def test_an_empty_diff_says_that_no_figure_changed() -> None:
    assert "No figure changed" in comment_body(URL, SHA, "")


def test_a_missing_base_says_there_is_no_diff() -> None:
    assert "No figure diff this time" in comment_body(URL, SHA, None)


def test_a_huge_diff_is_cut_to_fit_a_github_comment() -> None:
    rows = [f"| `page` | `figure-{n}` | `1 GB` → `2 GB` | `1 B` → `2 B` |" for n in range(5000)]
    body = comment_body(URL, SHA, "\n".join(rows) + "\n")
    assert len(body) <= GITHUB_COMMENT_LIMIT
    assert "more lines: the whole report is the `figure-diff` artifact" in body
    assert "`figure-0`" in body


@pytest.mark.parametrize(
    ("url", "sha", "message"),
    [
        ("http://example.com/pr-5/", SHA, "plain https:// URL"),
        ("https://example.com/pr-5/) [x](https://evil.example", SHA, "plain https:// URL"),
        (URL, SHA[:7], "40 lowercase hexadecimal digits"),
        (URL, SHA.upper(), "40 lowercase hexadecimal digits"),
    ],
)
def test_a_bad_url_or_commit_is_refused(url: str, sha: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        comment_body(url, sha, DIFF)


def test_the_removed_body_keeps_the_marker() -> None:
    assert removed_body().startswith(MARKER)
    assert "removed" in removed_body()


def comment(number: int, login: str, body: str) -> dict[str, object]:
    return {"id": number, "user": {"login": login}, "body": body}


def test_find_picks_the_bots_comment_with_the_marker() -> None:
    comments = [comment(1, BOT, "Thanks!"), comment(2, BOT, MARKER + "\nold preview")]
    assert find_comment(comments) == 2


def test_find_ignores_the_marker_in_someone_elses_comment() -> None:
    comments = [comment(1, "mallory", MARKER + "\nfake"), comment(2, BOT, "no marker " + MARKER)]
    assert find_comment(comments) is None


def test_find_reads_paginated_lists_of_comments() -> None:
    pages = [[comment(1, "alice", "hi")], [comment(7, BOT, MARKER)]]
    assert find_comment(pages) == 7


def test_find_of_no_comments_is_none() -> None:
    assert find_comment([]) is None


def test_the_body_command_reads_the_diff_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    diff = tmp_path / "figure-diff.md"
    diff.write_text(DIFF, encoding="utf-8")
    assert main(["body", "--preview-url", URL, "--head-sha", SHA, "--diff", str(diff)]) == 0
    assert DIFF.strip() in capsys.readouterr().out


def test_the_find_command_prints_the_id_or_nothing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps([[comment(9, BOT, MARKER)]])))
    assert main(["find"]) == 0
    assert capsys.readouterr().out == "9\n"
    monkeypatch.setattr("sys.stdin", io.StringIO("[]"))
    assert main(["find"]) == 0
    assert capsys.readouterr().out == ""


def test_the_body_command_exits_2_on_a_bad_commit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["body", "--preview-url", URL, "--head-sha", "HEAD"])
    assert exit_info.value.code == 2
    assert "40 lowercase hexadecimal digits" in capsys.readouterr().err


def test_the_preview_is_a_folder_under_the_site_url() -> None:
    assert preview_url("https://scale-by-the-numbers.github.io/course/", 5) == URL
    assert preview_url("https://scale-by-the-numbers.github.io/course", 5) == URL


@pytest.mark.parametrize("number", [0, -3, True])
def test_a_preview_needs_a_pull_request_number(number: int) -> None:
    with pytest.raises(ValueError, match="positive whole number"):
        preview_url("https://example.github.io/course/", number)


def test_the_site_url_is_read_from_mkdocs_yml() -> None:
    assert site_url_of("site_name: x\nsite_url: 'https://a.example/b/' # the site\n") == "https://a.example/b/"
    with pytest.raises(ValueError, match="no site_url"):
        site_url_of("site_name: x\n")


def test_the_url_command_reads_the_courses_own_mkdocs_yml(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["url", "--number", "5", "--config", str(ROOT / "mkdocs.yml")]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed.startswith("https://") and printed.endswith("/pr-5/")
