"""Each page's tooltip data, kept apart so that a page loads it only when its reader first opens a tooltip.

A figure's tooltip shows its formula, its inputs' sources and a link to report it (`figures.tooltip`),
more than its title says; Lesson 16's came to 21 KB gzipped of its 83 KB of HTML, sent to every
reader, most of whom open few tooltips or none. The page holds the name of a file beside it instead
(`data-src` on `#sbn-figures`), and course.js fetches it the first time a reader opens a figure's
tooltip on the page: the tooltip shows the figure's title at once, and the rest a moment later.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..data.markup import script_json

#: The name of a page's tooltip data beside it: `tooltips.json` in a page's folder, or after its file's name.
NAME = "tooltips.json"


def tooltip_file(url: str) -> str:
    """Where the tooltip data of the page at `url` (a page's address from the site's root, as a generator
    gives it) goes, from the site's root: in the page's folder, or named after the page's file.

    >>> tooltip_file(""), tooltip_file("stage-1/lesson-01/"), tooltip_file("stage-1/lesson-01.html")
    ('tooltips.json', 'stage-1/lesson-01/tooltips.json', 'stage-1/lesson-01.tooltips.json')
    """
    if url == "" or url.endswith("/"):
        return f"{url}{NAME}"
    return f"{posixpath.splitext(url)[0]}.{NAME}"


def from_page(url: str) -> str:
    """The address of the tooltip data of the page at `url`, from that page (what its `data-src` holds).

    >>> from_page("stage-1/lesson-01/"), from_page("stage-1/lesson-01.html")
    ('tooltips.json', 'lesson-01.tooltips.json')
    """
    return posixpath.basename(tooltip_file(url))


def write_tooltip_data(site_dir: Path, data_by_url: Mapping[str, Mapping[str, Any]]) -> None:
    """Write each page's tooltip data, by the page's address, beside the page in `site_dir`."""
    for url, data in data_by_url.items():
        target = site_dir / tooltip_file(url)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(script_json(data), encoding="utf-8")
