"""The planner's command line, `python -m tools.plan`, run as a user runs it: in a subprocess.

Its JSON holds `parameters` and `layouts` best first, each with its degrees, memory by role in bytes,
`fits`, `step_seconds` and `tokens_per_second`; bad input is one line on stderr naming the flag or the file
and the fix, exit code 2, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from macros.model import planner
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
        assert layout["tp"] * layout["cp"] * layout["pp"] * layout["dp"] == 16
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
    assert lines[2].startswith("links (decimal, each way): NVLink nvlink-h100, 450 GB/s per GPU")
    assert lines[3].startswith("assumed: 50% of the 989 TFLOP/s dense bf16 peak, recipe bf16-adam")
    assert "the fastest layout that fits" in done.stdout
    header = next(i for i, line in enumerate(lines) if line.lstrip().startswith("#"))
    rows = lines[header + 1 : lines.index("", header)]
    assert len(rows) == 3 and rows[0].split()[:1] == ["1"]
    assert any(line.endswith("break a rule.") for line in lines[-3:])


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
    (folder / "twice.json").write_text('{"model_type": "llama", "hidden_size": 4096, "hidden_size": 8}')
    # Past what any config.json holds: refused after reading its first 4,000,001 bytes, not read whole.
    with (folder / "huge.json").open("wb") as huge:
        huge.truncate(300_000_000)
    # GPT-2's shape, whose learned positions stop at 1,024 tokens (attack round 10: planned at 8,192, silently).
    (folder / "gpt2.json").write_text(
        '{"model_type": "gpt2", "n_embd": 1600, "n_layer": 48, "n_head": 25, "vocab_size": 50257, "n_positions": 1024}'
    )
    # A pipe no one writes to: opening it waited for ever (attack round 9).
    os.mkfifo(folder / "pipe.json")
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
        (
            ["--model", "llama-3-8b", *LLAMA3_ON_16, "--tp", "3"],
            "--tp 3 does not divide the 16 GPUs: give one of 1, 2, 4, 8\n",
        ),
        (
            ["--model", "llama-3-8b", *LLAMA3_ON_16, "--gpus-per-node", "4", "--tp", "8"],
            "a node of 4 GPUs: give one of 1, 2, 4\n",
        ),
        (
            ["--model", "llama-3-8b", *LLAMA3_ON_16, "--global-batch", "4M"],
            "give a multiple of 8,192, such as 3,997,696 or 4,005,888",
        ),
        (
            ["--model", "llama-3-8b", *LLAMA3_ON_16, "--global-batch", "4X"],
            "--global-batch '4X': expected a whole number, such as 16, 4194304, 4.2M or 1e12",
        ),
        (
            ["--model", "llama-3-8b", *LLAMA3_ON_16, "--network-gbit-s", "0"],
            "--network-gbit-s 0: expected a bandwidth from 1 to 100,000",
        ),
        (
            ["--model", "llama-3-8b", *LLAMA3_ON_16, "--global-batch", "4202496", "--dp", "16"],
            "512 or 528 sequences (4,194,304 or 4,325,376 tokens) would divide among every degree tried",
        ),
        (
            ["--model", "llama-3-8b", *LLAMA3_ON_16, "--tp", "16"],
            "--tp 16 does not divide a node of 8 GPUs: give one of 1, 2, 4, 8\n",
        ),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--tp", "4", "--pp", "4", "--dp", "4"], "does not multiply"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--gpus", "12"], "--gpus 12 is not whole nodes"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--gpus", "10000000"], "--gpus 10000000: beyond 1,000,000"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--sequence", "0"], "--sequence '0': expected a whole number of"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--global-batch", "1000"], "not whole sequences of --sequence"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--share", "150%"], "--share '150%': expected a share"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--share", "40"], "a fraction or a percentage: 40% or 0.4"),
        # Attack round 5, finding 13: a share too small for any GPU, and numbers too large to build.
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--share", "1e-30"], "expected a share from 1% to 100%"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--share", "1e-300"], "expected a share, such as 50% or 0.5"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--share", "0.5%"], "expected a share from 1% to 100%"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--top", "1e999"], "--top '1e999': expected a whole number"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--top", "1e6"], "--top 1e6: at most 100,000 rows"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--training-tokens", "1e999999999"], "expected a whole number"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--price", "1e-999999999"], "expected dollars per GPU-hour"),
        (["--config", "{folder}/huge.json", *LLAMA3_ON_16], "more than 4,000,000 bytes"),
        (["--config", "{folder}/pipe.json", *LLAMA3_ON_16], "--config {folder}/pipe.json: not a file"),
        (["--config", "{folder}/gpt2.json", *LLAMA3_ON_16], "learns 1,024 positions"),
        (["--config", "/dev/zero", *LLAMA3_ON_16], "--config /dev/zero: not a file"),
        # Attack round 6, finding 12: commas anywhere, bandwidths and prices too small to be any, a reserve of all
        # memory, a key given twice.
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--training-tokens", "1,2,3"], "commas group thousands"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--network-gbit-s", "1e-30"], "expected a bandwidth from 1 to"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--price", "1e-28"], "expected dollars per GPU-hour from 0.01"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--reserve", "99.9999%"], "expected a share from 0% to 90%"),
        (["--config", "{folder}/twice.json", *LLAMA3_ON_16], '"hidden_size" is given twice; give it once'),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--gpu", "v100-32gb"], "no dense bf16 peak for it"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--recipe", "adamw"], "--recipe 'adamw' is not a recipe"),
        (["--model", "llama-3-8b", "--gpus", "16"], "the following arguments are required"),
        # Issue 29: context and expert degrees that do not divide what they split, an expert degree for a dense model.
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--cp", "3"], "--cp 3 does not divide the 16 GPUs: give one of 1,"),
        (
            ["--model", "llama-3-8b", "--gpus", "16", "--sequence", "8200", "--global-batch", "4198400", "--cp", "8"],
            "--cp 8 does not split --sequence 8,200 into 2 × cp = 16 equal chunks",
        ),
        (
            ["--model", "llama-3-8b", *LLAMA3_ON_16, "--ep", "2"],
            "--ep 2: Llama 3 8B is dense, not a mixture of experts",
        ),
        (["--model", "mixtral-8x7b", *LLAMA3_ON_16, "--ep", "3"], "--ep 3 does not divide Mixtral 8x7B's 8 experts"),
        (["--model", "llama-3-8b", *LLAMA3_ON_16, "--tp", "8", "--cp", "4"], "--tp 8 × --cp 4 = 32 does not multiply"),
        (
            ["--model", "mixtral-8x7b", *LLAMA3_ON_16, "--ep", "8", "--tp", "4"],
            "ep = 8 does not divide the cp × dp = 4 devices",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(configs: Path, args: list[str], says: str) -> None:
    done = plan(*(arg.replace("{folder}", str(configs)) for arg in args))
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    assert says.replace("{folder}", str(configs)) in done.stderr


def test_the_header_prints_the_flops_per_token_the_links_the_steps_and_the_hiding_bound() -> None:
    """The reader trial's findings: which FLOPs --share and MFU count, the links used, the run's steps and days,
    the hiding bound of #1, and a cluster smaller than a node said as such."""
    done = plan("--model", "llama-3-8b", *LLAMA3_ON_16, "--training-tokens", "1T", "--top", "2")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "FLOPs per token: 57,914,425,344, 7.21 per parameter" in out
    assert "6N alone, as Lesson 3 counts, is 48,181,567,488" in out and "--share times 1.20" in out
    assert "NVLink nvlink-h100, 450 GB/s per GPU" in out
    assert "network connectx7-400g, 400 Gbit/s (50 GB/s) per port, 8 ports per node (one per GPU)" in out
    assert "1,000,000,000,000 tokens are 238,419 steps of 4,194,304" in out
    assert "  days  " in out.splitlines()[8]
    # The bound's value is test_planner's; here the line says it and its margin of #1's micro-batch on a GPU,
    # its micro-batch of 8,192-token sequences split over its cp GPUs (the table's columns cp and mb).
    heading = next(line.split() for line in out.splitlines() if line.lstrip().startswith("#"))
    first = next(line.split() for line in out.splitlines() if line.lstrip().startswith("1 "))
    row = dict(zip(heading, first, strict=False))
    held = 8192 * int(row["mb"]) // int(row["cp"])
    said = re.search(r"#1's data-parallel traffic .* above ([\d,]+) tokens .* holds ([\d,]+), ([\d.]+) times that", out)
    assert said, out
    bound, holds, margin = int(said[1].replace(",", "")), int(said[2].replace(",", "")), float(said[3])
    assert holds == held and abs(held / bound - margin) < 0.01
    small = plan("--model", "llama-3-8b", *LLAMA3_ON_16, "--gpus", "2", "--top", "1")
    assert "(1 node of 2 GPUs: --gpus 2 is fewer than --gpus-per-node 8, so one node of them)" in small.stdout


