"""What calling ptx-opt from Python costs over the Rust library.

    .cache/python/venv/bin/python python/bench/overhead.py [FILE.ptx ...] [--runs N] [--threads N]

(after scripts/test-python.sh, which builds the wheel into that venv). For each
file (default: the largest of ../shared/corpus/public, 3.6 MB) and each
pipeline (none: parse + verify + print; -O2), it times ptx_opt.optimize from
Python (str in, Result with stats and remarks out) and the same
ptx_opt::optimize in Rust alone, inside the same extension module
(`_native._time_rust`: no Python object made), alternating the two, and
prints the medians of wall time and of the process's CPU time, and their
ratios (on a busy machine the CPU time is the steadier figure).
Goal: under 10% overhead.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import time

import ptx_opt
from ptx_opt import _native

CORPUS = pathlib.Path(__file__).resolve().parents[3] / "shared" / "corpus" / "public"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="*", type=pathlib.Path)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--threads", type=int, help="worker threads (default: one per core)")
    args = parser.parse_args()
    files = args.files or [max(CORPUS.glob("*.ptx"), key=lambda p: p.stat().st_size)]
    print(f"{'file':<40} {'pipeline':<8} {'MB':>4}   {'wall ms: rust  python  overhead':>31}   {'cpu ms: rust  python  overhead':>30}")
    for path in files:
        ptx = path.read_text()
        mb = len(ptx.encode()) / 1e6
        for label, kwargs in (("none", {}), ("-O2", {"level": 2})):
            kwargs["threads"] = args.threads
            ptx_opt.optimize(ptx, **kwargs)  # warm up
            times = {"rust": ([], []), "python": ([], [])}
            for _ in range(args.runs):
                for side, run in (
                    ("rust", lambda: _native._time_rust(ptx, iterations=1, **kwargs)),
                    ("python", lambda: ptx_opt.optimize(ptx, **kwargs)),
                ):
                    wall, cpu = time.perf_counter(), time.process_time()
                    run()
                    times[side][0].append(time.perf_counter() - wall)
                    times[side][1].append(time.process_time() - cpu)
            row = f"{path.name[:40]:<40} {label:<8} {mb:>4.1f}"
            for i in (0, 1):
                r, p = (statistics.median(times[side][i]) * 1e3 for side in ("rust", "python"))
                row += f"   {r:>13.1f} {p:>7.1f} {100 * (p / r - 1):>+8.1f}%"
            print(row)


if __name__ == "__main__":
    main()
