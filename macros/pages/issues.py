"""Links that open a new issue on the course repository, prefilled from the page.

The repository's issue forms (`.github/ISSUE_TEMPLATE/*.yml`) name their fields;
GitHub fills a field from the query parameter of the same id. Those ids are an
interface between the site and the forms, kept in step by a test.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

#: The issue form for each kind of report.
LESSON_FORM = "lesson-unclear.yml"
FIGURE_FORM = "figure-wrong.yml"
QUIZ_FORM = "quiz-answer-wrong.yml"


@dataclass(frozen=True)
class PageContext:
    """What every report from one page says about it."""

    lesson: str
    page_url: str
    source_file: str
    commit: str

    def fields(self) -> dict[str, str]:
        """The issue form fields this context fills, by field id."""
        return {
            "lesson": self.lesson,
            "page-url": self.page_url,
            "source-file": self.source_file,
            "commit": self.commit,
        }


def query(fields: Mapping[str, str]) -> str:
    """Fields as a query string; every value percent-encoded, spaces as %20."""
    return urlencode(fields, quote_via=quote)


def new_issue_url(repo_url: str, form: str, context: PageContext, fields: Mapping[str, str]) -> str:
    """The address of a new issue on `repo_url` with `form`, the page's context and `fields` filled in.

    Titles and URLs with `&`, `#` or `?` in them arrive whole.
    """
    return f"{repo_url.rstrip('/')}/issues/new?{query({'template': form, **context.fields(), **fields})}"


def built_commit(root: Path) -> str:
    """The commit the site is built from: GitHub Actions' GITHUB_SHA, else git's HEAD, else "unknown"."""
    if os.environ.get("GITHUB_SHA"):
        return os.environ["GITHUB_SHA"]
    try:
        result = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return result.stdout.strip() or "unknown"
