"""The built site, served as its static host serves it: under site_url's path, gzipped, with a 404 page.

GitHub Pages serves the course under `/course/`, compresses text with gzip for a browser that
accepts it, and answers an unknown address with the site's `404.html` and status 404: a file's
address with a slash after it (`/course/index.html/`) too. A folder's address without its slash,
`/course` itself included, is redirected (301) to the folder. This
server does the same on 127.0.0.1, for `make preview`, `make audit` (Lighthouse measures what
a reader's browser transfers) and the browser tests.

One thing differs on purpose: `sitemap.xml` is answered with this server's own address in
place of site_url. Material's instant navigation follows a link only when its address is in
the sitemap, after giving the sitemap's addresses the page's scheme and host name but not its
port (`resolve` in Material's integrations/sitemap/index.ts); the built sitemap names
`https://…/course/…`, so on any port but the default one every click would load a whole page.
`mkdocs serve` writes its sitemap with its own address for the same reason.

Run it as `python -m tools.serve SITE_DIR [--port N]` (port 0: one the OS picks).

It answers on loopback only, but a page it serves can make the browser send anything, so it
holds to what a static host does: nothing outside the site folder, however a link inside it
points (a symbolic link out of the folder is a 404), and a 404 for a path the file system refuses
(a name longer than its limit); the `Host` header in the sitemap only when
it is a host name and port, escaped as XML; a request line of at most `MAX_PATH` characters, and
none with a control character; a redirect only to a path on the host the browser asked; a
connection closed when its request head is not in within `timeout` seconds, however it trickles
in, and at most `MAX_CONNECTIONS` at once; and a connection the browser resets, which it does as
it navigates, is not an error worth a traceback.
"""

from __future__ import annotations

import argparse
import gzip
import io
import posixpath
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import lru_cache, partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import Any, BinaryIO, cast
from urllib.parse import quote, unquote, urlsplit
from xml.sax.saxutils import escape as xml_escape

#: What GitHub Pages compresses (by media type); images and fonts it sends as they are.
COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "application/xml", "image/svg+xml")
#: GitHub Pages lets a browser keep a file for ten minutes.
CACHE_CONTROL = "max-age=600"
#: The longest address served; the site's longest is about a hundred characters.
MAX_PATH = 2048
#: How many connections are served at once; Chromium opens six per host.
MAX_CONNECTIONS = 64
#: A control character, in an address once its %-escapes are read: no file's name holds one (a NUL stops
#: `Path.resolve` with an error), and a line break in a header would start another.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: A request's Host header as the sitemap may carry it: a host name or an IPv4 or IPv6 address, and a port.
_HOST = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?")


