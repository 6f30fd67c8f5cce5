#!/usr/bin/env python3
"""Writes DIR/spec.txt for run.sh: for each FILE.ptx:VERSION argument, the
file as it is (DIR/N.a.ptx) and written by `ptx-opt --ptx-version=VERSION`
(DIR/N.b.ptx), and a line per kernel with its parameters as compare.c takes
them (p pointer, i 32-bit, l 64-bit, bN an N-byte array).

    make-spec.py PTX_OPT DIR FILE.ptx:7.0 ...
"""
import re
import shutil
import subprocess
import sys
from pathlib import Path

ENTRY = re.compile(r"\.entry\s+([\w$]+)\s*\((.*?)\)", re.S)
PARAM = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+[\w$]+(?:\[(\d+)\])?")


def kinds(params: str) -> str:
    out = []
    for ty, count in PARAM.findall(params):
        if count:
            out.append(f"b{int(count) * (int(ty[1:]) // 8 if ty[1:].isdigit() else 1)}")
        elif ty in ("u64", "s64", "b64"):
            out.append("p")
        else:
            out.append("i")
    return ",".join(out)


def main() -> None:
    ptx_opt, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    lines = []
    for n, arg in enumerate(sys.argv[3:]):
        path, version = arg.rsplit(":", 1)
        a, b = out / f"{n}.a.ptx", out / f"{n}.b.ptx"
        shutil.copy(path, a)
        subprocess.run([ptx_opt, f"--ptx-version={version}", path, "-o", str(b)], check=True)
        for name, params in ENTRY.findall(Path(path).read_text()):
            # Pointers: 64-bit parameters ld.param'd and converted (cvta) or used as addresses.
            lines.append(f"{a.name} {b.name} {name} {kinds(params)}")
    (out / "spec.txt").write_text("\n".join(lines) + "\n")
    print(f"{len(lines)} kernels")


if __name__ == "__main__":
    main()
