"""Who gets a preview: CI runs, label events and open pull requests, as GitHub's JSON has them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tools.preview_trust import LABEL, Refused, ci_run, eligible, items, label, main

COURSE = "scale-by-the-numbers/course"
FORK = "mallory/course"
SHA = "0123456789abcdef0123456789abcdef01234567"
NEWER = "89abcdef0123456789abcdef0123456789abcdef"


def pull(
    number: int = 5,
    repository: str | None = COURSE,
    sha: str = SHA,
    state: str = "open",
    labels: tuple[str, ...] = (),
) -> dict[str, object]:
    """A pull request as `gh api repos/R/pulls/N` returns it, cut to the fields that matter."""
    return {
        "number": number,
        "state": state,
        "head": {"sha": sha, "repo": None if repository is None else {"full_name": repository}},
        "labels": [{"name": name} for name in labels],
    }


def record(number: object = 5, head_sha: object = SHA) -> dict[str, object]:
    return {"number": number, "head_sha": head_sha}


# A finished CI run (preview.yml, on workflow_run).


def test_a_branch_of_the_course_is_published_once_ci_passed() -> None:
    assert ci_run(record(), SHA, COURSE, pull(), COURSE).action == "publish"


def test_a_forks_passing_ci_run_is_not_published() -> None:
    # The attack: a fork's pull_request run uses the fork's own ci.yml, so it passes and
    # uploads whatever the fork likes. It gets the comment, never a preview.
    assert ci_run(record(), SHA, FORK, pull(repository=FORK), COURSE).action == "comment"


def test_a_labelled_forks_ci_run_is_left_to_the_label_workflow() -> None:
    assert ci_run(record(), SHA, FORK, pull(repository=FORK, labels=(LABEL,)), COURSE).action == "labelled"


def test_a_fork_cannot_claim_a_branch_of_the_course_in_its_record() -> None:
    # The fork's run writes a record naming the course's own pull request #7 at its head.
    with pytest.raises(Refused, match="comes from scale-by-the-numbers/course, the CI run from mallory/course"):
        ci_run(record(7), SHA, FORK, pull(7), COURSE)


def test_a_record_naming_another_commit_than_the_run_built_is_refused() -> None:
    with pytest.raises(Refused, match=f"names commit {NEWER}, but the CI run built {SHA}"):
        ci_run(record(head_sha=NEWER), SHA, COURSE, pull(sha=NEWER), COURSE)


def test_a_record_for_another_pull_request_than_the_api_returned_is_refused() -> None:
    with pytest.raises(Refused, match="is #6, not #5"):
        ci_run(record(5), SHA, COURSE, pull(6), COURSE)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (record(number="5; rm -rf /"), "positive whole number"),
        (record(number=True), "positive whole number"),
        (record(number=0), "positive whole number"),
        (record(head_sha="HEAD"), "40 lowercase hexadecimal digits"),
        (record(head_sha=SHA.upper()), "40 lowercase hexadecimal digits"),
        (["not", "an", "object"], "not a JSON object"),
    ],
)
def test_a_malformed_record_is_refused(bad: object, message: str) -> None:
    with pytest.raises(Refused, match=message):
        ci_run(bad, SHA, COURSE, pull(), COURSE)


@pytest.mark.parametrize("bad", [["x" * 5_000_000], record(number="x" * 5_000_000), record(head_sha="x" * 5_000_000)])
def test_a_refusal_quotes_an_untrusted_value_cut_short(bad: object) -> None:
    """Attack round 9: the refusal of a 5 MB record repeated it whole into the workflow's log."""
    with pytest.raises(Refused) as refused:
        ci_run(bad, SHA, COURSE, pull(), COURSE)
    assert len(str(refused.value)) < 200


@pytest.mark.parametrize("now", [pull(sha=NEWER), pull(state="closed")])
def test_a_run_for_an_older_commit_or_a_closed_pull_request_is_stale(now: dict[str, object]) -> None:
    assert ci_run(record(), SHA, COURSE, now, COURSE).action == "stale"


# A maintainer's label (preview-label.yml, on pull_request_target: labeled).


def test_the_label_authorizes_a_forks_commit_it_was_applied_at() -> None:
    decision = label(pull(repository=FORK, labels=(LABEL,)), SHA, LABEL, COURSE)
    assert (decision.number, decision.action) == (5, "publish")


