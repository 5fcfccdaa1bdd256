"""The scripts and styles the site serves: smaller, and doing exactly what their source does (macros/build/assets.py).

Each script snippet is run by Node before and after minifying, and must give the same value; every
script of the course must still parse. (Node is the machine's; CI installs it for the audit.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from macros.build.assets import strip_css, strip_js

ASSETS = Path(__file__).parents[2] / "docs" / "assets"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not installed (CI installs it)")


def _run(script: str) -> object:
    """The JSON value of `script`'s last expression, as Node computes it."""
    assert NODE is not None
    program = f"const value = eval({json.dumps(script)}); console.log(JSON.stringify(value));"
    result = subprocess.run([NODE, "-e", program], capture_output=True, text=True, timeout=30, check=True)
    return json.loads(result.stdout)


@needs_node
@pytest.mark.parametrize(
    "script",
    [
        "let a = 1, b = 1; (a === b) ? typeof a : 'no'",
        "let b = 3, c = 2; [1 - -b + +c, 10 / (/ e/).source.length]",
        # A line end that ends a statement (automatic semicolon insertion).
        "let a = 2\nlet b = a\n;[a, b]",
        "['it\\'s // a = b', \"/* no */\"]",
        "let e = 0; `a ${ {b: 1}.b } c ${ `d ${ e ? `f` : 'g' }` } h`",
        "let a = 6, b = 3, s = ' a b', t = ' x'; [(a) / 2 / b, [/[/ ]+/g.source], / a b/.test(s) && / x/.test(t)]",
        "// head\nlet a = 1; // why\nlet/* c */b = 2; a + b",
        # A template inside a template: its text keeps its spaces (rjsmin 1.3.0 took it for code).
        "let v = false, p = 2; `✓ Correct: ${v ? 'a' : `within ${p}% of the key`}.`",
        "let e = /e/; [10 / / e/.source.length]",
    ],
)
def test_a_minified_script_computes_what_its_source_does(script: str) -> None:
    served = strip_js(script)
    assert len(served) <= len(script)
    assert _run(served) == _run(script)


@needs_node
@pytest.mark.parametrize("path", sorted(ASSETS.rglob("*.js")), ids=lambda path: path.name)
def test_every_script_of_the_course_still_parses_once_minified(path: Path, tmp_path: Path) -> None:
    served = tmp_path / path.name
    served.write_text(strip_js(path.read_text(encoding="utf-8")), encoding="utf-8")
    assert NODE is not None
    checked = subprocess.run([NODE, "--check", str(served)], capture_output=True, text=True, timeout=30)
    assert checked.returncode == 0, checked.stderr


def test_a_style_keeps_its_selectors_values_and_strings() -> None:
    style = '/* why */\n.a :is(p, li) > b + c,\n.d { margin: 0 calc(1em + 2px); content: "▸ "; }\n'
    assert strip_css(style) == '.a :is(p,li)>b + c,.d{margin:0 calc(1em + 2px);content:"▸ "}'
