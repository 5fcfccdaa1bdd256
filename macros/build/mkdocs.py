"""The course under MkDocs: mkdocs-macros' hooks, the only code that knows MkDocs.

mkdocs-macros imports the package (`module_name: macros`) and calls `define_env`
once per build: it makes the build's state (`state.Build`) from MkDocs'
configuration, registers the page macros (`macros.course_macros`) and adds the
course's Markdown extension (`markdown.course_extensions`) to MkDocs' own, as
mkdocstrings does, so that it knows the build. Before each page's Markdown is
converted (`on_pre_page_macros`) the build gets the page and renders its macro
calls itself (mkdocs.yml sets `render_by_default: false`, so mkdocs-macros runs
no Jinja over the pages); after the last page, `on_post_build` finishes the site.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from mkdocs.exceptions import PluginError

from ..data import navigation
from .compiled_templates import CompiledTemplates, cache_root
from .macros import course_macros
from .markdown import course_extensions
from .reloading import reimport_if_changed, source_stamps
from .state import Build, BuildError, PageSource

if TYPE_CHECKING:
    import jinja2
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page
    from mkdocs_macros.plugin import MacrosPlugin

# mkdocs-macros logs its configuration (a hundred macro names) at INFO on every build, and `mkdocs serve`
# rebuilds on every save: an author's own errors drowned in it. Its warnings and errors still show, and so
# do the course's own: its logger is not under mkdocs_macros'.
logging.getLogger("mkdocs.plugins.mkdocs_macros").setLevel(logging.WARNING)

#: The package mkdocs-macros imports (`module_name: macros`), and its folder.
_PACKAGE = __name__.partition(".")[0]
_PACKAGE_DIR = Path(__file__).parents[1]
_STAMPS = source_stamps(_PACKAGE_DIR)
#: Each build's state, by the mkdocs-macros environment it belongs to.
_BUILDS: WeakKeyDictionary[MacrosPlugin, Build] = WeakKeyDictionary()


def define_env(env: MacrosPlugin) -> None:
    """Make one build's state, register the course's macros on its environment and add its Markdown extension."""
    fresh = reimport_if_changed(_PACKAGE, _PACKAGE_DIR, _STAMPS)
    if fresh is not None:  # `mkdocs serve` after an edit under macros/
        fresh.define_env(env)
        return

    def url_of(src_path: str) -> str:
        return str(env.variables["files"].get_file_from_path(src_path).url)

    try:
        build = Build(env.conf, url_of)
    except BuildError as error:
        raise PluginError(str(error)) from None
    _BUILDS[env] = build
    if build.nav_problems:  # told already; the pages meanwhile show the navigation without them
        env.conf["nav"] = navigation.cleaned(env.conf["nav"])
    build.macros = course_macros(build)
    for name, macro in build.macros.items():
        env.macro(macro, name)
    env.conf["markdown_extensions"].extend(course_extensions(build))
    # The theme's templates compiled once, not at every build: MkDocs' `env` event hands over the
    # theme's Jinja environment before any template is loaded. (Registered here, not by a plugin of
    # ours, MkDocs' debug log names its plugin '<unknown>'.)
    env.conf.plugins.events["env"].append(_keep_compiled_templates(build))
    # A lesson's reading time, from its HTML once converted, under its title and in the home page's syllabus.
    env.conf.plugins.events["page_content"].append(_count_reading(build))
    env.conf.plugins.events["post_page"].append(_fill_page(build))


def on_pre_page_macros(env: MacrosPlugin) -> None:
    """Hand the build the page, then render its macro calls, before its Markdown is converted."""
    build = _build_of(env)
    page = env.page
    markdown = build.start_page(
        PageSource(
            src_path=page.file.src_path,
            url=page.url,
            title=str(page.meta.get("title") or page.title or page.file.src_path),
            meta=page.meta,
            source=page.file.content_string,
            markdown=env.markdown,
        )
    )
    env.markdown = build.render(markdown)


def on_post_build(env: MacrosPlugin) -> None:
    """Finish the site: question ids checked, figures.json written, our assets stripped, search pages apart."""
    _build_of(env).finish(Path(env.conf["site_dir"]))


def _keep_compiled_templates(build: Build) -> Callable[..., jinja2.Environment]:
    """MkDocs' `env` event handler that keeps `build`'s compiled templates."""

    def keep(jinja_env: jinja2.Environment, /, *, config: MkDocsConfig, files: Files) -> jinja2.Environment:
        """Give the theme's environment a bytecode cache (`build.compiled_templates`) in the user's cache folder."""
        root = cache_root(build.config.project_dir)
        cache = CompiledTemplates.for_environment(jinja_env, root) if root is not None else None
        if cache is not None:
            jinja_env.bytecode_cache = cache
        return jinja_env

    return keep


def _count_reading(build: Build) -> Callable[..., str]:
    """MkDocs' `page_content` event handler: the build counts a converted lesson's words and heads it."""

    def count(html: str, /, *, page: Page, config: MkDocsConfig, files: Files) -> str:
        return build.count_reading(page.file.src_path, page.url, html)

    return count


def _fill_page(build: Build) -> Callable[..., str]:
    """MkDocs' `post_page` event handler: the build fills in what a page could show only once all were converted."""

    def fill(output: str, /, *, page: Page, config: MkDocsConfig) -> str:
        return build.fill_page(page.file.src_path, page.url, output)

    return fill


def _build_of(env: MacrosPlugin) -> Build:
    """The build of `env`, as the newest import of this package keeps it.

    After `mkdocs serve` imported the package anew, mkdocs-macros still calls the
    hooks of the first import; the build is the new import's.
    """
    builds: WeakKeyDictionary[MacrosPlugin, Build] = sys.modules[__name__]._BUILDS
    return builds[env]
