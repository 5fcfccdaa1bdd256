"""The previews branch, staged and pruned against a local bare repository standing in for the previews repository."""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest

from tools import previews
from tools.previews import (
    BRANCH,
    GITHUB_HOST_KEY,
    ROOT_FILES,
    TooLarge,
    copy_site,
    deploy_key_environment,
    folder,
    main,
    prune,
    stage,
)

COURSE = "scale-by-the-numbers/course"


@pytest.fixture
def remote(tmp_path: Path) -> str:
    """An empty bare repository standing in for the previews repository on GitHub."""
    path = tmp_path / "previews.git"
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return str(path)


def built_site(path: Path, text: str = "lesson") -> Path:
    (path / "stage-4").mkdir(parents=True)
    (path / "index.html").write_text("<h1>home</h1>", encoding="utf-8")
    (path / "stage-4" / "lesson.html").write_text(text, encoding="utf-8")
    (path / "figures.json").write_text("[]", encoding="utf-8")
    return path


def git(remote: str, *arguments: str) -> str:
    return subprocess.run(["git", "--git-dir", remote, *arguments], capture_output=True, text=True, check=True).stdout


def files_on_branch(remote: str) -> list[str]:
    return git(remote, "ls-tree", "-r", "--name-only", BRANCH).split()


def previews_on_branch(remote: str) -> set[str]:
    return {name.split("/")[0] for name in files_on_branch(remote) if name.startswith("pr-")}


def test_a_staged_build_lands_in_its_pull_requests_folder(tmp_path: Path, remote: str) -> None:
    assert stage(remote, 5, built_site(tmp_path / "site"), tmp_path / "work", {5}) == "published"
    assert [f for f in files_on_branch(remote) if f.startswith("pr-")] == [
        "pr-5/figures.json",
        "pr-5/index.html",
        "pr-5/stage-4/lesson.html",
    ]


def test_the_branch_root_holds_only_its_own_files_beside_the_previews(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "site"), tmp_path / "work", {5})
    assert sorted(f for f in files_on_branch(remote) if not f.startswith("pr-")) == sorted(ROOT_FILES)


def test_staging_again_replaces_the_folder_and_keeps_the_others(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "a"), tmp_path / "work", {5, 6})
    stage(remote, 6, built_site(tmp_path / "b"), tmp_path / "work", {5, 6})
    newer = built_site(tmp_path / "c", text="edited")
    (newer / "index.html").unlink()
    stage(remote, 5, newer, tmp_path / "work", {5, 6})
    assert [f for f in files_on_branch(remote) if f.startswith("pr-5/")] == [
        "pr-5/figures.json",
        "pr-5/stage-4/lesson.html",
    ]
    assert "pr-6/index.html" in files_on_branch(remote)


def test_staging_the_same_build_twice_makes_no_commit(tmp_path: Path, remote: str) -> None:
    site = built_site(tmp_path / "site")
    assert stage(remote, 5, site, tmp_path / "work", {5}) == "published"
    tip = git(remote, "rev-parse", BRANCH)
    assert stage(remote, 5, site, tmp_path / "work", {5}) == "unchanged"
    assert git(remote, "rev-parse", BRANCH) == tip


# Issue 9, item 2: previews outlived their pull request.


def test_a_build_staged_after_its_pull_request_closed_is_not_published(tmp_path: Path, remote: str) -> None:
    # The race: the preview workflow saw #5 open; #5 closed; the cleanup ran and found nothing;
    # then the staging step runs. It lists the open pull requests itself, and #5 is not among them.
    stage(remote, 6, built_site(tmp_path / "six"), tmp_path / "work", {5, 6})
    assert prune(remote, tmp_path / "work", {6}, drop={5}) == set()
    assert stage(remote, 5, built_site(tmp_path / "five"), tmp_path / "work", {6}) == "ineligible"
    assert previews_on_branch(remote) == {"pr-6"}


def test_a_preview_staged_on_a_stale_list_of_open_pull_requests_goes_at_the_next_update(
    tmp_path: Path, remote: str
) -> None:
    # #5 closed between the listing and the push, and its cleanup ran before the push:
    # the next update of any preview drops it.
    stage(remote, 5, built_site(tmp_path / "five"), tmp_path / "work", {5})
    stage(remote, 6, built_site(tmp_path / "six"), tmp_path / "work", {6})
    assert previews_on_branch(remote) == {"pr-6"}


