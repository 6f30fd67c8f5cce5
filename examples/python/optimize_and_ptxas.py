"""Optimize a PTX module with ptx-opt, then compile it with ptxas.

    python examples/python/optimize_and_ptxas.py [FILE.ptx] [--ptxas PATH] [-o OUT.cubin]

Without FILE it optimizes a small int8-packing kernel of its own. ptxas is
--ptxas, else $PTXAS, else `ptxas` on PATH; scripts/fetch-toolchain.sh
fetches one (`ptxas13=...`), and scripts/test-python.sh runs this example.

On a machine with a GPU, load the result instead of (or after) running ptxas:

* CuPy: ``cupy.RawModule(code=...)`` compiles CUDA C++ with NVRTC, so it
  cannot take PTX. Write the optimized PTX (or the cubin ptxas made from it)
  to a file and load that: ``cupy.RawModule(path="k.opt.ptx")`` (the driver
  JIT-compiles PTX for the current GPU), then ``.get_function("name")``.
* The CUDA driver: ``cuModuleLoadData`` takes the PTX text (NUL-terminated)
  or the cubin bytes, e.g. with cuda-python:
  ``cuda.bindings.driver.cuModuleLoadData(result.ptx.encode() + b"\\0")``.
* Numba: ``numba.cuda`` kernels are compiled by Numba itself; to run ptx-opt
  on them, take the PTX (``kernel.inspect_asm(signature)``), optimize it, and
  load it through the driver as above.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import ptx_opt

# uint8 quantization as compilers write it: four clamps to [0, 255], shifted
# and or-ed into one word. ptx-opt's combine-cvt-pack makes it cvt.pack.sat.
EXAMPLE = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry pack_u8x4(
\t.param .u64 pack_u8x4_param_0
)
{
\t.reg .b32 \t%r<24>;
\t.reg .b64 \t%rd<3>;

\tld.param.u64 \t%rd1, [pack_u8x4_param_0];
\tcvta.to.global.u64 \t%rd2, %rd1;
\tld.global.u32 \t%r1, [%rd2];
\tld.global.u32 \t%r2, [%rd2+4];
\tld.global.u32 \t%r3, [%rd2+8];
\tld.global.u32 \t%r4, [%rd2+12];
\tmax.s32 \t%r10, %r1, 0;
\tmin.s32 \t%r11, %r10, 255;
\tmax.s32 \t%r12, %r2, 0;
\tmin.s32 \t%r13, %r12, 255;
\tmax.s32 \t%r14, %r3, 0;
\tmin.s32 \t%r15, %r14, 255;
\tmax.s32 \t%r16, %r4, 0;
\tmin.s32 \t%r17, %r16, 255;
\tshl.b32 \t%r18, %r13, 8;
\tor.b32 \t%r19, %r18, %r11;
\tshl.b32 \t%r20, %r15, 16;
\tor.b32 \t%r21, %r19, %r20;
\tshl.b32 \t%r22, %r17, 24;
\tor.b32 \t%r23, %r21, %r22;
\tst.global.u32 \t[%rd2+16], %r23;
\tret;
}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", nargs="?", help="a .ptx file (default: a built-in kernel)")
    parser.add_argument("--ptxas", default=os.environ.get("PTXAS") or shutil.which("ptxas"))
    parser.add_argument("-o", "--output", help="where to write the cubin (default: a temporary file)")
    args = parser.parse_args()
    if not args.ptxas:
        parser.error("no ptxas: give --ptxas PATH or set PTXAS (scripts/fetch-toolchain.sh fetches one)")

    name = args.input or "example.ptx"
    ptx = open(args.input).read() if args.input else EXAMPLE

    try:
        result = ptx_opt.optimize(ptx, level=2, source_name=name)
    except ptx_opt.PtxError as error:
        print(error, file=sys.stderr)  # FILE:LINE:COL: error: MESSAGE, one line each
        return 1
    for pass_, counters in result.stats.items():
        for counter, value in counters.items():
            print(f"{pass_:<20} {counter:<20} {value}")
    for remark in result.remarks:
        print(remark)

    # ptxas compiles for the module's own .target.
    arch = re.search(r"^\s*\.target\s+(sm_\w+)", result.ptx, re.MULTILINE).group(1)
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "k.opt.ptx")
        with open(source, "w") as f:
            f.write(result.ptx)
        cubin = args.output or os.path.join(tmp, "k.cubin")
        subprocess.run([args.ptxas, f"-arch={arch}", source, "-o", cubin], check=True)
        size = os.path.getsize(cubin)
    print(f"{name}: {'optimized' if result.changed else 'unchanged'}, ptxas -arch={arch}: {size} bytes of cubin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
