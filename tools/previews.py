"""Pull-request previews on the course's Pages site: one folder `pr-N/` per open pull request.

GitHub Pages serves one deployment per repository, so a preview cannot be deployed on its
own: each deploy (`.github/workflows/pages.yml`) builds `main` and adds every preview under
it. The previews themselves are kept between deploys in a branch of the course repository,
`pr-previews`, one folder `pr-N/` per pull request, and nothing else. That branch holds
built HTML only; no workflow ever runs anything from it.

    python -m tools.previews stage NUMBER SITE_DIR --remote URL   # put a build at pr-NUMBER/
    python -m tools.previews remove NUMBER --remote URL           # delete pr-NUMBER/
    python -m tools.previews assemble SITE_DIR --remote URL       # copy every pr-N/ into SITE_DIR

A pull request's build is untrusted: `stage` copies regular files and folders only (no
symbolic link, no `.git`), and refuses a build over `MAX_BYTES`. Git is called with the
token from `GH_TOKEN`, when set, as an HTTP header in the environment, never on disk or
on a command line. Concurrent workflows that update the branch retry on a rejected push.
"""

from __future__ import annotations

import argparse
import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

#: The branch of the course repository that holds the previews.
BRANCH = "pr-previews"
#: A preview larger than this is refused; the course's build is a few megabytes.
MAX_BYTES = 200 * 10**6
#: How often to try a push that a concurrent update rejected.
ATTEMPTS = 5

_FOLDER = re.compile(r"pr-([1-9][0-9]{0,9})")
_BOT = ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")


def folder(number: int) -> str:
    """The folder of a pull request's preview: `pr-N`; `ValueError` unless N is a pull request number."""
    if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < 10**10:
        raise ValueError(f"a pull request number is a positive whole number, got {number!r}")
    return f"pr-{number}"


def copy_site(source: Path, target: Path, limit: int = MAX_BYTES) -> int:
    """Copy a built site's regular files and folders from `source` into `target`; return the bytes copied.

    Symbolic links, other special files and anything named `.git` are left out. Raises
    `ValueError` when the files add up to more than `limit` bytes.
    """
    copied = 0
    target.mkdir(parents=True, exist_ok=True)
    for entry in sorted(source.iterdir()):
        if entry.name == ".git" or entry.is_symlink():
            continue
        if entry.is_dir():
            copied += copy_site(entry, target / entry.name, limit - copied)
        elif entry.is_file():
            copied += entry.stat().st_size
            if copied > limit:
                raise ValueError(f"{source}: the site is larger than {limit:,} bytes")
            shutil.copyfile(entry, target / entry.name)
    return copied


def _environment() -> dict[str, str]:
    """Git's environment: the bot's name, and the token from GH_TOKEN as an HTTP header for github.com."""
    name, email = _BOT
    environment = {
        **os.environ,
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_TERMINAL_PROMPT": "0",
    }
    token = os.environ.get("GH_TOKEN")
    if token:
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        environment |= {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "http.https://github.com/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
        }
    return environment


def _git(work: Path, *arguments: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(work), "-c", "core.autocrlf=false", *arguments],
        env=_environment(),
        capture_output=True,
        text=True,
        check=check,
    )


def _checkout(remote: str, work: Path) -> bool:
    """A fresh clone of the branch's tip into `work`; False, with an empty repository, if there is no branch yet."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    _git(work, "init", "-q")
    listed = _git(work, "ls-remote", "--exit-code", remote, f"refs/heads/{BRANCH}", check=False)
    if listed.returncode == 2:
        return False
    if listed.returncode != 0:
        raise RuntimeError(f"git ls-remote {BRANCH} failed: {listed.stderr.strip()}")
    _git(work, "fetch", "-q", "--depth=1", remote, f"refs/heads/{BRANCH}")
    _git(work, "checkout", "-q", "--detach", "FETCH_HEAD")
    return True


def _update(remote: str, work: Path, change: Callable[[Path], None], message: str) -> bool:
    """Apply `change` to the branch's files and push one commit; False when it changed nothing.

    A push rejected because another workflow moved the branch meanwhile is retried on the new tip.
    """
    for attempt in range(ATTEMPTS):
        _checkout(remote, work)
        change(work)
        _git(work, "add", "--all", "--force", ".")
        if _git(work, "diff", "--cached", "--quiet", check=False).returncode == 0:
            return False
        _git(work, "commit", "-q", "-m", message)
        if _git(work, "push", "-q", remote, f"HEAD:refs/heads/{BRANCH}", check=False).returncode == 0:
            return True
        time.sleep(2**attempt)
    raise RuntimeError(f"could not push to {BRANCH} after {ATTEMPTS} attempts")


def stage(remote: str, number: int, site: Path, work: Path) -> bool:
    """Put the build in `site` at `pr-NUMBER/` on the previews branch, replacing what was there."""
    name = folder(number)

    def change(tree: Path) -> None:
        shutil.rmtree(tree / name, ignore_errors=True)
        copy_site(site, tree / name)

    return _update(remote, work, change, f"Preview of pull request #{number}")


def remove(remote: str, number: int, work: Path) -> bool:
    """Delete `pr-NUMBER/` from the previews branch; False if it was not there."""
    name = folder(number)
    return _update(remote, work, lambda tree: shutil.rmtree(tree / name, ignore_errors=True), f"Remove #{number}")


def assemble(remote: str, site: Path, work: Path) -> list[int]:
    """Copy every `pr-N/` folder of the previews branch into the built site; return the numbers, in order."""
    if not _checkout(remote, work):
        return []
    numbers: list[int] = []
    for entry in sorted(work.iterdir()):
        match = _FOLDER.fullmatch(entry.name)
        if match and entry.is_dir() and not entry.is_symlink():
            if (site / entry.name).exists():
                raise ValueError(f"{site / entry.name} is part of the course's own build; a preview cannot replace it")
            copy_site(entry, site / entry.name)
            numbers.append(int(match.group(1)))
    return sorted(numbers)


def main(argv: Sequence[str] | None = None) -> int:
    """Stage, remove or assemble previews; see the module's docstring."""
    parser = argparse.ArgumentParser(prog="python -m tools.previews", description=__doc__.splitlines()[0])
    parser.add_argument("--remote", required=True, help="the course repository, e.g. https://github.com/OWNER/REPO.git")
    commands = parser.add_subparsers(dest="command", required=True)
    staged = commands.add_parser("stage", help="publish a build as pr-NUMBER/")
    staged.add_argument("number", type=int)
    staged.add_argument("site", type=Path)
    removed = commands.add_parser("remove", help="delete pr-NUMBER/")
    removed.add_argument("number", type=int)
    assembled = commands.add_parser("assemble", help="copy every preview into a built site")
    assembled.add_argument("site", type=Path)
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temporary:
        work = Path(temporary) / "previews"
        try:
            if arguments.command == "stage":
                changed = stage(arguments.remote, arguments.number, arguments.site, work)
                print(f"{folder(arguments.number)}: {'updated' if changed else 'unchanged'}")
            elif arguments.command == "remove":
                changed = remove(arguments.remote, arguments.number, work)
                print(f"{folder(arguments.number)}: {'removed' if changed else 'not there'}")
            else:
                numbers = assemble(arguments.remote, arguments.site, work)
                print("previews: " + (", ".join(folder(n) for n in numbers) or "none"))
        except (ValueError, RuntimeError, subprocess.CalledProcessError) as error:
            detail = getattr(error, "stderr", None) or ""
            parser.exit(1, f"{parser.prog}: error: {error} {detail}".rstrip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
