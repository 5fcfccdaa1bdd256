"""The glossary: one file of terms, looked up from lessons and listed on one page.

The glossary file (`extra.course.glossary` in mkdocs.yml) holds each term with
its definition, aliases, related terms and the source that defines it. This
module loads and checks it, finds the term an author names, finds which pages
use which terms, and writes the glossary page's Markdown: an A to Z list of
jumps, then every entry with a link that reports a problem with it.

A definition is Markdown for emphasis only. Each is rendered on its own, with
Python-Markdown and no extension, its `<` and `&` shown as written, and what it
renders to may hold paragraphs, emphasis and code and nothing else (no link,
image, heading, list, attribute or line break): a definition is data, so none
becomes markup on the glossary page or in a tooltip, and none can combine with
another (a link's reference in one, its target in the next). Every value from
the file enters the glossary page, and a term's link on any page, as HTML made
here and handed to the page as a figure's element is (`Stash`), so the page's
own Markdown never reads it. It never imports MkDocs.
"""

from __future__ import annotations

import difflib
import html
import re
import string
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import markdown

from .catalog import Source
from .lessons import LessonIndex, relative_link
from .lookalike import as_read
from .markup import link_html, source_html
from .schema import (
    Fields,
    SchemaError,
    check_key,
    check_record,
    field_error,
    list_of,
    load_yaml,
    optional,
    read_text,
    record_error,
    reference,
    slug,
    text,
    unknown,
)
from .scripts import reserved_id
from .typed_figures import find_in_text
from .unrendered import Syntax, unrendered

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
    #: The definition as HTML: its Markdown rendered alone, with emphasis and code only (`definition_html`).
    definition: str
    related: tuple[str, ...]
    #: The definition as plain text, for a tooltip: its Markdown rendered, then its tags dropped.
    tooltip: str
    source: Source | None = None
    where: str | None = None


def name_key(name: str) -> str:
    """A term's or an alias's name as the glossary keys it: as a reader reads it (`lookalike.as_read`: "ZеRO" with a
    Cyrillic е is "ZeRO"), in any case, so that a look-alike letter neither hides a name given twice nor makes a
    second name of one.

    >>> name_key("Z\\u0435RO")
    'zero'
    """
    return as_read(name).casefold()


@dataclass(frozen=True)
class Glossary:
    """Every entry by id, and every name (term or alias, keyed by `name_key`) to its entry."""

    entries: Mapping[str, Entry]
    names: Mapping[str, str]

    def lookup(self, name: Any) -> Entry:
        """The entry that `name` (a term or an alias, in any case) names.

        Raises:
            GlossaryError: no entry has that name; the message lists the nearest.
        """
        entry_id = self.names.get(name_key(name)) if isinstance(name, str) else None
        if entry_id is None:
            close = difflib.get_close_matches(name_key(str(name)), list(self.names), n=3, cutoff=0.6)
            hint = f" Nearest: {', '.join(close)}." if close else ""
            raise GlossaryError(f"unknown term {name!r}.{hint} Add it to the glossary file, or use a known term.")
        return self.entries[entry_id]


#: Syntax a page reads (its extensions, mkdocs.yml's) that a definition, rendered without them, shows as typed,
#: besides what no page reads (`unrendered`): a tooltip and the glossary page would show it raw.
_DEFINITION_SYNTAX: tuple[Syntax, ...] = (
    (re.compile(r"\^\^[^^\s][^^]*\^\^"), "an insertion", "use *emphasis*"),
    (re.compile(r"\^[^^\s]+\^"), "a superscript", "write it in words, or as ^ in `code`"),
    (re.compile("`"), "a backtick that opens no code", "close the code with a second backtick, or leave it out"),
)
#: The elements a definition may render to, without attributes: words in paragraphs, with emphasis and code.
DEFINITION_ELEMENTS = frozenset({"p", "em", "strong", "code"})


