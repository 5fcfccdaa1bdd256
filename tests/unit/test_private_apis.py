"""Each private API the course leans on, pinned: these fail when the dependency changes it, naming where.

pymdownx's Block._validate, BlocksProcessor.stack, and its split_header and yaml_line, on a manager made ours
in place (macros/quiz/blocks.py). Material's search worker messages (docs/assets/javascripts/course.js) are
pinned by tests/browser/test_pages.py's search checks, which run the page's own search.
"""

from __future__ import annotations

import inspect
from importlib.metadata import version

import markdown
from pymdownx.blocks import BlockEntry, BlocksProcessor
from pymdownx.blocks.block import Block

from macros.quiz import QuizExtension, StandaloneHost
from macros.quiz.blocks import CourseBlock, StrictBlocks


def test_pymdownx_is_the_version_the_overrides_were_checked_against() -> None:
    assert version("pymdown-extensions") == "13.1.2", (
        "pymdownx changed: check macros/quiz/blocks.py's uses of Block._validate, BlocksProcessor.stack and"
        " split_header (StrictBlocks) against the new version's pymdownx/blocks/__init__.py and block.py, then"
        " update this version"
    )


def test_blocks_processor_validates_a_block_by_calling_its_private_validate() -> None:
    source = inspect.getsource(BlocksProcessor)
    assert "._validate(parent, arguments, **options)" in source
    assert list(inspect.signature(Block._validate).parameters) == ["self", "parent", "arg", "options"]
    assert CourseBlock._validate is not Block._validate


def test_the_open_blocks_are_a_stack_of_entries_that_name_their_block() -> None:
    """A quiz opened inside another is refused: that reads the stack, so it must exist as the code expects."""
    md = markdown.Markdown(extensions=[QuizExtension(host=StandaloneHost())])
    processor = next(p for p in md.parser.blockprocessors if isinstance(p, BlocksProcessor))
    assert isinstance(processor.stack, list)
    assert list(inspect.signature(BlockEntry).parameters)[:1] == ["block"]
    assert "self.stack.append(BlockEntry(" in inspect.getsource(BlocksProcessor)


def test_the_block_manager_reads_a_blocks_options_with_split_header_before_validating_it() -> None:
    """The options are read again strictly (`StrictBlocks`): that needs the manager's own header split, called on
    the text after the header and before the block is validated, and pymdownx's manager to be made ours in place."""
    source = inspect.getsource(BlocksProcessor.test)
    split = source.index("self.split_header(block, generic_block.length)")
    assert split < source.index("._validate(parent, arguments, **options)")
    md = markdown.Markdown(extensions=[QuizExtension(host=StandaloneHost())])
    processor = next(p for p in md.parser.blockprocessors if isinstance(p, BlocksProcessor))
    assert isinstance(processor, StrictBlocks) and processor.yaml_line.pattern.startswith("(?m)^(?:[ ]{4,}")
