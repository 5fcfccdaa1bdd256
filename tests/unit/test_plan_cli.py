"""The planner's command line, `python -m tools.plan`, run as a user runs it: in a subprocess.

Its JSON holds `parameters` and `layouts` best first, each with its degrees, memory by role in bytes,
`fits`, `step_seconds` and `tokens_per_second`; bad input is one line on stderr naming the flag or the file
and the fix, exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.unit.test_planner import LLAMA3_8B, MIXTRAL_8X7B, llama_count

LLAMA3_ON_16 = ["--gpu", "h100-sxm5", "--gpus", "16", "--sequence", "8192", "--global-batch", "4194304"]
LAYOUT_KEYS = {"tp", "pp", "dp", "zero", "micro_batch", "recompute", "memory", "fits", "step_seconds"}
ROLES = {"parameters", "gradients", "optimizer", "activations", "total"}


def plan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tools.plan", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


@cache
def llama_json() -> dict[str, Any]:
    done = plan("--model", "llama-3-8b", *LLAMA3_ON_16, "--training-tokens", "1e12", "--price", "2.5", "--json")
    assert done.returncode == 0, done.stderr
    document: dict[str, Any] = json.loads(done.stdout)
    return document


def test_the_json_holds_parameters_and_layouts_best_first() -> None:
    document = llama_json()
    assert document["parameters"]["total"] == llama_count(LLAMA3_8B) == 8_030_261_248
    layouts = document["layouts"]
    assert len(layouts) > 100
    for layout in layouts:
        assert LAYOUT_KEYS | {"tokens_per_second"} <= set(layout)
        assert set(layout["memory"]) >= ROLES and all(isinstance(v, int) for v in layout["memory"].values())
        assert layout["tp"] * layout["pp"] * layout["dp"] == 16
        parts = sum(value for role, value in layout["memory"].items() if role != "total")
        assert abs(layout["memory"]["total"] - parts) <= 5  # each of the five roles rounded to a byte
        assert layout["fits"] == (layout["memory"]["total"] <= layout["capacity"])
    fits = [layout["fits"] for layout in layouts]
    assert fits == sorted(fits, reverse=True)
    fitting = [layout["step_seconds"] for layout in layouts if layout["fits"]]
    assert fitting == sorted(fitting)
    best = layouts[0]
    assert best["reason"] == "the fastest layout that fits"
    assert best["tokens_per_second"] == pytest.approx(4194304 / best["step_seconds"])
    assert best["gpu_hours"] == pytest.approx(1e12 / best["tokens_per_second"] * 16 / 3600)
    assert best["cost"] == pytest.approx(best["gpu_hours"] * 2.5)
    assert {item["rule"] for item in document["invalid"]} >= {"tp-node", "zero-pipeline"}


def test_the_table_prints_the_model_the_cluster_and_the_assumptions() -> None:
    done = plan("--model", "llama-3-8b", *LLAMA3_ON_16, "--top", "3")
    assert done.returncode == 0 and not done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Llama 3 8B: 8,030,261,248 parameters"
    assert "16 × NVIDIA H100 SXM5 (2 nodes of 8)" in lines[1]
    assert lines[2].startswith("assumed: 50% of the 989 TFLOP/s dense bf16 peak, recipe bf16-adam")
    assert "the fastest layout that fits" in done.stdout
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    rows = lines[header + 1 : lines.index("", header)]
    assert len(rows) == 3 and rows[0].split()[:1] == ["1"]
    assert lines[-1].endswith("break a rule.")


def test_a_config_json_and_fixed_degrees(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps(MIXTRAL_8X7B))
    done = plan(
        "--config", str(config), "--gpus", "64", "--sequence", "4096", "--global-batch", "4194304",
        "--tp", "8", "--zero", "1", "--recompute", "full", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert (document["parameters"]["total"], document["parameters"]["active"]) == (46_702_792_704, 12_879_925_248)
    assert document["layouts"]
    assert all((x["tp"], x["zero"], x["recompute"]) == (8, 1, "full") for x in document["layouts"])


@pytest.fixture(scope="module")
def configs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("configs")
    (folder / "malformed.json").write_text('{"model_type": "llama", ')
    (folder / "bert.json").write_text('{"model_type": "bert", "hidden_size": 768}')
    (folder / "missing.json").write_text('{"model_type": "llama", "hidden_size": 4096}')
    (folder / "binary.json").write_bytes(b"\xff\xfe\x00")
    return folder


def test_a_schedule_too_long_to_simulate_is_planned_in_closed_form() -> None:
    # 32,768 sequences of 128 tokens: a pipeline of 8 stages on one replica runs 32,768 micro-batches, past
    # what `pipeline.schedule` simulates (`MAX_PASSES`); the planner counts what 1F1B holds in closed form.
    done = plan("--model", "llama-3-8b", "--gpu", "h100-sxm5", "--gpus", "64", "--sequence", "128",
                "--global-batch", "4194304", "--pp", "8", "--dp", "1", "--micro-batch", "1", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    layouts = json.loads(done.stdout)["layouts"]
    assert layouts and all(layout["pp"] == 8 and layout["dp"] == 1 for layout in layouts)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--config", "{folder}/malformed.json", *LLAMA3_ON_16], "--config {folder}/malformed.json: not JSON"),
        (["--config", "{folder}/bert.json", *LLAMA3_ON_16], 'model_type "bert" is not one the planner reads'),
        (["--config", "{folder}/missing.json", *LLAMA3_ON_16], 'needs "num_attention_heads"'),
        (["--config", "{folder}/binary.json", *LLAMA3_ON_16], "not text"),
        (["--config", "{folder}/absent.json", *LLAMA3_ON_16], "cannot be read"),
        (["--model", "llama-3-9b", *LLAMA3_ON_16], "Did you mean 'llama-3-8b'"),
        (["--model", "gpt2-xl-released", *LLAMA3_ON_16], "has no heads"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--tp", "3"], "--tp 3 does not divide the 16 GPUs: give one of"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--tp", "16"], "tp = 16 is beyond a node of 8 GPUs"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--tp", "4", "--pp", "4", "--dp", "4"], "does not multiply"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--gpus", "12"], "--gpus 12 is not whole nodes"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--gpus", "10000000"], "--gpus 10000000: beyond 1,000,000"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--sequence", "0"], "--sequence '0': expected a whole number of"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--global-batch", "1000"], "not whole sequences of --sequence"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--share", "150%"], "--share '150%': expected a share"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--share", "40"], "a fraction or a percentage: 40% or 0.4"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--gpu", "v100-32gb"], "no dense bf16 peak for it"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--recipe", "adamw"], "--recipe 'adamw' is not a recipe"),
        (["--model", "llama-3-8b", "--gpus", "16"], "the following arguments are required"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(configs: Path, args: list[str], says: str) -> None:
    done = plan(*(arg.replace("{folder}", str(configs)) for arg in args))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert says.replace("{folder}", str(configs)) in done.stderr