def test_a_commit_pushed_after_the_label_is_not_authorized() -> None:
    # The attack: the fork pushes new JavaScript between the maintainer's label and the publish.
    with pytest.raises(Refused, match=f"labelled at {SHA}, but its head is now {NEWER}"):
        label(pull(repository=FORK, sha=NEWER, labels=(LABEL,)), SHA, LABEL, COURSE)


@pytest.mark.parametrize(
    ("now", "applied", "message"),
    [
        (pull(repository=FORK, labels=(LABEL, "lesson")), "lesson", "authorizes nothing"),
        (pull(repository=FORK), LABEL, "no longer carries"),
        (pull(repository=FORK, state="closed", labels=(LABEL,)), LABEL, "is closed"),
        (pull(labels=(LABEL,)), LABEL, "previewed from CI without a label"),
    ],
)
def test_a_label_event_is_refused_unless_it_is_the_label_still_on_an_open_fork(
    now: dict[str, object], applied: str, message: str
) -> None:
    with pytest.raises(Refused, match=message):
        label(now, SHA, applied, COURSE)


# Which previews may stay (tools.previews drops the others at every update).


def test_eligible_are_the_courses_own_and_labelled_forks_open_pull_requests() -> None:
    pulls = [
        pull(1),
        pull(2, repository=FORK),
        pull(3, repository=FORK, labels=(LABEL,)),
        pull(4, state="closed"),
        pull(5, repository=None),  # a fork since deleted
    ]
    assert eligible(pulls, COURSE) == {1, 3}


def test_eligible_reads_pages_of_pull_requests() -> None:
    assert eligible([[pull(1)], [pull(2)]], COURSE) == {1, 2}


def test_items_refuses_what_is_not_a_list() -> None:
    with pytest.raises(Refused, match="expected a JSON list, got dict"):
        items({"message": "Bad credentials"})


@pytest.mark.parametrize("repository", ["course", "a/b/c", "../x", "owner/..", "owner/na me", ""])
def test_a_repository_must_be_owner_slash_name(repository: str) -> None:
    with pytest.raises(Refused, match="owner/name"):
        eligible([], repository)


# The command line, as the workflows call it.


def test_the_ci_run_command_prints_the_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pull-request.json"
    path.write_text(json.dumps(record()), encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(pull(repository=FORK))))
    arguments = ["--repository", COURSE, "--run-head-sha", SHA, "--run-head-repository", FORK, "--record", str(path)]
    assert main(["ci-run", *arguments]) == 0
    assert capsys.readouterr().out == "number=5\naction=comment\n"


def test_the_label_command_exits_1_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(pull(repository=FORK, sha=NEWER, labels=(LABEL,)))))
    with pytest.raises(SystemExit) as exit_info:
        main(["label", "--repository", COURSE, "--head-sha", SHA, "--label", LABEL])
    assert exit_info.value.code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "refused: #5 was labelled at" in captured.err


# Attack round 8 (F9): hostile JSON is refused in one line, exit 1, never a traceback.

HOSTILE_JSON = [
    pytest.param(b"[" * 100_000 + b"]" * 100_000, "nest more than", id="deep"),
    pytest.param(b'{"number": 1, "head_sha": "\xff"}', "not UTF-8", id="not-utf-8"),
    pytest.param(b'{"number": ' + b"9" * 5000 + b"}", "at most", id="5000-digits"),
]


def _stdin(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


@pytest.mark.parametrize(("data", "message"), HOSTILE_JSON)
def test_a_hostile_record_is_refused_without_a_traceback(
    data: bytes, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pull-request.json"
    path.write_bytes(data)
    monkeypatch.setattr("sys.stdin", _stdin(json.dumps(pull()).encode()))
    arguments = ["--repository", COURSE, "--run-head-sha", SHA, "--run-head-repository", COURSE, "--record", str(path)]
    with pytest.raises(SystemExit) as exit_info:
        main(["ci-run", *arguments])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "refused:" in err
    assert message in err


@pytest.mark.parametrize(("data", "message"), HOSTILE_JSON)
def test_a_hostile_pull_request_on_stdin_is_refused_without_a_traceback(
    data: bytes, message: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", _stdin(data))
    with pytest.raises(SystemExit) as exit_info:
        main(["label", "--repository", COURSE, "--head-sha", SHA, "--label", LABEL])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert "refused:" in err
    assert message in err
