"""What the workflows may hold and run: the trust model of previews (issue 9), read from the files themselves.

`make github` validates the workflows against GitHub's schema and audits them with zizmor;
these tests hold them to what CONTRIBUTING.md promises, which neither tool knows: where the
pull request's code runs, which job holds the previews' deploy key, what the course's own
deploy carries, and that the build that is deployed installs a pinned pip.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tools.preview_trust import LABEL

WORKFLOWS = ROOT / ".github" / "workflows"
MAIN = "${{ github.event.repository.default_branch }}"
#: How a job checks out main: by name, or by the run's own ref where there is no event (a schedule).
MAIN_REFS = (MAIN, "${{ github.event.repository.default_branch || github.ref }}")
DEPLOY_KEY = "secrets.PREVIEW_DEPLOY_KEY"

Job = Mapping[str, Any]


def load(path: Path) -> dict[str, Any]:
    workflow: dict[Any, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    # YAML 1.1 reads the key `on` as True.
    workflow["on"] = workflow.pop(True, workflow.get("on"))
    return workflow


def all_jobs() -> Iterator[tuple[str, str, Job]]:
    for path in sorted(WORKFLOWS.glob("*.yml")):
        for name, job in load(path)["jobs"].items():
            yield path.name, name, job


def text(value: object) -> str:
    return yaml.safe_dump(value)


def checkouts(job: Job) -> list[Mapping[str, Any]]:
    return [step for step in job.get("steps", []) if str(step.get("uses", "")).startswith("actions/checkout@")]


def called(job: Job) -> Path | None:
    """The local reusable workflow a job calls, if any."""
    uses = str(job.get("uses", ""))
    return WORKFLOWS / Path(uses).name if uses.startswith(("$/", "./")) else None


def test_workflows_are_found() -> None:
    assert {"ci.yml", "deploy.yml", "preview.yml", "preview-label.yml", "preview-cleanup.yml"} <= {
        path.name for path in WORKFLOWS.glob("*.yml")
    }


@pytest.mark.parametrize(("workflow", "name", "job"), list(all_jobs()), ids=lambda v: v if isinstance(v, str) else "")
def test_no_job_can_write_the_course_repositorys_contents(workflow: str, name: str, job: Job) -> None:
    # Previews are pushed with the deploy key of their own repository: the course's token
    # never needs to write a branch, let alone every branch.
    permissions = job.get("permissions", {})
    assert permissions != "write-all" and permissions.get("contents") != "write", f"{workflow}: {name}"


def test_the_courses_deploy_carries_mains_build_only() -> None:
    # Previews used to ride along in every deploy of the course: a preview could make it
    # fail, or take it past Pages' size limit. Now the deploy neither reads nor names them.
    deploy = load(WORKFLOWS / "deploy.yml")
    for name, job in deploy["jobs"].items():
        assert called(job) is None, f"deploy.yml: {name} calls another workflow"
        assert "previews" not in text(job.get("steps", [])), f"deploy.yml: {name} mentions previews"
        assert "secrets." not in text(job), f"deploy.yml: {name} uses a secret"
        assert not runs_a_pull_requests_code(job), f"deploy.yml: {name}"


@pytest.mark.parametrize(("workflow", "name", "job"), [j for j in all_jobs() if DEPLOY_KEY in text(j[2])])
def test_the_deploy_key_is_held_only_by_jobs_that_run_mains_code(workflow: str, name: str, job: Job) -> None:
    assert job.get("environment") in ("previews", {"name": "previews", "url": "${{ steps.url.outputs.url }}"})
    assert checkouts(job), f"{workflow}: {name} runs main's tools"
    for step in checkouts(job):
        assert step["with"]["ref"] in MAIN_REFS
        assert step["with"]["persist-credentials"] is False
    runs = " ".join(str(step.get("run", "")) for step in job["steps"])
    assert not re.search(r"\bmake\b|\bpip\b|mkdocs", runs), f"{workflow}: {name} builds something"


def test_the_deploy_key_is_used_somewhere() -> None:
    assert [name for _, name, job in all_jobs() if DEPLOY_KEY in text(job)] == ["prune", "publish", "stage"]


def runs_a_pull_requests_code(job: Job) -> bool:
    """Whether a job checks out anything but main: a checkout without a ref is the pull request's, in CI."""
    return any(step.get("with", {}).get("ref") not in MAIN_REFS for step in checkouts(job))


def test_the_jobs_that_run_a_pull_requests_code_are_cis_and_the_labelled_build() -> None:
    assert [(w, n) for w, n, job in all_jobs() if runs_a_pull_requests_code(job)] == [
        ("ci.yml", "test"),
        ("preview-label.yml", "build"),
    ]


@pytest.mark.parametrize(("workflow", "name", "job"), [j for j in all_jobs() if runs_a_pull_requests_code(j[2])])
def test_a_job_that_runs_a_pull_requests_code_holds_no_credential(workflow: str, name: str, job: Job) -> None:
    # CI's, and the labelled build of a fork: a read-only token, no secret, no environment,
    # and no credential left on disk for the code to find.
    assert job.get("permissions") == {"contents": "read"}, f"{workflow}: {name}"
    assert "secrets." not in text(job) and "environment" not in job, f"{workflow}: {name}"
    assert all(step["with"]["persist-credentials"] is False for step in checkouts(job)), f"{workflow}: {name}"


def test_the_labelled_build_checks_out_the_commit_the_label_was_applied_at() -> None:
    # Not the branch, which the fork can move after the label: the head commit in the event.
    build = load(WORKFLOWS / "preview-label.yml")["jobs"]["build"]
    assert [step["with"]["ref"] for step in checkouts(build)] == ["${{ github.event.pull_request.head.sha }}"]


def test_no_workflow_restores_an_actions_cache() -> None:
    # The labelled build of a fork runs in main's cache scope (pull_request_target), so a
    # cache that main's workflows restored could be poisoned by it.
    for workflow, name, job in all_jobs():
        for step in job.get("steps", []):
            assert not str(step.get("uses", "")).startswith("actions/cache"), f"{workflow}: {name}"
            assert "cache" not in step.get("with", {}), f"{workflow}: {name}"


def test_the_workflows_name_the_label_that_tools_checks() -> None:
    for workflow in ("preview-label.yml", "preview-cleanup.yml"):
        assert f"'{LABEL}'" in (WORKFLOWS / workflow).read_text(encoding="utf-8")


def test_the_deployed_build_installs_the_pinned_pip() -> None:
    # The Makefile's install of pip runs in the build that deploy.yml publishes: every venv takes the one pin.
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    pins = re.findall(r"^PIP_PIN := (.*)$", makefile, flags=re.MULTILINE)
    assert len(pins) == 1 and re.fullmatch(r"pip==[0-9]+(\.[0-9]+)+", pins[0]), pins
    installs = [line for line in makefile.splitlines() if re.search(r"pip install .*(\bpip\b|PIP_PIN)", line)]
    assert installs and all(line.endswith("pip install --quiet $(PIP_PIN)") for line in installs), installs
