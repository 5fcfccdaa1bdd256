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
    origin,
    pages_url,
    preview_url,
    previews_site_url,
    removed_body,
    site_url_of,
)
from tools.preview_trust import LABEL

URL = "https://scale-by-the-numbers-previews.github.io/previews/pr-5/"
RUN = "https://github.com/scale-by-the-numbers/course/actions/runs/123"
COURSE_SITE = "https://scale-by-the-numbers.github.io/course/"
SHA = "0123456789abcdef0123456789abcdef01234567"
DIFF = "**1 figure changed, 0 added, 0 removed.**\n\n| page | figure | shown as | exact value |\n"


def test_the_body_starts_with_the_marker_and_links_the_preview_and_commit() -> None:
    body = comment_body(SHA, DIFF, preview_url=URL)
    assert body.startswith(MARKER + "\n")
    assert f"[Open the preview of this pull request]({URL})" in body
    assert SHA in body


def test_the_body_carries_the_figure_diff() -> None:
    assert DIFF.strip() in comment_body(SHA, DIFF, preview_url=URL)


def test_an_empty_diff_says_that_no_figure_changed() -> None:
    assert "No figure changed" in comment_body(SHA, "", preview_url=URL)


def test_a_missing_base_says_there_is_no_diff() -> None:
    assert "No figure diff this time" in comment_body(SHA, None, preview_url=URL)


def test_a_huge_diff_is_cut_to_fit_a_github_comment() -> None:
    rows = [f"| `page` | `figure-{n}` | `1 GB` → `2 GB` | `1 B` → `2 B` |" for n in range(5000)]
    body = comment_body(SHA, "\n".join(rows) + "\n", preview_url=URL)
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
        comment_body(sha, DIFF, preview_url=url)


def test_the_body_says_the_preview_is_on_an_origin_of_its_own() -> None:
    assert "served from https://scale-by-the-numbers-previews.github.io, an origin of its own" in comment_body(
        SHA, DIFF, preview_url=URL
    )


def test_a_forks_body_has_no_preview_and_says_how_to_get_one() -> None:
    body = comment_body(SHA, DIFF, no_preview="fork", run_url=RUN)
    assert "Open the preview" not in body
    assert f"applies the `{LABEL}` label" in body
    assert f"[the CI run]({RUN})" in body
    assert DIFF.strip() in body


