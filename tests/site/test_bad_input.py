"""Broken copies of the course fail to build, each with one message that names the file, the line and the fix.

Each case breaks a copy of the course the way an author might, builds it in
this process, and checks the build's messages. The line a message names is
found in the broken file itself, never typed here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from mkdocs.commands.build import build
from mkdocs.config import load_config

from macros.data.lessons import index_lessons
from macros.quiz.units import unit_table
from tests.conftest import Built, build_copy, copy_course, course, replace_in

Edit = Callable[[Path, str, str], None]


def soup_of(path: Path) -> BeautifulSoup:
    """A page of a broken copy, parsed afresh (the shared cache is for the real site)."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def lesson_file(number: int) -> str:
    """The source of lesson `number`, relative to the repository, found through the lesson index."""
    return f"docs/{index_lessons(course().docs_dir).lessons[number].src_path}"


LESSON_8 = lesson_file(8)
LESSON_7 = lesson_file(7)


def line_of(path: Path, text: str) -> int:
    """The line of `path` that holds `text`."""
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1) if text in line)


def built_page(built: Built, source: str) -> Path:
    """The page a build wrote from `source` (docs/…/name.md), even when the build failed: MkDocs writes it first."""
    return built.site / source.removeprefix("docs/").removesuffix(".md") / "index.html"


def fails_with(built: Built, where: str, message: str) -> None:
    """The build failed, and said `message` exactly once, at `where` (file, or file:line)."""
    assert not built.ok, "the broken copy built"
    said = [line for line in built.messages if line.startswith(f"{where}: ") and message in line]
    assert len(said) == 1, built.output


