"""The site as a whole: the home page's lists, every link, and nothing loaded from another host."""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from urllib.parse import unquote, urlsplit

import material
import pytest
from mkdocs.config import load_config

from macros.build import compiled_templates
from macros.build.assets import strip_css, strip_js
from macros.build.compiled_templates import CompiledTemplates
from macros.build.search import DOCS, INDEX
from macros.data.config import course_config
from macros.data.lessons import index_lessons
from tests.checks import attribute, heading_text
from tests.conftest import ROOT, build_copy, catalog, course, site_pages, soup
from tools.audit import load_budgets


def test_home_quotes_every_bullet_and_links_the_lessons_that_serve_it(site_dir: Path) -> None:
    bullets = soup(site_dir / "index.html").select("#success-looks-like + ol > li")
    lessons = index_lessons(course().docs_dir)
    assert len(bullets) == len(catalog().mission)
    for number, (item, bullet) in enumerate(zip(bullets, catalog().mission, strict=True), start=1):
        assert " ".join(item.get_text().split()).startswith(bullet)
        serving = [lesson.src_path.removesuffix(".md") + "/" for lesson in lessons.serving(number)]
        assert [a["href"] for a in item.select("a")] == serving


def test_home_syllabus_lists_every_stage_with_what_it_covers_and_its_lessons(site_dir: Path) -> None:
    page = soup(site_dir / "index.html")
    published = index_lessons(course().docs_dir).by_stage()
    # The stages: the level-3 headings of the syllabus's section, up to the next level-2 heading.
    headings = {heading_text(h): h for h in page.select("#syllabus ~ h3:not(#syllabus ~ h2 ~ h3)")}
    assert list(headings) == [f"Stage {stage.number}: {stage.title}" for stage in catalog().stages.values()]
    for stage in catalog().stages.values():
        heading = headings[f"Stage {stage.number}: {stage.title}"]
        summary = heading.find_next_sibling("p")
        assert summary is not None and " ".join(summary.get_text().split()) == stage.summary
        after = heading.find_next_sibling(["ul", "p"])
        listed = after.find_next_sibling(["ul", "p"]) if after else None
        assert listed is not None, heading
        if stage.number in published:
            assert [a.get_text() for a in listed.select("a")] == [lesson.title for lesson in published[stage.number]]
        else:
            assert listed.get_text() == "Being written."


@cache
def _ids(path: Path) -> frozenset[str]:
    return frozenset(attribute(element, "id") for element in soup(path).select("[id]"))


def test_every_internal_link_resolves(site_dir: Path, page: str) -> None:
    # 404.html links absolutely, under the path of site_url.
    site_path = urlsplit(course().site_url).path
    broken = []
    for element in soup(site_dir / page).select("a[href], link[href], script[src], img[src]"):
        url = element.get("href") or element.get("src")
        assert isinstance(url, str), element
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or url.startswith("mailto:"):
            continue
        base, path = (site_dir / page).parent, unquote(parts.path)
        if path.startswith(site_path):
            base, path = site_dir, path.removeprefix(site_path)
        target = (base / path).resolve() if parts.path else site_dir / page
        if target.is_dir():
            target = target / "index.html"
        if not target.exists():
            broken.append(url)
        elif parts.fragment and target.suffix == ".html" and unquote(parts.fragment) not in _ids(target):
            broken.append(f"{url} (no such anchor)")
    assert broken == []


def test_no_page_loads_anything_from_another_host(site_dir: Path, page: str) -> None:
    html = soup(site_dir / page)
    foreign = []
    for element in html.select("script[src], link[href], img[src], iframe[src], source[src]"):
        url = element.get("src") or element.get("href")
        assert isinstance(url, str), element
        rel: str | list[str] = element.get("rel") or []
        if element.name == "link" and not {"stylesheet", "preload", "icon", "modulepreload", "manifest"} & set(rel):
            continue  # canonical and alternate links are not loaded
        if urlsplit(url).netloc:
            foreign.append(url)
    for style in html.select("style"):
        if re.search(r"@import|url\(\s*['\"]?https?:", style.get_text()):
            foreign.append("an inline style loads a URL")
    assert foreign == []


def test_the_home_page_says_both_units_of_bytes(site_dir: Path) -> None:
    figures = {f["data-fig-id"]: f for f in soup(site_dir / "index.html").select(".fig")}
    assert figures["unit/GB"]["data-value"] == str(10**9)
    assert figures["unit/GiB"]["data-value"] == str(2**30)


def _own_assets() -> list[str]:
    config = load_config(str(ROOT / "mkdocs.yml"))
    return [str(path) for path in (*config["extra_javascript"], *config["extra_css"])]


def test_our_script_and_style_are_served_without_comments_and_within_budget(site_dir: Path) -> None:
    """The site serves the course's own script and style stripped, nothing else changed, within the budget
    tools/budgets.yml sets for them."""
    strip = {".js": strip_js, ".css": strip_css}
    total = 0
    for path in _own_assets():
        served = (site_dir / path).read_text(encoding="utf-8")
        assert served == strip[Path(path).suffix]((course().docs_dir / path).read_text(encoding="utf-8"))
        assert "/*" not in served and not any(line.startswith("//") for line in served.splitlines())
        total += len(gzip.compress(served.encode("utf-8"), 9))
    assert total <= load_budgets().own_assets, f"{total} bytes gzipped"


def test_the_search_index_a_page_loads_holds_settings_and_its_pages_come_apart(site_dir: Path) -> None:
    """Material fetches the index on every page: it holds the settings only; every page's text is in the
    file course.js fetches when a reader opens search."""
    index = json.loads((site_dir / INDEX).read_text(encoding="utf-8"))
    assert index["docs"] == [] and index["config"]["separator"]
    docs = json.loads((site_dir / DOCS).read_text(encoding="utf-8"))
    assert {doc["location"].split("#")[0] for doc in docs} == {
        page.removesuffix("index.html") for page in site_pages() if page != "404.html"
    }


def test_a_build_keeps_the_themes_compiled_templates_for_the_next(
    course_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A course's first build compiles Material's base template into the course's cache, for the next build."""
    monkeypatch.setattr(compiled_templates, "_MEMORY", {})  # as in a new process: nothing compiled yet
    assert build_copy(course_copy).ok
    config = load_config(str(course_copy / "mkdocs.yml"))
    root = compiled_templates.cache_root(course_config(config).project_dir)
    assert root is not None and course_copy.resolve() not in root.parents
    cache = CompiledTemplates.for_environment(config.theme.get_env(), root)
    assert cache is not None
    base = Path(material.__file__).parent / "templates" / "base.html"
    assert (cache.folder / cache.get_cache_key("base.html", str(base))).is_file()


def test_a_build_tells_the_author_only_what_matters(tmp_path: Path) -> None:
    """No configuration dump on every `mkdocs serve` rebuild: a problem must not drown in a hundred macro names."""
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    said = [line.split(" -  ", 1)[-1] for line in result.stderr.splitlines() if line.strip()]
    assert not [line for line in said if line.startswith("[macros]")], result.stderr
    assert len(said) <= 4 and any(line.startswith("figures.json: ") for line in said), result.stderr
