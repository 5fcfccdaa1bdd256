"""Zensical, Material for MkDocs' successor, on the course's sources: what it builds, and what it lacks.

Material for MkDocs reaches its end of life on May 5, 2027 (its own banner), and
Zensical, from the same team, reads `mkdocs.yml`. `make zensical` installs it
(`requirements-zensical.txt`) and runs these tests. The course's theme templates
are written for both engines (no Jinja2-only method: Zensical's template engine
has no `str.partition` or `list.append`), and Zensical builds every page. What it
lacks is the page lifecycle the course's engine runs on (`macros/build/mkdocs.py`):
its macros extension imports a module's `define_env` for each page and calls none
of mkdocs-macros' page hooks, and it has no events for a converted page, a written
page or a finished site. So its pages keep the course's macro calls as typed, and
it writes no `figures.json`. The last two tests pass while that is so; when one
fails, Zensical has gained the hook, and the course's host for it can be written.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_course, site_pages

ZENSICAL = Path(sys.executable).with_name("zensical")


def zensical_build(project: Path) -> None:
    """Build the project in `project` with Zensical, into its `site/`, failing with what Zensical said."""
    result = subprocess.run([ZENSICAL, "build"], cwd=project, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def zensical_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course's sources, built by Zensical."""
    copy = copy_course(tmp_path_factory.mktemp("zensical"))
    zensical_build(copy)
    return copy / "site"


def test_zensical_builds_every_page_mkdocs_builds(zensical_site: Path) -> None:
    assert [page for page in site_pages() if not (zensical_site / page).is_file()] == []


def test_the_course_templates_render_under_zensical(zensical_site: Path) -> None:
    """Each page has what `overrides/` adds: the palette check with the palettes of mkdocs.yml, and the
    course's meta tags."""
    for page in site_pages():
        html = (zensical_site / page).read_text(encoding="utf-8")
        assert re.search(r'\("__palette",\[\{.*"scheme": ?"slate"', html), page
        assert '<meta property="og:title"' in html, page


def test_zensical_calls_none_of_a_macros_modules_page_hooks(tmp_path: Path) -> None:
    """A module with mkdocs-macros' three entry points: Zensical calls `define_env`, never the other two."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Probe\n\n{{ probe() }}\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: Probe\nplugins:\n  - macros:\n      module_name: probe\n", encoding="utf-8"
    )
    calls = tmp_path / "calls.txt"
    (tmp_path / "probe.py").write_text(
        "from pathlib import Path\n"
        f"CALLS = Path({str(calls)!r})\n"
        "def note(name):\n"
        "    with CALLS.open('a') as file:\n"
        "        file.write(name + '\\n')\n"
        "def define_env(env):\n"
        "    note('define_env')\n"
        "    env.macro(lambda: 'probed', 'probe')\n"
        "def on_pre_page_macros(env):\n"
        "    note('on_pre_page_macros')\n"
        "def on_post_page_macros(env):\n"
        "    note('on_post_page_macros')\n"
        "def on_post_build(env):\n"
        "    note('on_post_build')\n",
        encoding="utf-8",
    )
    zensical_build(tmp_path)
    assert "probed" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert set(calls.read_text(encoding="utf-8").split()) == {"define_env"}


def test_so_the_course_macro_calls_stay_as_typed_under_zensical(zensical_site: Path) -> None:
    lessons = [page for page in site_pages() if "/lesson-" in page]
    assert lessons
    unrendered = [page for page in lessons if "{{ term(" in (zensical_site / page).read_text(encoding="utf-8")]
    assert unrendered == lessons
    assert not (zensical_site / "figures.json").exists()
