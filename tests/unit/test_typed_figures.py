"""The build's typed-figure finder reads each page's HTML once per process, however often the page comes back."""

from __future__ import annotations

import pytest

from macros.data import typed_figures as module
from macros.data.typed_figures import typed_figures


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The HTML the finder reads while the test runs, with nothing kept from before it."""
    monkeypatch.setattr(module, "_FOUND", module.OrderedDict())
    texts: list[str] = []
    feed = module._Finder.feed

    def counting(self: module._Finder, html: str) -> None:
        texts.append(html)
        feed(self, html)

    monkeypatch.setattr(module._Finder, "feed", counting)
    return texts


def test_an_unchanged_page_is_read_once_and_each_caller_gets_its_own_list(reads: list[str]) -> None:
    page = "<p>It needs 99 GB here.</p>"
    first = typed_figures(page)
    first.clear()
    assert [found.text for found in typed_figures(page)] == ["99 GB"]
    assert reads == [page]


def test_a_changed_page_is_read_again(reads: list[str]) -> None:
    page = "<p>It needs 99 GB here.</p>"
    typed_figures(page)
    assert [found.text for found in typed_figures(page.replace("99", "98"))] == ["98 GB"]
    assert len(reads) == 2


def test_the_findings_read_longest_ago_go_first_when_too_many_are_kept(
    reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(module, "_KEPT", 2)
    first, second, third = (f"<p>{number} GB</p>" for number in (1, 2, 3))
    typed_figures(first)
    typed_figures(second)
    typed_figures(first)  # kept, and now the newest
    typed_figures(third)  # the second goes
    typed_figures(first)
    typed_figures(second)
    assert reads == [first, second, third, second]
