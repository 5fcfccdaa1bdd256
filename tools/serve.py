"""The built site, served as its static host serves it: under site_url's path, gzipped, with a 404 page.

GitHub Pages serves the course under `/course/`, compresses text with gzip for a browser that
accepts it, and answers an unknown address with the site's `404.html` and status 404. This
server does the same on 127.0.0.1, for `make preview`, `make audit` (Lighthouse measures what
a reader's browser transfers) and the browser tests.

One thing differs on purpose: `sitemap.xml` is answered with this server's own address in
place of site_url. Material's instant navigation follows a link only when its address is in
the sitemap, after giving the sitemap's addresses the page's scheme and host name but not its
port (`resolve` in Material's integrations/sitemap/index.ts); the built sitemap names
`https://…/course/…`, so on any port but the default one every click would load a whole page.
`mkdocs serve` writes its sitemap with its own address for the same reason.

Run it as `python -m tools.serve SITE_DIR [--port N]` (port 0: one the OS picks).
"""

from __future__ import annotations

import argparse
import gzip
import io
import posixpath
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from functools import lru_cache, partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import BinaryIO
from urllib.parse import unquote, urlsplit

#: What GitHub Pages compresses (by media type); images and fonts it sends as they are.
COMPRESSED_TYPES = ("text/", "application/javascript", "application/json", "application/xml", "image/svg+xml")
#: GitHub Pages lets a browser keep a file for ten minutes.
CACHE_CONTROL = "max-age=600"


@lru_cache(maxsize=512)
def _gzipped(path: Path, inode: int, mtime_ns: int, ctime_ns: int, size: int) -> bytes:
    """A file gzipped, once for each version of it (the rest of the key tells versions apart, a file
    replaced or copied with its times kept included): the browser tests load the same pages hundreds
    of times, and a lesson with its scripts and styles takes ~25 ms to compress."""
    return gzip.compress(path.read_bytes(), mtime=0)


class SiteHandler(SimpleHTTPRequestHandler):
    """Serves a built site under `site_path`, as a static host does; nothing outside that path."""

    protocol_version = "HTTP/1.1"  # keep-alive, as a browser has with a real host
    #: The path the site lives under, such as "/course/"; set per server by `site_server`.
    site_path = "/"
    #: The site's own address in its sitemap (site_url), replaced by this server's.
    site_url = ""

    def translate_path(self, path: str) -> str:
        path = urlsplit(path).path
        # As a browser would send it: no "..", which could lead out of the site's path.
        path = posixpath.normpath(unquote(path)) + ("/" if path.endswith("/") else "")
        if not path.startswith(self.site_path):
            return str(Path(self.directory) / "__outside_the_site__")  # no such file: a 404
        return super().translate_path("/" + path[len(self.site_path) :])

    def send_head(self) -> io.BytesIO | BinaryIO | None:
        """The response's status and headers; its body as a file-like object, or None."""
        target = Path(self.translate_path(self.path))
        if target.is_dir():
            if not urlsplit(self.path).path.endswith("/"):
                return super().send_head()  # the redirect to the folder's address, with its slash
            target = target / "index.html"
        status = HTTPStatus.OK
        if not target.is_file():
            status, target = HTTPStatus.NOT_FOUND, Path(self.directory) / "404.html"
            if not target.is_file():
                self.send_error(HTTPStatus.NOT_FOUND)
                return None
        media_type = self.guess_type(str(target))
        gzipped = media_type.startswith(COMPRESSED_TYPES) and "gzip" in self.headers.get("Accept-Encoding", "")
        if target.name == "sitemap.xml" and self.site_url:
            here = f"http://{self.headers.get('Host', 'localhost')}{self.site_path}"
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


@contextmanager
def site_server(site_dir: Path, site_url: str, port: int = 0) -> Iterator[str]:
    """Serve `site_dir` on 127.0.0.1 under site_url's path, in a thread; yield its address, such as
    `http://127.0.0.1:PORT/course/`, and stop when the block ends."""
    site_path = urlsplit(site_url).path or "/"
    handler = type("Handler", (SiteHandler,), {"site_path": site_path, "site_url": site_url})
    server = ThreadingHTTPServer(("127.0.0.1", port), partial(handler, directory=str(site_dir)))
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
