"""The course's own scripts and styles as the site serves them: minified by rjsmin and rcssmin.

`course.js` and `course.css` are commented for the people who maintain them; readers
download them on their first visit to any page. The build writes them into the site
without comments and spare white space, with two maintained minifiers that rename
nothing and rewrite no statement, so that what the tests run is what the source says.
(Measured beside the course's own stripper they replaced: a few percent smaller, and
about 1 ms instead of 58 ms a build.) One limit, measured: rjsmin 1.3.0 joins a division and
a regular expression after it, `a / /re/`, into a comment; the scripts write `a / (/re/)`,
and tests/unit/test_assets.py holds them to it.
"""

from __future__ import annotations

from pathlib import Path

import rcssmin
import rjsmin


def strip_js(text: str) -> str:
    """Script without its comments and the white space its tokens do not need.

    >>> print(strip_js('// what\\nlet a = "a // b";  // why\\n\\nf(`${a} ${b + -c}`, /[/ ]/g, d / 2, a - -1);\\n'))
    let a="a // b";f(`${a} ${b + -c}`,/[/ ]/g,d/2,a- -1);
    """
    return str(rjsmin.jsmin(text))


def strip_css(text: str) -> str:
    """Style without its comments and spare white space.

    >>> print(strip_css('/* a note */\\n.a,\\n.b > p:hover {\\n  content: "▸ ";\\n  margin: 0 1em;\\n}\\n'))
    .a,.b>p:hover{content:"▸ ";margin:0 1em}
    """
    return str(rcssmin.cssmin(text))


def strip_site_assets(docs_dir: Path, site_dir: Path) -> None:
    """Rewrite, minified, every script and style sheet the site copied from `docs_dir` (all of them ours)."""
    strippers = {".js": strip_js, ".css": strip_css}
    for source in sorted(docs_dir.rglob("*")):
        target = site_dir / source.relative_to(docs_dir)
        if source.suffix in strippers and target.is_file():
            target.write_text(strippers[source.suffix](source.read_text(encoding="utf-8")), encoding="utf-8")