@pytest.mark.parametrize(("why", "words"), [("too-large", "larger than 50 MB"), ("full", "already fill the 500 MB")])
def test_a_refused_preview_says_why(why: str, words: str) -> None:
    assert words in comment_body(SHA, "", no_preview=why, run_url=RUN)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"preview_url": URL, "no_preview": "fork", "run_url": RUN}, "either a preview URL or a reason"),
        ({}, "either a preview URL or a reason"),
        ({"no_preview": "because", "run_url": RUN}, "must be one of fork, too-large, full"),
        ({"no_preview": "fork"}, "the workflow run's URL must be a plain https:// URL"),
        ({"no_preview": "fork", "run_url": "javascript:alert(1)"}, "the workflow run's URL must be a plain https://"),
    ],
)
def test_a_body_needs_a_preview_or_a_known_reason(arguments: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        comment_body(SHA, DIFF, **arguments)


@pytest.mark.parametrize(("why", "words"), [("closed", "is closed"), ("withdrawn", "withdrawn")])
def test_the_removed_body_keeps_the_marker(why: str, words: str) -> None:
    assert removed_body(why).startswith(MARKER)
    assert words in removed_body(why)


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


@pytest.mark.parametrize(
    "odd",
    [
        {"id": 1, "user": BOT, "body": MARKER},  # a user that is a string
        {"id": 1, "user": {"login": BOT}, "body": [MARKER]},  # a body that is a list
        {"id": 1, "user": {"login": BOT}, "body": 5},
        {"id": True, "user": {"login": BOT}, "body": MARKER},  # an id that is true, or not positive
        {"id": -5, "user": {"login": BOT}, "body": MARKER},
        {"id": 10**29, "user": {"login": BOT}, "body": MARKER},  # round 10: beyond GitHub's 64-bit ids
    ],
)
def test_find_takes_no_comment_the_api_would_not_write(odd: dict[str, object]) -> None:
    """Attack round 9: such a comment ended `find` in an AttributeError, or gave True or -5 as the id to edit."""
    assert find_comment([odd, comment(7, BOT, MARKER)]) == 7


def test_the_body_command_reads_the_diff_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    diff = tmp_path / "figure-diff.md"
    diff.write_text(DIFF, encoding="utf-8")
    assert (
        main(
            [
                "body",
                "--status",
                "published",
                "--preview-url",
                URL,
                "--run-url",
                RUN,
                "--head-sha",
                SHA,
                "--diff",
                str(diff),
            ]
        )
        == 0
    )
    assert DIFF.strip() in capsys.readouterr().out


@pytest.mark.parametrize(("status", "words"), [("unchanged", "Open the preview"), ("fork", "comes from a fork")])
def test_the_body_command_links_a_preview_only_for_a_published_status(
    status: str, words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["body", "--status", status, "--preview-url", URL, "--run-url", RUN, "--head-sha", SHA]) == 0
    body = capsys.readouterr().out
    assert words in body
    assert (URL in body) == (status == "unchanged")


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
        main(["body", "--status", "published", "--preview-url", URL, "--run-url", RUN, "--head-sha", "HEAD"])
    assert exit_info.value.code == 2
    assert "40 lowercase hexadecimal digits" in capsys.readouterr().err


def test_the_preview_is_a_folder_under_the_site_url() -> None:
    assert preview_url("https://scale-by-the-numbers-previews.github.io/previews/", 5) == URL
    assert preview_url("https://scale-by-the-numbers-previews.github.io/previews", 5) == URL


@pytest.mark.parametrize("number", [0, -3, True])
def test_a_preview_needs_a_pull_request_number(number: int) -> None:
    with pytest.raises(ValueError, match="positive whole number"):
        preview_url("https://example.github.io/course/", number)


def test_the_site_url_is_read_from_mkdocs_yml() -> None:
    assert site_url_of("site_name: x\nsite_url: 'https://a.example/b/' # the site\n") == "https://a.example/b/"
    with pytest.raises(ValueError, match="no site_url"):
        site_url_of("site_name: x\n")


@pytest.mark.parametrize("second", ["site_url: https://b.example/", "site_url : https://b.example/", '"site_url": x'])
def test_a_site_url_given_twice_is_refused(second: str) -> None:
    """Attack round 10: the build takes the last, this reader took the first, and the origin check passed."""
    with pytest.raises(ValueError, match="gives site_url on 2 lines"):
        site_url_of(f"site_url: https://decoy.example/course/\n{second}\n")


# Where previews live: never on the course's origin (issue 9, item 1).


@pytest.mark.parametrize(
    ("repository", "site"),
    [
        ("scale-by-the-numbers-previews/previews", "https://scale-by-the-numbers-previews.github.io/previews/"),
        ("Previews-Owner/previews-owner.github.io", "https://previews-owner.github.io/"),
    ],
)
def test_a_repositorys_pages_address(repository: str, site: str) -> None:
    assert pages_url(repository) == site


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("https://Owner.GitHub.io/course/pr-5/", "https://owner.github.io"),
        ("https://owner.github.io:443/x/", "https://owner.github.io"),
        ("https://previews.example.org:8443/", "https://previews.example.org:8443"),
    ],
)
def test_the_origin_of_a_site(url: str, expected: str) -> None:
    assert origin(url) == expected


