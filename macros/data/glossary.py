"""The glossary: one file of terms, looked up from lessons and listed on one page.

The glossary file (`extra.course.glossary` in mkdocs.yml) holds each term with
its definition, aliases, related terms and the source that defines it. This
module loads and checks it, finds the term an author names, finds which pages
use which terms, and writes the glossary page's Markdown: an A to Z list of
jumps, then every entry with a link that reports a problem with it. A
definition is Markdown for emphasis only: its `<` and `&` show as written, so
no definition becomes markup on the glossary page or in a tooltip, and a link
or an image in one is refused. It never imports MkDocs.
"""

from __future__ import annotations

import difflib
import html
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import markdown

from .catalog import Source
from .lessons import LessonIndex, relative_link
from .markup import link_title, markdown_text, source_citation
from .schema import Fields, SchemaError, check_record, list_of, load_yaml, optional, reference, slug, text, unknown
from .typed_figures import find_in_text

#: How a page names a term: {{ term("all-reduce") }}, in either quotes.
TERM_CALL = re.compile(r"""\bterm\(\s*(["'])(.+?)\1""")


class GlossaryError(ValueError):
    """The glossary file or a use of it is wrong; the message says where and how to fix it."""


@dataclass(frozen=True)
class Entry:
    """One term of the glossary, with its definition as Markdown and as plain text."""

    id: str
    term: str
    aliases: tuple[str, ...]
    #: Markdown whose `<`, `>` and `&` are escaped: emphasis renders, HTML and entities show as typed.
    definition: str
    related: tuple[str, ...]
    #: The definition as plain text, for a tooltip: its Markdown rendered, then its tags dropped.
    tooltip: str
    source: Source | None = None
    where: str | None = None


@dataclass(frozen=True)
class Glossary:
    """Every entry by id, and every name (term or alias, case-folded) to its entry."""

    entries: Mapping[str, Entry]
    names: Mapping[str, str]

    def lookup(self, name: Any) -> Entry:
        """The entry that `name` (a term or an alias, in any case) names.

        Raises:
            GlossaryError: no entry has that name; the message lists the nearest.
        """
        entry_id = self.names.get(name.casefold()) if isinstance(name, str) else None
        if entry_id is None:
            close = difflib.get_close_matches(str(name).casefold(), list(self.names), n=3, cutoff=0.6)
            hint = f" Nearest: {', '.join(close)}." if close else ""
            raise GlossaryError(f"unknown term {name!r}.{hint} Add it to the glossary file, or use a known term.")
        return self.entries[entry_id]


class _Text(HTMLParser):
    """The text of an HTML fragment, entities decoded once, tags dropped."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def plain_text(markdown_source: str, renderer: markdown.Markdown) -> str:
    """What a reader reads of a piece of Markdown, as one line of plain text (never HTML)."""
    parser = _Text()
    parser.feed(renderer.reset().convert(markdown_source))
    parser.close()
    return " ".join("".join(parser.parts).split())


def load_glossary(path: Path, sources: Mapping[str, Source], name: str | None = None) -> Glossary:
    """Read and check the glossary file; `name` is how messages call it (its path in the repository).

    Raises:
        GlossaryError: a malformed entry, a typed figure in a definition, a name used
            twice, or a related term that does not exist.
    """
    name = name or path.name
    try:
        raw = load_yaml(path.read_text(encoding="utf-8"), name)
    except OSError as error:
        raise GlossaryError(f"{name}: cannot be read: {error.strerror}") from None
    except SchemaError as error:
        raise GlossaryError(str(error)) from None
    if not isinstance(raw, dict) or not raw:
        raise GlossaryError(f"{name}: expected a mapping of entries by id")
    fields: Fields = {
        "term": text,
        "aliases": list_of(text),
        "definition": text,
        "related": list_of(text),
        "source": optional(reference(sources, "source")),
        "where": optional(text),
    }
    renderer = markdown.Markdown()
    entries: dict[str, Entry] = {}
    for entry_id, data in raw.items():
        where = f"{name}: {entry_id}"
        try:
            slug(entry_id)
            clean = check_record(where, data, fields)
        except ValueError as error:
            message = str(error) if isinstance(error, SchemaError) else f"{where}: the id {error}"
            raise GlossaryError(message) from None
        if (clean["source"] is None) != (clean["where"] is None):
            raise GlossaryError(f"{where}: give `source` and `where` together, or neither")
        typed = find_in_text(clean["definition"])
        if typed:
            raise GlossaryError(
                f"{where}.definition: types {', '.join(map(repr, typed))}; a definition holds no figure"
                " (it shows as a tooltip, where none can be computed): say it in words"
            )
        definition = html.escape(clean["definition"], quote=False)
        if re.search(r"<(a|img)\b", renderer.reset().convert(definition)):
            raise GlossaryError(f"{where}.definition: holds a link or an image; a definition is words only")
        entries[entry_id] = Entry(
            id=entry_id,
            term=clean["term"],
            aliases=clean["aliases"],
            definition=definition,
            related=clean["related"],
            tooltip=plain_text(definition, renderer),
            source=sources[clean["source"]] if clean["source"] else None,
            where=clean["where"],
        )
    names: dict[str, str] = {}
    for entry in entries.values():
        for term_name in (entry.term, *entry.aliases):
            key = term_name.casefold()
            if key in names and names[key] != entry.id:
                raise GlossaryError(f"{name}: {entry.id}: the name {term_name!r} is also {names[key]}'s")
            names[key] = entry.id
        for related in entry.related:
            if related not in entries:
                raise GlossaryError(f"{name}: {entry.id}.related: {unknown('entry', related, list(entries))}")
    return Glossary(entries=entries, names=names)


def usages(docs_dir: Path, glossary: Glossary) -> dict[str, list[str]]:
    """For each entry id, the pages (source paths, sorted) that name it with the `term` macro."""
    used: dict[str, set[str]] = {entry_id: set() for entry_id in glossary.entries}
    for path in sorted(docs_dir.rglob("*.md")):
        for _, term_name in TERM_CALL.findall(path.read_text(encoding="utf-8")):
            entry_id = glossary.names.get(term_name.casefold())
            if entry_id:
                used[entry_id].add(path.relative_to(docs_dir).as_posix())
    return {entry_id: sorted(pages) for entry_id, pages in used.items()}


def term_link(entry: Entry, shown_as: str, page: str, glossary_page: str) -> str:
    """A Markdown link from `page` to the entry's anchor on the glossary page, its definition as title."""
    target = relative_link(page, glossary_page)
    return f'[{markdown_text(shown_as)}]({target}#{entry.id} "{link_title(entry.tooltip)}"){{ .sbn-term }}'


