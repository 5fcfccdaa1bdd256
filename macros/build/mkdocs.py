"""The course under MkDocs: mkdocs-macros' hooks, the only entry points MkDocs calls.

`define_env` only registers: every figure kind of `macros.figures.kinds` becomes a
macro of its name, and a few page macros follow, each a thin adapter
(`state.Build`) to a pure function of `pages`, `data`, or `pictures`, none of which
imports MkDocs. Pages are rendered by the course itself, call by call
(`build.calls`), in `on_pre_page_macros`: mkdocs.yml sets
`render_by_default: false`, so mkdocs-macros runs no Jinja over the pages.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from ..figures.kinds import KINDS
from ..pages import front_door
from .reloading import reimport_if_changed, source_stamps
from .state import Build

if TYPE_CHECKING:
    from mkdocs_macros.plugin import MacrosPlugin

#: The package mkdocs-macros imports (`module_name: macros`), and its folder.
_PACKAGE = __name__.partition(".")[0]
_PACKAGE_DIR = Path(__file__).parents[1]
_STAMPS = source_stamps(_PACKAGE_DIR)
#: Each build's state, by the mkdocs-macros environment it belongs to.
_BUILDS: WeakKeyDictionary[MacrosPlugin, Build] = WeakKeyDictionary()


def define_env(env: MacrosPlugin) -> None:
    """Register the course's macros on one build's environment."""
    fresh = reimport_if_changed(_PACKAGE, _PACKAGE_DIR, _STAMPS)
    if fresh is not None:  # `mkdocs serve` after an edit under macros/
        fresh.define_env(env)
        return

    build = Build(env)
    _BUILDS[env] = build

    for name, kind in KINDS.items():
        env.macro(build.figure_macro(kind), name)
    env.macro(build.table, "table")
    env.macro(build.schedule_table, "schedule_table")
    env.macro(build.chart, "chart")
    env.macro(build.diagram, "diagram")
    env.macro(build.calculator, "calculator")
    env.macro(build.page_macro(front_door.mission_markdown), "mission")
    env.macro(build.page_macro(front_door.start_here_markdown), "start_here")
    env.macro(build.syllabus, "syllabus")
    env.macro(build.source_link, "source")
    env.macro(build.term, "term")
    env.macro(build.glossary_page, "glossary")
    env.macro(build.issue_link, "issue_link")


def on_pre_page_macros(env: MacrosPlugin) -> None:
    """Check a page, then render its macro calls, before its Markdown is converted."""
    _build_of(env).start_page()


def on_post_build(env: MacrosPlugin) -> None:
    """Finish the site: question ids checked, figures.json written, our assets stripped, search pages apart."""
    _build_of(env).finish(Path(env.conf["site_dir"]))


def _build_of(env: MacrosPlugin) -> Build:
    """The build of `env`, as the newest import of this package keeps it.

    After `mkdocs serve` imported the package anew, mkdocs-macros still calls the
    hooks of the first import; the build is the new import's.
    """
    builds: WeakKeyDictionary[MacrosPlugin, Build] = sys.modules[__name__]._BUILDS
    return builds[env]
