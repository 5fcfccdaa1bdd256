"""Pull-request previews on a Pages site of their own: one folder `pr-N/` per pull request.

A preview is a pull request's built HTML and JavaScript, so it never runs on the course's
origin, where readers keep their progress: previews are published by the Pages site of a
second repository under another owner (CONTRIBUTING.md, "Repository settings"), served
from its branch `gh-pages`. The course's own deploy carries `main` only. This module keeps
that branch; no workflow ever runs anything from it.

- The branch is one commit without a parent, rewritten and force-pushed on each update, so
  a removed preview leaves no history behind. A push is leased on the commit it replaces:
  when another workflow moved the branch meanwhile, the update is redone on the new tip.
- It holds `.nojekyll`, `robots.txt` and one `pr-N/` per pull request that may have a
  preview (`tools.preview_trust.eligible`, from the open pull requests that the workflow
  lists just before). Every update drops every other folder, so a preview that was staged
  after its pull request closed is gone at the next update, whichever it is. It errs the
  other way only: an update can drop the preview of a pull request opened, or labelled,
  after its own listing, which comes back with that pull request's next push.
- A build is copied as regular files and folders only: no symbolic link, and nothing whose
  name starts with a dot (`.git`, `.github/`, `.gitattributes`, `.nojekyll`). A preview
  over `MAX_BYTES` or `MAX_FILES`, or one that would take all the previews over
  `MAX_TOTAL_BYTES` or `MAX_TOTAL_FILES`, is refused, and so is its older version; the other
  previews are never dropped to make room. (Files are counted as well as bytes: a build of
  twenty thousand empty files takes no bytes, and a commit and a Pages deploy of its own.)

    python -m tools.previews REMOTE stage NUMBER SITE_DIR --pulls FILE --course OWNER/NAME
    python -m tools.previews REMOTE prune --pulls FILE --course OWNER/NAME [--drop NUMBER]

REMOTE is `--repository OWNER/NAME` (the previews repository on GitHub, over SSH with the
deploy key in `PREVIEW_DEPLOY_KEY`, checked against GitHub's published host key) or
`--remote URL` (any Git remote; the tests use a local bare repository). FILE is the API's
list of open pull requests, `gh api --paginate --slurp 'repos/OWNER/NAME/pulls?state=open'`.
`stage` prints `status=` and one of `STATUSES`; `prune` prints `dropped=` and the JSON list of
the numbers whose previews it dropped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Literal

from tools import bounded_json
from tools.preview_trust import check_number, check_repository, eligible

#: The branch of the previews repository that its Pages site serves.
BRANCH = "gh-pages"
#: A preview larger than this is refused; the course's build is about 3 MB.
MAX_BYTES = 50 * 10**6
#: All previews together stay under this; GitHub Pages publishes at most 1 GB.
MAX_TOTAL_BYTES = 500 * 10**6
#: A preview with more files and folders than this is refused; the course's build has about 80.
MAX_FILES = 2_000
#: All previews together hold at most this many files and folders.
MAX_TOTAL_FILES = 20_000
#: A preview whose folders nest deeper than this is refused; the course's nest 3 deep.
MAX_DEPTH = 64
#: How often to try a push that a concurrent update rejected.
ATTEMPTS = 5
#: What `stage` did: published, the same build already there, no longer eligible (closed, or
#: a fork's without the label), over `MAX_BYTES`, or refused because the previews are full.
Status = Literal["published", "unchanged", "ineligible", "too-large", "full"]
STATUSES: tuple[Status, ...] = ("published", "unchanged", "ineligible", "too-large", "full")

#: The files of the branch's root, written by this module and by nothing else.
ROOT_FILES: Mapping[str, str] = {
    # Serve the files as they are: no Jekyll build of a pull request's HTML.
    ".nojekyll": "",
    # Previews are for reviewers; search engines should not index them.
    "robots.txt": "User-agent: *\nDisallow: /\n",
}
#: GitHub's Ed25519 SSH host key, as docs.github.com publishes it ("GitHub's SSH key fingerprints").
GITHUB_HOST_KEY = "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"

_FOLDER = re.compile(r"pr-([1-9][0-9]{0,9})")
#: Names that git, with core.protectNTFS or core.protectHFS (on by default on Windows and macOS, and refused in
#: what it checks out everywhere), refuses or reads as `.git`: NTFS's 8.3 short names (`GIT~1`, `gitmod~2`),
#: a name ending in a dot or a space (NTFS drops them), a backslash or colon (a path separator or an NTFS
#: stream), and the characters HFS+ ignores in a name (`g\u200cit` is `git` there).
_GIT_REFUSES = re.compile(r"(?i)^git[a-z]{0,3}~[0-9]|[.\x20]$|[\\:\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
_BOT = ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")


class TooLarge(ValueError):
    """A build, or all the previews with it, over the size limit."""


def folder(number: int) -> str:
    """The folder of a pull request's preview: `pr-N`; `ValueError` unless N is a pull request number, as an int."""
    if not isinstance(number, int):
        raise ValueError(f"a pull request number is a positive whole number, got {number!r}")
    return f"pr-{check_number(number)}"


