"""What a figure's tooltip says, as built into each page: words for readers, never the build's own ids.

A figure's id is its kind and its arguments (`layout/gpt3-ptd/zero3/states`); the arguments are
catalog ids and the kinds' choices, names for authors. The formula and the words a kind writes
name the things they count as readers know them ("ZeRO-3"), so an id among them ("ZeRO-3
(zero3)") is a slip. An id is a word the page's own text never uses ("fp32" is one it does).
The sources' `where` notes are the catalog's prose, and not checked here.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.checks import Tooltip, lesson_body, tooltip_data
from tests.conftest import catalog, soup

#: An address in a tooltip, where an id may stand as it is (a model card's path, say).
_URL = re.compile(r"https?://\S+")


def _tooltips(site_dir: Path, page: str) -> dict[str, Tooltip]:
    data = tooltip_data(site_dir, page, soup(site_dir / page))
    tooltips: dict[str, Tooltip] = data["figures"] if data else {}
    return tooltips


def _shown(tooltip: Tooltip) -> str:
    """What the kind wrote for the tooltip: its formula, where it shows one, and its words, addresses left out."""
    return _URL.sub("", f"{tooltip.get('formula', '')} {tooltip['words']}")


def _words(text: str) -> set[str]:
    return set(re.findall(r"[\w.+-]+", text.lower()))


def test_a_tooltip_names_no_id_of_the_build(site_dir: Path, page: str) -> None:
    """No formula or words of a figure holds an argument of its id or a catalog id that the page's text never uses."""
    tooltips = _tooltips(site_dir, page)
    text = _words(lesson_body(soup(site_dir / page)).get_text(" "))
    ids = {entry for entry in catalog().records if entry not in text}
    wrong = []
    for figure_id, tooltip in tooltips.items():
        shown = _shown(tooltip)
        # An argument that looks like an id: with a digit or a hyphen, or a short abbreviation ("ptd").
        arguments = {part for part in figure_id.split("/")[1:] if re.search(r"[a-z]", part)} - text
        arguments = {part for part in arguments if re.search(r"[\d-]", part) or len(part) <= 3}
        wrong += [f"{figure_id}: {word}" for word in sorted(_words(shown) & (arguments | ids))]
    assert wrong == [], f"{page}: {wrong[:10]}"


def test_the_pages_figures_have_tooltips(site_dir: Path, page: str) -> None:
    shown = {figure["data-fig-id"] for figure in lesson_body(soup(site_dir / page)).select("span.fig")}
    assert shown <= set(_tooltips(site_dir, page)), sorted(shown - set(_tooltips(site_dir, page)))[:5]
