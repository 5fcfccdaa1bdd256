"""A world of N CPU ranks over gloo, spawned once, running every scenario in turn.

Each rank is a fresh interpreter (multiprocessing's spawn), rendezvousing
through a file store in a temporary folder (no port), on loopback. It wraps
the collectives before any engine is imported, runs the world's main function
(`scenarios.rank_main` unless told otherwise), and sends back what it
measured, or its traceback.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import tempfile
import traceback
from typing import Any

#: Long enough for 8 ranks importing DeepSpeed on 2 busy cores.
TIMEOUT_SECONDS = 600


#: The function each rank runs, as "module:function" under this package: imported in the rank, after
#: `collectives.install`, so that no engine looks up a collective before it is wrapped.
SCENARIOS_MAIN = "scenarios:rank_main"


def _rank(rank: int, world: int, store: str, names: list[str], queue: Any, main: str) -> None:
    os.environ.setdefault("DS_ACCELERATOR", "cpu")
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    try:
        from . import collectives

        collectives.install()
        module, function = main.split(":")
        rank_main = getattr(importlib.import_module(f".{module}", __package__), function)
        queue.put((rank, rank_main(rank, world, store, names), None))
    except BaseException:
        queue.put((rank, None, traceback.format_exc()))


def run_world(world: int, names: list[str], main: str = SCENARIOS_MAIN) -> list[dict[str, Any]]:
    """What each of `world` ranks measured in each scenario of `names`, by rank, each running `main`.

    Raises:
        RuntimeError: a rank failed (with its traceback) or did not answer in time.
    """
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    with tempfile.TemporaryDirectory(prefix="engine-world-") as folder:
        store = f"file://{folder}/store"
        ranks = [context.Process(target=_rank, args=(r, world, store, names, queue, main)) for r in range(world)]
        for process in ranks:
            process.start()
        results: dict[int, dict[str, Any]] = {}
        errors: list[str] = []
        try:
            for _ in range(world):
                rank, result, error = queue.get(timeout=TIMEOUT_SECONDS)
                if error:
                    errors.append(f"rank {rank} of {world}:\n{error}")
                    break
                results[rank] = result
        finally:
            for process in ranks:
                process.join(timeout=30 if not errors else 1)
                if process.is_alive():
                    process.kill()
        if errors:
            raise RuntimeError("\n".join(errors))
    return [results[rank] for rank in range(world)]
