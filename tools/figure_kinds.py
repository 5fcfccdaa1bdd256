"""Write FIGURE_KINDS.md, the authors' reference of every figure kind, from the registry and the lessons.

    python -m tools.figure_kinds           # rewrite FIGURE_KINDS.md
    python -m tools.figure_kinds --check   # exit 1 if it is not what the registry says today

Each kind is listed with how to call it and what it computes (its function's
signature and docstring, `macros.figures.kinds`), and the first call of it a
lesson makes, as an example; the unit tests fail when the file is stale.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from macros.figures.kinds import KINDS

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "FIGURE_KINDS.md"

_INTRO = """# Figure kinds

Every figure a lesson shows is a call of one of these macros, `{{ name(arguments, display options) }}`
(CONTRIBUTING.md says how to add one). The list is written from the registry by `make kinds`, and a
test fails when it is stale. Each entry: how to call it, what it computes, and the first call of it in
the lessons, if any. Display options (`unit=`, `digits=`, `words=`, ...) are the README's "Figures".
"""


def first_calls(docs: Path) -> dict[str, str]:
    """The first call of each macro in the lessons (by file name order), as written."""
    calls: dict[str, str] = {}
    call = re.compile(r"\{\{\s*([a-z_]+)\((.*?)\)\s*\}\}", re.DOTALL)
    for page in sorted(docs.rglob("*.md")):
        for match in call.finditer(page.read_text(encoding="utf-8")):
            name = match.group(1)
            calls.setdefault(name, f"{{{{ {name}({' '.join(match.group(2).split())}) }}}}")
    return calls


def reference(docs: Path = ROOT / "docs") -> str:
    """FIGURE_KINDS.md's text."""
    examples = first_calls(docs)
    entries = []
    for name in sorted(KINDS):
        kind = KINDS[name]
        example = f"\n\n    {examples[name]}" if name in examples else "\n\n    (no lesson calls it yet)"
        entries.append(f"## `{name}`\n\n`{kind.usage}`: {kind.doc}{example}\n")
    return _INTRO + f"\n{len(KINDS)} kinds.\n\n" + "\n".join(entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if FIGURE_KINDS.md is stale")
    args = parser.parse_args(argv)
    text = reference()
    if args.check:
        if REFERENCE.read_text(encoding="utf-8") != text:
            print("FIGURE_KINDS.md is not what the registry says today: run `make kinds`", file=sys.stderr)
            return 1
        return 0
    REFERENCE.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
