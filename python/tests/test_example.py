"""examples/python/optimize_and_ptxas.py runs, and ptxas accepts its output."""

import os
import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python" / "optimize_and_ptxas.py"


def ptxas() -> str:
    """The project's ptxas (scripts/test-python.sh sets PTXAS from
    scripts/fetch-toolchain.sh), else the one Triton bundles."""
    if os.environ.get("PTXAS"):
        return os.environ["PTXAS"]
    from triton import knobs

    return knobs.nvidia.ptxas.path


def test_example_optimizes_and_ptxas_compiles(tmp_path):
    cubin = tmp_path / "k.cubin"
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), "--ptxas", ptxas(), "-o", str(cubin)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "combine-cvt-pack     combined             1" in run.stdout
    assert "example.ptx:31:2: remark: [combine-cvt-pack] pack_u8x4:" in run.stdout
    assert "example.ptx: optimized, ptxas -arch=sm_80" in run.stdout
    assert cubin.read_bytes()[:4] == b"\x7fELF"


def test_example_reports_invalid_ptx_as_the_tool_does(tmp_path):
    bad = tmp_path / "bad.ptx"
    bad.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tadd.s32 %r1, , %r2;\n}\n")
    run = subprocess.run([sys.executable, str(EXAMPLE), "--ptxas", ptxas(), str(bad)], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.startswith(f"{bad}:6:15: error: ")
