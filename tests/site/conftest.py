"""Site checks run on every page the build writes, found as MkDocs finds them (see `site_pages`)."""

from __future__ import annotations

import pytest

from tests.conftest import lesson_pages, site_pages


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Give a test that asks for `page` every built page, `lesson` every lesson, `other_page` every other page."""
    if "page" in metafunc.fixturenames:
        metafunc.parametrize("page", site_pages())
    if "lesson" in metafunc.fixturenames:
        metafunc.parametrize("lesson", lesson_pages())
    if "other_page" in metafunc.fixturenames:
        metafunc.parametrize("other_page", [page for page in site_pages() if page not in lesson_pages()])
