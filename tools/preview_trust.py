"""Who gets a preview: the decisions the preview workflows take, from GitHub's own JSON.

A preview is a pull request's built HTML, published on the previews' own origin
(`tools.previews`). The rules, which CONTRIBUTING.md's "How previews are kept safe" states
for contributors:

- a pull request from a branch of the course repository (its author can push to the
  repository anyway) is previewed automatically, from CI's build, once CI passed;
- a pull request from a fork is never published on CI's word: a fork's `pull_request` run
  uses the fork's own `ci.yml`, so its success and its artifacts say nothing. It gets the
  figure diff and CI's built site as a download. It is published only after a maintainer
  applies the `LABEL` label; the `labeled` event, which only someone with triage access can
  cause, authorizes the head commit it was applied at, and nothing else: the build is made
  from that commit and published only while it is still the pull request's head and the
  label is still on it.

Every input here is untrusted in some part (a CI artifact's record was written by the pull
request's code), so each value is checked for its form before it is compared; nothing is
executed. Commands, for the workflows; each prints `key=value` lines for `$GITHUB_OUTPUT`,
or exits 1 with the reason (JSON that is not UTF-8, is over a
bound of `tools.bounded_json` or is no JSON included):

    python -m tools.preview_trust ci-run --repository R --run-head-sha SHA --run-head-repository R2 \
        --record pull-request.json < pull.json
    python -m tools.preview_trust label --repository R --head-sha SHA --label NAME < pull.json

`pull.json` is `gh api repos/R/pulls/N`. Which previews may stay (`eligible`) is decided
inside `tools.previews`, from the list of open pull requests.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tools import bounded_json

#: The label with which a maintainer authorizes a fork's pull request's preview.
LABEL = "preview"

#: What to do with a CI run's artifacts: publish them, comment without publishing (a fork),
#: leave it to the labelled workflow (a labelled fork), or nothing (a newer push or a closed pull request).
Action = Literal["publish", "comment", "labelled", "stale"]

_NUMBER = re.compile(r"[1-9][0-9]{0,9}")
_SHA = re.compile(r"[0-9a-f]{40}")
_REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")


class Refused(ValueError):
    """The artifacts or the event do not authorize a preview; the message says why."""


def check_number(value: object) -> int:
    """A pull request number, from JSON or a command line; `Refused` unless a positive whole number."""
    if isinstance(value, bool) or not isinstance(value, int | str) or not _NUMBER.fullmatch(str(value)):
        raise Refused(f"a pull request number is a positive whole number, got {bounded_json.quoted(value)}")
    return int(value)


def check_sha(value: object) -> str:
    """A full commit SHA; `Refused` unless 40 lowercase hexadecimal digits."""
    if not isinstance(value, str) or not _SHA.fullmatch(value):
        raise Refused(f"a commit is 40 lowercase hexadecimal digits, got {bounded_json.quoted(value)}")
    return value


def check_repository(value: object) -> str:
    """An `owner/name` of a GitHub repository; `Refused` for anything else."""
    if not isinstance(value, str) or not _REPOSITORY.fullmatch(value) or value.split("/")[1] in {".", ".."}:
        raise Refused(f"a repository is owner/name, got {bounded_json.quoted(value)}")
    return value


def items(pages: object) -> list[object]:
    """The items of a JSON list from the API, or of a list of pages of them (`gh api --paginate --slurp`)."""
    if not isinstance(pages, list):
        raise Refused(f"expected a JSON list, got {type(pages).__name__}")
    if pages and all(isinstance(page, list) for page in pages):
        return [item for page in pages for item in page]
    return pages


def _field(pull: object, *path: str) -> object:
    """`pull[path[0]][path[1]]…`, or None where a level is missing (a deleted fork's `head.repo` is null)."""
    value = pull
    for key in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(key)
    return value


def _labels(pull: object) -> set[str]:
    labels = _field(pull, "labels")
    return {str(_field(label, "name")) for label in labels} if isinstance(labels, list) else set()


def from_repository(pull: object, repository: str) -> bool:
    """Whether the pull request's head branch lives in `repository` itself rather than in a fork."""
    return _field(pull, "head", "repo", "full_name") == repository


@dataclass(frozen=True)
class Decision:
    """What a preview workflow does for one pull request, and why, in words for its log."""

    number: int
    action: Action
    reason: str

    def outputs(self) -> str:
        """The decision as `key=value` lines for `$GITHUB_OUTPUT`."""
        return f"number={self.number}\naction={self.action}\n"


def ci_run(record: object, run_head_sha: str, run_head_repository: str, pull: object, repository: str) -> Decision:
    """What to do with a finished CI run's artifacts.

    `record` is the run's `pull-request.json` artifact (`{"number", "head_sha"}`), written by
    the pull request's code and so untrusted; `run_head_sha` and `run_head_repository` are
    GitHub's, from the `workflow_run` event; `pull` is the API's pull request that the record
    names. Raises `Refused` when the record is malformed, names another commit than the run
    built, or a pull request from another repository than the run's.
    """
    if not isinstance(record, Mapping):
        raise Refused(f"the pull request record is not a JSON object: {bounded_json.quoted(record)}")
    number = check_number(record.get("number"))
    head_sha = check_sha(record.get("head_sha"))
    if head_sha != check_sha(run_head_sha):
        raise Refused(f"the record names commit {head_sha}, but the CI run built {run_head_sha}")
    if _field(pull, "number") != number:
        raise Refused(f"the API's pull request is #{_field(pull, 'number')}, not #{number}")
    if not from_repository(pull, check_repository(run_head_repository)):
        raise Refused(
            f"pull request #{number} comes from {_field(pull, 'head', 'repo', 'full_name')}, "
            f"the CI run from {run_head_repository}"
        )
    state, pull_head_sha = _field(pull, "state"), _field(pull, "head", "sha")
    if state != "open" or pull_head_sha != head_sha:
        return Decision(number, "stale", f"#{number} is {state} at {pull_head_sha}; not {head_sha}")
    if from_repository(pull, check_repository(repository)):
        return Decision(number, "publish", f"#{number} is a branch of {repository}: its preview is published")
    if LABEL in _labels(pull):
        return Decision(number, "labelled", f"#{number} is a fork's, labelled {LABEL!r}: its own workflow builds it")
    return Decision(number, "comment", f"#{number} is a fork's: the figure diff and a download only, until labelled")


def label(pull: object, head_sha: str, applied: str, repository: str) -> Decision:
    """Whether a `labeled` event authorizes publishing a fork's pull request at `head_sha`.

    `head_sha` is the head commit in the event, the one the maintainer labelled; `applied` is
    the event's label; `pull` is the API's pull request now. Run before the build and again
    before publishing it. Raises `Refused` unless the label is `LABEL`, the pull request comes
    from a fork, is open, still has `head_sha` as its head (a push since the label was applied
    needs a new label) and still carries the label.
    """
    number = check_number(_field(pull, "number"))
    head_sha = check_sha(head_sha)
    if applied != LABEL:
        raise Refused(f"#{number}: the label {applied!r} authorizes nothing; {LABEL!r} does")
    if from_repository(pull, check_repository(repository)):
        raise Refused(f"#{number} is a branch of {repository}: it is previewed from CI without a label")
    if _field(pull, "state") != "open":
        raise Refused(f"#{number} is {_field(pull, 'state')}")
    if _field(pull, "head", "sha") != head_sha:
        raise Refused(
            f"#{number} was labelled at {head_sha}, but its head is now {_field(pull, 'head', 'sha')}: "
            f"a new commit needs a maintainer to apply {LABEL!r} again"
        )
    if LABEL not in _labels(pull):
        raise Refused(f"#{number} no longer carries {LABEL!r}")
    return Decision(number, "publish", f"#{number} is labelled {LABEL!r} at {head_sha}: its preview is published")


def eligible(pulls: object, repository: str) -> frozenset[int]:
    """The numbers of the open pull requests that may have a preview: the repository's own, and labelled forks'.

    `pulls` is the API's list of open pull requests (or its pages). Every preview not among
    them is dropped at the next update of the previews (`tools.previews`).
    """
    check_repository(repository)
    numbers: set[int] = set()
    for pull in items(pulls):
        if _field(pull, "state") == "open" and (from_repository(pull, repository) or LABEL in _labels(pull)):
            numbers.add(check_number(_field(pull, "number")))
    return frozenset(numbers)


def main(argv: Sequence[str] | None = None) -> int:
    """Print a decision for the workflows; see the module's docstring."""
    parser = argparse.ArgumentParser(prog="python -m tools.preview_trust", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("ci-run", help="what to do with a CI run's artifacts; the pull request on stdin")
    run.add_argument("--repository", required=True)
    run.add_argument("--run-head-sha", required=True)
    run.add_argument("--run-head-repository", required=True)
    run.add_argument("--record", type=Path, required=True, help="the run's pull-request.json artifact")
    labelled = commands.add_parser("label", help="whether a label authorizes a preview; the pull request on stdin")
    labelled.add_argument("--repository", required=True)
    labelled.add_argument("--head-sha", required=True)
    labelled.add_argument("--label", required=True)
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "ci-run":
            decision = ci_run(
                bounded_json.load(arguments.record),
                arguments.run_head_sha,
                arguments.run_head_repository,
                bounded_json.load(None),
                arguments.repository,
            )
        else:
            decision = label(bounded_json.load(None), arguments.head_sha, arguments.label, arguments.repository)
    except (Refused, bounded_json.Unreadable, OSError) as error:
        parser.exit(1, f"{parser.prog}: refused: {error}\n")
    print(decision.reason, file=sys.stderr)
    sys.stdout.write(decision.outputs())
    return 0


if __name__ == "__main__":
    sys.exit(main())
