"""Every figure the lessons print for a layout is the planner's number for the same inputs.

The figures are found in the built site's figures.json, never listed: each figure of a kind of the planner's module
(`macros/figures/kinds/planner.py`) that names a workload and a layout is run again through the planner's command
line, `python -m tools.plan --json`, with the workload's model, GPU, links, GPUs, sequence, global batch and
training tokens and the layout's fixed fields, and its value is the command line's. The figures of the course's
earlier model of a step (`layout`, Narayanan et al.'s five schemes) count a step another way (Eq. 3's FLOPs, every
link at line rate); of them, the model states per GPU are the planner's to within the parameter count's convention:
the catalog's published count against the planner's count from the shape.
"""

from __future__ import annotations

import contextlib
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from macros.figures.kinds import KINDS, kind_of
from macros.figures.kinds.planner import fixed_fields, setting
from macros.model import layout as five_schemes
from macros.model import planner
from macros.model.memory import DEFAULT_RECIPE
from tests.conftest import catalog
from tools import plan as plan_cli

#: The planner's kinds that show one layout of a workload: (workload, layout, ...) by their parameters.
LAYOUT_KINDS = {
    kind.prefix: kind
    for kind in KINDS.values()
    if kind.compute.__module__.endswith(".kinds.planner")
    and [p.name for p in kind.parameters][:2] == ["workload", "layout"]
}
#: The flag of each layout field on the command line.
_FLAGS = {
    "tp": "--tp",
    "pp": "--pp",
    "dp": "--dp",
    "cp": "--cp",
    "ep": "--ep",
    "zero": "--zero",
    "micro_batch": "--micro-batch",
    "recompute": "--recompute",
    "chunks": "--chunks",
}


def _shown(site_dir: Path) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((site_dir / "figures.json").read_text(encoding="utf-8"))
    return records


def _argv(workload: str, layout: str, share: int) -> list[str]:
    """The command line that plans `workload` with `layout`'s fields held, at `share` percent of peak."""
    entry = catalog().workload(workload)
    assert entry.gpu and entry.devices and entry.per_host and entry.sequence and entry.batch
    argv = ["--model", entry.model.id, "--gpu", entry.gpu.id, "--gpus", str(entry.devices)]
    argv += ["--gpus-per-node", str(entry.per_host), "--sequence", str(entry.sequence)]
    argv += ["--global-batch", str(entry.batch * entry.sequence), "--share", f"{share}%", "--json"]
    if entry.tokens is not None:
        argv += ["--training-tokens", str(entry.tokens)]
    if entry.interconnect is not None:
        argv += ["--nvlink", entry.interconnect.id]
    if entry.network is not None:
        argv += ["--network", entry.network.id]
    for name, value in fixed_fields(layout).items():
        if name in ("sequence_parallel", "hybrid"):
            argv += [f"--{name.replace('_', '-')}", "on" if value else "off"]
        else:
            argv += [_FLAGS[name], str(value)]
    return argv