@pytest.mark.parametrize(
    ("repository", "site_url"),
    [
        # Another repository of the course's own owner: every Pages site of an owner shares its origin.
        ("scale-by-the-numbers/previews", ""),
        ("Scale-By-The-Numbers/previews", ""),
        # A "custom domain" that is the course's own host.
        ("scale-by-the-numbers-previews/previews", "https://SCALE-by-the-numbers.github.io/previews/"),
    ],
)
def test_previews_on_the_courses_origin_are_refused(repository: str, site_url: str) -> None:
    with pytest.raises(ValueError, match=r"would share the course's origin https://scale-by-the-numbers\.github\.io:"):
        previews_site_url(repository, site_url, COURSE_SITE)


#: Attack round 9 (F21): spellings of the course's origin that urlsplit reads as another host, or whose host a
#: browser rewrites (percent-decoding, UTS-46 mapping, a backslash read as "/"): Chromium's `new URL(u).origin` is
#: https://scale-by-the-numbers.github.io for the first four.
ANOTHER_SPELLING = [
    "https://scale-by-the-numbers%2Egithub.io/previews/",
    "https://\uff53cale-by-the-numbers.github.io/previews/",  # FULLWIDTH LATIN SMALL LETTER S
    "https://scale-by-the-numbers\u3002github\u3002io/previews/",  # IDEOGRAPHIC FULL STOP
    "https://scale-by-the-numbers.github.io\\@evil.example/",
    "https://scale-by-the-numbers.github.io@evil.example/",  # a user name: never part of a site's address
    "https://scale-by-the-numbers.git\u00adhub.io/previews/",  # SOFT HYPHEN, which UTS-46 removes
    "https://0x7f.0.0.1/previews/",  # an IPv4 address, which a browser reads as 127.0.0.1
]


@pytest.mark.parametrize("site_url", ANOTHER_SPELLING)
def test_a_site_url_whose_host_a_browser_would_read_otherwise_is_refused(site_url: str) -> None:
    with pytest.raises(ValueError, match=r"a site URL's host must be a plain domain name"):
        previews_site_url("scale-by-the-numbers-previews/previews", site_url, COURSE_SITE)


@pytest.mark.parametrize("site_url", ANOTHER_SPELLING[:4])
def test_the_url_command_refuses_another_spelling_of_the_courses_origin(
    site_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = ["--config", str(ROOT / "mkdocs.yml")]
    with pytest.raises(SystemExit) as exit_info:
        main(["url", "--number", "5", "--repository", "other-owner/previews", "--site-url", site_url, *config])
    assert exit_info.value.code == 2
    assert "a site URL's host must be a plain domain name" in capsys.readouterr().err


@pytest.mark.parametrize("site_url", ANOTHER_SPELLING[:4])
def test_the_body_names_no_origin_a_browser_would_read_otherwise(site_url: str) -> None:
    with pytest.raises(ValueError, match=r"a site URL's host must be a plain domain name"):
        comment_body(SHA, DIFF, preview_url=site_url + "pr-5/")


def test_a_custom_domain_replaces_the_repositorys_pages_address() -> None:
    site = previews_site_url("scale-by-the-numbers/previews", "https://previews.example.org/", COURSE_SITE)
    assert site == "https://previews.example.org/"


def test_the_url_command_checks_against_the_courses_own_mkdocs_yml(capsys: pytest.CaptureFixture[str]) -> None:
    config = ["--config", str(ROOT / "mkdocs.yml")]
    assert main(["url", "--number", "5", "--repository", "scale-by-the-numbers-previews/previews", *config]) == 0
    assert capsys.readouterr().out == URL + "\n"
    with pytest.raises(SystemExit) as exit_info:
        main(["url", "--number", "5", "--repository", "scale-by-the-numbers/previews", *config])
    assert exit_info.value.code == 2
    assert "would share the course's origin" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nest more than"),
        (b'[{"id": 1, "body": "\xff"}]', "not UTF-8"),
        (b'[{"id": ' + b"9" * 5000 + b"}]", "at most"),
    ],
)
def test_the_find_command_exits_2_on_hostile_json(
    data: bytes, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack round 8 (F9): a list of comments no decoder should recurse, decode or convert into a traceback."""
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    with pytest.raises(SystemExit) as exit_info:
        main(["find"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
