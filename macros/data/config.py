"""The course's configuration, read once from `mkdocs.yml`.

Where the catalog and the glossary live, which page shows the glossary, and the
repository and site addresses that issue links need: all of it comes from the
MkDocs configuration (`extra.course`, `repo_url`, `site_url`), never from where
this package happens to sit on disk, so that a copy of the course (a test's
broken copy, a fork) reads its own files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .markup import markup_in
from .navigation import nav_problems
from .schema import SchemaError, check_record, optional, read_text, text, web_url


def navigation_problems(config: Mapping[str, Any]) -> list[str]:
    """Each problem of `mkdocs.yml`'s navigation, at its line (`navigation.nav_problems`)."""
    return nav_problems(config.get("nav"), read_text(Path(config["config_file_path"]), "mkdocs.yml"))


class ConfigError(ValueError):
    """`mkdocs.yml` lacks something the course needs; the message names the key and the fix."""


@dataclass(frozen=True)
class CourseConfig:
    """Paths and addresses the course's macros, checks and links work from."""

    #: The folder of mkdocs.yml: the repository's root.
    project_dir: Path
    docs_dir: Path
    #: The catalog's data files.
    catalog_dir: Path
    #: The one file of glossary terms.
    glossary_file: Path
    #: The glossary page's source path, relative to docs_dir.
    glossary_page: str
    repo_url: str
    site_url: str

    def relative(self, path: Path) -> str:
        """`path` as the repository names it, such as `catalog/models.yml`, for messages."""
        try:
            return path.resolve().relative_to(self.project_dir.resolve()).as_posix()
        except ValueError:
            return str(path)


#: What `extra.course` in mkdocs.yml may say, with the defaults of this repository's layout.
_COURSE_FIELDS = {
    "catalog": optional(text, "catalog"),
    "glossary": optional(text, "glossary/terms.yml"),
    "glossary_page": optional(text, "glossary.md"),
}


def course_config(config: Mapping[str, Any]) -> CourseConfig:
    """The course's configuration from a loaded MkDocs configuration (`MkDocsConfig` or any mapping like it).

    Raises:
        ConfigError: `repo_url` or `site_url` is missing or not https, `extra.course` is malformed, or the
            site's name or its description holds what the theme would write as markup. (The navigation's problems
            are told apart, `navigation_problems`, and a page shows it without them meanwhile.)
    """
    project_dir = Path(config["config_file_path"]).resolve().parent
    problems = []
    for key in ("site_name", "site_description"):
        value = config.get(key)
        if isinstance(value, str) and markup_in(value):
            found = ", ".join(map(repr, markup_in(value)))
            problems.append(
                f"mkdocs.yml: {key} holds {found}; the theme writes it unescaped into every page: write it"
                " without <, > or double quotes, and without character references such as &lt;"
            )
    if problems:
        raise ConfigError("\n".join(problems))
    extra = (config.get("extra") or {}).get("course") or {}
    try:
        course = check_record("mkdocs.yml: extra.course", extra, _COURSE_FIELDS, noun="key")
    except SchemaError as error:
        raise ConfigError(str(error)) from None
    addresses = {}
    for key in ("repo_url", "site_url"):
        try:
            addresses[key] = web_url(config.get(key))
        except ValueError as error:
            raise ConfigError(f"mkdocs.yml: {key}: {error}; issue links and page addresses need it") from None
    repo_url, site_url = addresses["repo_url"], addresses["site_url"]
    return CourseConfig(
        project_dir=project_dir,
        docs_dir=Path(config["docs_dir"]).resolve(),
        catalog_dir=project_dir / course["catalog"],
        glossary_file=project_dir / course["glossary"],
        glossary_page=course["glossary_page"],
        repo_url=repo_url.rstrip("/"),
        site_url=site_url if site_url.endswith("/") else site_url + "/",
    )
