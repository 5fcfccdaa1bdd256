"""The course's own scripts and styles as the site serves them: without comments or spare white space.

`course.js` and `course.css` are commented for the people who maintain them; readers
download them on their first visit to any page. The build writes them into the site
without comments and without the white space the code does not need; no name, string
or statement is rewritten, so that what the tests run is what the source says.

Styles go through rcssmin, a maintained minifier. Scripts go through the course's own token
reader below, because the maintained one measured beside it, rjsmin 1.3.0, changes what a
script does: it ends a template literal at a nested one's backquote, then strips the spaces of
the text after it as code (`within ${p}% of the key` inside another template became
"within 2%of the key" on every quiz page), and it reads `a / /re/` as a comment. The tests run
every snippet before and after in Node (tests/unit/test_assets.py).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import rcssmin

#: Words after which a `/` starts a regular expression, as after an operator; after other words it divides.
_BEFORE_EXPRESSION = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case"}
_WORD_CHARACTER = re.compile(r"[\w$]")
#: Tokens after which a `/` starts a regular expression (after a division too: `a / /re/.source.length`).
_BEFORE_OPERAND = set("(,=:[!&|?{};+-*/%<>~^")


class _Script:
    """A script read token by token: strings, template literals (nested ones too), regular expressions and
    comments told from the code around them, so that only the white space between tokens is touched."""

    def __init__(self, text: str) -> None:
        self.text, self.at, self.out = text, 0, [""]
        self.gap = ""  # the white space since the last token: "", " " or "\n" (a line end is kept: ASI)
        self.last = ""  # the last token of code, to tell a regular expression from a division
        self.templates: list[int] = []  # for each open `${` of a template literal, the braces open inside it

    def emit(self, token: str, last: str) -> None:
        before, after = self.out[-1][-1:], token[0]
        if self.gap == "\n":
            self.out.append("\n")
        elif self.gap and (
            (_WORD_CHARACTER.match(before) and _WORD_CHARACTER.match(after))
            or before + after in {"++", "--", "//", "/*"}
        ):
            self.out.append(" ")
        self.out.append(token)
        self.gap, self.last = "", last

    def end_of(self, quote: str) -> int:
        """Where the string opened at the current position ends."""
        end = self.at + 1
        while self.text[end] != quote:
            end += 2 if self.text[end] == "\\" else 1
        return end + 1

    def template_piece(self) -> None:
        """From a backquote or the `}` that closes a `${`, to the next backquote or `${`."""
        end = self.at + 1
        while self.text[end] != "`" and not self.text.startswith("${", end):
            end += 2 if self.text[end] == "\\" else 1
        if self.text[end] == "`":
            self.emit(self.text[self.at : end + 1], ")")
            self.at = end + 1
        else:
            self.templates.append(0)
            self.emit(self.text[self.at : end + 2], "(")
            self.at = end + 2

    def regular_expression(self) -> None:
        end, in_class = self.at + 1, False
        while in_class or self.text[end] != "/":
            in_class = (in_class or self.text[end] == "[") and self.text[end] != "]"
            end += 2 if self.text[end] == "\\" else 1
        end += 1
        while _WORD_CHARACTER.match(self.text[end]):
            end += 1
        self.emit(self.text[self.at : end], ")")
        self.at = end

    def read(self) -> str:
        text = self.text
        while self.at < len(text):
            char = text[self.at]
            if char.isspace():
                self.gap = "\n" if char == "\n" or self.gap == "\n" else " "
                self.at += 1
            elif text.startswith("//", self.at):
                self.at = text.find("\n", self.at) if "\n" in text[self.at :] else len(text)
            elif text.startswith("/*", self.at):
                self.at, self.gap = text.index("*/", self.at) + 2, self.gap or " "
            elif char in "\"'":
                end = self.end_of(char)
                self.emit(text[self.at : end], ")")
                self.at = end
            elif char == "`" or (char == "}" and self.templates and self.templates[-1] == 0):
                if char == "}":
                    self.templates.pop()
                self.template_piece()
            elif char == "/" and (not self.last or self.last in _BEFORE_OPERAND or self.last in _BEFORE_EXPRESSION):
                self.regular_expression()
            elif _WORD_CHARACTER.match(char):
                end = self.at
                while end < len(text) and _WORD_CHARACTER.match(text[end]):
                    end += 1
                self.emit(text[self.at : end], text[self.at : end])
                self.at = end
            else:
                if self.templates and char in "{}":
                    self.templates[-1] += 1 if char == "{" else -1
                self.emit(char, char)
                self.at += 1
        return "".join(self.out).lstrip("\n") + "\n"


@lru_cache(maxsize=64)
def strip_js(text: str) -> str:
    """Script without its comments, indentation, blank lines and the spaces its tokens do not need.

    Line ends stay, so that no statement ends where it did not. Strings, template literals
    and regular expressions are kept as written.

    >>> script = '// what\\n  let a = "a // b";  // why\\n\\n  f(`${a} ${`x ${b + -c}`}`, /[/ ]/g, d / 2, a - -1);\\n'
    >>> print(strip_js(script), end="")
    let a="a // b";
    f(`${a} ${`x ${b+-c}`}`,/[/ ]/g,d/2,a- -1);
    """
    return _Script(text).read()


@lru_cache(maxsize=64)
def strip_css(text: str) -> str:
    """Style without its comments and spare white space.

    >>> print(strip_css('/* a note */\\n.a,\\n.b > p:hover {\\n  content: "▸ ";\\n  margin: 0 1em;\\n}\\n'))
    .a,.b>p:hover{content:"▸ ";margin:0 1em}
    """
    return str(rcssmin.cssmin(text))


def strip_site_assets(docs_dir: Path, site_dir: Path) -> None:
    """Rewrite, minified, every script and style sheet the site copied from `docs_dir` (all of them ours).

    Each text is minified once per process (`strip_js` and `strip_css` keep what they made of it): `mkdocs
    serve` rebuilds the site on every save, and the scripts rarely change between two.
    """
    strippers = {".js": strip_js, ".css": strip_css}
    for source in sorted(docs_dir.rglob("*")):
        target = site_dir / source.relative_to(docs_dir)
        if source.suffix in strippers and target.is_file():
            target.write_text(strippers[source.suffix](source.read_text(encoding="utf-8")), encoding="utf-8")
