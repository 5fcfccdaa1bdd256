"""The built site served as its host serves it (tools/serve.py): gzip, the 404 page, the sitemap's own address."""

from __future__ import annotations

import gzip
import http.client
import socket
import struct
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tools.serve import MAX_CONNECTIONS, MAX_PATH, SiteHandler, site_server

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


@pytest.mark.parametrize("refusing", ["gzip;q=0", "notgzip", "br, gzip; q=0, *;q=0"])
def test_a_client_that_refuses_gzip_gets_the_file_as_it_is(address: str, refusing: str) -> None:
    """Attack round 10: a search for "gzip" in Accept-Encoding sent gzip to each of these."""
    parts = urlsplit(address)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port)
    connection.request("GET", "/course/a/", headers={"Accept-Encoding": refusing})
    response = connection.getresponse()
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


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A site whose folder holds links out of it, and one inside it; served, with the folder outside."""
    root = tmp_path_factory.mktemp("linked")
    outside = root / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("the key", encoding="utf-8")
    site = root / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>", encoding="utf-8")
    (site / "404.html").write_text("<h1>lost</h1>", encoding="utf-8")
    (site / "sitemap.xml").write_text(SITEMAP, encoding="utf-8")
    (site / "page.html").write_text("<p>page</p>", encoding="utf-8")
    (site / "secret.txt").symlink_to(outside / "secret.txt")
    (site / "out").symlink_to(outside, target_is_directory=True)
    (site / "also-page.html").symlink_to(site / "page.html")
    (site / "loop").symlink_to(site / "loop")
    with site_server(site, SITE_URL) as served:
        yield served, site


@pytest.mark.parametrize("path", ["/course/secret.txt", "/course/out/secret.txt", "/course/out/", "/course/loop"])
def test_a_link_out_of_the_site_folder_is_not_followed(linked: tuple[str, Path], path: str) -> None:
    response = _get(linked[0], path, gzip_ok=False)
    assert (response.status, response.read()) == (404, b"<h1>lost</h1>")


def test_a_link_inside_the_site_folder_is_served(linked: tuple[str, Path]) -> None:
    assert _get(linked[0], "/course/also-page.html", gzip_ok=False).read() == b"<p>page</p>"


def _raw(address: str, request: bytes, timeout: float = 5) -> bytes:
    parts = urlsplit(address)
    with socket.create_connection((parts.hostname or "", parts.port or 0), timeout=timeout) as connection:
        connection.sendall(request)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
        return received


@pytest.mark.parametrize(
    "host",
    ['x"/><script>alert(1)</script><loc>', "evil.example:8001/<a>", "a b", "&amp;", "", "x" * 300],
    ids=["markup", "path", "space", "entity", "empty", "long"],
)
def test_a_host_header_that_is_no_host_never_reaches_the_sitemap(address: str, host: str) -> None:
    request = f"GET /course/sitemap.xml HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    body = _raw(address, request).split(b"\r\n\r\n", 1)[1].decode()
    assert body == SITEMAP.replace("https://example.org/course/", address)


def test_a_host_and_port_the_browser_sent_is_the_sitemaps(address: str) -> None:
    request = b"GET /course/sitemap.xml HTTP/1.1\r\nHost: localhost:8123\r\nConnection: close\r\n\r\n"
    body = _raw(address, request).split(b"\r\n\r\n", 1)[1].decode()
    assert body == SITEMAP.replace("https://example.org/course/", "http://localhost:8123/course/")


def test_an_address_longer_than_any_of_the_sites_is_refused(address: str) -> None:
    response = _get(address, "/course/" + "a" * MAX_PATH)
    assert response.status == 414


def test_an_idle_connection_is_closed(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert SiteHandler.timeout is not None and 0 < SiteHandler.timeout <= 60  # the server's own bound
    monkeypatch.setattr(SiteHandler, "timeout", 0.5)  # the same bound, shorter, so the test is quick
    start = time.perf_counter()
    assert _raw(address, b"GET /course/ HTTP/1.1\r\nHost: localhost\r\n", timeout=5) == b""  # never finished
    assert time.perf_counter() - start < 3


def test_connections_beyond_the_limit_are_closed_at_once(address: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SiteHandler, "timeout", 3)
    parts = urlsplit(address)
    idle = [socket.create_connection((parts.hostname or "", parts.port or 0)) for _ in range(MAX_CONNECTIONS)]
    try:
        time.sleep(0.3)  # each accepted, and waiting in its thread
        start = time.perf_counter()
        assert _raw(address, b"GET /course/ HTTP/1.1\r\nHost: localhost\r\n\r\n", timeout=5) == b""
        assert time.perf_counter() - start < 1
    finally:
        for connection in idle:
            connection.close()


def test_a_connection_the_browser_resets_prints_no_traceback(capfd: pytest.CaptureFixture[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        site = Path(folder)
        (site / "index.html").write_bytes(b"x" * 20_000_000)  # far more than the socket's buffers hold
        (site / "404.html").write_text("lost", encoding="utf-8")
        with site_server(site, SITE_URL) as served:
            parts = urlsplit(served)
            for _ in range(3):
                connection = socket.create_connection((parts.hostname or "", parts.port or 0))
                connection.sendall(b"GET /course/ HTTP/1.1\r\nHost: localhost\r\n\r\n")
                connection.recv(1000)
                # Closed with a reset (RST), as a browser drops a connection it no longer needs.
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                connection.close()
            time.sleep(0.5)
            assert _get(served, "/course/404.html", gzip_ok=False).read() == b"lost"  # still serving
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize("path", ["/course/index.html%00.js", "/course/a%0d%0aSet-Cookie:x/", "/course/\x01"])
def test_an_address_with_a_control_character_is_refused(
    address: str, path: str, capfd: pytest.CaptureFixture[str]
) -> None:
    request = f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode()
    assert _raw(address, request).startswith(b"HTTP/1.1 400 ")
    assert "Traceback" not in capfd.readouterr().err


def test_a_request_dripped_a_byte_at_a_time_is_closed_at_the_timeout(
    address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The timeout bounds the whole request head, not each read of it: a byte every 0.3 s never waits 1 s."""
    monkeypatch.setattr(SiteHandler, "timeout", 1)
    parts = urlsplit(address)
    start = time.perf_counter()
    with socket.create_connection((parts.hostname or "", parts.port or 0), timeout=5) as connection:
        connection.setblocking(False)
        closed = False
        for byte in b"GET /course/ HTTP/1.1\r\nHost: localhost\r\nX-Drip: " + b"x" * 100:
            try:
                connection.send(bytes([byte]))
                closed = connection.recv(1) == b""
            except BlockingIOError:
                pass  # nothing to read: still open
            except OSError:
                closed = True
            if closed:
                break
            time.sleep(0.3)
    assert closed and time.perf_counter() - start < 3


