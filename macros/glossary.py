"""The glossary: one file of terms, looked up from lessons and listed on one page.

`glossary/terms.yml` holds each term with its definition, aliases, related
terms and the source that defines it. This module loads and checks it, finds
the term an author names, finds which pages use which terms, and writes the
glossary page's Markdown. It never imports MkDocs.
"""

from __future__ import annotations

import difflib
import html
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import markdown
import yaml

from .catalog import SAFE_LOADER, Source
from .lessons import LessonIndex, relative_link
from .validation import SLUG, key_problem

_FIELDS = ("term", "aliases", "definition", "related", "source", "where")
_REQUIRED = ("term", "aliases", "definition", "related")
#: How a page names a term: {{ term("all-reduce") }}, in either quotes.
TERM_CALL = re.compile(r"""\bterm\(\s*(["'])(.+?)\1""")
_TAG = re.compile(r"<[^>]+>")


class GlossaryError(ValueError):
    """The glossary file or a use of it is wrong; the message says where and how to fix it."""


@dataclass(frozen=True)
class Entry:
    """One term of the glossary."""

    id: str
    term: str
    aliases: tuple[str, ...]
    definition: str
    related: tuple[str, ...]
    source: Source | None = None
    where: str | None = None

    @property
    def tooltip(self) -> str:
        """The definition as plain text, for a link's title: its Markdown rendered, then its tags dropped."""
        text = html.unescape(_TAG.sub("", markdown.markdown(self.definition)))
        return " ".join(text.split())


@dataclass(frozen=True)
class Glossary:
    """Every entry by id, and every name (term or alias, case-folded) to its entry."""

    entries: Mapping[str, Entry]
    names: Mapping[str, str]

    def lookup(self, name: str) -> Entry:
        """The entry that `name` (a term or an alias, in any case) names.

        Raises:
            GlossaryError: no entry has that name; the message lists the nearest.
        """
        entry_id = self.names.get(name.casefold()) if isinstance(name, str) else None
        if entry_id is None:
            close = difflib.get_close_matches(str(name).casefold(), list(self.names), n=3, cutoff=0.6)
            hint = f" Nearest: {', '.join(close)}." if close else ""
            raise GlossaryError(f"unknown term {name!r}.{hint} Add it to glossary/terms.yml, or use a known term.")
        return self.entries[entry_id]


def _check_entry(entry_id: str, data: Any, sources: Mapping[str, Source]) -> Entry:
    where = f"glossary/terms.yml: {entry_id}"
    if not SLUG.match(entry_id):
        raise GlossaryError(f"{where}: ids are lower-case words joined by hyphens, like all-reduce")
    if not isinstance(data, dict):
        raise GlossaryError(f"{where}: expected the fields {', '.join(_REQUIRED)}")
    problem = key_problem(data, _FIELDS, _REQUIRED)
    if problem:
        raise GlossaryError(f"{where}: {problem}")
    for name in ("term", "definition"):
        if not isinstance(data[name], str) or not data[name].strip():
            raise GlossaryError(f"{where}.{name}: expected text")
    if '"' in data["definition"]:
        raise GlossaryError(f"{where}.definition: use “ ” rather than the double quote, which ends a link's title")
    for name in ("aliases", "related"):
        if not isinstance(data[name], list) or not all(isinstance(item, str) for item in data[name]):
            raise GlossaryError(f"{where}.{name}: expected a list of text, like [all-reduces]")
    source = data.get("source")
    if source is not None and source not in sources:
        raise GlossaryError(f"{where}.source: {source!r} is not in macros/catalog/sources.yml")
    if (source is None) != (data.get("where") is None):
        raise GlossaryError(f"{where}: give `source` and `where` together, or neither")
    return Entry(
        id=entry_id,
        term=data["term"],
        aliases=tuple(data["aliases"]),
        definition=data["definition"].strip(),
        related=tuple(data["related"]),
        source=sources[source] if source else None,
        where=data.get("where"),
    )


def load_glossary(path: Path, sources: Mapping[str, Source]) -> Glossary:
    """Read and check the glossary file.

    Raises:
        GlossaryError: a malformed entry, a name used twice, or a related term that does not exist.
    """
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)
    except (OSError, yaml.YAMLError) as error:
        raise GlossaryError(f"glossary/terms.yml: cannot be read: {error}") from error
    if not isinstance(raw, dict) or not raw:
        raise GlossaryError("glossary/terms.yml: expected a mapping of entries by id")
    entries = {entry_id: _check_entry(str(entry_id), data, sources) for entry_id, data in raw.items()}
    names: dict[str, str] = {}
    for entry in entries.values():
        for name in (entry.term, *entry.aliases):
            key = name.casefold()
            if key in names and names[key] != entry.id:
                raise GlossaryError(f"glossary/terms.yml: {entry.id}: the name {name!r} is also {names[key]}'s")
            names[key] = entry.id
        for related in entry.related:
            if related not in entries:
                raise GlossaryError(f"glossary/terms.yml: {entry.id}.related: there is no entry {related!r}")
    return Glossary(entries=entries, names=names)


def usages(docs_dir: Path, glossary: Glossary) -> dict[str, list[str]]:
    """For each entry id, the pages (source paths, sorted) that name it with the `term` macro."""
    used: dict[str, set[str]] = {entry_id: set() for entry_id in glossary.entries}
    for path in sorted(docs_dir.rglob("*.md")):
        for _, name in TERM_CALL.findall(path.read_text(encoding="utf-8")):
            entry_id = glossary.names.get(name.casefold())
            if entry_id:
                used[entry_id].add(path.relative_to(docs_dir).as_posix())
    return {entry_id: sorted(pages) for entry_id, pages in used.items()}


def term_link(entry: Entry, text: str, page: str, glossary_page: str) -> str:
    """A Markdown link from `page` to the entry's anchor on the glossary page, its definition as title."""
    target = relative_link(page, glossary_page)
    return f'[{text}]({target}#{entry.id} "{entry.tooltip}"){{ .sbn-term }}'


def glossary_markdown(glossary: Glossary, used: Mapping[str, list[str]], lessons: LessonIndex, page: str) -> str:
    """The glossary page: every entry alphabetically, with its aliases, related terms, source and users."""
    titles = {"index.md": "Home"} | {lesson.src_path: f"Lesson {lesson.number}" for lesson in lessons.lessons.values()}
    parts = []
    for entry in sorted(glossary.entries.values(), key=lambda e: e.term.casefold()):
        lines = [f"## {entry.term} {{#{entry.id}}}", ""]
        if entry.aliases:
            lines += [f"*Also written:* {', '.join(entry.aliases)}", ""]
        lines += [entry.definition, ""]
        if entry.related:
            links = ", ".join(f"[{glossary.entries[r].term}](#{r})" for r in entry.related)
            lines.append(f"*Related:* {links}  ")
        if entry.source is not None:
            lines.append(f"*Source:* {entry.source.title_markdown}, {entry.source.cite}, {entry.where}  ")
        pages = used.get(entry.id, [])
        if pages:
            links = ", ".join(f"[{titles.get(p, p)}]({relative_link(page, p)})" for p in pages)
            lines.append(f"*Used in:* {links}")
        parts.append("\n".join(lines).rstrip())
    return "\n\n".join(parts)