def _mode(target: Path) -> int:
    """`target`'s file mode, links followed, or 0 (neither file nor folder) when the file system has nothing there.

    The client names the path, so whatever the file system refuses it for (a name longer than its limit, a
    loop of links, a file where a folder is asked) is an address with no page, as on Pages: `Path.is_dir`
    and `is_file` return False for some of these errors but raise the others, such as ENAMETOOLONG.
    """
    try:
        return target.stat().st_mode
    except OSError:
        return 0


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether a request's Accept-Encoding takes gzip (RFC 9110, 12.5.3): named, or "*", with a weight above 0. A
    search for "gzip" in it took "gzip;q=0", which refuses it, and "notgzip".

    >>> accepts_gzip("gzip, br"), accepts_gzip("gzip;q=0"), accepts_gzip("notgzip"), accepts_gzip("*;q=0.5")
    (True, False, False, True)
    """
    weights: dict[str, float] = {}
    for coding in accept_encoding.split(","):
        name, _, parameters = coding.partition(";")
        weight = 1.0
        for parameter in parameters.split(";"):
            key, _, value = parameter.strip().partition("=")
            if key.lower() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        weights[name.strip().lower()] = weight
    return weights.get("gzip", weights.get("*", 0.0)) > 0


@lru_cache(maxsize=512)
def _gzipped(path: Path, inode: int, mtime_ns: int, ctime_ns: int, size: int) -> bytes:
    """A file gzipped, once for each version of it (the rest of the key tells versions apart, a file
    replaced or copied with its times kept included): the browser tests load the same pages hundreds
    of times, and a lesson with its scripts and styles takes ~25 ms to compress."""
    return gzip.compress(path.read_bytes(), mtime=0)


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves a built site under `site_path`, as a static host does; nothing outside that path."""

    protocol_version = "HTTP/1.1"  # keep-alive, as a browser has with a real host
    #: Seconds a connection may wait for its next request, or for the rest of one, before it is closed.
    timeout = 10
    #: The path the site lives under, such as "/course/"; set per server by `site_server`.
    site_path = "/"
    #: The site's own address in its sitemap (site_url), replaced by this server's.
    site_url = ""

    def setup(self) -> None:
        super().setup()
        #: When the request head being read must be in by, or None once it is (`handle_one_request`).
        self.head_deadline: float | None = None
        self.rfile = io.BufferedReader(_UntilDeadline(self))

    def handle_one_request(self) -> None:
        # `timeout` bounds each read of the socket; a client that sends a byte a little more often would hold
        # its connection (one of `MAX_CONNECTIONS`) for ever. The head (the wait for it included) gets as long.
        self.head_deadline = time.monotonic() + self.timeout
        super().handle_one_request()

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        self.head_deadline = None
        self.connection.settimeout(self.timeout)
        if len(self.path) > MAX_PATH:
            self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG, f"an address is at most {MAX_PATH} characters")
            return False
        if _CONTROL.search(unquote(self.path)):
            self.send_error(HTTPStatus.BAD_REQUEST, "an address holds no control character")
            return False
        return True

    def _inside(self, target: Path) -> bool:
        """Whether `target`, every link followed, is inside the site's folder (a link out of it is not)."""
        try:
            return target.resolve().is_relative_to(Path(self.directory).resolve())
        except (OSError, RuntimeError):  # a loop of links
            return False

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        # As a browser would send it: no "..", which could lead out of the site's path.
        path = posixpath.normpath(unquote(path)) + ("/" if path.endswith("/") else "")
        if path + "/" == self.site_path:  # "/course": the site's folder, which `send_head` redirects to, as Pages does
            path = self.site_path
        if not path.startswith(self.site_path):
            return str(Path(self.directory) / "__outside_the_site__")  # no such file: a 404
        return super().translate_path("/" + path[len(self.site_path) :])

    def send_head(self) -> io.BytesIO | BinaryIO | None:
        """The response's status and headers; its body as a file-like object, or None."""
        target = Path(self.translate_path(self.path))
        if S_ISDIR(_mode(target)) and self._inside(target):
            parts = urlsplit(self.path)
            if not parts.path.endswith("/"):
                # To the folder's address, with its slash, on the host the browser asked: never the host an
                # absolute target names (GET http://elsewhere/course/a), nor one that extra slashes make of
                # the path (///elsewhere/../course/a), as SimpleHTTPRequestHandler's redirect keeps them.
                location = quote(posixpath.normpath(unquote(parts.path))) + "/"
                self.send_response(HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", location + (f"?{parts.query}" if parts.query else ""))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            target = target / "index.html"
        elif urlsplit(self.path).path.endswith("/"):  # a file's address with a slash after it: Pages has no such page
            target = Path(self.directory) / "__no_such_file__"
        status = HTTPStatus.OK
        if not self._inside(target) or not S_ISREG(_mode(target)):
            status, target = HTTPStatus.NOT_FOUND, Path(self.directory) / "404.html"
            if not S_ISREG(_mode(target)):
                self.send_error(HTTPStatus.NOT_FOUND)
                return None
        media_type = self.guess_type(str(target))
        gzipped = media_type.startswith(COMPRESSED_TYPES) and accepts_gzip(self.headers.get("Accept-Encoding", ""))
        if target.name == "sitemap.xml" and self.site_url:
            host = self.headers.get("Host", "")
            if not _HOST.fullmatch(host):  # the browser's own is a host and a port; anything else is not used
                host = f"127.0.0.1:{cast(ThreadingHTTPServer, self.server).server_port}"
            here = xml_escape(f"http://{host}{self.site_path}")
            body = target.read_bytes().replace(self.site_url.encode(), here.encode())
            body = gzip.compress(body, mtime=0) if gzipped else body
        elif gzipped:
            stat = target.stat()
            body = _gzipped(target, stat.st_ino, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)
        else:
            body = target.read_bytes()
        self.send_response(status)
        self.send_header("Content-Type", media_type)
        self.send_header("Cache-Control", CACHE_CONTROL)
        if media_type.startswith(COMPRESSED_TYPES):
            self.send_header("Vary", "Accept-Encoding")
            if gzipped:
                self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _UntilDeadline(io.RawIOBase):
    """A handler's socket, read until the handler's `head_deadline` (then a `TimeoutError`, which ends the
    connection as a timeout does), or with its `timeout` for each read once there is none."""

    def __init__(self, handler: SiteHandler) -> None:
        self.handler = handler

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        deadline = self.handler.head_deadline
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request head took longer than the timeout")
            self.handler.connection.settimeout(left)
        return int(self.handler.connection.recv_into(buffer))


class SiteServer(ThreadingHTTPServer):
    """A server of a thread per connection, at most `MAX_CONNECTIONS` of them, quiet when a client goes away."""

    daemon_threads = True
    #: Connections the kernel holds until they are accepted (listen's backlog; socketserver's is 5). A browser
    #: opens several at once, and a SYN beyond the backlog is dropped and retried a second later.
    request_queue_size = MAX_CONNECTIONS

    def __init__(self, address: tuple[str, int], handler: Callable[..., SiteHandler]) -> None:
        super().__init__(address, handler)
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):  # full: the browser retries, a flood waits for nothing
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser resets a connection it no longer needs (a page left, a download cut short): that is how
        # browsing goes, not an error of the server's. Anything else is one, and prints as one.
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


@contextmanager
def site_server(site_dir: Path, site_url: str, port: int = 0) -> Iterator[str]:
    """Serve `site_dir` on 127.0.0.1 under site_url's path, in a thread; yield its address, such as
    `http://127.0.0.1:PORT/course/`, and stop when the block ends."""
    site_path = urlsplit(site_url).path or "/"
    handler = type("Handler", (SiteHandler,), {"site_path": site_path, "site_url": site_url})
    server = SiteServer(("127.0.0.1", port), partial(handler, directory=str(site_dir)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}{site_path}"
    finally:
        server.shutdown()
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    from mkdocs.config import load_config

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site_dir", type=Path, help="the built site (make build writes site/)")
    parser.add_argument("--port", type=int, default=8001, help="the port on 127.0.0.1 (default 8001; 0: any)")
    parser.add_argument("--config", default="mkdocs.yml", help="the mkdocs.yml whose site_url to serve under")
    args = parser.parse_args(argv)
    if not (args.site_dir / "index.html").is_file():
        print(f"{args.site_dir}/index.html not found: build the site first (make build)", file=sys.stderr)
        return 2
    site_url = load_config(args.config).site_url or "/"
    with site_server(args.site_dir, site_url, args.port) as address:
        print(f"Serving {args.site_dir} on {address}, gzipped, as the host serves it (Ctrl-C stops)")
        with suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
