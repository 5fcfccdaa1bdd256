"""Plan a run: every layout of a model on a cluster, ranked, from the course's model (`macros.model.planner`).

    python -m tools.plan --model llama-3-8b --gpu h100-sxm5 --gpus 16 --sequence 8192 --global-batch 4194304
    python -m tools.plan --config path/to/config.json --gpu h100-sxm5 --gpus 64 --sequence 4096 \\
        --global-batch 4194304 --training-tokens 1e12 --price 2.5 --json

The model is a Hugging Face config.json (`--config`: GPT-2, Llama, Mistral, Qwen2, Mixtral) or a catalog entry
(`--model`); the GPU, its NVLink and its network port come from the catalog (`--gpu`, `--nvlink`, `--network`).
Any of `--tp --cp --pp --dp --ep --zero --hybrid --micro-batch --recompute --sequence-parallel --chunks` holds
that field fixed; every other is searched (the expert-parallel degree for a mixture of experts only). It prints the best
layouts as a table (`--top`), or everything as JSON (`--json`):
`parameters`, and `layouts` best first, each with its degrees, `memory` by role in bytes on the most loaded GPU,
`fits`, `step_seconds` and `tokens_per_second`; `invalid` holds each rule some layouts break, with one of them.

Bad input gets one line on stderr that names the flag or the file and the fix, and exit code 2: never a
traceback. A plan whose every layout breaks a rule is bad input too (the rule is the line).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import stat
import sys
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from macros.data.catalog import Catalog, CatalogError, Gpu, load_catalog, transformer_shape
from macros.data.hf_config import MAX_CONFIG_CHARACTERS, ConfigError, parse_config
from macros.model import planner
from macros.model.memory import RECIPES
from macros.model.shape import ParameterCount, TransformerShape

CATALOG = Path(__file__).resolve().parents[1] / "catalog"
#: Beyond these a flag's value is absurd rather than large, and is refused.
LIMITS: Mapping[str, int] = {
    "gpus": 1_000_000,
    "gpus_per_node": 1_024,
    "sequence": 10_000_000,
    "global_batch": 10**12,
    "training_tokens": 10**16,
    "chunks": 64,
    "micro_batch": 1_000_000,
}
GIB = 2**30
#: Network ports are rated in gigabits a second, NVLink in gigabytes: both decimal (10⁹), each way.
GIGABIT = 10**9 // 8
GIGABYTE = 10**9


class InputError(Exception):
    """Bad input: the message is the one line the user reads."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line, naming the flag, as every other bad input gets.
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


#: Decimal multipliers a count may end with: 4M is 4,000,000 (not 4 × 2²⁰), as a batch or a token budget is said.
SUFFIXES: Mapping[str, int] = {"k": 10**3, "M": 10**6, "B": 10**9, "T": 10**12}


#: A number as typed: digits, a point, an exponent of at most two digits. Fraction() alone would take "1e999999999"
#: and build its ten to the billionth power before any bound could refuse it.
_NUMBER = re.compile(r"[+-]?(\d{1,30}(\.\d{0,30})?|\.\d{1,30})([eE][+-]?\d{1,2})?")


def _exact(body: str) -> Fraction:
    """`body` as an exact number, or ValueError for anything else (a ratio, a word, a run of 31 digits)."""
    if not _NUMBER.fullmatch(body):
        raise ValueError(body)
    return Fraction(body)


#: The most rows --top prints: more than any search's layouts.
MOST_ROWS = 100_000


#: Commas as they group thousands, and only so: "4,194,304", never "1,2,3".
_GROUPED = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")


def _ungrouped(text: str) -> str:
    """`text` without the commas that group its thousands; ValueError for a comma anywhere else."""
    if "," in text and not _GROUPED.fullmatch(text.rstrip("".join(SUFFIXES))):
        raise ValueError(text)
    return text.replace(",", "")