def test_pruning_drops_the_previews_of_closed_pull_requests(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "a"), tmp_path / "work", {5, 6})
    stage(remote, 6, built_site(tmp_path / "b"), tmp_path / "work", {5, 6})
    assert prune(remote, tmp_path / "work", {6}) == {5}
    assert previews_on_branch(remote) == {"pr-6"}


def test_pruning_drops_a_pull_request_named_to_drop_even_if_still_listed(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "a"), tmp_path / "work", {5})
    assert prune(remote, tmp_path / "work", {5}, drop={5}) == {5}
    assert previews_on_branch(remote) == set()


def test_pruning_twice_changes_nothing_the_second_time(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "a"), tmp_path / "work", {5})
    assert prune(remote, tmp_path / "work", set()) == {5}
    tip = git(remote, "rev-parse", BRANCH)
    assert prune(remote, tmp_path / "work", set()) == set()
    assert git(remote, "rev-parse", BRANCH) == tip


def test_pruning_before_any_preview_exists_creates_no_branch(tmp_path: Path, remote: str) -> None:
    assert prune(remote, tmp_path / "work", set(), drop={5}) == set()
    assert git(remote, "branch", "--list") == ""


def test_an_update_drops_what_anyone_else_put_on_the_branch(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "a"), tmp_path / "work", {5})
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", "--branch", BRANCH, remote, str(other)], check=True)
    (other / ".github" / "workflows").mkdir(parents=True)
    (other / ".github" / "workflows" / "x.yml").write_text("on: push", encoding="utf-8")
    (other / "pr-notanumber").mkdir()
    (other / "pr-notanumber" / "index.html").write_text("x", encoding="utf-8")
    subprocess.run(["git", "-C", str(other), "add", "."], check=True)
    subprocess.run(
        ["git", "-C", str(other), "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "stray"], check=True
    )
    subprocess.run(["git", "-C", str(other), "push", "-q", "origin", BRANCH], check=True)
    assert prune(remote, tmp_path / "work", {5}) == set()  # nothing of a preview's dropped, but pushed
    preview = ["pr-5/figures.json", "pr-5/index.html", "pr-5/stage-4/lesson.html"]
    assert sorted(files_on_branch(remote)) == sorted([*ROOT_FILES, *preview])


# Issue 9, item 3: storage grew without limit.


def test_the_branch_is_one_commit_that_no_longer_holds_a_removed_preview(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "a", text="only in pr-5"), tmp_path / "work", {5, 6})
    removed_blob = git(remote, "rev-parse", f"{BRANCH}:pr-5/stage-4/lesson.html").strip()
    stage(remote, 6, built_site(tmp_path / "b"), tmp_path / "work", {5, 6})
    prune(remote, tmp_path / "work", {6})
    assert git(remote, "rev-list", "--count", BRANCH).strip() == "1"
    assert removed_blob not in git(remote, "rev-list", "--objects", "--all")