class _Text(HTMLParser):
    """The text of an HTML fragment, entities decoded once, tags dropped; and each element it holds, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.elements: list[tuple[str, list[tuple[str, str | None]]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def _read(fragment: str) -> _Text:
    parser = _Text()
    parser.feed(fragment)
    parser.close()
    return parser


def plain_text(fragment: str) -> str:
    """What a reader reads of an HTML fragment, as one line of plain text (never HTML)."""
    return " ".join("".join(_read(fragment).parts).split())


def definition_html(definition: str, renderer: markdown.Markdown) -> str:
    """A definition's Markdown rendered on its own, by `renderer` (Python-Markdown without extensions), as HTML.

    Its `<` and `&` are escaped first, so HTML and character references show as typed.

    Raises:
        ValueError: it renders to an element other than `DEFINITION_ELEMENTS`, or one with an attribute;
            the message names it.
    """
    rendered: str = renderer.reset().convert(html.escape(definition, quote=False))
    # A reference's target ("[x]: address") renders as nothing here, and would make a link of another
    # definition's "[text][x]" on a page that held both.
    if getattr(renderer, "references", None):
        raise ValueError("holds a link's reference ([name]: address); a definition is words only")
    for tag, attributes in _read(rendered).elements:
        if tag in ("a", "img"):
            raise ValueError("holds a link or an image; a definition is words only")
        if tag not in DEFINITION_ELEMENTS or attributes:
            raise ValueError(
                f"renders as a <{tag}>; a definition is words only, with *emphasis* and `code`:"
                " no heading, list, rule, code block or line break"
            )
    found = unrendered(rendered, also=_DEFINITION_SYNTAX)
    if found:
        raise ValueError(
            f"shows {found[0].text!r} as typed: {found[0].what}, which a definition, rendered alone for *emphasis*"
            f" and `code`, does not read; {found[0].fix}"
        )
    return rendered


#: The fields of an entry a reader reads, and why each holds no figure.
_READ_FIELDS: Mapping[str, str] = {
    "term": "a term names a concept and holds no figure (it shows on the glossary page and in every link to it)",
    "aliases": "an alias names a concept and holds no figure (it is shown where a lesson links it)",
    "definition": "a definition holds no figure (it shows as a tooltip, where none can be computed)",
    "where": "where a source says it holds no figure (it shows on the glossary page, where none can be computed)",
}


#: A heading line of Markdown (ATX): its text, then any closing hashes.
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$")
#: An id written in an attribute list, `{#id}` or `{: #id }`.
_WRITTEN_ID = re.compile(r"\{:?[^{}\n]*?(?<![\w-])#([\w-]+)[^{}\n]*\}")


def page_ids(source: str) -> set[str]:
    r"""The ids a page's own Markdown gives its elements: each heading's (the one its attribute list writes, or else
    the toc extension's slug of its text) and every id an attribute list writes.

    >>> sorted(page_ids("# Glossary\n\nSome text.\n{: #kept }\n\n## Other terms {#other}\n"))
    ['glossary', 'kept', 'other']
    """
    from markdown.extensions.toc import slugify

    ids = set(_WRITTEN_ID.findall(source))
    for line in source.splitlines():
        heading = _HEADING.match(line)
        if heading and not _WRITTEN_ID.search(heading.group(1)):
            ids.add(slugify(re.sub(r"<[^>]*>", "", heading.group(1)), "-"))
    return ids


def _entry_id(value: Any) -> str:
    """An entry's id, which is also its anchor on the glossary page (`schema.slug`), told at its key's line by
    `check_key`: the page's check of its ids would find one the site's scripts look up too, but at the page that
    shows the entry, without a line."""
    try:
        entry_id = slug(value)
    except ValueError as error:
        raise ValueError(f"the id {error}") from None
    if reserved_id(entry_id):
        raise ValueError(
            f"the id {entry_id!r} is one the theme's or the course's scripts look up, and the glossary page gives"
            " it to the entry's heading, where they would find it instead of their own element: give the entry"
            " another id"
        )
    return entry_id


def load_glossary(
    path: Path, sources: Mapping[str, Source], name: str | None = None, taken: Collection[str] = ()
) -> Glossary:
    """Read and check the glossary file; `name` is how messages call it (its path in the repository); `taken`, the
    ids the glossary page's own Markdown gives (`page_ids`), which no entry's anchor may repeat.

    Raises:
        GlossaryError: a malformed entry, a typed figure in a definition, a name used
            twice, a related term that does not exist, or an id the glossary page's headings take.
    """
    name = name or path.name
    try:
        raw = load_yaml(read_text(path, name), name)
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
            check_key(name, raw, entry_id, _entry_id)
            clean = check_record(where, data, fields)
        except SchemaError as error:
            raise GlossaryError(str(error)) from None
        if entry_id in taken:
            # The entry's anchor comes first in no page order: the toc extension renames the page's own heading
            # (glossary_1), and its table of contents' link jumps to the entry.
            message = (
                f"the id {entry_id!r} is the glossary page's heading's own (or an id that page writes), and the"
                " page would hold two: give the entry another id"
            )
            raise GlossaryError(str(record_error(where, data, message)))
        if (clean["source"] is None) != (clean["where"] is None):
            raise GlossaryError(str(record_error(where, data, "give `source` and `where` together, or neither")))
        # Every field a reader reads is checked here, at its own line: the glossary page shows a term, its aliases
        # and where its source says it, and a figure typed in one was otherwise found only on that page, at the line
        # of the macro call that writes it, not where it was typed.
        for field, said in _READ_FIELDS.items():
            value = clean[field]
            typed = [
                found for text in ([value] if isinstance(value, str) else value or []) for found in find_in_text(text)
            ]
            if typed:
                message = f"types {', '.join(map(repr, typed))}; {said}: say it in words"
                raise GlossaryError(str(field_error(where, data, field, message)))
        # The file's header says no name appears twice, case-insensitively (`name_key`, as a lesson's name is
        # looked up): a repeat was shown twice, and one in another case names nothing the first does not.
        seen: dict[str, str] = {}
        for alias in (clean["term"], *clean["aliases"]):
            if name_key(alias) in seen:
                message = f"the name {alias!r} is given twice (as {seen[name_key(alias)]!r}); keep one"
                raise GlossaryError(str(field_error(where, data, "aliases", message)))
            seen[name_key(alias)] = alias
        for index, related in enumerate(clean["related"]):
            if related == entry_id:
                message = f"{related!r} is this entry itself; list other entries only"
                raise GlossaryError(str(field_error(where, data, "related", message)))
            if related in clean["related"][:index]:
                message = f"{related!r} is given twice; keep one"
                raise GlossaryError(str(field_error(where, data, "related", message)))
        try:
            definition = definition_html(clean["definition"], renderer)
        except ValueError as error:
            raise GlossaryError(str(field_error(where, data, "definition", str(error)))) from None
        entries[entry_id] = Entry(
            id=entry_id,
            term=clean["term"],
            aliases=clean["aliases"],
            definition=definition,
            related=clean["related"],
            tooltip=plain_text(definition),
            source=sources[clean["source"]] if clean["source"] else None,
            where=clean["where"],
        )
    names: dict[str, str] = {}
    for entry in entries.values():
        for term_name in (entry.term, *entry.aliases):
            key = name_key(term_name)
            if key in names and names[key] != entry.id:
                field = "term" if term_name == entry.term else "aliases"
                message = f"the name {term_name!r} is also {names[key]}'s"
                raise GlossaryError(str(field_error(f"{name}: {entry.id}", raw[entry.id], field, message)))
            names[key] = entry.id
        for related in entry.related:
            if related not in entries:
                message = unknown("entry", related, list(entries))
                raise GlossaryError(str(field_error(f"{name}: {entry.id}", raw[entry.id], "related", message)))
    return Glossary(entries=entries, names=names)


def usages(docs_dir: Path, glossary: Glossary) -> dict[str, list[str]]:
    """For each entry id, the pages (source paths, sorted) that name it with the `term` macro.

    Raises:
        GlossaryError: a page cannot be read, or is not UTF-8 (`schema.read_text`).
    """
    used: dict[str, set[str]] = {entry_id: set() for entry_id in glossary.entries}
    for path in sorted(docs_dir.rglob("*.md")):
        src_path = path.relative_to(docs_dir).as_posix()
        try:
            source = read_text(path, f"{docs_dir.name}/{src_path}")
        except SchemaError as error:
            raise GlossaryError(str(error)) from None
        for _, term_name in TERM_CALL.findall(source):
            entry_id = glossary.names.get(name_key(term_name))
            if entry_id:
                used[entry_id].add(src_path)
    return {entry_id: sorted(pages) for entry_id, pages in used.items()}


def term_link(entry: Entry, shown_as: str, glossary_address: str) -> str:
    """A link, as HTML, to the entry's anchor on the glossary page (at `glossary_address`, as the linking page
    reaches it), its definition as title."""
    return link_html(shown_as, f"{glossary_address}#{entry.id}", title=entry.tooltip, **{"class": "sbn-term"})


#: What an entry's report link is, given the entry: an address, or None where the page has none.
ReportUrl = Callable[[Entry], "str | None"]
#: How a page takes a piece of HTML made from data: it returns what stands for it in the page's Markdown,
#: which Markdown puts back as it is (the build's token for it), never reading it as Markdown.
Stash = Callable[[str], str]


def _as_is(fragment: str) -> str:
    return fragment


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
    glossary: Glossary,
    used: Mapping[str, list[str]],
    lessons: LessonIndex,
    page: str,
    report: ReportUrl | None = None,
    stash: Stash = _as_is,
) -> str:
    """The glossary page: an A to Z jump list, then every entry alphabetically, with its aliases, related terms,
    source, users and report link.

    The page's structure is Markdown (headings with their anchors, links to the pages that use a term, which
    MkDocs checks); everything from the glossary file and the catalog is HTML, handed to `stash`.
    """
    titles = {"index.md": "Home"} | {lesson.src_path: f"Lesson {lesson.number}" for lesson in lessons.lessons.values()}
    entries = sorted(glossary.entries.values(), key=lambda e: e.term.casefold())
    parts = [stash(jump_list(entries))]
    for entry in entries:
        lines = [f"## {stash(html.escape(entry.term, quote=False))} {{#{entry.id}}}", ""]
        if entry.aliases:
            lines += [f"*Also written:* {stash(html.escape(', '.join(entry.aliases), quote=False))}", ""]
        lines += [stash(entry.definition), ""]
        if entry.related:
            links = ", ".join(link_html(glossary.entries[r].term, f"#{r}") for r in entry.related)
            lines.append(f"*Related:* {stash(links)}  ")
        if entry.source is not None and entry.where is not None:
            citation = f"{source_html(entry.source)}, {html.escape(entry.where, quote=False)}"
            lines.append(f"*Source:* {stash(citation)}  ")
        pages = used.get(entry.id, [])
        if pages:
            links = ", ".join(f"[{titles.get(p, p)}]({relative_link(page, p)})" for p in pages)
            lines.append(f"*Used in:* {links}  ")
        url = report(entry) if report else None
        if url:
            report_link = link_html("Report a problem with this entry", url, **{"class": "sbn-glossary-report"})
            lines.append(stash(report_link))
        parts.append("\n".join(lines).rstrip())
    return "\n\n".join(parts)
