"""CONTRIBUTING.md's recipes say what the tools do."""

from __future__ import annotations

import re
from pathlib import Path

from tools.new_lesson import page_path

CONTRIBUTING = (Path(__file__).parents[2] / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_make_lesson_writes_the_file_the_guide_names() -> None:
    match = re.search(
        r'`make lesson NUMBER=(\d+) STAGE=(\d+) MISSION=\d+ TITLE="([^"]+)"[^`]*`\s+writes `docs/([^`]+)`', CONTRIBUTING
    )
    assert match, "CONTRIBUTING.md's 'Add a lesson' no longer shows a make lesson call and the file it writes"
    number, stage, title, written = match.groups()
    assert written == page_path(int(number), int(stage), title)


def test_the_figure_diff_recipe_checks_main_out_beside_a_checkout_of_main() -> None:
    """`git worktree add PATH main` fails where main is checked out; the recipe must not."""
    adds = re.findall(r"git worktree add [^\n]*", CONTRIBUTING)
    assert adds and all("--detach" in line for line in adds), adds


def test_the_code_cites_only_documents_the_repository_has() -> None:
    """The code once cited a design document that was not in the repository: every *.md it names must exist,
    but for other projects' documents it quotes by name."""
    others = {"PERFORMANCE.md"}  # nccl-tests' own, quoted in tests/unit/test_model.py
    root = Path(__file__).parents[2]
    cited = set()
    for path in [*root.glob("macros/**/*.py"), *root.glob("tools/*.py"), *root.glob("tests/**/*.py")]:
        cited |= {(path, name) for name in re.findall(r"\b([A-Z][A-Z_]+\.md)\b", path.read_text(encoding="utf-8"))}
    missing = sorted(
        f"{path.relative_to(root)}: {name}"
        for path, name in cited
        if name not in others and not (root / name).is_file()
    )
    assert not missing, missing