def test_a_push_rejected_by_a_concurrent_update_is_redone_on_the_new_tip(
    tmp_path: Path, remote: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The branch is force-pushed, so the push must be leased: a plain --force would
    # silently drop the preview that another workflow pushed meanwhile.
    stage(remote, 1, built_site(tmp_path / "a"), tmp_path / "work", {1})
    checkout = previews._checkout
    raced: list[int] = []

    def checkout_then_race(remote_url: str, work: Path) -> str:
        tip = checkout(remote_url, work)
        if not raced:
            raced.append(6)
            stage(remote, 6, built_site(tmp_path / "b"), tmp_path / "other", {1, 5, 6})
        return tip

    monkeypatch.setattr(previews, "_checkout", checkout_then_race)
    monkeypatch.setattr("tools.previews.time.sleep", lambda seconds: None)
    assert stage(remote, 5, built_site(tmp_path / "c"), tmp_path / "work", {1, 5, 6}) == "published"
    assert previews_on_branch(remote) == {"pr-1", "pr-5", "pr-6"}
    assert git(remote, "rev-list", "--count", BRANCH).strip() == "1"


def test_a_preview_that_would_take_the_total_over_its_cap_is_refused(tmp_path: Path, remote: str) -> None:
    one, _ = previews.size(built_site(tmp_path / "measure"))
    cap = sum(len(text) for text in ROOT_FILES.values()) + 2 * one + one // 2  # room for two and a half
    for number in (1, 2):
        site = built_site(tmp_path / f"site-{number}")
        assert stage(remote, number, site, tmp_path / "work", {1, 2, 3}, total_limit=cap) == "published"
    assert stage(remote, 3, built_site(tmp_path / "three"), tmp_path / "work", {1, 2, 3}, total_limit=cap) == "full"
    assert previews_on_branch(remote) == {"pr-1", "pr-2"}
    assert previews.size(tmp_path / "work")[0] <= cap


def test_a_build_over_the_limit_is_refused_and_its_older_preview_dropped(tmp_path: Path, remote: str) -> None:
    stage(remote, 5, built_site(tmp_path / "small"), tmp_path / "work", {5, 6})
    stage(remote, 6, built_site(tmp_path / "six"), tmp_path / "work", {5, 6})
    large = built_site(tmp_path / "large", text="x" * 1000)
    assert stage(remote, 5, large, tmp_path / "work", {5, 6}, limit=500) == "too-large"
    assert previews_on_branch(remote) == {"pr-6"}


def test_copying_a_build_over_the_size_limit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(TooLarge, match="larger than 10 bytes"):
        copy_site(built_site(tmp_path / "site"), tmp_path / "copy", limit=10)


def test_a_build_of_more_files_than_the_limit_is_refused_though_it_takes_no_bytes(tmp_path: Path) -> None:
    """20,000 empty files once published: each file is counted, and so is each folder."""
    site = built_site(tmp_path / "site")
    for number in range(previews.MAX_FILES):
        (site / f"empty-{number}.html").touch()
    with pytest.raises(TooLarge, match=f"more than {previews.MAX_FILES:,} files and folders"):
        copy_site(site, tmp_path / "copy")
    nested = built_site(tmp_path / "nested")
    (nested / "/".join(["d"] * 40)).mkdir(parents=True)
    with pytest.raises(TooLarge, match="more than 30 files and folders"):
        copy_site(nested, tmp_path / "copy-nested", files=30)


def test_a_preview_that_would_take_the_total_over_its_file_cap_is_refused(tmp_path: Path, remote: str) -> None:
    _, one = previews.size(built_site(tmp_path / "measure"))
    cap = len(ROOT_FILES) + 2 * (one + 1) + 1  # room for two, each with its pr-N folder
    for number in (1, 2):
        assert stage(
            remote, number, built_site(tmp_path / f"s{number}"), tmp_path / "w", {1, 2, 3}, total_files=cap
        ) == ("published")
    assert stage(remote, 3, built_site(tmp_path / "s3"), tmp_path / "w", {1, 2, 3}, total_files=cap) == "full"
    assert previews_on_branch(remote) == {"pr-1", "pr-2"}


# Issue 9, item 4: what a build may carry onto the branch, and the credentials.


def test_copying_a_build_leaves_out_links_and_every_dot_name(tmp_path: Path) -> None:
    site = built_site(tmp_path / "site")
    (site / "secret").symlink_to("/etc/passwd")
    (site / "linked-folder").symlink_to(tmp_path, target_is_directory=True)
    for folder_name in (".git", ".github/workflows", "stage-4/.hidden"):
        (site / folder_name).mkdir(parents=True)
    (site / ".git" / "config").write_text("[core]", encoding="utf-8")
    (site / ".github" / "workflows" / "run.yml").write_text("on: push", encoding="utf-8")
    (site / "stage-4" / ".hidden" / "x.js").write_text("x", encoding="utf-8")
    (site / ".gitattributes").write_text("* filter=x", encoding="utf-8")
    (site / "stage-4" / ".nojekyll").write_text("", encoding="utf-8")
    copy_site(site, tmp_path / "copy")
    copied = sorted(str(p.relative_to(tmp_path / "copy")) for p in (tmp_path / "copy").rglob("*"))
    assert copied == ["figures.json", "index.html", "stage-4", "stage-4/lesson.html"]


def test_the_deploy_key_goes_into_a_private_file_and_github_is_the_only_known_host(tmp_path: Path) -> None:
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----"
    command = deploy_key_environment(key, tmp_path)["GIT_SSH_COMMAND"]
    assert "abc" not in command
    assert stat.S_IMODE((tmp_path / "deploy-key").stat().st_mode) == 0o600
    assert (tmp_path / "deploy-key").read_text(encoding="utf-8") == key + "\n"
    assert "StrictHostKeyChecking=yes" in command and "-F /dev/null" in command
    assert (tmp_path / "known_hosts").read_text(encoding="utf-8") == GITHUB_HOST_KEY + "\n"


def test_a_deploy_key_that_is_not_a_private_key_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an SSH private key"):
        deploy_key_environment("ghp_token", tmp_path)


@pytest.mark.parametrize("number", [0, -1, True, "5", 10**10])
def test_a_folder_needs_a_pull_request_number(number: object) -> None:
    with pytest.raises(ValueError, match="positive whole number"):
        folder(number)  # type: ignore[arg-type]


# The command line, as the workflows call it.


def pull(number: int, repository: str, labels: tuple[str, ...] = ()) -> dict[str, object]:
    return {
        "number": number,
        "state": "open",
        "head": {"sha": "0" * 40, "repo": {"full_name": repository}},
        "labels": [{"name": name} for name in labels],
    }


def test_the_stage_command_publishes_only_what_the_open_pull_requests_allow(
    tmp_path: Path, remote: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pulls = tmp_path / "pulls.json"
    pulls.write_text(json.dumps([[pull(5, COURSE), pull(7, "fork/course")]]), encoding="utf-8")
    site = str(built_site(tmp_path / "site"))
    common = ["--pulls", str(pulls), "--course", COURSE]
    assert main(["--remote", remote, "stage", "5", site, *common]) == 0
    assert main(["--remote", remote, "stage", "7", site, *common]) == 0
    assert capsys.readouterr().out == "status=published\nstatus=ineligible\n"
    assert previews_on_branch(remote) == {"pr-5"}


def test_the_prune_command_says_which_previews_it_dropped(
    tmp_path: Path, remote: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for number in (5, 6, 7):
        stage(remote, number, built_site(tmp_path / f"site-{number}"), tmp_path / "work", {5, 6, 7})
    pulls = tmp_path / "pulls.json"
    pulls.write_text(json.dumps([pull(7, COURSE)]), encoding="utf-8")
    for _ in range(2):
        assert main(["--remote", remote, "prune", "--pulls", str(pulls), "--course", COURSE, "--drop", "6"]) == 0
    assert capsys.readouterr().out == "dropped=[5, 6]\ndropped=[]\n"


def test_a_hostile_list_of_pull_requests_is_refused_without_a_traceback(
    tmp_path: Path, remote: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack round 8 (F9): 100,000 nested brackets for --pulls ended the command in a RecursionError."""
    pulls = tmp_path / "pulls.json"
    pulls.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(SystemExit) as exit_info:
        main(["--remote", remote, "prune", "--pulls", str(pulls), "--course", COURSE])
    assert exit_info.value.code == 1
    assert "nest more than" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["GIT~1", "git~1", "Git~2.", "a\\b", "c:d", "g\u200cit", "x "])
def test_copying_a_build_leaves_out_names_git_refuses(
    name: str, tmp_path: Path, remote: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Attack round 8 (F10): `GIT~1/config` failed the whole staging with git's raw 'invalid path'."""
    site = built_site(tmp_path / "site")
    (site / name).mkdir()
    (site / name / "config").write_text("[core]", encoding="utf-8")
    assert stage(remote, 5, site, tmp_path / "work", {5}) == "published"
    assert f"left out {site / name}" in capsys.readouterr().err


def test_a_build_of_folders_nested_beyond_the_limit_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attack round 8 (F10): 1,500 nested folders ended copy_site in a RecursionError."""
    site = built_site(tmp_path / "site")
    monkeypatch.chdir(site)
    for _ in range(1500):  # one level at a time: the whole path is longer than PATH_MAX
        Path("d").mkdir()
        monkeypatch.chdir("d")
    with pytest.raises(TooLarge, match=f"more than {previews.MAX_DEPTH} folders deep"):
        copy_site(site, tmp_path / "copy")
    for _ in range(1500):  # and away again, one level at a time: Python 3.11's rmtree would recurse
        monkeypatch.chdir("..")
        Path("d").rmdir()