def _lesson_8_with(lines: list[str], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    """A copy whose Lesson 8 gains each of `lines` as a paragraph of its own before Practice, built once.

    The cases of one kind share a build: each is still checked at its own line, and
    together they show that one problem never hides the next.
    """
    copy = copy_course(tmp_path_factory.mktemp("broken"))
    path = copy / LESSON_8
    text = path.read_text(encoding="utf-8")
    assert "\n## Practice\n" in text
    path.write_text(
        text.replace("\n## Practice\n", "\n" + "\n\n".join(lines) + "\n\n## Practice\n", 1), encoding="utf-8"
    )
    return path, build_copy(copy)


#: A wrong macro call, and what the build says at its line.
WRONG_CALLS = [
    (
        '{{ model_states("gpt2-1.6b") }}',
        "{{ model_states(\"gpt2-1.6b\") }}: unknown catalog entry 'gpt2-1.6b'. Did you mean 'gpt2-1.5b'",
    ),
    ("{{ model_states(7000000000) }}", "entry is text in quotes, got 7000000000; call it as model_states(entry"),
    ('{{ model_states("gpt2-1.5b", digits="two") }}', "digits must be a whole number from 1 to 6, got 'two'"),
    # An argument by name, as the usage writes it: put in its place, so given twice here.
    ('{{ device_states("gpt2-1.5b", 8, devices=4) }}', "devices is given twice, in its place and by name"),
    ('{{ model_states("gpt2-1.5b", scale="GiB") }}', "unknown display unit 'GiB'; use one of: PB, TB, GB, MB, kB, B"),
    ('{{ value("gpt2-1.5b", "params") }}', "unknown quantity of 'gpt2-1.5b' 'params'. Did you mean 'parameters'?"),
    ('{{ model_states("gpt2-1.5b", digit=2) }}', "unknown display option 'digit'; the options are digits, short"),
    (
        '{{ model_states("gpt2-1.5b", "fp16_parameters", "mixed-adam", 3) }}',
        "call it as model_states(entry, state='all', recipe='mixed-adam'), then display options",
    ),
    ("{{ bytes_per_paramter() }}", "there is no macro 'bytes_per_paramter'"),
    (
        '{{ table("one_copy", rows={"entry": ["gpt2-1.5b"]}, columns={"precision": ["fp16"]}, captoin="x") }}',
        "table() has no option 'captoin' (did you mean caption?); its own are rows, columns, caption,",
    ),
    # Attack round 6: a table without its columns said "TypeError: figure_table() missing 1 required keyword-only".
    (
        '{{ table("one_copy", rows={"entry": ["gpt2-1.5b"]}, caption="x") }}',
        "table() needs columns=, which the call does not give; its options rows, columns are needed",
    ),
    (
        '{{ chart("one_copy", x={"entry": ["gpt2-1.5b"]}, fixed={"precision": "fp16"}, caption="x", lables={}) }}',
        "chart() has no option 'lables' (did you mean labels?); its own are x, caption, series,",
    ),
    ('{{ term("ZeR0") }}', "{{ term(\"ZeR0\") }}: unknown term 'ZeR0'. Nearest: zero"),
    ("`{{ bytes_per_parameter() }}` in a code span", "is inside code, where it would show"),
    ("{% set x = 1 %} a statement", "a page holds macro calls only"),
]


@pytest.fixture(scope="module")
def wrong_calls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    return _lesson_8_with([call for call, _ in WRONG_CALLS], tmp_path_factory)


@pytest.mark.parametrize(("call", "message"), WRONG_CALLS)
def test_a_wrong_macro_call_fails_the_build_at_its_line(
    wrong_calls: tuple[Path, Built], call: str, message: str
) -> None:
    path, built = wrong_calls
    fails_with(built, f"{LESSON_8}:{line_of(path, call)}", message)


#: Calls that crashed the build with a traceback, or rendered a wrong page without a word (found by calling
#: every macro with hostile arguments), and what the build now says at their line.
UNFORESEEN_CALLS = [
    ('{{ zero_max_model("zero-32gb", "dp", 1e999, 64) }}', "a number in a call is finite and at most 10^30"),
    ('{{ zero_max_model("zero-32gb", "dp", 64.5, 64) }}', "mp is a whole number, got 64.5"),
    ('{{ source("zero", "extra") }}', "too many positional arguments; call it as source(source_id)"),
    ("{{ glossary(digits=2) }}", "got an unexpected keyword argument 'digits'; call it as glossary()"),
    ('{{ term("zero", link="no") }}', "link is true or false or none, got 'no'"),
    ('{{ chart([], x={"recipe": ["mixed-adam"]}) }}', "kind is text in quotes, got []"),
    ('{{ calculator("l8-other", devices=-1) }}', "devices=-1: Type a whole number, such as 8"),
    ('{{ calculator("l8-another", gpu="v100") }}', "gpu='v100': Pick one from the list (gpu is one of v100-32gb"),
    ('{{ planner("l8-planner", nodes=0) }}', "nodes=0: It must be at least 1"),
    ('{{ planner("l8-planner-2", gpu="v100-32gb") }}', "gpu='v100-32gb': Pick one from the list (gpu is one of h100"),
    ('{{ planner("l8-planner-3", tensor=2) }}', "the planner has no field tensor; its fields are model, layers"),
    ('{{ planner("Not An Id") }}', 'id= names the planner for the reader\'s stored inputs, like "l13-planner"'),
    (
        '{{ table("zero_states", rows={"dp": [1]}, columns={"stage": ["os"]}, fixed={"entry": "zero-7.5b"}, names=3,'
        ' caption="x") }}',
        "an argument is not one the macro takes (AttributeError",
    ),
]


@pytest.fixture(scope="module")
def unforeseen_calls(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    return _lesson_8_with([call for call, _ in UNFORESEEN_CALLS], tmp_path_factory)


@pytest.mark.parametrize(("call", "message"), UNFORESEEN_CALLS)
def test_a_call_no_macro_foresaw_fails_at_its_line_without_a_traceback(
    unforeseen_calls: tuple[Path, Built], call: str, message: str
) -> None:
    path, built = unforeseen_calls
    fails_with(built, f"{LESSON_8}:{line_of(path, call)}", message)


#: A typed figure in the words an author might use, and where the check finds it.
TYPED_FIGURES = [
    ("(99 GB with buffers)", "99 GB", "the text"),
    ('[the paper](https://arxiv.org/abs/1910.02054 "24 GB of states")', "24 GB", "the title of a <a>"),
    ("1.5 Billion parameters", "1.5 Billion", "the text"),
    ("24 gigabytes of states", "24 gigabytes", "the text"),
    ("1e9 bytes of states", "1e9 bytes", "the text"),
    ("300 GBps of bandwidth", "300 GBps", "the text"),
    ("16 Gbytes of states", "16 Gbytes", "the text"),
    ("a .5 TB checkpoint", ".5 TB", "the text"),
    ("13G tokens of text", "13G tokens", "the text"),
    # A backslash escape is Markdown's placeholder until after the checks: read as the space it becomes.
    ("12\\ GB of states", "12 GB", "the text"),
    # Attack round 9: a superscript after a figure ran on into it ("82 GB1"), so the first was missed and the next
    # "82 GB" told at its line; a currency's sign after its number; hexadecimal; a Roman numeral; an accent.
    ("A1 the card has 82 GB<sup>1</sup> here", "82 GB", "the text"),
    ("A2 the card has 82 GB of memory", "82 GB", "the text"),
    ("it costs 80 € an hour", "80 €", "the text"),
    ("the card holds 0x50 bytes", "0x50 bytes", "the text"),
    ("the card has \u2167 GB of memory", "8 GB", "the text"),
    ("the card has 83 G\u0301B of memory", "83 GB", "the text"),
]


#: A source's name, which holds the numbers its authors gave it ("Meta's Llama 3 8B configuration"), and is no typed
#: figure of the course's: it was told at the line of the call that shows it, and at the glossary's for a term's.
SOURCE_NAME = '{{ source("llama3-8b-config") }} names its source'


@pytest.fixture(scope="module")
def typed_figures(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    return _lesson_8_with([line for line, _, _ in TYPED_FIGURES] + [SOURCE_NAME], tmp_path_factory)


@pytest.mark.parametrize(("line", "typed", "where"), TYPED_FIGURES)
def test_a_typed_figure_fails_the_build_at_its_line(
    typed_figures: tuple[Path, Built], line: str, typed: str, where: str
) -> None:
    path, built = typed_figures
    fails_with(built, f"{LESSON_8}:{line_of(path, line)}", f"{typed!r} in {where} is a typed figure")


def test_a_sources_name_shown_in_a_page_is_no_typed_figure(typed_figures: tuple[Path, Built]) -> None:
    path, built = typed_figures
    at_its_line = f"{LESSON_8}:{line_of(path, SOURCE_NAME)}: "
    assert not [line for line in built.messages if line.startswith(at_its_line)], built.output


#: Script an author might type in a page, as Markdown or as HTML, and what the build says at its line. The first
#: link's address comes again on a later line: each place is told at its own line.
AUTHORED_SCRIPTS = [
    ("A [link](javascript:window.__pwned=1) to click.", "a javascript: address in the href of a <a>"),
    (
        'An *emphasis*{: tabindex="0" autofocus onfocus="window.__pwned=2" } that runs.',
        "an onfocus attribute on a <em>",
    ),
    ('<p onmouseover="window.__pwned=3">A paragraph of HTML.</p>', "an onmouseover attribute on a <p>"),
    ('<a href="data:text/html,&lt;script&gt;x&lt;/script&gt;">A data link</a>', "a data: address in the href of a <a>"),
    ("![A picture](data:image/svg+xml;base64,PHN2Zz4=)", "a data: address in the src of a <img>"),
    ("See [the reference][pwned].", None),
    ("[pwned]: javascript:window.__pwned=4", "a javascript: address in the href of a <a>"),
    ("The same [link again](javascript:window.__pwned=1).", "a javascript: address in the href of a <a>"),
    ("<script>window.__pwned=5</script>", "a <script> that is not one of the course's (inline)"),
    # Where Python's html.parser reads HTML otherwise than a browser: script that only a browser's reading finds.
    ("<!--><img src=x onerror=window.__pwned=7>-->", "an onerror attribute on a <img>"),
    (
        '<svg><a><set attributeName="href" to="javascript:window.__pwned=8"/><text y="20">A link</text></a></svg>',
        "a <set> that changes a link's address",
    ),
    # The same attribute and value on two lines, of two elements: each at its own line.
    ('Second <span onclick="window.__pwned=9">a</span> and.', "an onclick attribute on a <span>"),
    ('Third *b*{: onclick="window.__pwned=9" } end.', "an onclick attribute on a <em>"),
    # An address spelt with a character reference, after a line that only looks like it (a backslash before the
    # colon makes no scheme): told at its own line.
    ('A [link](x){: href="javascript\\:window.__pwned=13" } escaped.', None),
    ('<a href="java&#115;cript:window.__pwned=13">Another</a> escaped.', "a javascript: address in the href of a <a>"),
    # Attack round 9: a Markdown link's address spelt with a character reference names no attribute in its line.
    ("A [link](&#106;avascript:window.__pwned=14) spelt.", "a javascript: address in the href of a <a>"),
]

#: HTML an author might type that no page uses, the line it is reported at, and what is told there: in a lesson's
#: text, and in a quiz's option and its feedback. A <noscript> is told as script: a browser that runs scripts
#: reads its content as text, a parser without them as markup, and they end it at different places.
AUTHORED_MARKUP = [
    (
        '<noscript><p title="</noscript><img src=x onerror=window.__pwned=9>"></noscript>',
        None,
        "the page's content holds a <noscript> element",
    ),
    ('<link rel="stylesheet" href="https://evil.example/x.css">', None, "the page's own HTML holds a <link> element"),
    (
        '<p style="background: url(https://evil.example/x.png)">A styled paragraph.</p>',
        None,
        "the page's own HTML holds a style attribute",
    ),
    ("<math><mi>x</mi></math> in a sentence.", None, "the page's own HTML holds a <math> element"),
    # Marked `markdown`, md_in_html takes a block out of the stash into the page's tree: still the author's.
    (
        '<noscript markdown>\nHi <!-- </noscript><img src=x onerror="window.__pwned=10"> -->\n</noscript>',
        "<noscript markdown>",
        "the page's content holds a <noscript> element",
    ),
    (
        '<form markdown action="https://evil.example/">\nA form\n</form>',
        "<form markdown",
        "the page's own HTML holds a <form> element",
    ),
    (
        '<span style="background-image: \\75 rl(https://evil.example/e.png)">esc</span>',
        None,
        "the page's own HTML holds a style attribute",
    ),
    (
        "/// quiz | Attack\n    id: l8-attack\n    kind: single\n\nWhich?\n\n//// option | correct\nThis one\n\n"
        "Right. <style>body { display: none }</style>\n////\n\n//// option\nThat one\n\nNo.\n////\n///",
        "Right. <style>",
        "the page's own HTML holds a <style> element",
    ),
    # Escaped parentheses are Markdown's placeholders until after the checks, then the style's own.
    (
        'Styled here.\n{: style="background-image: url\\(https://evil.example/a\\)" }',
        "{: style=",
        "the page's own HTML holds a style attribute",
    ),
    # An element's name in any case.
    ("<svg><foreignObject><p>In SVG</p></foreignObject></svg> text.", None, "the page's own HTML holds a <svg>"),
    # Ids, classes and attributes the theme's scripts and the course's find their elements by: Material reads its
    # whole configuration (its search worker's address among it) from the first element with the id __config.
    ('Configured.\n{: #__config hidden="" }', "{: #__config", "the page's content holds an id='__config'"),
    ('Hidden.\n{: #kept hidden="" }', '{: #kept hidden="" }', "the page's content holds a hidden attribute on a <p>"),
    ('<div id="__config" hidden>{"search": "data:text/javascript,x"}</div>', None, "holds an id='__config'"),
    ('<pre class="mermaid">graph TD; A-->B</pre>', None, "holds a class='mermaid' on a <pre>"),
    ("```{#sbn-figures data-json=x}\nx = 1\n```", "```{#sbn-figures", "holds an id='sbn-figures'"),
    ("```{#listing data-json=x}\ny = 1\n```", "```{#listing", "holds a data-json attribute on a <div>"),
    ("#### Sbn figures", None, "holds an id='sbn-figures'"),
    # An id is a global of its name where none is set: these stand in for the course's scripts' own.
    ('<span id="sbnFrames"></span> here.', None, "holds an id='sbnFrames'"),
    ("Calculated.\n{: #sbnCalculator }", "{: #sbnCalculator", "holds an id='sbnCalculator'"),
    ('<p id="sbnAnswers">x</p>', None, "holds an id='sbnAnswers'"),
    ('Some *words*{: data-md-component="tabs" } here.', None, "holds a data-md-component attribute on a <em>"),
    ('It needs <span aria-description="24 GB">this</span>.', None, "holds an aria-description attribute on a <span>"),
]
#: An id of the author's own that the page already gives an element (a quiz's), which only the written page shows.
ID_TWICE = (
    '<span id="quiz-l8-practice-1">Twice.</span>',
    "the page holds two elements with the id 'quiz-l8-practice-1'",
)


@pytest.fixture(scope="module")
def authored_scripts(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    lines = [line for line, _ in AUTHORED_SCRIPTS] + [text for text, _, _ in AUTHORED_MARKUP] + [ID_TWICE[0]]
    return _lesson_8_with(lines, tmp_path_factory)


#: Attack round 8, F5: ids the author wrote that the page already gives an element: a quiz's (which the heading took
#: silently, the toc extension keeping ids it is given), a checklist rep's box (told without a line), a heading's from
#: its text (which the toc extension renamed). Each is told at the line that writes it.
IDS_WRITTEN_TWICE = [
    ("### Notes {#quiz-l8-practice-1}", "the page holds two elements with the id 'quiz-l8-practice-1'"),
    ("An estimate.\n{: #check-l8-rep-estimate }", "the page holds two elements with the id 'check-l8-rep-estimate'"),
    # A heading's id from its text, which the toc extension renamed warm-up_1 silently.
    ("A warm-up.\n{: #warm-up }", "the page holds two elements with the id 'warm-up': a heading's"),
    # A heading whose text gives a quiz's element id, which no line writes: renamed quiz-l8-warmup-1_1 silently.
    ("### Quiz *l8* warmup 1", "the heading 'Quiz l8 warmup 1' would have the id 'quiz-l8-warmup-1'"),
]


@pytest.fixture(scope="module")
def ids_written_twice(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    return _lesson_8_with([text for text, _ in IDS_WRITTEN_TWICE], tmp_path_factory)


@pytest.mark.parametrize(("text", "message"), IDS_WRITTEN_TWICE)
def test_an_id_the_page_gives_twice_fails_the_build_at_the_line_that_writes_it(
    ids_written_twice: tuple[Path, Built], text: str, message: str
) -> None:
    path, built = ids_written_twice
    fails_with(built, f"{LESSON_8}:{line_of(path, text.splitlines()[-1])}", message)


def test_a_glossary_entry_whose_id_is_the_glossary_pages_heading_fails_at_its_line(course_copy: Path) -> None:
    # Attack round 8, F5: the entry took id="glossary" and the page's title became glossary_1, silently.
    terms = course_copy / "glossary/terms.yml"
    replace_in(
        terms,
        "activation-checkpointing:\n",
        "glossary: {term: word list, aliases: [], definition: A list of terms., related: []}\n\n"
        "activation-checkpointing:\n",
    )
    built = build_copy(course_copy)
    fails_with(built, f"glossary/terms.yml:{line_of(terms, 'glossary: {term')}", "the glossary page's heading")


def test_a_glossary_entry_whose_id_the_sites_scripts_look_up_fails_at_its_line(course_copy: Path) -> None:
    # Attack round 9, F16: told at docs/glossary.md, with no line, as an id the page's content holds.
    terms = course_copy / "glossary/terms.yml"
    replace_in(
        terms,
        "activation-checkpointing:\n",
        "sbn-tip-text:\n  term: zebra crossing\n  aliases: []\n  definition: A made-up term.\n  related: []\n\n"
        "activation-checkpointing:\n",
    )
    replace_in(course_copy / LESSON_8, "\n## Practice\n", '\nA {{ term("zebra crossing") }}.\n\n## Practice\n')
    built = build_copy(course_copy)
    fails_with(built, f"glossary/terms.yml:{line_of(terms, 'sbn-tip-text:')}", "the theme's or the course's scripts")
    assert not any("docs/glossary.md" in said for said in built.messages), built.output


@pytest.mark.parametrize(("line", "what"), [case for case in AUTHORED_SCRIPTS if case[1]])
def test_script_in_a_page_fails_the_build_at_its_line(
    authored_scripts: tuple[Path, Built], line: str, what: str
) -> None:
    path, built = authored_scripts
    message = f"the page's content holds {what}, which would run script in a reader's browser"
    fails_with(built, f"{LESSON_8}:{line_of(path, line)}", message)
    assert all("remove it (no event handler" in said for said in built.messages if message in said)


@pytest.mark.parametrize(("text", "line", "message"), AUTHORED_MARKUP)
def test_markup_no_page_uses_fails_the_build_at_its_line(
    authored_scripts: tuple[Path, Built], text: str, line: str | None, message: str
) -> None:
    path, built = authored_scripts
    fails_with(built, f"{LESSON_8}:{line_of(path, line or text)}", message)


def test_an_id_given_twice_in_a_written_page_fails_the_build(authored_scripts: tuple[Path, Built]) -> None:
    fails_with(authored_scripts[1], f"{LESSON_8}:{line_of(authored_scripts[0], ID_TWICE[0])}", ID_TWICE[1])


#: Script in a data file's text, which a page would show as words: the file, the text there, its replacement,
#: and what the build says at its line.
DATA_SCRIPTS = [
    (
        "glossary/terms.yml",
        "Keeping only some of the activations",
        'Keeping *only*{: tabindex="0" autofocus onfocus="window.__pwned=1" } some of the activations',
        "activation-checkpointing.definition: holds an onfocus attribute in an attribute list",
    ),
    (
        "glossary/terms.yml",
        "Keeping only some of the activations",
        "Keeping [only](javascript:window.__pwned=1) some of the activations",
        "activation-checkpointing.definition: holds a javascript: address",
    ),
    (
        "catalog/models.yml",
        "name: GPT-2 1.5B",
        "name: 'GPT-2 1.5B <img src=x onerror=window.__pwned=1>'",
        "gpt2-1.5b.name: holds an onerror attribute on a <img>",
    ),
    (
        "catalog/sources.yml",
        "url: https://arxiv.org/abs/1910.02054v3",
        "url: 'data:text/html,pwned'",
        "zero.url: holds a data: address",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "message"), DATA_SCRIPTS)
def test_script_in_a_data_file_fails_the_build_at_its_line(
    course_copy: Path, edit: Edit, file: str, old: str, new: str, message: str
) -> None:
    edit(course_copy / file, old, new)
    where = file.removeprefix("macros/")  # as the build names the catalog's files
    fails_with(build_copy(course_copy), f"{where}:{line_of(course_copy / file, new)}", message)


def test_a_lesson_added_later_is_checked_like_the_first(course_copy: Path) -> None:
    seed = (course_copy / LESSON_8).read_text(encoding="utf-8")
    # The next number no lesson has taken yet, so that the copy is a lesson the build has never seen.
    number = 1 + max(int(p.name.split("-")[1]) for p in (course_copy / "docs").glob("stage-*/lesson-*.md"))
    lesson = (
        seed.replace("lesson: 8", f"lesson: {number}")
        .replace("l8-", f"l{number}-")
        .replace("Lesson 8.", f"Lesson {number}.")
        .replace("well above the", "31.4 GB per device, well above the")
    )
    path = course_copy / f"docs/stage-4/lesson-{number:02d}-a-lesson-no-test-has-seen.md"
    path.write_text(lesson, encoding="utf-8")
    fails_with(build_copy(course_copy), f"docs/stage-4/{path.name}:{line_of(path, '31.4 GB')}", "'31.4 GB' in the text")


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "parameters: 1_500_000_000",
            "parameters: -1_500_000_000",
            "models.yml:4: gpt2-1.5b.parameters: got -1500000000",
        ),
        ("parameters: 1_500_000_000", "parameters: 1.5e9", "write large ones as 1_500_000_000"),
        ("parameters: 1_500_000_000", "parameters: lots", "gpt2-1.5b.parameters: got 'lots'; expected a whole number"),
        ("layers: 48", "layers: 47.5", "gpt2-1.5b.layers: got 47.5; expected a whole number"),
        ("layers: 48", "layers: 48\n  layers: 49", "the key 'layers' is given twice"),
        (
            "parameters: 1_500_000_000",
            f"parameters: {'9' * 5000}",
            "models.yml:4: not valid YAML: a whole number of more than 40 digits",
        ),
        # Hexadecimal and base 60 would write a large one in fewer digits; YAML 1.1 reads a leading zero as octal,
        # so that 032 layers were 26 and the build passed (attack round 6). A data file's numbers are decimal.
        (
            "layers: 48",
            f"layers: 0x{'f' * 3600}",
            "models.yml:5: not valid YAML: 0xffffffffffffffffff… is not a decimal",
        ),
        ("layers: 48", f"layers: {':'.join(['1'] * 26)}", "models.yml:5: not valid YAML: 1:1:1:1:1:1:1:1:1:1:… is not"),
        ("layers: 48", "layers: 032", "models.yml:5: not valid YAML: 032 is not a decimal whole number"),
    ],
)
def test_a_bad_catalog_value_fails_the_build_naming_file_and_key(
    course_copy: Path, edit: Edit, old: str, new: str, message: str
) -> None:
    edit(course_copy / "catalog/models.yml", old, new)
    built = build_copy(course_copy)
    assert not built.ok and any(message in line for line in built.messages), built.output
    assert "Traceback" not in built.output


#: A lesson broken as an author might break it: the lesson, the text replaced, the line its message is at
#: (the last that holds this text after the edit; None: the file), and the message. Each in a lesson of its
#: own, so that one copy shows them all.
MALFORMED_LESSONS = [
    (7, "## Practice\n", "## Exercises\n", None, "missing the 'Practice' section; start it with a line `## Practice`"),
    (
        8,
        "runs out of compute, and when",
        "runs out of compute and when",
        "**Mission link:**",
        "must quote bullet 4 word for word",
    ),
    (6, "mission: 2", "mission: 9", "mission: 9", "`mission:` names mission bullet 9, which does not exist"),
    (
        7,
        "id: l7-practice-1\n",
        "id: cp-practice-1\n",
        "id: cp-practice-1",
        "the question id 'cp-practice-1' does not start with this lesson's prefix 'l7-'",
    ),
    # Another lesson's id (a calculator's or a planner's ids are question ids too: their readers' stored inputs):
    # told once, where it is given the second time, as off this lesson's prefix, and whose it is.
    (
        9,
        '{{ calculator("l9-calculator"',
        '{{ calculator("l8-calculator"',
        '{{ calculator("l8-calculator"',
        "the question id 'l8-calculator' (docs/stage-4/lesson-08-why-data-parallelism-alone-runs-out-of-memory.md's)"
        " does not start with this lesson's prefix 'l9-'",
    ),
    (
        10,
        "\n## Practice\n",
        '\n{{ planner("l10-planner") }}\n\n{{ planner("l10-planner") }}\n\n## Practice\n',
        '{{ planner("l10-planner") }}',
        "the question id 'l10-planner' is already given on this page",
    ),
]


@pytest.fixture(scope="module")
def malformed_lessons(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    copy = copy_course(tmp_path_factory.mktemp("broken"))
    for number, old, new, _, _ in MALFORMED_LESSONS:
        replace_in(copy / lesson_file(number), old, new)
    return copy, build_copy(copy)


@pytest.mark.parametrize(("number", "old", "new", "at", "message"), MALFORMED_LESSONS)
def test_a_malformed_lesson_fails_the_build(
    malformed_lessons: tuple[Path, Built], number: int, old: str, new: str, at: str | None, message: str
) -> None:
    copy, built = malformed_lessons
    source = lesson_file(number)
    lines = (copy / source).read_text(encoding="utf-8").splitlines()
    fails_with(
        built, f"{source}:{max(n for n, text in enumerate(lines, start=1) if at in text)}" if at else source, message
    )
    # Nothing else is said of it: an id is named in one message only.
    named = message.split("'")[1] if "question id" in message else message
    assert len([said for said in built.messages if named in said]) == 1, built.output


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("prerequisites: [7]", "prerequisites: [99]", "prerequisite Lesson 99 does not exist"),
        ("lesson: 8", "lessno: 8", "every page in stage-4/ is a lesson; its front matter needs `lesson:`"),
        ("title: Lesson 8.", "title: Lesson 8. 24 GB,", "the front matter's title types '24 GB'"),
        (
            "title: Lesson 8.",
            "title: Lesson 8. <img src=x onerror=window.__pwned=1>",
            "the front matter's title holds '<', '>'; a page's title and description are plain text",
        ),
        (
            "description: What a full copy",
            'description: x"><script>window.__pwned=1</script> What a full copy',
            "the front matter's description holds '\"', '>', '<'",
        ),
        ("title: Lesson 8.", "title: Lesson 8. &lt;b&gt;", "the front matter's title holds '&'"),
    ],
)
def test_a_lesson_whose_front_matter_is_wrong_stops_the_build(
    course_copy: Path, edit: Edit, old: str, new: str, message: str
) -> None:
    edit(course_copy / LESSON_8, old, new)
    built = build_copy(course_copy)
    assert not built.ok and any(message in line for line in built.messages), built.output


@pytest.mark.parametrize(
    ("old", "new", "at", "message"),
    [
        (
            "//// option | correct\nEvery device",
            "//// option\nEvery device",
            "id: l8-practice-2",
            "/// quiz | Practice 2: a single-choice quiz needs exactly one `//// option | correct`; it has 0",
        ),
        (
            "    kind: single\n",
            "    kind: single\n    colour: red\n",
            "colour: red",
            "unknown option(s) colour; allowed: id, kind, tolerance",
        ),
        (
            "    kind: numeric\n    tolerance: 5%",
            "    kind: numeric\n    tolerance: 5",
            "tolerance: 5",
            "/// quiz | Practice 1: tolerance: got 5; expected a percentage above 0 and below 100, like 5%",
        ),
        (
            "leaves each device's memory as it was.\n////",
            "leaves each device's memory as it was.",
            "//// option | correct",
            "the `//// option` before it is not closed: end that one with ////",
        ),
        (
            "//// option\nCommunication bandwidth between devices saturates, and a saturated link cannot carry"
            " a larger model",
            "//// option\n\u200b&nbsp; ",
            "id: l8-practice-2",
            "/// quiz | Practice 2: option a) shows no text (only spaces, marks or invisible characters such as a"
            " zero-width space or &nbsp;)",
        ),
        (
            "//// option\nThe all-reduce needs buffers in proportion to the model, and they grow with the number"
            " of devices",
            "//// option\nEvery device holds its own full copy of the model states, so another device adds a copy,"
            " not room",
            "id: l8-practice-2",
            "/// quiz | Practice 2: options b) and c) read the same, 'Every device holds its own full copy of the model"
            " states, so another device adds a copy, not room'",
        ),
        (  # a backslash escape reads as its character: b) and c) both show "…not room!"
            "not room\n\nThe model states are copied, not divided: each new device brings another full copy of the"
            " same {{ bytes_per_parameter(bare=true) }}Ψ bytes, and no device's share shrinks.\n////\n\n//// option\n"
            "The all-reduce needs buffers in proportion to the model, and they grow with the number of devices",
            "not room!\n\nCopied.\n////\n\n//// option\nEvery device holds its own full copy of the model states, so"
            " another device adds a copy, not room\\!",
            "id: l8-practice-2",
            "/// quiz | Practice 2: options b) and c) read the same, 'Every device holds its own full copy of the model"
            " states, so another device adds a copy, not room!'",
        ),
        (
            '{{ model_states("example-7b") }}: {{ bytes_per_parameter() }} for each',
            '{{ value("v100-32gb", "memory") }}: {{ bytes_per_parameter() }} for each',
            "id: l8-practice-1",
            "/// quiz | Practice 1: the key shows as '32 GB (31.7 GiB to programs)', and an answer typed the same way"
            " reads as 32 GB, 6.1% from the key, beyond the tolerance: show the key so that it reads back (binary=true"
            # Attack round 9: binary=true alone still shows the nominal size beside the capacity, and is refused.
            " for a capacity, and nominal=false for a GPU's memory",
        ),
    ],
)
def test_a_malformed_quiz_fails_the_build_at_its_line(
    course_copy: Path, edit: Edit, old: str, new: str, at: str, message: str
) -> None:
    path = course_copy / LESSON_8
    edit(path, old, new)
    fails_with(build_copy(course_copy), f"{LESSON_8}:{line_of(path, at)}", message)


def test_a_quizs_problem_is_told_at_its_own_lines_not_at_an_example_in_code(course_copy: Path, edit: Edit) -> None:
    """A fenced block before the quiz shows its header and id, as an author's note might: the n-th line that reads
    "/// quiz | Practice 2" was taken for the n-th such quiz, and the problem told inside the example."""
    path = course_copy / LESSON_8
    example = "```markdown\n/// quiz | Practice 2\n    id: l8-practice-2\n///\n```"
    edit(path, "\n## Practice\n", f"\n{example}\n\n## Practice\n")
    edit(
        path,
        "//// option\nThe all-reduce needs buffers in proportion to the model, and they grow with the number"
        " of devices",
        "//// option\nEvery device holds its own full copy of the model states, so another device adds a copy,"
        " not room",
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    quiz = [number for number, line in enumerate(lines, start=1) if line == "    id: l8-practice-2"][-1]
    fails_with(build_copy(course_copy), f"{LESSON_8}:{quiz}", "/// quiz | Practice 2: options b) and c) read the same")


def test_a_quiz_left_open_fails_the_build(course_copy: Path) -> None:
    path = course_copy / LESSON_8
    text = path.read_text(encoding="utf-8")
    # The last quiz's closing line, removed: the rest of the page would be swallowed into it.
    closing = text.index("////\n///\n\n## Real-world reps")
    path.write_text(
        text[:closing] + "////\n\n## Real-world reps" + text[closing + len("////\n///\n\n## Real-world reps") :]
    )
    built = build_copy(course_copy)
    fails_with(
        built, f"{LESSON_8}:{line_of(path, 'id: l8-practice-3-compare')}", "is not closed: end it with a line ///"
    )
    # The box that shows it quotes the block's header: that is the problem reported, not Markdown left unread.
    assert not [said for said in built.messages if "no extension reads" in said], built.output


def test_a_question_id_used_on_two_pages_fails_the_build(course_copy: Path, edit: Edit) -> None:
    """Lesson 7 takes Lesson 8's id: told at Lesson 7's line only, as the lesson's id off its prefix; Lesson 8,
    where it is given the second time, is not the one to change."""
    edit(course_copy / LESSON_7, "id: l7-warmup-1", "id: l8-warmup-1")
    built = build_copy(course_copy)
    at = f"{LESSON_7}:{line_of(course_copy / LESSON_7, 'id: l8-warmup-1')}"
    fails_with(built, at, "the question id 'l8-warmup-1' does not start with this lesson's prefix 'l7-'")
    assert len([said for said in built.messages if "l8-warmup-1" in said]) == 1, built.output


def test_issue_link_outside_a_lesson_fails_with_a_clear_message(course_copy: Path, edit: Edit) -> None:
    edit(course_copy / "docs/index.md", "## Syllabus", '{{ issue_link("report") }}\n\n## Syllabus')
    path = course_copy / "docs/index.md"
    fails_with(build_copy(course_copy), f"docs/index.md:{line_of(path, 'issue_link')}", "works on lesson pages only")


#: Markup in the home page's front matter: the field, and what it is given.
#: Front matter a page other than a lesson does not take, which the theme would write into the page as it is
#: or read as another template: the page, the field as written, and the field's name.
FOREIGN_FRONT_MATTER = [
    ("docs/glossary.md", "author: '\"><img src=x onerror=window.__pwned=1>'", "author"),
    ("docs/glossary.md", "template: redirect.html\nlocation: javascript:window.__pwned=2", "template"),
    ("docs/index.md", "subtitle: '<img src=x onerror=window.__pwned=3>'", "subtitle"),
    ("docs/glossary.md", "icon: material/nonexistent", "icon"),
]


@pytest.mark.parametrize(("file", "field", "name"), FOREIGN_FRONT_MATTER)
def test_a_field_a_page_does_not_take_fails_at_its_line(
    course_copy: Path, edit: Edit, file: str, field: str, name: str
) -> None:
    edit(course_copy / file, "---\ntitle:", f"---\n{field}\ntitle:")
    built = build_copy(course_copy)
    fails_with(built, f"{file}:2", f"the front matter's {name!r} is not a field a page of the course takes")
    assert "Traceback" not in built.output


@pytest.mark.parametrize("title", ["title: Glossary\n", ""])
def test_a_first_heading_that_would_be_markup_in_the_title_fails_at_its_line(
    course_copy: Path, edit: Edit, title: str
) -> None:
    """Without a title of its own a page takes its first heading's, and the theme reads its character references
    (Material's striptags) into the <title> unescaped; with one, the heading is still held to it."""
    page = course_copy / "docs/glossary.md"
    if not title:
        edit(page, "title: Glossary\n", "")
    heading = "# Glossary &lt;/title&gt;&lt;img src=x onerror=window.__pwned=1&gt;"
    edit(page, "# Glossary\n", f"{heading}\n")
    built = build_copy(course_copy)
    fails_with(built, f"docs/glossary.md:{line_of(page, heading)}", "the page's first heading, which the theme takes")


@pytest.mark.parametrize(
    ("old", "field"),
    [
        ("title: Glossary", 'title: ["</title><img src=x onerror=window.__pwned=1>"]'),
        ("description: Every term", "description: {a: '\"><img src=x onerror=y>'}\nold: Every term"),
    ],
)
def test_a_title_or_description_that_is_not_text_fails_at_its_line(
    course_copy: Path, edit: Edit, old: str, field: str
) -> None:
    page = course_copy / "docs/glossary.md"
    edit(page, old, field)
    built = build_copy(course_copy)
    name, first = field.partition(":")[0], field.splitlines()[0]
    fails_with(built, f"docs/glossary.md:{line_of(page, first)}", f"the front matter's {name} is ")


MARKUP_IN_FRONT_MATTER = [("title", "Home <b>x</b>"), ("description", 'A "quoted" course')]


@pytest.fixture(scope="module")
def markup_in_front_matter(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    copy = copy_course(tmp_path_factory.mktemp("broken"))
    path = copy / "docs/index.md"
    for field, payload in MARKUP_IN_FRONT_MATTER:
        text = path.read_text(encoding="utf-8")
        start = text.index(f"{field}: ")
        # `title :`, as YAML also reads a key: the line was found by searching the page for "title:", so none.
        path.write_text(f"{text[:start]}{field} : '{payload}'{text[text.index(chr(10), start) :]}", encoding="utf-8")
    return path, build_copy(copy)


@pytest.mark.parametrize(("field", "payload"), MARKUP_IN_FRONT_MATTER)
def test_a_page_title_or_description_with_markup_fails_at_its_line(
    markup_in_front_matter: tuple[Path, Built], field: str, payload: str
) -> None:
    """Not a lesson: the build reports it in the page, and shows the page without the markup meanwhile."""
    path, built = markup_in_front_matter
    assert payload in path.read_text(encoding="utf-8")
    fails_with(built, f"docs/index.md:{line_of(path, field + ' :')}", f"the front matter's {field} holds")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("javascript:window.__pwned=1", "holds a javascript: address"),
        ("data:text/html,<script>x</script>", "holds a <script> that is not one of the course's"),
        ("//evil.example", "expected an address starting with https://"),
        ("https://arxiv.org/abs/1910.02054\\x01", "expected an address starting with https://"),
    ],
)
def test_a_source_address_that_is_not_http_stops_the_build(
    course_copy: Path, edit: Edit, url: str, message: str
) -> None:
    edit(course_copy / "catalog/sources.yml", "url: https://arxiv.org/abs/1910.02054v3", f'url: "{url}"')
    built = build_copy(course_copy)
    assert not built.ok and any(message in m for m in built.messages), built.output


def test_a_navigation_entry_the_theme_would_write_as_markup_stops_the_build_at_its_line(
    course_copy: Path, edit: Edit
) -> None:
    # Material writes navigation titles unescaped and entries' addresses as links, on every page.
    entries = {
        "  - Scratch <img src=x onerror=alert(1)>: index.md": "holds '<', '>'",
        '  - "Help": "javascript:alert(document.domain)"': "leads to an address the course does not link to",
        '  - "Data": "data:text/html,<script>alert(1)</script>"': "leads to an address the course does not link to",
        "  - The 24 GB guide: glossary.md": "types '24 GB'",
    }
    edit(course_copy / "mkdocs.yml", "  - Glossary: glossary.md", "  - Glossary: glossary.md\n" + "\n".join(entries))
    built = build_copy(course_copy)
    assert not built.ok
    said = [line for message in built.messages for line in message.splitlines()]  # one problem a line
    for entry, message in entries.items():
        line = line_of(course_copy / "mkdocs.yml", entry.strip())
        assert sum(s.startswith(f"mkdocs.yml:{line}: ") and message in s for s in said) == 1, built.output
    # Nothing else: the boxes that tell them stand before each lesson's heading, which is still its first (round 10).
    assert all(s.startswith("mkdocs.yml:") or "Aborted" in s for s in said), built.output


def test_a_navigation_problem_shows_in_every_page_of_a_build_that_goes_on(course_copy: Path, edit: Edit) -> None:
    """Attack round 9: under `mkdocs serve` (not strict) a navigation title's problem stopped the build, and the
    server answered no request until mkdocs.yml was fixed. Now the pages are built, each telling the problem, with
    the navigation shown without it: no markup from the title, no link to the refused address."""
    edit(
        course_copy / "mkdocs.yml",
        "  - Glossary: glossary.md",
        '  - Glossary of 80 GB <img src=x onerror=window.__pwned=1>: glossary.md\n  - "Help": "javascript:alert(1)"',
    )
    site = course_copy / "site"
    build(load_config(str(course_copy / "mkdocs.yml"), site_dir=str(site), strict=False))
    page = soup_of(site / "glossary" / "index.html")
    boxes = " ".join(box.get_text() for box in page.select(".sbn-build-error"))
    assert "the navigation title" in boxes and "types '80 GB'" in boxes and "javascript" in boxes
    assert page.select("img[onerror]") == [] and page.select("a[href^='javascript']") == []
    assert "Glossary of 80 GB" in page.get_text()


def test_a_glossary_definition_with_a_link_stops_the_build(course_copy: Path, edit: Edit) -> None:
    edit(
        course_copy / "glossary/terms.yml",
        "Keeping only some of the activations",
        "Keeping [only](https://example.org) some of the activations",
    )
    built = build_copy(course_copy)
    assert not built.ok
    assert any("activation-checkpointing.definition: holds a link or an image" in m for m in built.messages)


def test_a_glossary_definition_with_a_typed_figure_stops_the_build(course_copy: Path, edit: Edit) -> None:
    edit(course_copy / "glossary/terms.yml", "Keeping only some of the activations", "Keeping 8 GB of the activations")
    built = build_copy(course_copy)
    assert not built.ok
    at = line_of(course_copy / "glossary/terms.yml", "Keeping 8 GB") - 1  # the field's line, `definition: >-`
    assert any(
        f"glossary/terms.yml:{at}: activation-checkpointing.definition: types '8 GB'" in m for m in built.messages
    )


@pytest.mark.parametrize(
    ("old", "new", "field"),
    [
        ("term: activation checkpointing", "term: activation checkpointing on 8 GB", "term"),
        ("aliases: [activation recomputation,", "aliases: [recomputation of 8 GB,", "aliases"),
        ('where: "Abstract"', 'where: "Abstract, 8 GB"', "where"),
    ],
)
def test_a_glossary_name_or_place_with_a_typed_figure_stops_the_build_at_its_field(
    course_copy: Path, edit: Edit, old: str, new: str, field: str
) -> None:
    # Attack round 8: these were found only on the glossary page, at docs/glossary.md:11, the line of its macro.
    edit(course_copy / "glossary/terms.yml", old, new)
    built = build_copy(course_copy)
    assert not built.ok
    at = line_of(course_copy / "glossary/terms.yml", new)
    assert any(
        f"glossary/terms.yml:{at}: activation-checkpointing.{field}: types '8 GB'" in m for m in built.messages
    ), built.output
    assert not any("docs/glossary.md" in m for m in built.messages), built.output


def test_a_lesson_in_an_untitled_stage_fails_the_build(course_copy: Path) -> None:
    (course_copy / "docs/stage-9").mkdir()
    seed = (course_copy / LESSON_8).read_text(encoding="utf-8")
    lesson = seed.replace("stage: 4", "stage: 9").replace("lesson: 8", "lesson: 90").replace("l8-", "l90-")
    (course_copy / "docs/stage-9/lesson-90-x.md").write_text(lesson, encoding="utf-8")
    built = build_copy(course_copy)
    assert not built.ok and any(
        "lessons name stage(s) [9] that catalog/course.yml does not title" in m for m in built.messages
    )


def test_the_command_line_prints_a_problem_once_without_a_traceback(course_copy: Path, edit: Edit) -> None:
    # The one case run as an author runs it, to see exactly what the terminal shows.
    path = course_copy / LESSON_8
    edit(path, "//// option | correct\nEvery device", "//// option\nEvery device")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"],
        cwd=course_copy,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    said = [line for line in result.stderr.splitlines() if "needs exactly one `//// option | correct`" in line]
    assert [line.split(" -  ", 1) for line in said] == [
        [
            "ERROR  ",
            f"{LESSON_8}:{line_of(path, 'id: l8-practice-2')}: /// quiz | Practice 2: a single-choice quiz"
            " needs exactly one `//// option | correct`; it has 0",
        ]
    ]
    assert "Traceback" not in result.stderr


def test_under_serve_a_broken_data_file_shows_on_every_page_and_the_site_keeps_its_last_good_data(
    course_copy: Path, edit: Edit
) -> None:
    # The same process builds the copy twice, as `mkdocs serve` does on every save.
    assert build_copy(course_copy).ok
    edit(course_copy / "catalog/models.yml", "layers: 48", "layers: 48.5")
    built = build_copy(course_copy)
    assert not built.ok
    message = "models.yml:5: gpt2-1.5b.layers: got 48.5; expected a whole number (until it is fixed, pages use"
    assert [line for line in built.messages if message in line] != []
    for page in ("index.html", "glossary/index.html"):
        box = soup_of(built.site / page).select_one("article .sbn-build-error")
        assert box is not None and message in box.get_text()


def test_a_mistyped_id_in_a_quiz_key_is_reported_once_at_its_line(course_copy: Path, edit: Edit) -> None:
    """The key's macro call fails; the quiz shows that problem without a second, wrong one ("a typed number")."""
    path = course_copy / LESSON_8
    edit(
        path,
        '{{ model_states("example-7b") }}: {{ bytes_per_parameter() }} for each of',
        '{{ model_states("example-7bb") }}: {{ bytes_per_parameter() }} for each of',
    )
    built = build_copy(course_copy)
    fails_with(built, f"{LESSON_8}:{line_of(path, 'example-7bb')}", "example-7bb")
    problems = [line for line in built.messages if line.startswith(LESSON_8)]
    assert len(problems) == 1, built.output


def _latin_1(path: Path) -> int:
    """Append a line in Latin-1 (café) to `path`; return its line."""
    lines = path.read_bytes().count(b"\n")
    path.write_bytes(path.read_bytes() + b"\n# caf\xe9\n")
    return lines + 2


def _utf_16(path: Path) -> int:
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    return 1


def _sentence(path: Path) -> int:
    """Append a Latin-1 sentence to a page; return its line."""
    lines = path.read_bytes().count(b"\n")
    path.write_bytes(path.read_bytes() + b"\nA caf\xe9.\n")
    return lines + 2


@pytest.mark.parametrize(
    ("file", "spoil", "found"),
    [
        ("catalog/sources.yml", _latin_1, "the byte 0xE9 at column 6"),
        ("catalog/measured.yml", _latin_1, "the byte 0xE9 at column 6"),
        ("catalog/course.yml", _utf_16, "UTF-16 at column 1"),
        ("glossary/terms.yml", _latin_1, "the byte 0xE9 at column 6"),
        (lesson_file(3), _sentence, "the byte 0xE9 at column 6"),
        ("docs/index.md", _sentence, "the byte 0xE9 at column 6"),
    ],
)
def test_a_file_that_is_not_utf_8_stops_the_build_at_its_line(
    course_copy: Path, file: str, spoil: Callable[[Path], int], found: str
) -> None:
    line = spoil(course_copy / file)
    built = build_copy(course_copy)
    fails_with(built, f"{file}:{line}", f"not UTF-8 ({found}): save the file as UTF-8")


def test_a_folder_among_the_catalog_files_stops_the_build_by_name(course_copy: Path) -> None:
    (course_copy / "catalog/zz.yml").mkdir()
    fails_with(build_copy(course_copy), "catalog/zz.yml", "is a folder; expected a text file")


def test_a_units_table_that_is_not_utf_8_stops_the_build_naming_it_not_a_page(
    course_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The table is the package's own file (the one this process imported): the build reads the copy's instead.
    table = course_copy / "macros/quiz/units.yml"
    line = _latin_1(table)
    monkeypatch.setattr("macros.build.state.unit_table", lambda: unit_table(table))
    fails_with(build_copy(course_copy), f"units.yml:{line}", "not UTF-8 (the byte 0xE9 at column 6)")


@pytest.mark.parametrize(
    ("written", "shown"),
    [("~~only~~", "'~~only~~' as typed: strikethrough"), ("^^only^^", "'^^only^^' as typed: an insertion")],
)
def test_a_glossary_definition_with_syntax_it_does_not_read_stops_the_build_at_its_line(
    course_copy: Path, edit: Edit, written: str, shown: str
) -> None:
    path = course_copy / "glossary/terms.yml"
    edit(path, "Keeping only some of the activations", f"Keeping {written} some of the activations")
    at = line_of(path, f"Keeping {written}") - 1  # the field's line, `definition: >-`
    fails_with(
        build_copy(course_copy), f"glossary/terms.yml:{at}", f"activation-checkpointing.definition: shows {shown}"
    )


def test_an_options_problem_is_reported_once_at_its_own_line(course_copy: Path, edit: Edit) -> None:
    """Not at the first `//// option` of the page, and without a second, wrong count of the quiz's options."""
    path = course_copy / LESSON_8
    option = (
        "//// option\nThe all-reduce needs buffers in proportion to the model, and they grow with the number of devices"
    )
    text = path.read_text(encoding="utf-8")
    feedback = text[text.index(option) + len(option) : text.index("\n////", text.index(option))]
    edit(path, option + feedback, option)
    built = build_copy(course_copy)
    at = line_of(path, "The all-reduce needs buffers in proportion") - 1
    fails_with(built, f"{LESSON_8}:{at}", "//// option: write the option's text as its first paragraph, then its")
    problems = [line for line in built.messages if line.startswith(LESSON_8)]
    assert len(problems) == 1, built.output


def test_markdown_in_a_catalog_value_shows_as_typed_and_blames_no_page(course_copy: Path, edit: Edit) -> None:
    """Data is text: a stage's summary with the syntax of extensions the site does not enable is shown as it is
    typed, not read by the front door's Markdown and then told as that page's own (issue 25, round 5)."""
    typed = "~~del~~ ==mark== ^sup^ ++ctrl++ H~2~O $x$"
    edit(
        course_copy / "catalog/course.yml",
        "why the copies run out of memory.",
        f"why the copies run out of memory. {typed}",
    )
    built = build_copy(course_copy)
    assert built.ok, built.output
    assert typed in " ".join(soup_of(built.site / "index.html").get_text().split())


def test_markdown_in_a_lessons_title_is_told_once_at_its_heading(course_copy: Path, edit: Edit) -> None:
    """Attack round 9 (F1): a title with syntax the site does not read was told at its lesson's heading, and again
    at docs/index.md without a line, where the syllabus shows the title: data there, as a stage's summary is."""
    path = course_copy / LESSON_8
    title = "Lesson 8. Why Data Parallelism Alone Runs Out of Memory"
    edit(path, f"title: {title}\n", f"title: {title} ~~struck~~\n")
    edit(path, f"# {title}\n", f"# {title} ~~struck~~\n")
    built = build_copy(course_copy)
    fails_with(built, f"{LESSON_8}:{line_of(path, '# Lesson 8.')}", "'~~struck~~' is strikethrough")
    assert len([line for line in built.messages if "~~struck~~" in line]) == 1, built.output


def test_a_typed_figure_in_a_mission_bullet_is_told_once_at_its_line(course_copy: Path, edit: Edit) -> None:
    """Attack round 9, F18: it was told at docs/index.md:23, the line of the {{ mission() }} call that shows it."""
    path = course_copy / "catalog/course.yml"
    edit(path, "splits a batch across devices", "splits a batch across 80 GB devices")
    built = build_copy(course_copy)
    fails_with(built, f"catalog/course.yml:{line_of(path, '80 GB devices')}", "mission: item 3: types '80 GB'")
    assert not any("docs/index.md" in said for said in built.messages), built.output


def test_markdown_in_a_stage_title_is_told_once_at_its_line(course_copy: Path, edit: Edit) -> None:
    """Attack round 9, F20: "Planning *a* run" built, and the syllabus showed "Stage 8: Planning *a* run"."""
    path = course_copy / "catalog/course.yml"
    edit(path, "title: Planning a run", "title: Planning *a* run")
    built = build_copy(course_copy)
    fails_with(built, f"catalog/course.yml:{line_of(path, 'Planning *a* run')}", "stages.8.title: is Markdown")
    assert len(built.messages) == 2, built.output  # the problem, and MkDocs' word that the build stopped


def test_a_line_separator_in_front_matter_is_told_once_at_its_line(course_copy: Path, edit: Edit) -> None:
    """Attack round 9, F13: YAML reads U+2028 as a line break, and the build told "not valid YAML: could not find
    expected ':'" two lines below the character, without naming it."""
    path = course_copy / lesson_file(12)
    description = next(line for line in path.read_text(encoding="utf-8").split("\n") if line.startswith("description:"))
    edit(path, description, description + "\u200b\u2028second line")
    # Its line as an editor counts lines, by line feeds (`splitlines`, as YAML, counts U+2028 too).
    line = 1 + path.read_text(encoding="utf-8").split("\n").index(description + "\u200b\u2028second line")
    built = build_copy(course_copy)
    fails_with(built, f"{lesson_file(12)}:{line}", "the front matter is not valid YAML here: U+2028 LINE SEPARATOR")
    assert len([said for said in built.messages if "U+2028" in said]) == 1, built.output


def test_a_quiz_id_written_otherwise_is_told_once_at_its_own_line(course_copy: Path, edit: Edit) -> None:
    """Attack round 8: Practice 2 gives Practice 1's id, quoted and with a comment. A search for the text
    "id: l8-practice-1" found Practice 1's line; the build tells it once, at Practice 2's own id line."""
    path = course_copy / LESSON_8
    edit(path, "    id: l8-practice-2", '    id: "l8-practice-1"  # the id given twice')
    built = build_copy(course_copy)
    at = f"{LESSON_8}:{line_of(path, '# the id given twice')}"
    fails_with(built, at, "/// quiz | Practice 2: the id l8-practice-1 is already a question of this page")
    assert len([said for said in built.messages if "l8-practice-1" in said]) == 1, built.output


def test_a_stage_not_its_folders_is_told_once_at_its_line(course_copy: Path, edit: Edit) -> None:
    """Attack round 8: `stage:` at odds with the lesson's folder was told at no line."""
    path = course_copy / LESSON_8
    edit(path, "\nstage: 4\n", "\nstage: 3\n")
    built = build_copy(course_copy)
    at = f"{LESSON_8}:{line_of(path, 'stage: 3')}"
    fails_with(built, at, "`stage: 3` but the lesson is in stage-4/; make them agree")
    assert len([said for said in built.messages if "stage: 3" in said]) == 1, built.output


#: Blocks nested far deeper than the site reads (`data.nesting.MAX_NESTING`), each kind of container the way an
#: author could nest it, and the text at its first line beyond the bound. Before the bound, the first three ended
#: the build in a RecursionError and the last took minutes.
DEEP = 1100
DEEP_NESTINGS = [
    ("\n\n".join(f'{"    " * level}!!! note "admonition-{level}"' for level in range(DEEP)), '"admonition-51"'),
    (
        "\n".join(f'<div markdown="1" title="html-{level}">' for level in range(DEEP)) + "\n\n" + "</div>\n" * DEEP,
        "html-51",
    ),
    ("> " * DEEP + "quoted-deeply", "quoted-deeply"),
    (
        "\n\n".join(f"{'/' * (3 + DEEP - level)} checklist | block-{level}" for level in range(DEEP))
        + "\n\n"
        + "\n\n".join("/" * (4 + level) for level in range(DEEP)),
        "block-51",
    ),
]


def test_blocks_nested_beyond_the_bound_are_told_at_their_first_line_and_left_out(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    from macros.data.nesting import MAX_NESTING

    path, built = _lesson_8_with([block for block, _ in DEEP_NESTINGS], tmp_path_factory)
    assert "Traceback" not in built.output and "RecursionError" not in built.output
    for _, marker in DEEP_NESTINGS:
        fails_with(built, f"{LESSON_8}:{line_of(path, marker)}", f"nested more than {MAX_NESTING} levels deep")


@pytest.mark.parametrize(
    ("typed", "named", "also"),
    [
        # The page is built without it, and the figure the reader then reads is told too.
        ("80\x00 GB", "U+0000 at column", "'80 GB' in the text is a typed figure"),
        ("a\x0bb", "U+000B at column", None),
        ("ab\u202ecd", "U+202E RIGHT-TO-LEFT OVERRIDE", None),
        # Attack round 10: the build's own placeholder character, whose 'GB' after it was told as a typed unit.
        ("\ue004 GB", "U+E004 at column", None),
    ],
)
def test_a_control_character_in_a_page_is_told_at_its_line(
    course_copy: Path, edit: Edit, typed: str, named: str, also: str | None
) -> None:
    """Attack round 9: a NUL reached the page, whose browser dropped it ("80<NUL> GB" read as 80 GB, unchecked), and
    other controls showed as boxes; data files refuse them, pages did not."""
    path = course_copy / LESSON_8
    edit(path, "\n## Practice\n", f"\nThe card has {typed} here.\n\n## Practice\n")
    line = 1 + path.read_text(encoding="utf-8").split("\n").index(f"The card has {typed} here.")
    built = build_copy(course_copy)
    fails_with(built, f"{LESSON_8}:{line}", f"the page holds {named}")
    at_line = [said for said in built.messages if said.startswith(f"{LESSON_8}:{line}: ")]
    assert len(at_line) == 1 + (also is not None) and all(str(also) in said for said in at_line[1:]), built.output


#: Attack round 9: blocks whose problem was taken in silence, told at another block's line, or told more than once.
#: Each goes before Practice of its own lesson, in one copy: the lesson's problems are that block's alone.
ATTACK_9_BLOCKS = {
    # F9: an option given twice, the last one taken in silence (the page used l6-practice-93).
    6: "/// quiz | Practice 92\n    id: l6-practice-92\n    kind: single\n    id: l6-practice-93\n\nWhich one?\n\n"
    "//// option | correct\nYes this\n\nFeedback 0.\n////\n\n//// option\nNo that\n\nFeedback 1.\n////\n///",
    # F10: a quiz left open, which every later block of the page was told to start inside.
    12: "/// quiz | Practice 92\n    id: l12-practice-92\n    kind: free\n\nWhat?\n\n//// answer\nThis.\n////",
    # F11: an answer inside a checklist, told at the page's first `//// answer` (a warm-up's).
    15: "/// checklist | Extra reps\n    items: [fp8-rep-x1]\n\n- one\n\n//// answer\nx\n////\n///",
    # F12: an empty item, told at its line and again, with no line, as "a /// block no extension reads": the
    # problem's own box, read back.
    5: "/// checklist | Extra reps\n    items: [l5-rep-x1, l5-rep-x2]\n\n- \n- two\n///",
}


@pytest.fixture(scope="module")
def attack_9(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    copy = copy_course(tmp_path_factory.mktemp("broken"))
    for number, block in ATTACK_9_BLOCKS.items():
        replace_in(copy / lesson_file(number), "\n## Practice\n", f"\n{block}\n\n## Practice\n")
    return copy, build_copy(copy)


def problems_of(built: Built, number: int) -> list[str]:
    """The build's messages about lesson `number`."""
    return [said for said in built.messages if said.startswith(f"{lesson_file(number)}:")]


def test_a_blocks_option_given_twice_is_told_once_at_its_second_line(attack_9: tuple[Path, Built]) -> None:
    copy, built = attack_9
    at = f"{lesson_file(6)}:{line_of(copy / lesson_file(6), 'id: l6-practice-93')}"
    fails_with(built, at, "/// quiz | Practice 92: the key 'id' is given twice in its options: keep one")
    assert len(problems_of(built, 6)) == 1, built.output


def test_a_quiz_left_open_is_told_once_not_at_every_block_after_it(attack_9: tuple[Path, Built]) -> None:
    copy, built = attack_9
    at = f"{lesson_file(12)}:{line_of(copy / lesson_file(12), 'id: l12-practice-92')}"
    fails_with(
        built,
        at,
        "/// quiz | Practice 92: is not closed: end it with a line /// before /// quiz | Practice 1, inside it",
    )
    assert len(problems_of(built, 12)) == 1, built.output


def test_a_part_inside_a_checklist_is_told_at_its_own_line(attack_9: tuple[Path, Built]) -> None:
    copy, built = attack_9
    lines = (copy / lesson_file(15)).read_text(encoding="utf-8").splitlines()
    checklist = lines.index("/// checklist | Extra reps")
    at = f"{lesson_file(15)}:{lines.index('//// answer', checklist) + 1}"
    fails_with(built, at, "//// answer: it belongs directly inside a /// quiz block")
    assert len(problems_of(built, 15)) == 1, built.output


def test_a_checklist_items_problem_is_told_once_not_again_as_its_box(attack_9: tuple[Path, Built]) -> None:
    copy, built = attack_9
    lines = (copy / lesson_file(5)).read_text(encoding="utf-8").splitlines()
    at = f"{lesson_file(5)}:{lines.index('/// checklist | Extra reps') + 4}"  # its first item, `- `
    fails_with(built, at, "/// checklist | Extra reps: item 1 (l5-rep-x1) shows no text")
    assert len([said for said in built.messages if "docs/stage-3/lesson-05" in said]) == 1, built.output


#: A page that is no lesson, with a quiz whose id is Lesson 7's, on its line 4.
EXTRA_QUIZ = """# Extra

/// quiz | Practice 1
    id: l7-practice-1
    kind: free

What?

//// answer
This.
////
///
"""


def test_a_lessons_id_taken_by_another_page_is_told_at_that_page(course_copy: Path) -> None:
    """Attack round 9: a new page (read before the lesson, in alphabetical order) that took Lesson 7's question id
    had the published lesson blamed, three times (its quiz, then its answer and mistake as misplaced)."""
    (course_copy / "docs/extra.md").write_text(EXTRA_QUIZ, encoding="utf-8")
    built = build_copy(course_copy)
    fails_with(built, "docs/extra.md:4", "carries the prefix 'l7-' of Lesson 7")
    assert not [said for said in built.messages if "lesson-07" in said.split(":")[0]], built.output


def test_a_quiz_whose_id_a_call_took_is_told_once(course_copy: Path, edit: Edit) -> None:
    """Attack round 9: its answer and mistake were then told they belong inside a quiz, two wrong problems."""
    path = course_copy / lesson_file(7)
    edit(path, "\n## Practice\n", '\n{{ calculator("l7-practice-1", devices=8) }}\n\n## Practice\n')
    built = build_copy(course_copy)
    assert len([said for said in built.messages if "lesson-07" in said.split(":")[0]]) == 1, built.output
    fails_with(built, f"{lesson_file(7)}:{line_of(path, 'id: l7-practice-1')}", "is already given on this page")


def test_a_lessons_heading_is_its_title_and_its_only_top_heading(course_copy: Path, edit: Edit) -> None:
    """Attack round 9: a heading edited alone read otherwise than the tab, the navigation and search, which show the
    front matter's title, and a second top heading was taken too; each is told at its line."""
    one_path, two_path = course_copy / lesson_file(1), course_copy / lesson_file(2)
    edit(one_path, "# Lesson 1. How Many Parameters", "# Lesson 1. Something Else Entirely, not How Many Parameters")
    edit(two_path, "\n## Practice\n", "\n# A second top heading\n\n## Practice\n")
    built = build_copy(course_copy)
    fails_with(
        built,
        f"{lesson_file(1)}:{line_of(one_path, '# Lesson 1. Something Else')}",
        'the lesson begins with the heading "Lesson 1. Something Else Entirely',
    )
    fails_with(
        built,
        f"{lesson_file(2)}:{line_of(two_path, '# A second top heading')}",
        "'A second top heading' is a second top heading (#) of the lesson",
    )


def test_a_heading_whose_id_the_scripts_look_up_is_told_once_at_its_line(course_copy: Path, edit: Edit) -> None:
    """Attack round 10: it was told at its line, and again without one as two elements of one id (the course's own
    units table holds #sbn-units)."""
    path = course_copy / LESSON_8
    edit(path, "\n## Practice\n", "\n### SBN units\n\nIts text.\n\n## Practice\n")
    built = build_copy(course_copy)
    fails_with(built, f"{LESSON_8}:{line_of(path, '### SBN units')}", "holds an id='sbn-units'")
    assert len([said for said in built.messages if "sbn-units" in said]) == 1, built.output


#: A figure's call where Markdown or HTML writes an attribute, and the place the build names (attack round 10: its
#: HTML landed in the attribute unescaped, and the image lost its source, the link its address).
CALLS_IN_ATTRIBUTES = [
    ('An image ![of {{ one_copy("gpt2-1.5b", "fp32") }}](https://example.org/a.png) here.', "an image's alt text"),
    (
        'A [link](https://example.org "of {{ one_copy("gpt2-1.5b", "fp32") }}") here.',
        "a link's or an image's address or title",
    ),
    ('A <span title="of {{ one_copy("gpt2-1.5b", "fp32") }}">span</span> here.', "an HTML tag"),
    ('An *emphasis*{: title="of {{ one_copy("gpt2-1.5b", "fp32") }}" } here.', "an attribute list"),
]


@pytest.fixture(scope="module")
def calls_in_attributes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Built]:
    return _lesson_8_with([line for line, _ in CALLS_IN_ATTRIBUTES], tmp_path_factory)


@pytest.mark.parametrize(("line", "place"), CALLS_IN_ATTRIBUTES)
def test_a_figure_in_an_attribute_is_told_at_its_line(
    calls_in_attributes: tuple[Path, Built], line: str, place: str
) -> None:
    path, built = calls_in_attributes
    fails_with(built, f"{LESSON_8}:{line_of(path, line)}", f"is inside {place}, which holds text")


def test_a_page_with_a_figure_in_an_attribute_keeps_its_image_and_link_whole(
    calls_in_attributes: tuple[Path, Built],
) -> None:
    page = soup_of(built_page(calls_in_attributes[1], LESSON_8))
    assert page.select("img[src='https://example.org/a.png']") and page.select("a[href='https://example.org']")
    assert not [tag for tag in page.find_all(True) if any("<span" in str(value) for value in tag.attrs.values())]
