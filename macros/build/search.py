"""Material's search index, split so that a page loads it only when its reader opens search.

Material fetches `search/search_index.json` on every page, as soon as the page loads:
the text of every page of the course (about 80 KB gzipped with thirteen lessons), more
than the rest of a page. After the search plugin has written it, the build moves its
pages (`docs`) into `search/search_docs.json` and leaves Material only the settings
(`config`) with no pages. course.js holds back the set-up message Material sends its
search worker with them, until the reader first opens search; then it fetches the
pages and sends the message whole. Search works as Material made it, a moment later.
"""

from __future__ import annotations

import json
from pathlib import Path

#: Where Material's search plugin writes the index, and where its pages go.
INDEX = Path("search/search_index.json")
DOCS = Path("search/search_docs.json")


def defer_search_docs(site_dir: Path) -> None:
    """Move the pages of `site_dir`'s search index into their own file, leaving the index its settings."""
    index_file = site_dir / INDEX
    if not index_file.is_file():  # search turned off in mkdocs.yml
        return
    index = json.loads(index_file.read_text(encoding="utf-8"))
    (site_dir / DOCS).write_text(json.dumps(index["docs"], separators=(",", ":")), encoding="utf-8")
    index_file.write_text(json.dumps({**index, "docs": []}, separators=(",", ":")), encoding="utf-8")
