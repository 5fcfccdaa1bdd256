"""Browser tests: the built site served on a free port, driven in Debian's Chromium.

They skip where Chromium is not installed, except in CI (CI=true), where a
missing browser is a failure: `.ci/run` installs it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from macros.lessons import index_lessons
from tests.conftest import course, site_pages
from tools.serve import site_server

if TYPE_CHECKING:
    from playwright.sync_api import Page

#: The axe rules of WCAG 2.0, 2.1 and 2.2 at levels A and AA.
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Without these, Chromium tries to reach Google's services at start-up.
CHROMIUM_ARGS = [
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


# Served under the path of site_url (/course/), as on GitHub Pages, so that
# whatever depends on the site's base path is tested as readers meet it.
SITE_PATH = urlsplit(course().site_url).path


def lesson_url(number: int) -> str:
    """The address of lesson `number` relative to the site, found through the lesson index: `stage-4/lesson-08-…/`."""
    return index_lessons(course().docs_dir).lessons[number].src_path.removesuffix(".md") + "/"


#: The seed lesson most browser tests read, as an address relative to the site.
LESSON_8 = lesson_url(8).rstrip("/")
#: A phone's viewport, in CSS pixels.
PHONE = {"width": 390, "height": 844}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Give a test that asks for `path` the address of every page the build writes (but the 404 page)."""
    if "path" in metafunc.fixturenames:
        paths = [page.removesuffix("index.html") for page in site_pages() if page != "404.html"]
        metafunc.parametrize("path", paths)


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """A built site, served as its host serves it (`tools.serve`: gzipped, a 404 page, and a sitemap that lets
    Material's instant navigation work) on 127.0.0.1 at a port the OS picks, under site_url's path."""
    with site_server(site, course().site_url) as address:
        yield address


@pytest.fixture(scope="session")
def base_url(site_dir: Path) -> Iterator[str]:
    """The course's own build, served."""
    with serve(site_dir) as url:
        yield url


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """A headless Debian Chromium, driven by Playwright."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"Chromium is not installed at {CHROMIUM}; .ci/run should install Debian's chromium")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    """A fresh page in its own context (own storage), closed after the test."""
    context = browser.new_context()  # type: ignore[attr-defined]
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def lesson(page: Page, base_url: str) -> Page:
    """Lesson 8, open in a fresh page."""
    page.goto(f"{base_url}{LESSON_8}/")
    return page


def show_palette(page: Page, scheme: str) -> None:
    """Show the open page in Material's `scheme` ("default" or "slate") as a reader does, with the palette toggle.

    Emulating prefers-color-scheme on a page already loaded leaves it in the palette it loaded with.
    """
    body = page.locator("body")
    if body.get_attribute("data-md-color-scheme") != scheme:
        page.locator("[data-md-component=palette] label:not([hidden])").click()
    expect(body).to_have_attribute("data-md-color-scheme", scheme)


def axe_violations(page: Page, rules: list[str], within: str | None = None) -> tuple[int, str]:
    """Run axe's `rules` (ids or tags) on the open page, or on the elements `within` selects: the number of
    violations, and axe's report of them.

    Only violations are gathered: axe's own advice for speed, and half the time of a full run on our pages.
    """
    results = Axe().run(page, context=within, options={"runOnly": rules, "resultTypes": ["violations"]})
    return results.violations_count, results.generate_report()
