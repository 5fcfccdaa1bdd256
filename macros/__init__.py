"""The course's macros for mkdocs-macros (`module_name: macros`).

`define_env` only registers: each macro is a thin adapter (`build.Build`) from
a page to a pure function of `figures`, `course` or `lessons`, none of which
imports MkDocs. The hooks after it check lessons, check question ids and write
figures.json. The quiz blocks are a Markdown extension, `macros.quiz`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from . import course, figures
from .build import Build
from .reloading import reimport_if_changed, source_stamps

if TYPE_CHECKING:
    from mkdocs_macros.plugin import MacrosPlugin

_PACKAGE_DIR = Path(__file__).parent
_STAMPS = source_stamps(_PACKAGE_DIR)


def define_env(env: MacrosPlugin) -> None:
    """Register the course's macros on one build's environment."""
    fresh = reimport_if_changed(__name__, _PACKAGE_DIR, _STAMPS)
    if fresh is not None:  # `mkdocs serve` after an edit under macros/
        return fresh.define_env(env)

    build = Build(env)
    env.course_build = build

    env.macro(build.figure_macro("value", figures.catalog_value), "value")
    env.macro(build.figure_macro("bytes_per_parameter", figures.bytes_per_parameter), "bytes_per_parameter")
    env.macro(build.figure_macro("model_states", figures.model_states), "model_states")
    env.macro(build.figure_macro("one_copy", figures.one_copy), "one_copy")
    env.macro(build.figure_macro("memory_left", figures.memory_left), "memory_left")
    env.macro(build.figure_macro("activations", figures.activations), "activations")
    env.macro(build.figure_macro("allreduce_bytes", figures.allreduce_bytes), "allreduce_bytes")
    env.macro(build.figure_macro("allreduce_seconds", figures.allreduce_seconds), "allreduce_seconds")
    env.macro(build.page_macro(course.mission_markdown), "mission")
    env.macro(build.page_macro(course.syllabus_markdown), "syllabus")
    env.macro(build.source_link, "source")
    env.macro(build.term, "term")
    env.macro(build.glossary_page, "glossary")
    env.macro(build.issue_link, "issue_link")


def on_pre_page_macros(env: MacrosPlugin) -> None:
    """Check a lesson's source before its macros run, and give it its issue links."""
    env.course_build.prepare_page()


def on_post_build(env: MacrosPlugin) -> None:
    """Check that question ids are unique on the site, and write figures.json."""
    site_dir = Path(env.conf["site_dir"])
    env.course_build.check_question_ids(site_dir)
    env.course_build.write_figures(site_dir)
