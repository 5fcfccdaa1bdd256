"""The course's own script and style as the site serves them: their code, without the comments.

`course.js` and `course.css` are commented for the people who maintain them; readers
download them on their first visit to any page. The build writes them into the site
without full-line comments, indentation and blank lines, and changes nothing else: no
code is rewritten, so what the tests run is what the source says.
"""

from __future__ import annotations

import re
from pathlib import Path


def strip_js(text: str) -> str:
    """Script without its full-line `//` comments, indentation and blank lines.

    Only whole lines go: a line that starts with `//` is a comment in the course's script,
    which writes no multi-line strings or template literals.

    >>> print(strip_js('// what\\n  const a = "//";  // why\\n\\n  call(a);\\n'), end="")
    const a = "//";  // why
    call(a);
    """
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//")) + "\n"


def strip_css(text: str) -> str:
    """Style without its comments, one rule a line, runs of white space made one space.

    >>> print(strip_css('/* a note */\\n.a,\\n.b {\\n  content: "▸ ";\\n}\\n'), end="")
    .a, .b { content: "▸ "; }
    """
    rules = re.sub(r"\s+", " ", re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)).strip()
    return rules.replace("} ", "}\n") + "\n"


def strip_site_assets(docs_dir: Path, site_dir: Path, paths: list[str]) -> None:
    """Rewrite each of `paths` (the site's script and style sheets) that comes from `docs_dir`, stripped."""
    strippers = {".js": strip_js, ".css": strip_css}
    for path in paths:
        source, target = docs_dir / path, site_dir / path
        if source.suffix in strippers and source.is_file() and target.is_file():
            target.write_text(strippers[source.suffix](source.read_text(encoding="utf-8")), encoding="utf-8")
