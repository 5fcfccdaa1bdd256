"""Time full strict builds of the course and report the median (`make bench`).

Each build runs in a fresh process, as `mkdocs build` does for an author, so
imports and the catalog load are part of what is timed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def time_build(site_dir: Path) -> float:
    """Seconds one `mkdocs build --strict` takes, start to finish."""
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site_dir)]
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=environment, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="timed builds after one warm-up (default 7)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as site:
        time_build(Path(site))  # warm the file cache
        times = sorted(time_build(Path(site)) for _ in range(runs))
    median = statistics.median(times)
    print(f"full build, {runs} runs: median {median:.2f} s (min {times[0]:.2f} s, max {times[-1]:.2f} s)")


if __name__ == "__main__":
    main()