def _planned(workload: str, layout: str, share: int) -> dict[str, Any]:
    """The command line's first layout, the fastest that fits where any does, as its JSON gives it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert plan_cli.main(_argv(workload, layout, share)) == 0
    document: dict[str, Any] = json.loads(out.getvalue())
    first: dict[str, Any] = document["layouts"][0]
    first["global_batch"] = document["assumptions"]["global_batch"] // document["assumptions"]["sequence"]
    first["gpus"] = document["cluster"]["gpus"]
    return first


def _from_cli(prefix: str, arguments: tuple[Any, ...], planned: dict[str, Any]) -> float:
    """What the command line says of the figure `prefix` with its arguments after the workload and layout."""
    if prefix == "plan-memory":
        return float(planned["memory"][arguments[0] if arguments else "total"])
    if prefix == "plan-fill":
        return float(planned["memory"]["total"] / planned["capacity"])
    if prefix == "plan-time":
        part = arguments[0] if arguments else "total"
        return float(planned["step_seconds"] if part == "total" else planned["time"][part])
    if prefix == "plan-rate":
        measure = arguments[0] if arguments else "tokens_per_second"
        named = {"tokens_per_second": "tokens_per_second", "mfu": "share_of_peak"}
        if measure in named:
            return float(planned[named[measure]])
        seconds = planned["gpu_hours"] * 3600
        return float(seconds if measure == "gpu_seconds" else seconds / planned["gpus"])
    if prefix == "plan-degree":
        field = arguments[0]
        if field == "microbatches":
            return float(planned["global_batch"] // (planned["dp"] * planned["micro_batch"]))
        return float(planned[field])
    raise AssertionError(f"no reading of {prefix} from the command line: add one")


def _share(kind_prefix: str, arguments: tuple[Any, ...]) -> tuple[tuple[Any, ...], int]:
    """A figure's arguments after workload and layout, and its share of peak (the kind's default if not given)."""
    kind = LAYOUT_KINDS[kind_prefix]
    names = [p.name for p in kind.parameters][2:]
    given = dict(zip(names, arguments, strict=False))
    default = next(p.default for p in kind.parameters if p.name == "share")
    share = int(given.pop("share", default))
    return tuple(given.values()), share


def test_the_planners_layout_kinds_are_found() -> None:
    assert {"plan-memory", "plan-time", "plan-rate", "plan-degree", "plan-fill"} <= set(LAYOUT_KINDS)


def test_every_layout_figure_a_lesson_prints_is_the_planners_command_lines_number(site_dir: Path) -> None:
    shown = {record["id"] for record in _shown(site_dir) if record["id"].split("/", 1)[0] in LAYOUT_KINDS}
    assert shown, "no lesson prints a figure of the planner's layouts"
    plans: dict[tuple[str, str, int], dict[str, Any]] = {}
    wrong = []
    for figure_id in sorted(shown):
        kind = kind_of(figure_id)
        workload, layout, *rest = kind.arguments(figure_id)
        arguments, share = _share(kind.prefix, tuple(rest))
        key = (workload, layout, share)
        if key not in plans:
            plans[key] = _planned(workload, layout, share)
        figure = float(kind.figure(catalog(), *kind.arguments(figure_id)).value)
        expected = _from_cli(kind.prefix, arguments, plans[key])
        # The JSON gives bytes in whole bytes and everything else as floats.
        allowed = max(1.0, abs(expected) * 1e-9) if kind.prefix == "plan-memory" else abs(expected) * 1e-9
        if abs(figure - expected) > allowed:
            wrong.append((figure_id, figure, expected))
    assert wrong == []


@pytest.mark.parametrize("scheme", ["dp", "tensor", "pipeline", "ptd"])
def test_the_model_states_of_each_scheme_the_lessons_print_are_the_planners(site_dir: Path, scheme: str) -> None:
    # ZeRO-3 is left out: the planner also holds its largest layer gathered, which the five-scheme count does not.
    shown = {r["id"] for r in _shown(site_dir) if r["id"].startswith("layout/") and r["id"].split("/")[2] == scheme}
    states = sorted(i for i in shown if i.split("/")[3] == "states")
    if not states:
        pytest.skip(f"no lesson prints the model states of {scheme}")
    for figure_id in states:
        kind = kind_of(figure_id)
        arguments = kind.arguments(figure_id)
        workload, recipe = arguments[0], arguments[3] if len(arguments) > 3 else DEFAULT_RECIPE
        entry = catalog().workload(workload)
        assert entry.devices
        t, p, d = five_schemes.degrees(scheme, entry.tensor or 1, entry.pipeline or 1, entry.devices)
        found = setting(catalog(), workload, 100)
        run = planner.Run(found.run.sequence, found.run.global_batch, recipe=recipe, reserve=Fraction(0))
        lay = planner.Layout(t, p, d, 0, entry.microbatch or 1, "full")
        result = planner.evaluate(found.shape, found.hardware, run, lay)
        assert isinstance(result, planner.Plan), (figure_id, result)
        memory = result.memory
        held = memory.parameters + memory.gradients + memory.optimizer
        figure = kind.figure(catalog(), *arguments).value
        # The published count (GPT-3's "175 billion") against the shape's, and Eq. 2's position embeddings.
        assert abs(held / Fraction(figure) - 1) < Fraction(15, 1000), figure_id