def _count(flag: str, limit: str | None = None) -> Any:
    def read(text: str) -> int:
        try:
            body, scale = _ungrouped(text.strip().replace("_", "")), 1
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{flag} {text!r}: commas group thousands (4,194,304); write the number without them"
            ) from None
        if body[-1:] in SUFFIXES:
            body, scale = body[:-1], SUFFIXES[body[-1]]
        try:
            value = _exact(body) * scale
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{flag} {text!r}: expected a whole number, such as 16, 4194304, 4.2M or 1e12"
            ) from None
        if value.denominator != 1 or value < 1:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: expected a whole number of at least 1")
        if limit and value > LIMITS[limit]:
            raise argparse.ArgumentTypeError(f"{flag} {text}: beyond {LIMITS[limit]:,}, too large to be a real run")
        if limit is None and value > MOST_ROWS:
            raise argparse.ArgumentTypeError(f"{flag} {text}: at most {MOST_ROWS:,} rows")
        return int(value)

    return read


#: The least share of peak --share takes, and the most memory --reserve holds back.
LEAST_SHARE, MOST_RESERVE = Fraction(1, 100), Fraction(9, 10)


def _share(flag: str, allow_zero: bool) -> Any:
    def read(text: str) -> Fraction:
        body = text.strip().removesuffix("%")
        try:
            value = _exact(body) / (100 if text.strip().endswith("%") else 1)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: expected a share, such as 50% or 0.5") from None
        if value > 1 and not text.strip().endswith("%"):
            raise argparse.ArgumentTypeError(
                f"{flag} {text!r}: a share is a fraction or a percentage: {body}% or {float(value / 100):g}"
            )
        # A share of peak below 1% is no GPU's: its days would be printed in the trillions. Memory held back past
        # 90% leaves nothing to plan with, and 99.9999% would be printed as 100%.
        ok = 0 <= value <= MOST_RESERVE if allow_zero else LEAST_SHARE <= value <= 1
        if not ok:
            bounds = "from 0% to 90%" if allow_zero else "from 1% to 100%"
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: expected a share {bounds}")
        return value

    return read


def _rate(flag: str) -> Any:
    def read(text: str) -> Fraction:
        try:
            value = _exact(_ungrouped(text.strip()))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: expected a bandwidth, such as 400 or 37.5") from None
        # Below one (gigabit or gigabyte a second) no GPU's link, and a step's time would run to 10³⁴ days.
        if not 1 <= value <= 100_000:
            raise argparse.ArgumentTypeError(f"{flag} {text}: expected a bandwidth from 1 to 100,000")
        return value

    return read


