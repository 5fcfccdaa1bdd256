"""The site's navigation as `mkdocs.yml` writes it: titles the theme writes unescaped on every page, and
where each entry leads.

Material writes a navigation title into every page's HTML as it is (the navigation, the tabs, the browser tab's
title), and an entry's address as a link on every page: a title with markup or an address that runs script
would be in all of them, and a typed figure in a title is one no macro computed. So each title is plain text
without figures, and each address is a page of the docs folder or an https:// page.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .markup import markup_in, without_markup
from .schema import web_url
from .typed_figures import find_in_text


def nav_problems(nav: Any, config_text: str) -> list[str]:
    """Each problem of the navigation `nav` (the loaded `nav:` of `mkdocs.yml`, whose text is `config_text`),
    as `mkdocs.yml:LINE: what, and the fix`.

    >>> nav_problems([{"Go <b>": "x.md"}], "nav:\\n  - Go <b>: x.md\\n")[0].partition(";")[0]
    "mkdocs.yml:2: the navigation title 'Go <b>' holds '<', '>'"
    """
    if nav is None:
        return []
    lines = config_text.splitlines()
    start = next((number for number, line in enumerate(lines) if line.startswith("nav:")), 0)

    def line_of(text: str) -> int:
        # The entry's line: the first line of the nav: block that holds its text as written.
        for number in range(start, len(lines)):
            if text in lines[number]:
                return number + 1
        return start + 1

    problems = []
    for title, target in _entries(nav):
        if title is not None:
            where = f"mkdocs.yml:{line_of(title)}: the navigation title {title!r}"
            if markup_in(title):
                problems.append(f"{where} holds {', '.join(map(repr, markup_in(title)))}; {_TITLES}")
            typed = find_in_text(title)
            if typed:
                problems.append(
                    f"{where} types {', '.join(map(repr, typed))}; a title shows no figure, since it cannot carry a"
                    " computed one: say it in words"
                )
        if isinstance(target, str) and _is_address(target):
            try:
                web_url(target)
            except ValueError as error:
                problems.append(
                    f"mkdocs.yml:{line_of(target)}: the navigation entry {title or target!r} leads to an address the"
                    f" course does not link to ({error}): an entry leads to a page of the docs folder"
                    " (stage-1/lesson-01-….md) or to an https:// page"
                )
    return problems


def cleaned(nav: Any) -> Any:
    """The navigation `nav` as a page may show it while its problems are told (`nav_problems`): each title without
    its markup, and no entry that leads to an address the course does not link to. (A typed figure in a title is
    only words, and stays.)

    >>> cleaned([{"Go <b>": "x.md"}, {"Help": "javascript:x"}, {"Stage": [{"A": "a.md"}, "b.md"]}])
    [{'Go b': 'x.md'}, {'Stage': [{'A': 'a.md'}, 'b.md']}]
    """
    if not isinstance(nav, list):
        return nav
    kept: list[Any] = []
    for item in nav:
        if isinstance(item, dict):
            entry = {}
            for title, target in item.items():
                if isinstance(target, str) and _is_address(target) and not _links_to(target):
                    continue
                entry[without_markup(str(title))] = cleaned(target)
            if entry:
                kept.append(entry)
        elif not (isinstance(item, str) and _is_address(item) and not _links_to(item)):
            kept.append(item)
    return kept


def _links_to(address: str) -> bool:
    """Whether the course links to `address` (`schema.web_url`)."""
    try:
        web_url(address)
    except ValueError:
        return False
    return True


_TITLES = (
    "a navigation title is plain text, which the theme writes unescaped into every page: write it without <, >"
    " or double quotes, and without character references such as &lt;"
)


def _is_address(target: str) -> bool:
    """Whether `target` is an address rather than a page's path: it has a scheme, or names a host."""
    scheme, colon, _ = target.partition(":")
    return target.startswith("//") or bool(colon and scheme and "/" not in scheme and "." not in scheme)


def _entries(nav: Any) -> Iterator[tuple[str | None, Any]]:
    """Every (title, target) of the navigation, children included; a bare path has no title."""
    items = nav if isinstance(nav, list) else [nav]
    for item in items:
        if isinstance(item, dict):
            for title, target in item.items():
                yield str(title), target
                if isinstance(target, list):
                    yield from _entries(target)
        else:
            yield None, item