@pytest.mark.parametrize(
    "target",
    ["http://evil.example/course/a", "http://localhost///evil.example/../../course/a", "/course/./a"],
)
def test_a_folder_is_redirected_on_the_requests_own_host_whatever_the_target_names(address: str, target: str) -> None:
    request = f"GET {target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode()
    head = _raw(address, request).split(b"\r\n\r\n", 1)[0].decode()
    assert head.startswith("HTTP/1.1 301 ")
    assert "\r\nLocation: /course/a/\r\n" in head


def test_the_sites_path_without_its_slash_is_redirected_to_it(address: str) -> None:
    """As GitHub Pages does (attack round 8, F13): `/course` was a 404."""
    response = _get(address, "/course")
    assert response.status == 301
    assert response.headers["Location"] == "/course/"


@pytest.mark.parametrize("path", ["/course/index.html/", "/course/a/index.html/", "/course/logo.png/"])
def test_a_file_with_a_slash_after_it_is_not_found(address: str, path: str) -> None:
    """As GitHub Pages does (attack round 8, F13): the page was served, its relative links a level too deep."""
    response = _get(address, path, gzip_ok=False)
    assert response.status == 404
    assert response.read() == b"<h1>lost</h1>"


@pytest.mark.parametrize(
    "path",
    [
        "/course/" + "a" * 300,
        "/course/" + "a" * 300 + "/",
        "/course/" + "%61" * 300,
        "/course/a/" + "b" * 300 + "/index.html",
        "/course/index.html/a",  # a file where a folder is asked: ENOTDIR
    ],
    ids=["long-name", "long-folder", "long-escaped", "long-inside", "file-as-folder"],
)
def test_a_path_the_file_system_refuses_is_not_found(
    address: str, path: str, capfd: pytest.CaptureFixture[str]
) -> None:
    """Attack round 9 (F14): a name longer than the file system's limit (ENAMETOOLONG, well within `MAX_PATH`) got
    a traceback and no response at all."""
    request = f"GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".encode()
    response = _raw(address, request)
    assert response.startswith(b"HTTP/1.1 404 ")
    assert response.endswith(b"<h1>lost</h1>")
    assert "Traceback" not in capfd.readouterr().err


def test_a_path_through_a_loop_of_links_is_not_found(
    linked: tuple[str, Path], capfd: pytest.CaptureFixture[str]
) -> None:
    """ELOOP, as the file system answers a path through a link to itself."""
    request = b"GET /course/loop/index.html HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    assert _raw(linked[0], request).startswith(b"HTTP/1.1 404 ")
    assert "Traceback" not in capfd.readouterr().err