#: What an entry's report link is, given the entry: an address, or None where the page has none.
ReportUrl = Callable[[Entry], "str | None"]


def jump_list(entries: list[Entry]) -> str:
    """The letters A to Z, each linked to the first entry under it (unlinked where none is), as HTML; a term
    that starts with another character (Ψ) gets its own jump, before A or after Z as it sorts."""
    first: dict[str, str] = {}
    for entry in entries:
        first.setdefault(entry.term[:1].upper(), entry.id)
    others = sorted(set(first) - set(string.ascii_uppercase), key=str.casefold)
    letters = [
        *(c for c in others if c.casefold() < "a"),
        *string.ascii_uppercase,
        *(c for c in others if c.casefold() > "a"),
    ]
    links = [
        f'<a href="#{first[letter]}">{html.escape(letter)}</a>'
        if letter in first
        else f'<span aria-hidden="true">{letter}</span>'
        for letter in letters
    ]
    return f'<nav class="sbn-az" aria-label="Terms from A to Z">{" ".join(links)}</nav>'


def glossary_markdown(
    glossary: Glossary, used: Mapping[str, list[str]], lessons: LessonIndex, page: str, report: ReportUrl | None = None
) -> str:
    """The glossary page: an A to Z jump list, then every entry alphabetically, with its aliases, related terms,
    source, users and report link."""
    titles = {"index.md": "Home"} | {lesson.src_path: f"Lesson {lesson.number}" for lesson in lessons.lessons.values()}
    entries = sorted(glossary.entries.values(), key=lambda e: e.term.casefold())
    parts = [jump_list(entries)]
    for entry in entries:
        lines = [f"## {markdown_text(entry.term)} {{#{entry.id}}}", ""]
        if entry.aliases:
            lines += [f"*Also written:* {markdown_text(', '.join(entry.aliases))}", ""]
        lines += [entry.definition, ""]
        if entry.related:
            links = ", ".join(f"[{markdown_text(glossary.entries[r].term)}](#{r})" for r in entry.related)
            lines.append(f"*Related:* {links}  ")
        if entry.source is not None and entry.where is not None:
            lines.append(f"*Source:* {source_citation(entry.source)}, {markdown_text(entry.where)}  ")
        pages = used.get(entry.id, [])
        if pages:
            links = ", ".join(f"[{titles.get(p, p)}]({relative_link(page, p)})" for p in pages)
            lines.append(f"*Used in:* {links}  ")
        url = report(entry) if report else None
        if url:
            lines.append(f"[Report a problem with this entry](<{url}>){{ .sbn-glossary-report }}")
        parts.append("\n".join(lines).rstrip())
    return "\n\n".join(parts)