def copy_site(source: Path, target: Path, limit: int = MAX_BYTES, files: int = MAX_FILES) -> int:
    """Copy a built site's regular files and folders from `source` into `target`; return the bytes copied.

    Symbolic links, other special files, every name that starts with a dot (`.git`,
    `.github/`, `.gitattributes`) and every name git refuses on some system (`GIT~1`, NTFS's
    short name for `.git`; `_GIT_REFUSES`) are left out, the last told on standard error.
    Raises `TooLarge` when the files add up to more than `limit` bytes, the files and folders
    to more than `files`, or folders nest more than `MAX_DEPTH` deep.
    """
    counted = [0, 0]  # bytes, then files and folders, of the whole copy

    def copy(source: Path, target: Path, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise TooLarge(f"{source}: the site's folders nest more than {MAX_DEPTH} folders deep")
        target.mkdir(parents=True, exist_ok=True)
        for entry in sorted(source.iterdir()):
            if entry.name.startswith(".") or entry.is_symlink() or not (entry.is_dir() or entry.is_file()):
                continue
            if _GIT_REFUSES.search(entry.name):
                print(f"left out {entry}: a name git refuses (protectNTFS, protectHFS)", file=sys.stderr)
                continue
            counted[1] += 1
            if counted[1] > files:
                raise TooLarge(f"{source}: the site has more than {files:,} files and folders")
            if entry.is_dir():
                copy(entry, target / entry.name, depth + 1)
                continue
            counted[0] += entry.stat().st_size
            if counted[0] > limit:
                raise TooLarge(f"{source}: the site is larger than {limit:,} bytes")
            shutil.copyfile(entry, target / entry.name)

    copy(source, target)
    return counted[0]


def size(tree: Path) -> tuple[int, int]:
    """The bytes of the files under `tree`, and how many files and folders it holds, leaving out its `.git`."""
    total = entries = 0
    for root, folders, files in os.walk(tree):
        folders[:] = [name for name in folders if name != ".git"]
        total += sum((Path(root) / name).stat().st_size for name in files)
        entries += len(folders) + len(files)
    return total, entries


def deploy_key_environment(key: str, directory: Path) -> dict[str, str]:
    """`GIT_SSH_COMMAND` for pushing with a deploy key, written with GitHub's host key into `directory`.

    The key goes into a file that only its owner can read, never onto a command line; ssh
    reads no configuration of the machine's and trusts GitHub's published Ed25519 host key only.
    """
    if "PRIVATE KEY" not in key:
        raise ValueError("PREVIEW_DEPLOY_KEY is not an SSH private key")
    identity, known_hosts = directory / "deploy-key", directory / "known_hosts"
    identity.touch(mode=0o600)
    identity.write_text(key.strip() + "\n", encoding="utf-8")
    known_hosts.write_text(GITHUB_HOST_KEY + "\n", encoding="utf-8")
    command = [
        "ssh",
        "-F",
        "/dev/null",
        "-i",
        str(identity),
        "-o",
        "IdentitiesOnly=yes",
        "-o",
        "BatchMode=yes",
        "-o",
        "StrictHostKeyChecking=yes",
        "-o",
        "HostKeyAlgorithms=ssh-ed25519",
        "-o",
        f"UserKnownHostsFile={known_hosts}",
    ]
    return {"GIT_SSH_COMMAND": shlex.join(command)}


def _environment() -> dict[str, str]:
    """Git's environment: the bot's name, no prompt for credentials."""
    name, email = _BOT
    return {
        **os.environ,
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_TERMINAL_PROMPT": "0",
    }


def _git(work: Path, *arguments: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(work), "-c", "core.autocrlf=false", *arguments],
        env=_environment(),
        capture_output=True,
        text=True,
        check=check,
    )


