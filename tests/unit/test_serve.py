"""The built site served as its host serves it (tools/serve.py): gzip, the 404 page, the sitemap's own address."""

from __future__ import annotations

import gzip
import http.client
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from tools.serve import site_server

SITE_URL = "https://example.org/course/"
SITEMAP = "<urlset><url><loc>https://example.org/course/</loc></url><url><loc>https://example.org/course/a/</loc></url></urlset>"


@pytest.fixture(scope="module")
def address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    site = tmp_path_factory.mktemp("site")
    (site / "index.html").write_text("<p>home</p>" * 50, encoding="utf-8")
    (site / "a").mkdir()
    (site / "a" / "index.html").write_text("<p>a</p>", encoding="utf-8")
    (site / "404.html").write_text("<h1>lost</h1>", encoding="utf-8")
    (site / "sitemap.xml").write_text(SITEMAP, encoding="utf-8")
    (site / "logo.png").write_bytes(b"\x89PNG" + bytes(100))
    with site_server(site, SITE_URL) as served:
        yield served


def _get(address: str, path: str, gzip_ok: bool = True) -> http.client.HTTPResponse:
    parts = urlsplit(address)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
    connection.request("GET", path, headers={"Accept-Encoding": "gzip, br"} if gzip_ok else {})
    return connection.getresponse()


def test_a_page_is_served_under_the_sites_path_gzipped(address: str) -> None:
    response = _get(address, "/course/")
    assert response.status == 200
    assert response.headers["Content-Encoding"] == "gzip"
    assert response.headers["Vary"] == "Accept-Encoding"
    assert gzip.decompress(response.read()) == b"<p>home</p>" * 50


def test_a_browser_that_takes_no_gzip_gets_the_file_as_it_is(address: str) -> None:
    response = _get(address, "/course/a/", gzip_ok=False)
    assert response.headers.get("Content-Encoding") is None
    assert response.read() == b"<p>a</p>"


def test_an_image_is_sent_as_it_is(address: str) -> None:
    response = _get(address, "/course/logo.png")
    assert response.headers.get("Content-Encoding") is None
    assert response.read() == b"\x89PNG" + bytes(100)


@pytest.mark.parametrize("path", ["/course/no/such/page/", "/elsewhere/", "/course/../index.html"])
def test_an_unknown_address_gets_the_404_page(address: str, path: str) -> None:
    response = _get(address, path, gzip_ok=False)
    assert response.status == 404
    assert response.read() == b"<h1>lost</h1>"


def test_a_folder_without_its_slash_is_redirected_to_it(address: str) -> None:
    response = _get(address, "/course/a")
    assert response.status == 301
    assert response.headers["Location"] == "/course/a/"


def test_the_sitemap_names_the_servers_own_address(address: str) -> None:
    """So that Material's instant navigation finds the links of the page in it (see tools/serve.py)."""
    body = gzip.decompress(_get(address, "/course/sitemap.xml").read()).decode()
    assert body == SITEMAP.replace("https://example.org/course/", address)
