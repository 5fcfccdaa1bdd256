"""The site as a whole: home page, links, and nothing loaded from another host."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from mkdocs.config import load_config

from tests.checks import heading_text, soup
from tests.conftest import LESSON_7, LESSON_8, ROOT

SEED_BULLET = (
    "Explain what ZeRO/FSDP shard, why data parallelism alone runs out of memory before it runs out of compute, "
    "and when tensor or pipeline parallelism is worth its communication cost"
)


def _pages(site_dir: Path) -> list[Path]:
    return sorted(site_dir.rglob("*.html"))


def test_home_quotes_the_seeds_bullet_and_links_its_lessons(site_dir: Path) -> None:
    bullets = soup(site_dir / "index.html").select("#success-looks-like + ol > li")
    assert len(bullets) == 5
    third, fourth = bullets[2], bullets[3]
    assert " ".join(fourth.get_text().split()).startswith(SEED_BULLET)
    assert [a["href"] for a in fourth.select("a")] == [f"{LESSON_7}/", f"{LESSON_8}/"]
    assert [a["href"] for a in third.select("a")] == [f"{LESSON_7}/"]
    for other in (bullets[0], bullets[1], bullets[4]):
        assert "No lesson published for this yet." in other.get_text()


def test_home_syllabus_shows_stage_4_and_what_comes_next(site_dir: Path) -> None:
    page = soup(site_dir / "index.html")
    assert [heading_text(h) for h in page.select("h3")][1:] == ["Stage 4: Data parallelism and its limits"]
    text = page.get_text()
    assert "Stage 5, Sharding: ZeRO and FSDP" in text and "Stage 6, Splitting the model" in text


def test_every_internal_link_resolves(site_dir: Path) -> None:
    # 404.html links absolutely, under the path of site_url.
    site_path = urlsplit(load_config(str(ROOT / "mkdocs.yml")).site_url).path
    broken = []
    for page in _pages(site_dir):
        html = soup(page)
        for element in html.select("a[href], link[href], script[src], img[src]"):
            url = element.get("href") or element.get("src")
            parts = urlsplit(url)
            if parts.scheme or parts.netloc or url.startswith("mailto:"):
                continue
            base = page.parent
            path = unquote(parts.path)
            if path.startswith(site_path):
                base, path = site_dir, path.removeprefix(site_path)
            target = (base / path).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site_dir)}: {url}")
            elif parts.fragment and target.suffix == ".html" and not soup(target).find(id=unquote(parts.fragment)):
                broken.append(f"{page.relative_to(site_dir)}: {url} (no such anchor)")
    assert broken == []


def test_no_page_loads_anything_from_another_host(site_dir: Path) -> None:
    foreign = []
    for page in _pages(site_dir):
        html = soup(page)
        for element in html.select("script[src], link[href], img[src], iframe[src], source[src]"):
            url = element.get("src") or element.get("href")
            rel = element.get("rel") or []
            if element.name == "link" and not {"stylesheet", "preload", "icon", "modulepreload", "manifest"} & set(rel):
                continue  # canonical and alternate links are not loaded
            if urlsplit(url).netloc:
                foreign.append(f"{page.relative_to(site_dir)}: {url}")
        for style in html.select("style"):
            if re.search(r"@import|url\(\s*['\"]?https?:", style.get_text()):
                foreign.append(f"{page.relative_to(site_dir)}: inline style loads a URL")
    assert foreign == []


def test_the_site_says_its_bytes_are_decimal(site_dir: Path) -> None:
    assert "1 GB is 109 bytes" in " ".join(soup(site_dir / "index.html").get_text().split())