def _checkout(remote: str, work: Path) -> str:
    """A fresh copy of the branch's tip in `work`; the tip's commit, or "" (an empty `work`) if there is no branch."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    _git(work, "init", "-q")
    listed = _git(work, "ls-remote", "--exit-code", remote, f"refs/heads/{BRANCH}", check=False)
    if listed.returncode == 2:
        return ""
    if listed.returncode != 0:
        raise RuntimeError(f"git ls-remote {BRANCH} failed: {listed.stderr.strip()}")
    _git(work, "fetch", "-q", "--depth=1", remote, f"refs/heads/{BRANCH}")
    _git(work, "checkout", "-q", "--detach", "FETCH_HEAD")
    return _git(work, "rev-parse", "FETCH_HEAD").stdout.strip()


def _tidy(tree: Path, keep: Collection[int]) -> set[int]:
    """Leave in `tree` only `ROOT_FILES` and the folders `pr-N/` of `keep`; return the N of the folders dropped."""
    dropped: set[int] = set()
    for entry in tree.iterdir():
        if entry.name == ".git":
            continue
        found = _FOLDER.fullmatch(entry.name)
        is_folder = entry.is_dir() and not entry.is_symlink()
        if found and is_folder and int(found.group(1)) in keep:
            continue
        if found and is_folder:
            dropped.add(int(found.group(1)))
        if is_folder:
            shutil.rmtree(entry)
        else:
            entry.unlink()
    for name, text in ROOT_FILES.items():
        (tree / name).write_text(text, encoding="utf-8")
    return dropped


def _update(remote: str, work: Path, change: Callable[[Path], None], message: str, create: bool = True) -> bool:
    """Apply `change` to the branch's files and force-push them as one parentless commit; False if nothing changed.

    The push is leased on the tip that `change` started from, so an update that another
    workflow pushed meanwhile is never overwritten: the change is redone on the new tip.
    Without a branch, nothing is pushed unless `create`.
    """
    for attempt in range(ATTEMPTS):
        tip = _checkout(remote, work)
        if not tip and not create:
            return False
        change(work)
        _git(work, "add", "--all", "--force", ".")
        tree = _git(work, "write-tree").stdout.strip()
        if tip and tree == _git(work, "rev-parse", f"{tip}^{{tree}}").stdout.strip():
            return False
        commit = _git(work, "commit-tree", tree, "-m", message).stdout.strip()
        lease = f"--force-with-lease=refs/heads/{BRANCH}:{tip}"
        if _git(work, "push", "-q", lease, remote, f"{commit}:refs/heads/{BRANCH}", check=False).returncode == 0:
            return True
        time.sleep(2**attempt)
    raise RuntimeError(f"could not push to {BRANCH} after {ATTEMPTS} attempts")


def stage(
    remote: str,
    number: int,
    site: Path,
    work: Path,
    keep: Collection[int],
    limit: int = MAX_BYTES,
    total_limit: int = MAX_TOTAL_BYTES,
    files: int = MAX_FILES,
    total_files: int = MAX_TOTAL_FILES,
) -> Status:
    """Publish the build in `site` as `pr-NUMBER/`, replacing its older version, and drop every folder not in `keep`.

    `keep` is the set of pull requests that may have a preview now (`preview_trust.eligible`);
    a NUMBER not in it is not published ("ineligible"). A build over `limit` bytes or `files`
    files and folders, or one that takes the previews over `total_limit` or `total_files`, is
    not published either, and its older version is dropped, so that no preview outlives the
    commit it was built from.
    """
    name = folder(number)
    status: Status = "published"

    def change(tree: Path) -> None:
        nonlocal status
        status = "published"
        _tidy(tree, keep)
        shutil.rmtree(tree / name, ignore_errors=True)
        if number not in keep:
            status = "ineligible"
            return
        try:
            copy_site(site, tree / name, limit, files)
        except TooLarge:
            status = "too-large"
        else:
            total, entries = size(tree)
            if total > total_limit or entries > total_files:
                status = "full"
        if status != "published":
            shutil.rmtree(tree / name)

    changed = _update(remote, work, change, f"Preview of pull request #{number}; eligible: {_names(keep)}")
    return "unchanged" if status == "published" and not changed else status


def prune(remote: str, work: Path, keep: Collection[int], drop: Collection[int] = ()) -> frozenset[int]:
    """Drop the previews of pull requests not in `keep`, and those in `drop`; return the numbers dropped.

    Idempotent: a second run with the same sets drops nothing and pushes nothing, and a run
    before any preview exists creates no branch.
    """
    kept = set(keep) - set(drop)
    dropped: set[int] = set()

    def change(tree: Path) -> None:
        dropped.clear()
        dropped.update(_tidy(tree, kept))

    message = f"Drop the previews of pull requests other than {_names(kept)}"
    return frozenset(dropped) if _update(remote, work, change, message, create=False) else frozenset()


def _names(numbers: Collection[int]) -> str:
    return ", ".join(folder(n) for n in sorted(numbers)) or "none"


def main(argv: Sequence[str] | None = None) -> int:
    """Stage or prune previews; see the module's docstring."""
    parser = argparse.ArgumentParser(prog="python -m tools.previews", description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--remote", help="any Git remote holding the previews branch")
    where.add_argument("--repository", help="the previews repository on GitHub, OWNER/NAME, over SSH")
    commands = parser.add_subparsers(dest="command", required=True)
    staged = commands.add_parser("stage", help="publish a build as pr-NUMBER/")
    staged.add_argument("number", type=int)
    staged.add_argument("site", type=Path)
    pruned = commands.add_parser("prune", help="drop the previews of pull requests that may no longer have one")
    pruned.add_argument("--drop", type=int, action="append", default=[], help="a pull request to drop in any case")
    for command in (staged, pruned):
        command.add_argument("--pulls", type=Path, required=True, help="the API's list of open pull requests")
        command.add_argument("--course", required=True, help="the course repository, OWNER/NAME")
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temporary:
        try:
            remote = arguments.remote
            if arguments.repository:
                remote = f"git@github.com:{check_repository(arguments.repository)}.git"
                key = os.environ.pop("PREVIEW_DEPLOY_KEY", "")
                if key:
                    os.environ.update(deploy_key_environment(key, Path(temporary)))
            keep = eligible(bounded_json.load(arguments.pulls), arguments.course)
            work = Path(temporary) / "previews"
            if arguments.command == "stage":
                print(f"status={stage(remote, arguments.number, arguments.site, work, keep)}")
            else:
                drop = [n for n in arguments.drop if folder(n)]
                print(f"dropped={json.dumps(sorted(prune(remote, work, keep, drop)))}")
        except (ValueError, RuntimeError, OSError, subprocess.CalledProcessError) as error:
            detail = getattr(error, "stderr", None) or ""
            parser.exit(1, f"{parser.prog}: error: {error} {detail}".rstrip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
