"""Previews on a branch: staged, removed and assembled against a local bare repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools import previews
from tools.previews import BRANCH, assemble, copy_site, folder, remove, stage


@pytest.fixture
def remote(tmp_path: Path) -> str:
    """An empty bare repository standing in for the course repository on GitHub."""
    path = tmp_path / "course.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return str(path)


def built_site(path: Path, text: str = "lesson") -> Path:
    (path / "stage-4").mkdir(parents=True)
    (path / "index.html").write_text("<h1>home</h1>", encoding="utf-8")
    (path / "stage-4" / "lesson.html").write_text(text, encoding="utf-8")
    (path / "figures.json").write_text("[]", encoding="utf-8")
    return path


def files_on_branch(remote: str) -> list[str]:
    listed = subprocess.run(
        ["git", "--git-dir", remote, "ls-tree", "-r", "--name-only", BRANCH], capture_output=True, text=True, check=True
    )
    return listed.stdout.split()


def test_a_staged_build_lands_in_its_pull_requests_folder(tmp_path: Path, remote: str) -> None:
    assert stage(remote, 5, built_site(tmp_path / "site"), tmp_path / "work")
    assert files_on_branch(remote) == ["pr-5/figures.json", "pr-5/index.html", "pr-5/stage-4/lesson.html"]


def test_staging_again_replaces_the_folder_and_keeps_the_others(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "a"), tmp_path / "work")
    stage(remote, 6, built_site(tmp_path / "b"), tmp_path / "work")
    newer = built_site(tmp_path / "c", text="edited")
    (newer / "index.html").unlink()
    stage(remote, 5, newer, tmp_path / "work")
    assert [f for f in files_on_branch(remote) if f.startswith("pr-5/")] == [
        "pr-5/figures.json",
        "pr-5/stage-4/lesson.html",
    ]
    assert "pr-6/index.html" in files_on_branch(remote)


def test_staging_the_same_build_twice_makes_no_commit(tmp_path: Path, remote: str) -> None:
    site = built_site(tmp_path / "site")
    assert stage(remote, 5, site, tmp_path / "work")
    assert not stage(remote, 5, site, tmp_path / "work")


def test_a_push_rejected_by_a_concurrent_update_is_retried_on_the_new_tip(
    tmp_path: Path, remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stage(remote, 1, built_site(tmp_path / "a"), tmp_path / "work")
    checkout = previews._checkout
    raced: list[int] = []

    def checkout_then_race(remote_url: str, work: Path) -> bool:
        existed = checkout(remote_url, work)
        if not raced:
            # Another workflow pushes pr-6 between our checkout and our push.
            raced.append(6)
            stage(remote, 6, built_site(tmp_path / "b"), tmp_path / "other")
        return existed

    monkeypatch.setattr(previews, "_checkout", checkout_then_race)
    monkeypatch.setattr(previews.time, "sleep", lambda seconds: None)
    assert stage(remote, 5, built_site(tmp_path / "c"), tmp_path / "work")
    assert {f.split("/")[0] for f in files_on_branch(remote)} == {"pr-1", "pr-5", "pr-6"}


def test_a_removed_preview_leaves_the_branch(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "a"), tmp_path / "work")
    stage(remote, 6, built_site(tmp_path / "b"), tmp_path / "work")
    assert remove(remote, 5, tmp_path / "work")
    assert not remove(remote, 5, tmp_path / "work")
    assert {f.split("/")[0] for f in files_on_branch(remote)} == {"pr-6"}


def test_removing_before_any_preview_exists_changes_nothing(tmp_path: Path, remote: str) -> None:
    assert not remove(remote, 5, tmp_path / "work")


def test_assemble_adds_every_preview_under_the_built_site(tmp_path: Path, remote: str) -> None:
    stage(remote, 12, built_site(tmp_path / "a"), tmp_path / "work")
    stage(remote, 3, built_site(tmp_path / "b", text="three"), tmp_path / "work")
    main_site = built_site(tmp_path / "main")
    assert assemble(remote, main_site, tmp_path / "work") == [3, 12]
    assert (main_site / "pr-3" / "stage-4" / "lesson.html").read_text(encoding="utf-8") == "three"
    assert (main_site / "index.html").read_text(encoding="utf-8") == "<h1>home</h1>"


def test_assemble_without_a_previews_branch_adds_nothing(tmp_path: Path, remote: str) -> None:
    assert assemble(remote, built_site(tmp_path / "main"), tmp_path / "work") == []


def test_copying_a_build_leaves_out_links_and_git_folders(tmp_path: Path) -> None:
    site = built_site(tmp_path / "site")
    (site / "secret").symlink_to("/etc/passwd")
    (site / "linked-folder").symlink_to(tmp_path, target_is_directory=True)
    (site / ".git").mkdir()
    (site / ".git" / "config").write_text("[core]", encoding="utf-8")
    copy_site(site, tmp_path / "copy")
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["figures.json", "index.html", "stage-4"]


def test_a_build_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="larger than 10 bytes"):
        copy_site(built_site(tmp_path / "site"), tmp_path / "copy", limit=10)


@pytest.mark.parametrize("number", [0, -1, True, "5", 10**10])
def test_a_folder_needs_a_pull_request_number(number: object) -> None:
    with pytest.raises(ValueError, match="positive whole number"):
        folder(number)  # type: ignore[arg-type]
