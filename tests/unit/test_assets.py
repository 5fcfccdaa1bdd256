"""The script and style the site serves: spaces and comments go, and nothing else changes."""

from __future__ import annotations

import pytest

from macros.build.assets import strip_css, strip_js


@pytest.mark.parametrize(
    ("script", "served"),
    [
        # Words keep one space; operators and punctuation need none.
        ("if (a === b) { return typeof c; } else { x = y; }", "if(a===b){return typeof c;}else{x=y;}"),
        # Two signs that would merge into another operator keep theirs.
        ("a - -b + +c, d / /e/.source", "a- -b+ +c,d/ /e/.source"),
        # A line end stays, so that no statement ends where it did not (automatic semicolons).
        ("let a = b\n  (c || d).e()", "let a=b\n(c||d).e()"),
        # Strings keep what looks like code or comments inside them.
        ("f('it\\'s // a = b', \"/* no */\")", "f('it\\'s // a = b',\"/* no */\")"),
        # Template literals keep their text; the code in ${} is code, braces and nested templates too.
        ("`a ${ {b: 1}.b } c ${ `d ${ e ? `f` : 'g' }` } h`", "`a ${{b:1}.b} c ${`d ${e?`f`:'g'}`} h`"),
        # A slash after an operand divides; after an operator or `return` it opens a regular expression.
        (
            "x = (a) / 2 / b; y = [/[/ ]+/g, c]; return / a b/.test(s) && / x/.test(t)",
            "x=(a)/2/b;y=[/[/ ]+/g,c];return/ a b/.test(s)&&/ x/.test(t)",
        ),
        # Comments go, whole-line or trailing, and a block comment between words leaves one space.
        ("// head\nlet a = 1; // why\nlet/* c */b = 2;", "let a=1;\nlet b=2;"),
    ],
)
def test_a_script_loses_its_spare_spaces_and_comments_only(script: str, served: str) -> None:
    assert strip_js(script) == served + "\n"


def test_a_style_keeps_its_selectors_values_and_strings() -> None:
    style = '/* why */\n.a :is(p, li) > b + c,\n.d { margin: 0 calc(1em + 2px); content: "▸ "; }\n'
    assert strip_css(style) == '.a :is(p,li)>b + c,.d{margin:0 calc(1em + 2px);content:"▸ "}\n'