def test_measured_bandwidths_and_ports_replace_the_catalogs() -> None:
    base = ["--model", "llama-3-8b", *LLAMA3_ON_16, "--tp", "1", "--pp", "1", "--zero", "0", "--micro-batch", "1",
            "--recompute", "none", "--json"]  # fmt: skip

    def data(*extra: str) -> tuple[float, dict[str, Any]]:
        done = plan(*base, *extra)
        assert done.returncode == 0, done.stderr
        document = json.loads(done.stdout)
        return document["layouts"][0]["time"]["data"], document["cluster"]

    catalogs, cluster = data()
    assert cluster["network_bandwidth_per_gpu"] == 50e9 and cluster["nvlink_bandwidth"] == 450e9
    same, _ = data("--network-gbit-s", "400", "--nvlink-gbyte-s", "450")
    assert same == pytest.approx(catalogs)
    slow, cluster = data("--network-gbit-s", "50")
    assert cluster["network_bandwidth_per_gpu"] == 6.25e9 and "as given (--network-gbit-s)" in cluster["links"]
    shared, cluster = data("--ports-per-node", "1")  # one 400G port for eight GPUs: 6.25 GB/s each
    assert cluster["network_bandwidth_per_gpu"] == 6.25e9
    assert shared == pytest.approx(slow) and slow > catalogs


