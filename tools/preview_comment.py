"""The one pull-request comment that the preview workflows post and keep up to date.

`.github/workflows/preview.yml` (after CI) and `preview-label.yml` (after a maintainer's
label) post this comment: the preview's link, or why there is none, the commit it was built
from, and the figure diff (`tools.figure_diff`) against the base branch. On each new push
they edit the same comment rather than adding one: it is found by a hidden marker, among the
comments of the workflows' own bot account only, since anyone can write the marker. When the
pull request closes, or a fork's preview is withdrawn, `preview-cleanup.yml` replaces the
text with a note that the preview is gone.

Commands, for the workflows (each prints to standard output):

    python -m tools.preview_comment url --number N --repository OWNER/NAME [--site-url URL] [--config mkdocs.yml]
    python -m tools.preview_comment body --head-sha SHA --status STATUS --run-url URL [--preview-url URL]
        [--diff FILE]
    python -m tools.preview_comment removed (closed | withdrawn)
    python -m tools.preview_comment find --author LOGIN < comments.json

`url` prints where pull request N's preview is published: `pr-N/` under the Pages site of
the previews repository (`https://OWNER.github.io/NAME/`, or `--site-url` for a custom
domain); it refuses an address on the origin of the course's own `site_url` (mkdocs.yml),
where a preview's JavaScript would run beside readers' progress, and any host but a plain
domain name, which a browser may read as another origin than urlsplit does. `find` reads a JSON list of
issue comments, or of pages of them (`gh api --paginate --slurp`), and prints the id of the
comment to edit, or nothing. `body`'s STATUS is what `tools.previews stage` printed
(`published`, `unchanged`, `too-large` or `full`), or `fork` for a fork's pull request that
no maintainer has labelled; `published` and `unchanged` need the preview's URL.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import TypeGuard
from urllib.parse import urlsplit

from tools.bounded_json import load, quoted
from tools.preview_trust import LABEL, check_repository, check_sha, items
from tools.previews import MAX_BYTES, MAX_FILES, MAX_TOTAL_BYTES, MAX_TOTAL_FILES, folder

#: The hidden first line that marks the comment as this workflow's.
MARKER = "<!-- sbn-preview -->"
#: GitHub rejects a comment body longer than this many characters.
GITHUB_COMMENT_LIMIT = 65_536
#: The figure diff is cut to this many characters, leaving room for the rest of the comment.
DIFF_BUDGET = 60_000
#: The account that GITHUB_TOKEN posts as.
BOT = "github-actions[bot]"
#: Why a pull request has no preview, for its comment; `{run}` is the workflow run that built it.
NO_PREVIEW: Mapping[str, str] = MappingProxyType(
    {
        "fork": (
            "**No preview yet: this pull request comes from a fork.** A fork's HTML is published only after a"
            f" maintainer has read the change and applies the `{LABEL}` label; the label covers the commit it was"
            " applied at, and each new push needs it again. Meanwhile, the built site is the `site` artifact of"
            " [the CI run]({run}): download it, unpack it and open its `index.html`."
        ),
        "too-large": (
            f"**No preview: this build is larger than {MAX_BYTES // 10**6} MB, or has more than {MAX_FILES:,}"
            " files and folders.** The built site is the `site` artifact of [the workflow run]({run})."
        ),
        "full": (
            f"**No preview: the open pull requests' previews already fill the {MAX_TOTAL_BYTES // 10**6} MB (or"
            f" the {MAX_TOTAL_FILES:,} files) that previews may take.** Push again once some have closed; the built"
            " site is the `site` artifact of [the workflow run]({run})."
        ),
    }
)
#: The statuses of `tools.previews stage` for which the preview is there to link.
PUBLISHED = ("published", "unchanged")
#: What the comment says once the preview is gone.
REMOVED: Mapping[str, str] = MappingProxyType(
    {
        "closed": "This pull request is closed, and it has no preview any more.",
        "withdrawn": (
            f"The preview has been withdrawn: the `{LABEL}` label was removed, or a new commit was pushed after it was"
            " applied. A maintainer publishes the current commit by applying the label again."
        ),
    }
)

#: A site URL's authority as every reader of it agrees on it: a domain name in ASCII letters, digits and hyphens,
#: its last label starting with a letter (a browser reads `0x7f.1` as an IPv4 address), and an optional port. A
#: browser rewrites any other host before it compares origins (decoding `%2E`, mapping `ｓ` to `s` and `。` to
#: `.`, reading a backslash as `/`), where urlsplit keeps it as typed or reads a user name before an `@`.
_PLAIN_AUTHORITY = re.compile(r"(?:[A-Za-z0-9-]+\.)*[A-Za-z][A-Za-z0-9-]*(?::[0-9]+)?")
#: The `site_url` key at a line's start, as YAML may write it: quoted or not, with spaces before its colon.
_SITE_URL_KEY = re.compile(r"""^(["']?)site_url\1[ \t]*:""", re.MULTILINE)
_SITE_URL = re.compile(r"^site_url:[ \t]*['\"]?(?P<url>[^'\"\s#]+)", re.MULTILINE)


def _check_url(url: str, what: str = "the preview URL") -> str:
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc or any(c in url for c in "()<>[] \n"):
        raise ValueError(f"{what} must be a plain https:// URL, got {url!r}")
    return url


def origin(url: str) -> str:
    """The origin of an https URL, `https://host[:port]`, in lower case: what a browser isolates storage by.

    Raises `ValueError` for a host that is not a plain domain name, whose origin a browser
    would derive otherwise than urlsplit does (`_PLAIN_AUTHORITY`).
    """
    parts = urlsplit(_check_url(url, "a site URL"))
    if not _PLAIN_AUTHORITY.fullmatch(parts.netloc):
        raise ValueError(
            f"a site URL's host must be a plain domain name (ASCII letters, digits, hyphens and dots, then an optional"
            f" :port), got {parts.netloc!r} in {url!r}: a browser reads %-escapes, non-ASCII letters or dots, a"
            " backslash or a user name as another host than it seems"
        )
    port = f":{parts.port}" if parts.port not in (None, 443) else ""
    return f"https://{parts.hostname}{port}"


def pages_url(repository: str) -> str:
    """The address of a repository's GitHub Pages site without a custom domain.

    `OWNER/OWNER.github.io` is served at `https://owner.github.io/`; any other `OWNER/NAME`
    at `https://owner.github.io/NAME/`. Raises `ValueError` for anything but `OWNER/NAME`.
    """
    owner, name = check_repository(repository).split("/")
    host = f"{owner.lower()}.github.io"
    return f"https://{host}/" if name.lower() == host else f"https://{host}/{name}/"


def previews_site_url(repository: str, site_url: str, course_site_url: str) -> str:
    """The previews' site: `site_url` if given (a custom domain), else the previews repository's Pages.

    Raises `ValueError` when it shares its origin with `course_site_url`: a preview's
    JavaScript would then run where readers keep their progress. All the Pages sites of one
    owner share `https://owner.github.io`, so the previews repository needs another owner.
    """
    site = _check_url(site_url, "the previews' site URL") if site_url else pages_url(repository)
    if origin(site) == origin(course_site_url):
        raise ValueError(
            f"previews at {site} would share the course's origin {origin(course_site_url)}: give them a repository"
            " under another owner, or a domain of their own (CONTRIBUTING.md, Repository settings)"
        )
    return site


def preview_url(site_url: str, number: int) -> str:
    """Where pull request `number`'s preview is published: `pr-N/` under the site's URL."""
    return _check_url(f"{site_url.rstrip('/')}/{folder(number)}/")


def site_url_of(config: str) -> str:
    """The `site_url` of a mkdocs.yml's text, read without a YAML library; `ValueError` if it has none, or gives the
    key on more than one line (a YAML reader keeps the last, this one found the first: the origin check passed a
    mkdocs.yml whose build took another site_url)."""
    keys = _SITE_URL_KEY.findall(config)
    if len(keys) > 1:
        raise ValueError(f"mkdocs.yml gives site_url on {len(keys)} lines: keep one, as `site_url: https://…`")
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


def comment_body(
    head_sha: str,
    figure_diff: str | None,
    preview_url: str | None = None,
    no_preview: str | None = None,
    run_url: str | None = None,
    base_branch: str = "main",
) -> str:
    """The comment for a pull request's build: its preview's link, or why it has none, and its figure diff.

    Exactly one of `preview_url` and `no_preview` (a key of `NO_PREVIEW`, which then needs
    `run_url`, the workflow run whose artifact holds the built site) is given. `figure_diff` is
    `tools.figure_diff`'s Markdown ("" when no figure changed), or None when there is none:
    the base branch's or the pull request's figures could not be read. Raises `ValueError`
    for a URL that is not a plain https URL, a head commit that is not a full SHA, or an
    unknown reason.
    """
    check_sha(head_sha)
    if (preview_url is None) == (no_preview is None):
        raise ValueError("a comment has either a preview URL or a reason for having no preview")
    if preview_url is not None:
        preview = [
            f"**[Open the preview of this pull request]({_check_url(preview_url)})**, built from {head_sha}.",
            "",
            f"<sub>The preview is served from {origin(preview_url)}, an origin of its own, never from the course's:"
            " what runs there cannot reach what readers keep on the course. It is updated on every push"
            " and removed when the pull request closes.</sub>",
        ]
    elif no_preview is not None and no_preview in NO_PREVIEW:
        run = _check_url(run_url or "", "the workflow run's URL")
        preview = [NO_PREVIEW[no_preview].format(run=run), "", f"Built from {head_sha}."]
    else:
        raise ValueError(f"no_preview must be one of {', '.join(NO_PREVIEW)}, got {no_preview!r}")
    if figure_diff is None:
        figures = (
            f"No figure diff this time: the figures of `{base_branch}` or of this pull request could not be read;"
            " the workflow run's log says why."
        )
    elif figure_diff.strip():
        figures = _cut(figure_diff.strip() + "\n", DIFF_BUDGET).rstrip("\n")
    else:
        figures = f"No figure changed: every number a reader sees is as on `{base_branch}`."
    lines = [MARKER, "### Preview", "", *preview, "", f"#### Figures, against `{base_branch}`", "", figures]
    return "\n".join(lines) + "\n"


def removed_body(why: str = "closed") -> str:
    """The comment once the preview is gone: `why` is "closed" or "withdrawn" (a fork's label removed)."""
    if why not in REMOVED:
        raise ValueError(f"why must be one of {', '.join(REMOVED)}, got {why!r}")
    return f"{MARKER}\n### Preview\n\n{REMOVED[why]}\n"


def find_comment(comments: object, author: str = BOT) -> int | None:
    """The id of the first comment by `author` whose body starts with the marker, or None.

    `comments` is the API's list of issue comments, or a list of such lists (one per page).
    Comments by anyone else are never chosen, even if they carry the marker.
    """
    for comment in items(comments):
        if not isinstance(comment, dict):
            raise ValueError(f"expected a comment object, got {quoted(comment)}")
        user, body, comment_id = comment.get("user"), comment.get("body"), comment.get("id")
        # The API's comment, as it writes one: anything else (a user that is a string, a body that is a list, an id
        # that is true or negative) is no comment of ours, whoever wrote it.
        ours = isinstance(user, dict) and user.get("login") == author
        if ours and isinstance(body, str) and body.startswith(MARKER) and _is_id(comment_id):
            return comment_id
    return None


def _is_id(value: object) -> TypeGuard[int]:
    """Whether `value` is an id as the API writes one: a positive whole number (`True` is an int to Python)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63  # GitHub's ids: 64-bit


def main(argv: Sequence[str] | None = None) -> int:
    """Print a comment body, or the id of the comment to edit; see the module's docstring."""
    parser = argparse.ArgumentParser(prog="python -m tools.preview_comment", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    url = commands.add_parser("url", help="where a pull request's preview is published")
    url.add_argument("--number", type=int, required=True)
    url.add_argument("--repository", required=True, help="the previews repository, OWNER/NAME")
    url.add_argument("--site-url", default="", help="the previews' own domain, if not the repository's Pages")
    url.add_argument("--config", type=Path, default=Path("mkdocs.yml"), help="the course's mkdocs.yml")
    body = commands.add_parser("body", help="the comment for a pull request's build")
    body.add_argument("--head-sha", required=True)
    body.add_argument("--status", required=True, choices=[*PUBLISHED, *NO_PREVIEW])
    body.add_argument("--preview-url", help="where the preview is published (with a published status)")
    body.add_argument("--run-url", required=True, help="the workflow run whose artifact holds the built site")
    body.add_argument("--diff", type=Path, help="the figure diff's Markdown; omitted when the base could not be built")
    body.add_argument("--base-branch", default="main")
    removed = commands.add_parser("removed", help="the comment once the preview is gone")
    removed.add_argument("why", choices=sorted(REMOVED))
    find = commands.add_parser("find", help="the id of the comment to edit, from a JSON list of comments on stdin")
    find.add_argument("--author", default=BOT)
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "url":
            course = site_url_of(arguments.config.read_text(encoding="utf-8"))
            site = previews_site_url(arguments.repository, arguments.site_url, course)
            print(preview_url(site, arguments.number))
        elif arguments.command == "body":
            diff = arguments.diff.read_text(encoding="utf-8") if arguments.diff else None
            published = arguments.status in PUBLISHED
            text = comment_body(
                arguments.head_sha,
                diff,
                preview_url=arguments.preview_url if published else None,
                no_preview=None if published else arguments.status,
                run_url=arguments.run_url,
                base_branch=arguments.base_branch,
            )
            sys.stdout.write(text)
        elif arguments.command == "removed":
            sys.stdout.write(removed_body(arguments.why))
        else:
            found = find_comment(load(None), arguments.author)
            if found is not None:
                print(found)
    except (ValueError, OSError) as error:  # bounded_json.Unreadable is a ValueError
        parser.error(str(error))
    return 0


if __name__ == "__main__":
    sys.exit(main())