def _money(text: str) -> Fraction:
    try:
        value = _exact(text.strip().removeprefix("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--price {text!r}: expected dollars per GPU-hour, such as 2.5") from None
    # Below a cent an hour the cost column would print $0.
    if value < Fraction(1, 100) or value > 10_000:
        raise argparse.ArgumentTypeError(f"--price {text}: expected dollars per GPU-hour from 0.01 to 10,000")
    return value


def parser() -> argparse.ArgumentParser:
    """The command line's flags."""
    p = _Parser(prog="python -m tools.plan", description=__doc__.split("\n\n")[0] if __doc__ else None)
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument("--config", metavar="FILE", help="a Hugging Face config.json")
    model.add_argument("--model", metavar="ID", help="a model of the catalog, such as llama-3-8b")
    p.add_argument("--gpu", metavar="ID", default="h100-sxm5", help="a GPU of the catalog (default: h100-sxm5)")
    p.add_argument("--gpus", type=_count("--gpus", "gpus"), required=True, help="GPUs in all")
    p.add_argument("--gpus-per-node", type=_count("--gpus-per-node", "gpus_per_node"), default=8)
    p.add_argument("--sequence", type=_count("--sequence", "sequence"), required=True, help="tokens per sequence")
    p.add_argument(
        "--global-batch",
        type=_count("--global-batch", "global_batch"),
        required=True,
        help="tokens per step, a multiple of --sequence; counts take k, M, B, T (decimal: 4M is 4,000,000)",
    )
    p.add_argument("--recipe", default=planner.PLANNER_RECIPE, help=f"one of {', '.join(RECIPES)}")
    p.add_argument(
        "--share",
        type=_share("--share", False),
        default=Fraction(1, 2),
        help="of the dense bf16 peak the GEMMs reach (default 50%%), counting the FLOPs per token the header prints"
        " (6N over the parameters that multiply, plus attention's): an MFU measured against 6N alone is a smaller"
        " share of the same speed",
    )
    p.add_argument(
        "--reserve", type=_share("--reserve", True), default=Fraction(1, 10), help="of memory held back (10%%)"
    )
    p.add_argument(
        "--training-tokens",
        type=_count("--training-tokens", "training_tokens"),
        help="such as 1e12 or 1T (decimal), for the steps, days, GPU-hours and cost",
    )
    p.add_argument("--price", type=_money, help="dollars per GPU-hour")
    p.add_argument("--attention", choices=planner.ATTENTION_KERNELS, default="fused")
    p.add_argument("--nvlink", metavar="ID", help="an interconnect of the catalog, within a node")
    p.add_argument("--network", metavar="ID", help="an interconnect of the catalog, each GPU's port between nodes")
    p.add_argument(
        "--network-gbit-s",
        type=_rate("--network-gbit-s"),
        metavar="GBIT/S",
        help="each network port's bandwidth in gigabits (10^9 bits) a second, each way: its line rate (400 for"
        " a 400G port) or what you measured; replaces --network's",
    )
    p.add_argument(
        "--ports-per-node",
        type=_count("--ports-per-node", "gpus_per_node"),
        help="network ports per node, shared by its GPUs (default: one per GPU, as DGX H100, H200 and B200 have)",
    )
    p.add_argument(
        "--nvlink-gbyte-s",
        type=_rate("--nvlink-gbyte-s"),
        metavar="GB/S",
        help="each GPU's NVLink bandwidth in gigabytes (10^9 bytes) a second, each way (450 for an H100: NVIDIA's"
        " 900 GB/s counts both ways); replaces --nvlink's",
    )
    p.add_argument("--tp", type=_count("--tp", "gpus"))
    p.add_argument("--pp", type=_count("--pp", "gpus"))
    p.add_argument("--dp", type=_count("--dp", "gpus"))
    p.add_argument("--zero", type=int, choices=(0, 1, 2, 3))
    p.add_argument("--micro-batch", type=_count("--micro-batch", "micro_batch"))
    p.add_argument("--recompute", choices=planner.RECOMPUTATIONS)
    p.add_argument("--sequence-parallel", choices=("on", "off"))
    p.add_argument(
        "--hybrid",
        choices=("on", "off"),
        help="FSDP's hybrid sharding (default: searched with ZeRO-3): ZeRO-3 within each node's data-parallel ranks,"
        " copies across nodes, their gradient shards all-reduced once a step",
    )
    p.add_argument("--chunks", type=_count("--chunks", "chunks"), default=None, help="interleaved model chunks")
    p.add_argument(
        "--cp",
        type=_count("--cp", "gpus"),
        help="context-parallel degree (default: searched): each sequence split over cp GPUs in 2·cp zig-zag chunks,"
        " a ring of keys and values each layer, what its attention does not hide counted",
    )
    p.add_argument(
        "--ep",
        type=_count("--ep", "gpus"),
        help="expert-parallel degree of a mixture of experts (default: searched; 1 for a dense model): each GPU"
        " holds experts/ep of each layer's experts, the experts' tensor-parallel degree equal to --tp; its all-to-alls"
        " are counted exposed",
    )
    p.add_argument("--top", type=_count("--top"), default=10, help="rows of the table (default 10)")
    p.add_argument("--json", action="store_true", help="everything as JSON")
    return p


def _model(args: argparse.Namespace, catalog: Catalog) -> tuple[TransformerShape, str]:
    if args.config is not None:
        path = Path(args.config)
        # A path holding a newline or an escape is quoted, so that the message stays one plain line.
        given = f"--config {args.config if args.config.isprintable() else json.dumps(args.config)}"
        # Read no more than a config.json can hold (four bytes a character at most in UTF-8): a 300 MB file, or
        # /dev/zero, is refused after that much, not read whole.
        most = 4 * MAX_CONFIG_CHARACTERS
        try:
            # A file, not a pipe or a device: opening a pipe that no one writes to waits for ever.
            if not stat.S_ISREG(path.stat().st_mode):
                raise InputError(f"{given}: not a file; give a config.json")
            with path.open("rb") as file:
                data = file.read(most + 1)
        except OSError as error:
            raise InputError(f"{given}: cannot be read ({error.strerror}); give a config.json") from None
        if len(data) > most:
            raise InputError(f"{given}: more than {most:,} bytes, larger than any model's config.json")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError(f"{given}: not text; give a Hugging Face config.json") from None
        try:
            shape, kind = parse_config(text, given)
        except ConfigError as error:
            raise InputError(str(error)) from None
        return shape, f"{path.name} ({kind})"
    try:
        record = catalog.model(args.model)
        return transformer_shape(record), record.name
    except KeyError as error:
        raise InputError(f"--model: {error.args[0]}") from None
    except ValueError as error:
        raise InputError(f"--model {args.model}: {error}; give its config.json with --config") from None


def _gpu(args: argparse.Namespace, catalog: Catalog) -> tuple[Gpu, planner.Hardware, str]:
    try:
        gpu = catalog.gpu(args.gpu)
    except KeyError as error:
        raise InputError(f"--gpu: {error.args[0]}") from None
    if gpu.memory is None or gpu.peak_bf16_flops is None:
        missing = "memory as CUDA gives it" if gpu.memory is None else "dense bf16 peak"
        usable = [g.id for g in catalog.records.values() if isinstance(g, Gpu) and g.memory and g.peak_bf16_flops]
        raise InputError(f"--gpu {args.gpu}: the catalog has no {missing} for it; pick one of {', '.join(usable)}")
    links: dict[str, Fraction] = {}
    names: dict[str, str] = {}
    for flag, attribute in (("--nvlink", "nvlink"), ("--network", "network")):
        chosen = getattr(args, attribute)
        link = getattr(gpu, attribute)
        if chosen is not None:
            try:
                record = catalog.entry(chosen, "interconnects")
            except KeyError as error:
                raise InputError(f"{flag}: {error.args[0]}") from None
            link = record
        if link is None:
            raise InputError(
                f"{flag}: the catalog gives {args.gpu} no {attribute}; name one, such as {flag} nvlink-h100"
            )
        links[attribute], names[attribute] = Fraction(link.bandwidth_per_direction), link.id
    # A bandwidth given in its own units replaces the catalog's line rate: a measured one, or another port's.
    if args.nvlink_gbyte_s is not None:
        links["nvlink"], names["nvlink"] = args.nvlink_gbyte_s * GIGABYTE, "as given (--nvlink-gbyte-s)"
    if args.network_gbit_s is not None:
        links["network"], names["network"] = args.network_gbit_s * GIGABIT, "as given (--network-gbit-s)"
    if args.gpus > args.gpus_per_node and args.gpus % args.gpus_per_node:
        raise InputError(
            f"--gpus {args.gpus} is not whole nodes of --gpus-per-node {args.gpus_per_node}: give a multiple of it"
        )
    per_node = min(args.gpus, args.gpus_per_node)
    ports = args.ports_per_node or per_node
    port = links["network"]
    hardware = planner.Hardware(
        peak_flops=gpu.peak_bf16_flops,  # type: ignore[arg-type]
        memory=gpu.memory,
        nvlink_bandwidth=links["nvlink"],
        # The planner counts each GPU's share of the network: a node's ports shared by its GPUs.
        network_bandwidth=port * ports / per_node,
        per_node=per_node,
        nodes=args.gpus // per_node,
    )
    one = "one per GPU" if ports == per_node else f"shared by its {per_node} GPUs"
    words = (
        f"links (decimal, each way): NVLink {names['nvlink']}, {_gbyte(links['nvlink'])} per GPU;"
        f" network {names['network']}, {_gbit(port)} ({_gbyte(port)}) per port, {ports} port{'s' if ports > 1 else ''}"
        f" per node ({one}): {_gbyte(hardware.network_bandwidth)} per GPU"
    )
    if hardware.nodes == 1:
        words += ", unused on one node"
    return gpu, hardware, words


def _gbyte(rate: Fraction | int) -> str:
    """Bytes a second in decimal gigabytes, as NVLink is rated."""
    return f"{float(rate) / GIGABYTE:,.4g} GB/s"


def _gbit(rate: Fraction | int) -> str:
    """Bytes a second in decimal gigabits, as a network port is rated."""
    return f"{float(rate) / GIGABIT:,.4g} Gbit/s"


def _fixed(
    args: argparse.Namespace, hardware: planner.Hardware, shape: TransformerShape, model: str
) -> dict[str, planner.Fixed]:
    fixed: dict[str, planner.Fixed] = {}
    gpus = hardware.gpus
    if args.cp is not None and args.cp > 1:
        if gpus % args.cp:
            divisors = ", ".join(str(k) for k in planner.divisors(gpus))
            raise InputError(f"--cp {args.cp} does not divide the {gpus} GPUs: give one of {divisors}")
        if args.sequence % (2 * args.cp):
            fitting = [k for k in planner.divisors(gpus) if args.sequence % (2 * k) == 0 or k == 1]
            raise InputError(
                f"--cp {args.cp} does not split --sequence {args.sequence:,} into 2 × cp = {2 * args.cp} equal"
                f" chunks (the zig-zag split that balances a causal mask): give one of {', '.join(map(str, fitting))}"
            )
    if args.ep is not None and args.ep > 1:
        if not shape.experts:
            raise InputError(f"--ep {args.ep}: {model} is dense, not a mixture of experts: leave --ep out")
        if shape.experts % args.ep:
            divisors = ", ".join(str(k) for k in planner.divisors(shape.experts))
            raise InputError(
                f"--ep {args.ep} does not divide {model}'s {shape.experts} experts: give one of {divisors}"
            )
    for flag in ("cp", "ep"):
        if getattr(args, flag) is not None:
            fixed[flag] = getattr(args, flag)
    for name in ("tp", "pp", "dp"):
        value = getattr(args, name)
        if value is not None:
            # A tensor-parallel group stays within a node (rule "tp-node"): offer only degrees that keep it.
            within = math.gcd(gpus, hardware.per_node) if name == "tp" else gpus
            if gpus % value or within % value:
                divisors = ", ".join(str(k) for k in planner.divisors(within))
                where = f"divide the {gpus} GPUs" if gpus % value else f"divide a node of {hardware.per_node} GPUs"
                raise InputError(f"--{name} {value} does not {where}: give one of {divisors}")
            fixed[name] = value
    world = ("tp", "cp", "pp", "dp")
    degrees = [int(fixed[name]) for name in world if name in fixed]
    product = 1
    for value in degrees:
        product *= value
    if gpus % product or (all(name in fixed for name in ("tp", "pp", "dp")) and product != gpus):
        given = " × ".join(f"--{name} {fixed[name]}" for name in world if name in fixed)
        raise InputError(f"{given} = {product} does not multiply to the {gpus} GPUs with whole degrees")
    for name, field in (
        ("zero", "zero"),
        ("micro_batch", "micro_batch"),
        ("recompute", "recompute"),
        ("chunks", "chunks"),
    ):
        if getattr(args, name) is not None:
            fixed[field] = getattr(args, name)
    if args.sequence_parallel is not None:
        fixed["sequence_parallel"] = args.sequence_parallel == "on"
    if args.hybrid is not None:
        fixed["hybrid"] = args.hybrid == "on"
    return fixed


def _number(value: Fraction | int | None) -> float | None:
    return None if value is None else float(value)


def _degrees(lay: planner.Layout) -> dict[str, Any]:
    """A layout's degrees and choices, as the JSON names them for a valid layout and an invalid one alike."""
    return {
        "tp": lay.tp,
        "pp": lay.pp,
        "dp": lay.dp,
        "zero": lay.zero,
        "micro_batch": lay.micro_batch,
        "recompute": lay.recompute,
        "sequence_parallel": lay.sequence_parallel,
        "chunks": lay.chunks,
        "cp": lay.cp,
        "ep": lay.ep,
        "hybrid": lay.hybrid,
    }


def _layout(plan: planner.Plan) -> dict[str, Any]:
    return {
        **_degrees(plan.layout),
        "memory": {role: round(value) for role, value in plan.memory.by_role().items()},
        "most_loaded_stage": plan.stage,
        "capacity": plan.capacity,
        "fits": plan.fits,
        "step_seconds": float(plan.step_seconds),
        "time": {part: float(value) for part, value in plan.time.by_part().items()},
        "tokens_per_second": float(plan.tokens_per_second),
        "share_of_peak": float(plan.share_of_peak),
        "gpu_hours": _number(plan.gpu_hours),
        "cost": _number(plan.cost),
        "days": _number(plan.days),
        # The tokens per micro-batch above which the binding data-parallel traffic hides, and the micro-batch's
        # tokens over them (None without data parallelism).
        "hiding_traffic": plan.hiding.traffic if plan.hiding else None,
        "hiding_tokens": _number(plan.hiding.tokens) if plan.hiding else None,
        "hiding_margin": _number(plan.hiding.margin) if plan.hiding else None,
        "reason": reason_words(plan),
    }


def reason_words(plan: planner.Plan) -> str:
    """The plan's `Reason` in words."""
    r = plan.reason
    if r.kind == "fastest":
        return "the fastest layout that fits"
    if r.kind == "as-fast" and not r.extra:
        return "as fast as #1, with as much on its most loaded GPU"
    if r.kind == "as-fast":
        return f"as fast as #1, with {float(r.extra) / GIB:.2f} GiB more on its most loaded GPU"
    if r.kind == "slower":
        return f"{float(r.slower_by):.1%} slower than #1: +{float(r.extra):.3g} s of {planner.TIME_PART_WORDS[r.part]}"
    return (
        f"does not fit: {float(r.extra) / GIB:.1f} GiB over the {plan.capacity / GIB:.1f} GiB CUDA gives programs;"
        f" its largest part is {r.part}"
    )


def _parameters(count: ParameterCount) -> dict[str, int]:
    return {"total": count.total, "active": count.active, "embedding": count.embedding, "output": count.output}


def _invalid(item: planner.Invalid) -> dict[str, Any]:
    return {
        **_degrees(item.layout),
        "rule": item.rule.id,
        "message": item.rule.message,
        "layouts": item.count,
    }


def _nodes(args: argparse.Namespace, hardware: planner.Hardware) -> str:
    """The cluster as planned, and why when fewer GPUs than a node were asked for."""
    nodes = f"{hardware.nodes} node{'s' if hardware.nodes > 1 else ''} of {hardware.per_node}"
    if args.gpus < args.gpus_per_node:
        nodes += f" GPUs: --gpus {args.gpus} is fewer than --gpus-per-node {args.gpus_per_node}, so one node of them"
    return nodes


def flops_words(count: ParameterCount, flops: planner.ModelFlops) -> tuple[str, str]:
    """The FLOPs per token a plan counts, and what --share and the MFU column mean by them."""
    per = flops.total / count.total
    six_n = 6 * count.total
    first = (
        f"FLOPs per token: {flops.total:,}, {per:.3g} per parameter: 6N over the {count.matmul:,} parameters that"
        f" multiply ({flops.matmul:,}; the embedding's lookup left out) + attention's 12·L·w·s ({flops.attention:,})"
    )
    second = (
        f"--share and the MFU column count these; 6N alone, as Lesson 3 counts, is {six_n:,} ({six_n / flops.total:.3g}"
        f" of them): an MFU measured against 6N is given as --share times {flops.total / six_n:.2f}"
    )
    return first, second


def _table(
    name: str,
    header: Sequence[str],
    hardware: planner.Hardware,
    run: planner.Run,
    planned: planner.Planned,
    top: int,
) -> str:
    count = planned.parameters
    active = f", {count.active:,} active per token" if count.active != count.total else ""
    lines = [f"{name}: {count.total:,} parameters{active}", *header, ""]
    # The context and expert degrees get columns when a plan shown or not uses them.
    folded = any(p.layout.cp > 1 or p.layout.ep > 1 for p in planned.plans)
    degree_cells = ("tp", "cp", "ep", "pp", "dp") if folded else ("tp", "pp", "dp")
    header_cells = ("#", *degree_cells, "ZeRO", "SP", "mb", "recompute", "GiB", "fits", "step s", "tokens/s", "MFU")
    extra = ("days", "GPU-hours", "cost") if run.training_tokens else ()
    rows: list[Sequence[str]] = [(*header_cells, *extra, "why")]
    for rank, p in enumerate(planned.plans[:top], 1):
        lay = p.layout
        cells = [
            str(rank),
            str(lay.tp),
            *((str(lay.cp), str(lay.ep)) if folded else ()),
            str(lay.pp) + (f"×{lay.chunks}" if lay.chunks > 1 else ""),
            str(lay.dp),
            "HSDP" if lay.hybrid else str(lay.zero),
            "on" if lay.sequence_parallel else "off",
            str(lay.micro_batch),
            lay.recompute,
            f"{float(p.memory.total) / GIB:.1f}",
            "yes" if p.fits else "no",
            f"{float(p.step_seconds):.3g}",
            f"{float(p.tokens_per_second):,.0f}",
            f"{float(p.share_of_peak):.1%}",
        ]
        if run.training_tokens:
            cells.append(f"{float(p.days or 0):,.1f}")
            cells.append(f"{float(p.gpu_hours or 0):,.0f}")
            cells.append(f"${float(p.cost):,.0f}" if p.cost is not None else "")
        cells.append(reason_words(p))
        rows.append(cells)
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        lines.append("  ".join(cell.rjust(width) for cell, width in zip(row, widths, strict=False)) + "  " + row[-1])
    fitting = sum(p.fits for p in planned.plans)
    broken = sum(item.count for item in planned.invalid)
    lines.append("")
    lines.append(f"{len(planned.plans):,} valid layouts, {fitting:,} of them fit; {broken:,} break a rule.")
    if planned.batch is not None:
        lines.append(f"The batch: {planner.batch_hint_words(planned.batch, run.sequence)}.")
    best = planned.plans[0]
    if best.hiding is not None:
        hide = best.hiding
        lines.append(
            f"#1's data-parallel traffic ({HIDING_WORDS[hide.traffic]}) hides behind the compute above"
            f" {math.ceil(hide.tokens):,} tokens per micro-batch{' on a GPU' if best.layout.cp > 1 else ''} by the"
            f" bound; its micro-batch holds {best.layout.micro_batch * run.sequence // best.layout.cp:,},"
            f" {float(hide.margin):.3g} times that"
            " (JSON: hiding_tokens, hiding_margin for every layout)."
        )
    return "\n".join(lines)


#: The traffic of a hiding bound in words (`planner.HIDING_TRAFFIC`).
HIDING_WORDS: Mapping[str, str] = {
    "allreduce": "the gradients' all-reduce",
    "reduce-scatter": "the gradients' reduce-scatter",
    "all-gather": "the parameters' all-gather",
    "zero3": "ZeRO-3's gathers and reduce-scatter, each behind its pass",
}


def run(argv: Sequence[str] | None = None) -> int:
    """The command line; returns its exit code."""
    args = parser().parse_args(argv)
    try:
        catalog = load_catalog(CATALOG)
    except CatalogError as error:
        raise InputError(f"the catalog: {error}") from None
    shape, name = _model(args, catalog)
    if shape.positions and args.sequence > shape.positions:
        # Learned position embeddings have one row a position: no longer sequence runs through the model. (Rotary
        # ones, positions 0, have no such table; their max_position_embeddings is a trained length, not a bound.)
        raise InputError(
            f"--sequence {args.sequence:,}: {name} learns {shape.positions:,} positions (one embedding a token's"
            f" place), so its sequences are at most {shape.positions:,} tokens: give --sequence {shape.positions:,}"
            " or fewer"
        )
    gpu, hardware, links = _gpu(args, catalog)
    if args.global_batch % args.sequence:
        below = args.global_batch // args.sequence * args.sequence
        nearest = f"{below:,} or {below + args.sequence:,}" if below else f"{args.sequence:,}"
        raise InputError(
            f"--global-batch {args.global_batch:,} is not whole sequences of --sequence {args.sequence:,} tokens:"
            f" give a multiple of {args.sequence:,}, such as {nearest}"
        )
    if args.recipe not in RECIPES:
        raise InputError(f"--recipe {args.recipe!r} is not a recipe of the course; known: {', '.join(RECIPES)}")
    fixed = _fixed(args, hardware, shape, name)
    chunks = args.chunks or 1
    plan_run = planner.Run(
        sequence=args.sequence,
        global_batch=args.global_batch,
        share=args.share,
        recipe=args.recipe,
        reserve=args.reserve,
        training_tokens=args.training_tokens,
        price=args.price,
        attention=args.attention,
        chunks=chunks,
    )
    if planner.too_many_layouts(shape, hardware, plan_run, fixed):
        raise InputError(
            f"that is more than {planner.MAX_LAYOUTS:,} layouts to weigh: fix --tp, --pp or --cp (or --zero,"
            " --micro-batch), or give fewer --gpus or a global batch of fewer sequences"
        )
    planned = planner.plan(shape, hardware, plan_run, fixed)
    if not planned.plans:
        first = planned.invalid[0].rule.message if planned.invalid else "no layout to consider"
        # As the flags are given: on and off for the switches.
        words = {True: "on", False: "off"}
        given = " ".join(
            f"--{k.replace('_', '-')} {words.get(v, v) if isinstance(v, bool) else v}" for k, v in fixed.items()
        )
        hint = f"; {planner.batch_hint_words(planned.batch, plan_run.sequence)}" if planned.batch else ""
        raise InputError(f"no layout keeps the rules{' with ' + given if given else ''}: {first}{hint}")
    flops = planner.model_flops(shape, planned.parameters, plan_run.sequence)
    steps = planner.training_steps(plan_run)
    header = [
        f"{hardware.gpus} × {gpu.name} ({_nodes(args, hardware)}), {hardware.memory / GIB:.1f} GiB each to programs;"
        f" {plan_run.sequence:,}-token sequences, {plan_run.global_batch:,} tokens"
        f" ({plan_run.global_batch // plan_run.sequence:,} sequences) a step",
        links,
        f"assumed: {float(plan_run.share):.0%} of the {float(hardware.peak_flops) / 1e12:,.0f} TFLOP/s dense bf16"
        f" peak, recipe {plan_run.recipe}, {float(plan_run.reserve):.0%} of memory held back,"
        f" {plan_run.attention} attention",
        *flops_words(planned.parameters, flops),
    ]
    if args.cp is not None and args.cp > 1:
        header.append(
            f"context parallel, cp = {args.cp} fixed: each sequence split over {args.cp} GPUs in {2 * args.cp}"
            " zig-zag chunks; each layer's ring of keys and values counted where its causal attention does not"
            " hide it; dense gradients reduced, and ZeRO sharded, over dp × cp"
        )
    if args.ep is not None and args.ep > 1:
        header.append(
            f"expert parallel, ep = {args.ep} fixed: {shape.experts // args.ep} of {shape.experts} experts per GPU"
            " and layer (experts' tensor-parallel degree = tp), their states copied over cp·dp ÷ ep; 4 all-to-alls"
            " a MoE layer (6 with full recomputation), routing even, all exposed"
        )
    if steps is not None:
        header.append(
            f"training: {plan_run.training_tokens:,} tokens are {steps:,} steps of {plan_run.global_batch:,}"
            " (the last one whole); days are those steps at each layout's step time"
        )
    if args.json:
        document = {
            "model": name,
            "parameters": _parameters(planned.parameters),
            "gpu": {
                "id": gpu.id,
                "name": gpu.name,
                "memory": hardware.memory,
                "peak_flops": float(hardware.peak_flops),
            },
            "cluster": {
                "gpus": hardware.gpus,
                "per_node": hardware.per_node,
                "nodes": hardware.nodes,
                # Bytes a second each way: a GPU's NVLink, and its share of the node's network ports.
                "nvlink_bandwidth": float(hardware.nvlink_bandwidth),
                "network_bandwidth_per_gpu": float(hardware.network_bandwidth),
                "links": links,
            },
            "flops_per_token": {
                "total": flops.total,
                "matmul": flops.matmul,
                "attention": flops.attention,
                "six_n": 6 * planned.parameters.total,
                "convention": "share_of_peak and assumptions.share_of_peak count total (6N over the parameters that"
                " multiply, plus attention); 6N alone is six_n",
            },
            "steps": steps,
            "assumptions": {
                "sequence": plan_run.sequence,
                "global_batch": plan_run.global_batch,
                "share_of_peak": float(plan_run.share),
                "recipe": plan_run.recipe,
                "reserve": float(plan_run.reserve),
                "attention": plan_run.attention,
                "training_tokens": plan_run.training_tokens,
                "price_per_gpu_hour": _number(plan_run.price),
            },
            "layouts": [_layout(p) for p in (planned.plans[: args.top] if "top" in _given(argv) else planned.plans)],
            "invalid": [_invalid(item) for item in planned.invalid],
            "batch_hint": planner.batch_hint_words(planned.batch, plan_run.sequence) if planned.batch else None,
        }
        print(json.dumps(document, indent=1))
    else:
        print(_table(name, header, hardware, plan_run, planned, args.top))
    return 0


def _given(argv: Sequence[str] | None) -> set[str]:
    """The long flags given on the command line, without their dashes."""
    words = sys.argv[1:] if argv is None else argv
    return {word[2:].split("=")[0].replace("-", "_") for word in words if word.startswith("--")}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; bad input is one line on stderr and exit code 2."""
    try:
        return run(argv)
    except InputError as error:
        print(f"python -m tools.plan: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader piped the table into `head`, which closed it: nothing to say. Python's docs' recipe: point
        # stdout at devnull, so that flushing it at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
