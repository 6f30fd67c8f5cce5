"""Shared inputs. Triton writes its cache to a fresh directory per session, so
every kernel of the Triton tests is really compiled."""

import os
import tempfile

os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="ptx-opt-triton-cache-")
# Triton 3.9 warns when this is unset; 1 is its current default.
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
# Compile every time, even what an earlier compilation in the session cached.
os.environ["TRITON_ALWAYS_COMPILE"] = "1"

# uint8 quantization: four clamps to [0, 255], shifted and or-ed into one word.
# combine-cvt-pack makes them one cvt.pack.sat chain (testdata/passes/combine-cvt-pack).
PACK_U8 = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry u8_clamps_shl_or(
\t.param .u64 u8_clamps_shl_or_param_0
)
{
\t.reg .b32 \t%r<40>;
\t.reg .b64 \t%rd<4>;

\tld.param.u64 \t%rd1, [u8_clamps_shl_or_param_0];
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

# Nothing any pass rewrites.
PLAIN = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry plain(
\t.param .u64 plain_param_0
)
{
\t.reg .b32 \t%r<3>;
\t.reg .b64 \t%rd<3>;

\tld.param.u64 \t%rd1, [plain_param_0];
\tcvta.to.global.u64 \t%rd2, %rd1;
\tld.global.u32 \t%r1, [%rd2];
\tadd.s32 \t%r2, %r1, 1;   // a comment the output keeps
\tst.global.u32 \t[%rd2+4], %r2;
\tret;
}
"""

# Parses, but the verifier rejects it: a 64-bit register where add.s32 needs
# a 32-bit one (the instruction: line 13, column 2).
TYPE_MISMATCH = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry type_mismatch(
\t.param .u64 type_mismatch_param_0
)
{
\t.reg .b32 \t%r<4>;
\t.reg .b64 \t%rd<3>;

\tld.param.u64 \t%rd1, [type_mismatch_param_0];
\tadd.s32 \t%r1, %rd1, %r2;
\tst.global.u32 \t[%rd1], %r1;
\tret;
}
"""

# Does not parse: a missing operand (line 7, column 15).
SYNTAX_ERROR = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\t.reg .b32 %r<3>;\n\tadd.s32 %r1, , %r2;\n}\n"


def renamed(ptx: str, old: str, new: str) -> str:
    """The module with its kernel renamed (distinct modules for thread tests)."""
    return ptx.replace(old, new)


def pytest_sessionfinish(session, exitstatus):
    """A skipped test fails the run: every test here is meant to run
    (scripts/test-python.sh installs Triton and fetches ptxas), so a skip
    would hide a missing piece in CI. An empty run fails already (exit 5)."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and exitstatus == 0:
        reporter.ensure_newline()
        reporter.write_sep("=", f"{len(skipped)} test(s) skipped: none may be (python/tests/conftest.py)", red=True)
        session.exitstatus = 1