def test_the_json_holds_the_flops_the_steps_and_each_layouts_days_and_hiding() -> None:
    document = llama_json()
    flops = document["flops_per_token"]
    assert flops["total"] == flops["matmul"] + flops["attention"] == 57_914_425_344
    assert flops["six_n"] == 6 * document["parameters"]["total"]
    assert document["steps"] == -(-(10**12) // 4194304)
    for layout in document["layouts"]:
        assert layout["days"] == pytest.approx(document["steps"] * layout["step_seconds"] / 86400)
        if layout["dp"] * layout["cp"] > 1:
            tokens = layout["micro_batch"] * 8192 / layout["cp"]
            assert layout["hiding_margin"] == pytest.approx(tokens / layout["hiding_tokens"])
            # Hybrid sharding's binding traffic is ZeRO-3's within a node or its shards' all-reduce across nodes.
            expected = (
                ("zero3", "allreduce") if layout["hybrid"] else ({0: "allreduce", 3: "zero3"}.get(layout["zero"]),)
            )
            assert layout["hiding_traffic"] in expected or layout["zero"] in (1, 2)
        else:
            assert layout["hiding_tokens"] is None
    assert document["batch_hint"] is None


def test_a_batch_that_rules_out_layouts_is_said_with_the_nearest_that_divides() -> None:
    done = plan("--model", "llama-3-8b", *LLAMA3_ON_16, "--global-batch", "4202496", "--cp", "1", "--hybrid", "off",
                "--top", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        "The batch: 128 layouts break a rule because a global batch of 513 sequences does not divide among"
        " dp = 2, 4, 8, 16; 512 or 528 sequences (4,194,304 or 4,325,376 tokens) would divide among every degree"
        " tried." in done.stdout
    )


def test_counts_take_decimal_suffixes() -> None:
    done = plan("--model", "llama-3-8b", *LLAMA3_ON_16, "--global-batch", "4.194304M", "--training-tokens", "1.5T",
                "--json", "--top", "1")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assumptions = json.loads(done.stdout)["assumptions"]
    assert (assumptions["global_batch"], assumptions["training_tokens"]) == (4_194_304, 1_500_000_000_000)


def test_context_and_expert_degrees_are_searched_or_fixed_and_in_the_json() -> None:
    """Issue 29: --cp and --ep hold the degrees; without them both are searched, ep only for a mixture of experts,
    and every layout planned keeps their rules (2·cp chunks of the sequence; ep dividing the experts and cp·dp)."""
    searched = llama_json()["layouts"]
    assert {x["cp"] for x in searched} > {1} and {x["ep"] for x in searched} == {1}
    assert all(8192 % (2 * x["cp"]) == 0 for x in searched if x["cp"] > 1)
    mixtral = plan("--model", "mixtral-8x7b", *LLAMA3_ON_16, "--json", "--top", "100000")
    assert mixtral.returncode == 0, mixtral.stderr
    experts = json.loads(mixtral.stdout)["layouts"]
    assert {x["ep"] for x in experts} > {1}
    assert all(8 % x["ep"] == 0 and (x["cp"] * x["dp"]) % x["ep"] == 0 for x in experts)
    done = plan("--model", "llama-3-8b", *LLAMA3_ON_16, "--cp", "2", "--json")
    assert done.returncode == 0, done.stderr
    layouts = json.loads(done.stdout)["layouts"]
    assert layouts and all(x["cp"] == 2 and x["tp"] * x["cp"] * x["pp"] * x["dp"] == 16 for x in layouts)
    done = plan("--model", "mixtral-8x7b", *LLAMA3_ON_16, "--ep", "8", "--top", "3")
    assert done.returncode == 0, done.stderr
    assert "expert parallel, ep = 8 fixed: 1 of 8 experts per GPU" in done.stdout
    header = next(line for line in done.stdout.splitlines() if line.lstrip().startswith("#"))
    assert header.split()[:6] == ["#", "tp", "cp", "ep", "pp", "dp"]
    helped = " ".join(plan("--help").stdout.split())  # argparse wraps the help
    assert "--cp" in helped and "--ep" in helped and helped.count("(default: searched") == 3 and "--hybrid" in helped


def test_a_table_piped_into_head_ends_without_a_traceback() -> None:
    """`python -m tools.plan … | head -3` closes the pipe early: the command stops quietly."""
    command = [sys.executable, "-m", "tools.plan", "--model", "llama-3-8b", *LLAMA3_ON_16, "--top", "100000"]
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as child:
        assert child.stdout is not None and child.stderr is not None
        child.stdout.readline()
        child.stdout.close()
        error = child.stderr.read()
        child.wait(timeout=300)
    assert "Traceback" not in error and "BrokenPipeError" not in error, error


def test_hybrid_sharding_is_searched_with_zero3_and_held_by_its_flag() -> None:
    searched = llama_json()["layouts"]
    assert {x["hybrid"] for x in searched} == {False, True}
    assert all(x["zero"] == 3 for x in searched if x["hybrid"])
    done = plan("--model", "llama-3-8b", *LLAMA3_ON_16, "--hybrid", "on", "--cp", "1", "--top", "1")
    assert done.returncode == 0, done.stderr
    first = next(line.split() for line in done.stdout.splitlines() if line.lstrip().startswith("1 "))
    assert first[4] == "HSDP", first  # the ZeRO column: #, tp, pp, dp, ZeRO


def test_a_search_beyond_the_pages_bound_is_refused_with_what_to_fix() -> None:
    """Attack round 7: 5,040 GPUs weighed 3.2 million layouts for 31 s (720,720 ran 455 s at 10.5 GB); the page
    stops at `planner.MAX_LAYOUTS`, and so does the command line, in one line."""
    done = plan("--model", "llama-3-8b", "--gpus", "5040", "--sequence", "4096", "--global-batch", "20643840")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"more than {planner.MAX_LAYOUTS:,} layouts to weigh: fix --tp, --pp or --cp" in done.stderr
    assert done.stderr.count("\n") == 1


def test_a_configs_path_and_values_are_quoted_short_and_on_one_line(tmp_path: Path) -> None:
    """Attack round 7: a path holding a newline and an escape was echoed raw, over two lines with a terminal
    colour, and a 900,000-character model_type was echoed whole."""
    huge = tmp_path / "config.json"
    huge.write_text(json.dumps({"model_type": "x" * 900_000}), encoding="utf-8")
    for path, says in ((str(huge), "… (900,002 characters) is not one the planner reads"),
                       (str(tmp_path / "a\nb\x1b[31m"), '\\nb\\u001b[31m": cannot be read')):  # fmt: skip
        done = plan("--config", path, "--gpus", "8", "--sequence", "8", "--global-batch", "8")
        assert done.returncode == 2 and says in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1 and "\x1b" not in done.stderr and len(done.stderr) < 400
