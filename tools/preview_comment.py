"""The one pull-request comment that the preview workflow posts and keeps up to date.

`.github/workflows/preview.yml` publishes a pull request's build under `pr-N/` on the
course's Pages site, then posts this comment: the link to the preview, the commit it was
built from and the figure diff (`tools.figure_diff`) against the base branch. On each new
push it edits the same comment rather than adding one: it finds it by a hidden marker, among
the comments of the workflow's own bot account only, since anyone can write the marker.
When the pull request closes, `preview-cleanup.yml` replaces the text with a note that the
preview is gone.

Commands, for the workflows (each prints to standard output):

    python -m tools.preview_comment url --number N [--config mkdocs.yml]
    python -m tools.preview_comment body --preview-url URL --head-sha SHA [--diff FILE]
    python -m tools.preview_comment removed
    python -m tools.preview_comment find --author LOGIN < comments.json

`url` prints where pull request N's preview is published: `pr-N/` under the `site_url` of
mkdocs.yml, the one place the course's address is configured. `find` reads a JSON list of
issue comments, or of pages of them (`gh api --paginate --slurp`), and prints the id of the
comment to edit, or nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

#: The hidden first line that marks the comment as this workflow's.
MARKER = "<!-- sbn-preview -->"
#: GitHub rejects a comment body longer than this many characters.
GITHUB_COMMENT_LIMIT = 65_536
#: The figure diff is cut to this many characters, leaving room for the rest of the comment.
DIFF_BUDGET = 60_000
#: The account that GITHUB_TOKEN posts as.
BOT = "github-actions[bot]"

_SHA = re.compile(r"[0-9a-f]{40}")
_SITE_URL = re.compile(r"^site_url:[ \t]*['\"]?(?P<url>[^'\"\s#]+)", re.MULTILINE)


def _check_preview_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc or any(c in url for c in "()<>[] \n"):
        raise ValueError(f"the preview URL must be a plain https:// URL, got {url!r}")
    return url


def _check_sha(sha: str) -> str:
    if not _SHA.fullmatch(sha):
        raise ValueError(f"the head commit must be 40 lowercase hexadecimal digits, got {sha!r}")
    return sha


def preview_url(site_url: str, number: int) -> str:
    """Where pull request `number`'s preview is published: `pr-N/` under the site's URL."""
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"a pull request number is a positive whole number, got {number!r}")
    return _check_preview_url(f"{site_url.rstrip('/')}/pr-{number}/")


def site_url_of(config: str) -> str:
    """The `site_url` of a mkdocs.yml's text, read without a YAML library; `ValueError` if it has none."""
    found = _SITE_URL.search(config)
    if not found:
        raise ValueError("mkdocs.yml has no site_url: line")
    return found.group("url")


def _cut(diff: str, budget: int) -> str:
    """`diff` whole if it fits in `budget` characters, else its first lines and a note of how many are left out."""
    if len(diff) <= budget:
        return diff
    lines = diff.splitlines()
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    left = len(lines) - len(kept)
    note = f"*… and {left} more lines: the whole report is the `figure-diff` artifact of the preview workflow's run.*"
    return "\n".join([*kept, "", note]) + "\n"


def comment_body(preview_url: str, head_sha: str, figure_diff: str | None, base_branch: str = "main") -> str:
    """The comment for a published preview.

    `figure_diff` is `tools.figure_diff`'s Markdown ("" when no figure changed), or None when
    there is none: the base branch's or the pull request's figures could not be read.
    Raises `ValueError` for a preview URL that is not a plain https URL or a head commit
    that is not a full SHA.
    """
    _check_preview_url(preview_url)
    _check_sha(head_sha)
    if figure_diff is None:
        figures = (
            f"No figure diff this time: the figures of `{base_branch}` or of this pull request could not be read;"
            " the workflow run's log says why."
        )
    elif figure_diff.strip():
        figures = _cut(figure_diff.strip() + "\n", DIFF_BUDGET).rstrip("\n")
    else:
        figures = f"No figure changed: every number a reader sees is as on `{base_branch}`."
    lines = [
        MARKER,
        "### Preview",
        "",
        f"**[Open the preview of this pull request]({preview_url})**, built from {head_sha}.",
        "",
        f"#### Figures, against `{base_branch}`",
        "",
        figures,
        "",
        "<sub>This comment is updated on every push. The preview lives under its own path, so progress saved"
        " there is kept apart from the course's; it is removed when the pull request closes.</sub>",
    ]
    return "\n".join(lines) + "\n"


def removed_body() -> str:
    """The comment once the pull request has closed and its preview is gone."""
    return f"{MARKER}\n### Preview\n\nThis pull request is closed, and its preview has been removed.\n"


def find_comment(comments: object, author: str = BOT) -> int | None:
    """The id of the first comment by `author` whose body starts with the marker, or None.

    `comments` is the API's list of issue comments, or a list of such lists (one per page).
    Comments by anyone else are never chosen, even if they carry the marker.
    """
    if not isinstance(comments, list):
        raise ValueError(f"expected a JSON list of comments, got {type(comments).__name__}")
    flat = [c for page in comments for c in page] if comments and isinstance(comments[0], list) else comments
    for comment in flat:
        if not isinstance(comment, dict):
            raise ValueError(f"expected a comment object, got {comment!r}")
        user = comment.get("user") or {}
        body = comment.get("body") or ""
        if user.get("login") == author and body.startswith(MARKER) and isinstance(comment.get("id"), int):
            return comment["id"]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Print a comment body, or the id of the comment to edit; see the module's docstring."""
    parser = argparse.ArgumentParser(prog="python -m tools.preview_comment", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    url = commands.add_parser("url", help="where a pull request's preview is published")
    url.add_argument("--number", type=int, required=True)
    url.add_argument("--config", type=Path, default=Path("mkdocs.yml"))
    body = commands.add_parser("body", help="the comment for a published preview")
    body.add_argument("--preview-url", required=True)
    body.add_argument("--head-sha", required=True)
    body.add_argument("--diff", type=Path, help="the figure diff's Markdown; omitted when the base could not be built")
    body.add_argument("--base-branch", default="main")
    commands.add_parser("removed", help="the comment once the preview is removed")
    find = commands.add_parser("find", help="the id of the comment to edit, from a JSON list of comments on stdin")
    find.add_argument("--author", default=BOT)
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "url":
            print(preview_url(site_url_of(arguments.config.read_text(encoding="utf-8")), arguments.number))
        elif arguments.command == "body":
            diff = arguments.diff.read_text(encoding="utf-8") if arguments.diff else None
            sys.stdout.write(comment_body(arguments.preview_url, arguments.head_sha, diff, arguments.base_branch))
        elif arguments.command == "removed":
            sys.stdout.write(removed_body())
        else:
            found = find_comment(json.load(sys.stdin), arguments.author)
            if found is not None:
                print(found)
    except (ValueError, OSError, json.JSONDecodeError) as error:
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
