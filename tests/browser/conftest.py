"""Browser tests: the built site served on a free port, driven in Debian's Chromium.

They skip where Chromium is not installed, except in CI (CI=true), where a
missing browser is a failure: `.ci/run` installs it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest
from axe_playwright_python.base import AXE_SCRIPT as _AXE_SCRIPT
from axe_playwright_python.base import AxeResults
from playwright.sync_api import Error, ViewportSize, expect

from macros.data.lessons import index_lessons
from tests.conftest import course, site_pages
from tools.serve import site_server

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Dialog, Page, Request, Route

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
PHONE: ViewportSize = {"width": 390, "height": 844}


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
def browser() -> Iterator[Browser]:
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


#: Playwright's default viewport, which a test that changed it leaves for the next.
DESKTOP: ViewportSize = {"width": 1280, "height": 720}


class _Tab:
    """The one page a worker's tests read the course in, kept open between them.

    A new page starts a renderer process, which costs Chromium more than most tests do
    (about 0.4 s of the 0.8 s a fresh page and its first load take here); a page kept open
    costs only its next load. Before each test it is put back as a new reader's: the site's
    local and session storage and cookies emptied, no route, desktop viewport, screen media
    with no emulated preference but the light scheme, the mouse in the corner. Its HTTP cache
    and history stay; every test that uses it reads the course's own site.
    """

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.context: BrowserContext | None = None
        self.page: Page | None = None

    def ready(self) -> Page:
        """The tab, as a new reader's; opened anew if a test closed it or it cannot be put back (a crash)."""
        if self.page is not None and not self.page.is_closed():
            try:
                return self._reset(self.page)
            except Error:
                pass
        self.close()
        self.context = self.browser.new_context()
        self.page = self.context.new_page()
        return self.page

    def _reset(self, page: Page) -> Page:
        page.unroute_all(behavior="ignoreErrors")
        page.set_viewport_size(DESKTOP)
        page.emulate_media(
            media="screen", color_scheme="light", reduced_motion="null", forced_colors="null", contrast="null"
        )
        page.mouse.move(0, 0)
        page.context.clear_cookies()
        # Storage is the origin's, shared by the context's pages: emptied from a small document
        # of the site's own (a lesson would cost a full load), which also unloads the last page.
        page.goto(f"{self.base_url}sitemap.xml")
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        return page

    def close(self) -> None:
        if self.context is not None:
            self.context.close()
            self.context = None


@pytest.fixture(scope="session")
def _worker_tab(browser: Browser, base_url: str) -> Iterator[_Tab]:
    kept = _Tab(browser, base_url)
    yield kept
    kept.close()


@pytest.fixture
def tab(_worker_tab: _Tab) -> Page:
    """A page of the course's site as a new reader has it: nothing stored, desktop size, light, screen.

    The worker's one tab, put back between tests (see `_Tab`): a test that listens to the
    tab does it in a block (`requests_made`, `page_errors`, `accepting_dialogs`). Named `tab`, not
    Playwright's `page`: a page of the built site is `page` in tests/site.
    """
    return _worker_tab.ready()


@pytest.fixture
def lesson(tab: Page, base_url: str) -> Page:
    """Lesson 8, open in the worker's tab, put back as a new reader's (see `tab`)."""
    tab.goto(f"{base_url}{LESSON_8}/")
    return tab


@contextmanager
def _listening(page: Page, event: str, listener: Callable[[Any], None]) -> Iterator[None]:
    """`listener` on the page's `event` while the block runs, and not after: the tab outlives the test."""
    page.on(event, listener)  # type: ignore[call-overload]
    try:
        yield
    finally:
        page.remove_listener(event, listener)


@contextmanager
def requests_made(page: Page) -> Iterator[list[str]]:
    """The addresses of the requests the page makes while the block runs, none of them answered by its cache.

    Every request is routed, which turns the page's cache off (as Playwright documents it): a file an
    earlier test of the tab loaded is asked for again, and seen.
    """
    addresses: list[str] = []

    def record(request: Request) -> None:
        addresses.append(request.url)

    def let_through(route: Route) -> None:
        route.continue_()

    page.route("**/*", let_through)
    try:
        with _listening(page, "request", record):
            yield addresses
    finally:
        page.unroute("**/*", let_through)


@contextmanager
def accepting_dialogs(page: Page) -> Iterator[None]:
    """Accept the page's dialogs (a confirm) while the block runs; Playwright dismisses them otherwise."""

    def accept(dialog: Dialog) -> None:
        dialog.accept()

    with _listening(page, "dialog", accept):
        yield


@contextmanager
def page_errors(page: Page) -> Iterator[list[str]]:
    """The errors the page's scripts throw while the block runs."""
    errors: list[str] = []

    def record(error: Error) -> None:
        errors.append(error.stack or str(error))

    with _listening(page, "pageerror", record):
        yield errors


def show_palette(page: Page, scheme: str) -> None:
    """Show the open page in Material's `scheme` ("default" or "slate") as a reader does, with the palette toggle.

    Emulating prefers-color-scheme on a page already loaded leaves it in the palette it loaded with.
    """
    body = page.locator("body")
    if body.get_attribute("data-md-color-scheme") != scheme:
        page.locator("[data-md-component=palette] label:not([hidden])").click()
    expect(body).to_have_attribute("data-md-color-scheme", scheme)


def axe_violations(page: Page, rules: list[str]) -> tuple[int, str]:
    """Run axe's `rules` (ids or tags) on the open page: the number of violations, and axe's report of them.

    axe is put into the page once per document, and only violations are gathered and sent back:
    axe's own advice for speed, and half the time of a full run on our pages.
    """
    if not page.evaluate("() => typeof window.axe?.run === 'function'"):
        page.evaluate(_AXE_SCRIPT)
    violations = page.evaluate(
        """(rules) => axe
            .run(document, {runOnly: rules, resultTypes: ["violations"]})
            .then((results) => results.violations)""",
        rules,
    )
    results = AxeResults({"violations": violations})
    return results.violations_count, results.generate_report()
