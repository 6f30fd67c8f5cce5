"""ptx_opt.triton with Triton itself, no GPU: kernels compiled by
triton.compile for sm_80 (Triton's LLVM, its bundled ptxas and cuobjdump)."""

import re
import subprocess
import warnings

import pytest
import triton
import triton.language as tl
from triton import knobs
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

import ptx_opt
import ptx_opt.triton
from conftest import PLAIN, SYNTAX_ERROR

TARGET = GPUTarget("cuda", 80, 32)
ALIGNED = [["tt.divisibility", 16]]


@triton.jit
def pack4_i8(a_ptr, b_ptr, c_ptr, d_ptr, y_ptr, BLOCK: tl.constexpr):
    """Four int32 tensors saturated to int8 and packed into one int32 word each."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.minimum(tl.maximum(tl.load(a_ptr + offs), -128), 127)
    b = tl.minimum(tl.maximum(tl.load(b_ptr + offs), -128), 127)
    c = tl.minimum(tl.maximum(tl.load(c_ptr + offs), -128), 127)
    d = tl.minimum(tl.maximum(tl.load(d_ptr + offs), -128), 127)
    tl.store(y_ptr + offs, (a & 255) | ((b & 255) << 8) | ((c & 255) << 16) | (d << 24))


@triton.jit
def add(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def quantize_i8(x_ptr, y_ptr, scale, n, BLOCK: tl.constexpr):
    """float32 to int8, one byte store per element."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    q = tl.clamp(tl.load(x_ptr + offs, mask=m) * scale, -128.0, 127.0).to(tl.int32)
    tl.store(y_ptr + offs, q.to(tl.int8), mask=m)


KERNELS = {
    "pack4_i8": (
        pack4_i8,
        {"a_ptr": "*i32", "b_ptr": "*i32", "c_ptr": "*i32", "d_ptr": "*i32", "y_ptr": "*i32", "BLOCK": "constexpr"},
        {"BLOCK": 256},
        {(i,): ALIGNED for i in range(5)},
    ),
    "add": (
        add,
        {"x_ptr": "*fp32", "y_ptr": "*fp32", "z_ptr": "*fp32", "n": "i32", "BLOCK": "constexpr"},
        {"BLOCK": 1024},
        {},
    ),
    "quantize_i8": (
        quantize_i8,
        {"x_ptr": "*fp32", "y_ptr": "*i8", "scale": "fp32", "n": "i32", "BLOCK": "constexpr"},
        {"BLOCK": 1024},
        {(0,): ALIGNED, (1,): ALIGNED},
    ),
}


def compile_kernel(name):
    fn, signature, constexprs, attrs = KERNELS[name]
    return triton.compile(ASTSource(fn, signature, constexprs=constexprs, attrs=attrs), target=TARGET)


def sass_count(cubin: bytes, tmp_path) -> int:
    """Non-NOP SASS instructions in a cubin (Triton's bundled cuobjdump)."""
    path = tmp_path / "k.cubin"
    path.write_bytes(cubin)
    sass = subprocess.check_output([knobs.nvidia.cuobjdump.path, "-sass", str(path)], text=True)
    opcodes = re.findall(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass)
    assert opcodes, sass
    return sum(1 for op in opcodes if op != "NOP")


class Recorder:
    """A hook set before ptx_opt's: chained by install(), it sees the PTX the
    cubin stage (ptxas) is given."""

    def __init__(self):
        self.cubin_inputs = {}
        self.calls = 0

    def __call__(self, backend=None, stages=None, options=None, language=None, capability=None):
        if stages is None:
            return "recorder", "0" * 64
        self.calls += 1
        make_cubin = stages["cubin"]

        def cubin_stage(src, metadata):
            self.cubin_inputs[metadata["name"]] = src
            return make_cubin(src, metadata)

        stages["cubin"] = cubin_stage
        return None


@pytest.fixture(scope="module")
def baseline():
    assert knobs.runtime.add_stages_inspection_hook is None
    return {name: compile_kernel(name).asm for name in KERNELS}


@pytest.fixture
def recorder():
    recorder = Recorder()
    knobs.runtime.add_stages_inspection_hook = recorder
    yield recorder
    ptx_opt.triton.uninstall()
    knobs.runtime.add_stages_inspection_hook = None


def test_install_optimizes_triton_ptx_and_ptxas_compiles_it(baseline, recorder, tmp_path):
    remarks = []
    ptx_opt.triton.install(level=2, remarks=remarks.append, on_error="raise")
    assert ptx_opt.triton.installed()
    assert knobs.runtime.add_stages_inspection_hook is not recorder
    compiled = {name: compile_kernel(name) for name in KERNELS}
    assert recorder.calls == len(KERNELS), "the hook set before install() still runs"

    # A pass fires on pack4_i8: Triton keeps ptx-opt's output and ptxas compiles it.
    before, kernel = baseline["pack4_i8"], compiled["pack4_i8"]
    expected = ptx_opt.optimize(before["ptx"], level=2)
    assert expected.changed and expected.stats["combine-cvt-pack"]["combined"] > 0
    assert kernel.asm["ptx"] == expected.ptx != before["ptx"]
    assert "cvt.pack.sat.s8.s32.b32" in kernel.asm["ptx"]
    assert recorder.cubin_inputs["pack4_i8"] == kernel.asm["ptx"]
    assert kernel.asm["cubin"] != before["cubin"]
    assert sass_count(kernel.asm["cubin"], tmp_path) < sass_count(before["cubin"], tmp_path)
    assert remarks and all(r.file == "pack4_i8.ptx" and r.function == "pack4_i8" for r in remarks)
    assert [(r.line, r.pass_, r.message) for r in remarks] == [(r.line, r.pass_, r.message) for r in expected.remarks]

    # No pass fires on the others: the PTX is byte-identical, and so is the cubin.
    for name in ("add", "quantize_i8"):
        assert not ptx_opt.optimize(baseline[name]["ptx"], level=2).changed
        assert compiled[name].asm["ptx"] == baseline[name]["ptx"], name
        assert recorder.cubin_inputs[name] == baseline[name]["ptx"], name
        assert compiled[name].asm["cubin"] == baseline[name]["cubin"], name


def test_named_passes_and_uninstall(baseline, recorder):
    ptx_opt.triton.install(passes=["fold-prmt"])  # does not touch pack4_i8
    assert compile_kernel("pack4_i8").asm["ptx"] == baseline["pack4_i8"]["ptx"]
    ptx_opt.triton.install(passes=["combine-cvt-pack"])  # replaces the previous installation
    assert compile_kernel("pack4_i8").asm["ptx"] != baseline["pack4_i8"]["ptx"]
    ptx_opt.triton.uninstall()
    assert not ptx_opt.triton.installed()
    assert knobs.runtime.add_stages_inspection_hook is recorder
    assert compile_kernel("pack4_i8").asm["ptx"] == baseline["pack4_i8"]["ptx"]
    ptx_opt.triton.uninstall()  # a second time does nothing
    assert knobs.runtime.add_stages_inspection_hook is recorder


def test_cache_key_names_ptx_opt_and_the_pipeline(recorder):
    ptx_opt.triton.install(level=1)
    key, digest = knobs.runtime.add_stages_inspection_hook()
    assert key.startswith("recorder") and f"ptx-opt-{ptx_opt.__version__}-O1" in key
    ptx_opt.triton.install(passes=["dce"])
    other_key, other_digest = knobs.runtime.add_stages_inspection_hook()
    assert "passes=dce" in other_key and other_digest != digest


def test_a_hook_chained_over_ours_survives_uninstall(recorder):
    ptx_opt.triton.install(level=2)
    ours = knobs.runtime.add_stages_inspection_hook
    outer = Recorder()
    outer_previous = ours

    def chained(backend=None, stages=None, options=None, language=None, capability=None):
        if stages is None:
            return outer_previous()
        outer_previous(backend, stages, options, language, capability)
        return outer(backend, stages, options, language, capability)

    knobs.runtime.add_stages_inspection_hook = chained
    ptx_opt.triton.uninstall()
    assert knobs.runtime.add_stages_inspection_hook is chained
    kernel = compile_kernel("pack4_i8")
    assert outer.calls == 1 and recorder.calls == 1
    assert "cvt.pack.sat" not in kernel.asm["ptx"], "ours does nothing once uninstalled"


def test_install_checks_its_arguments(recorder):
    with pytest.raises(ValueError, match="unknown pass 'no-such-pass'"):
        ptx_opt.triton.install(passes=["no-such-pass"])
    with pytest.raises(ValueError, match="level"):
        ptx_opt.triton.install(level=7)
    with pytest.raises(ValueError, match="on_error"):
        ptx_opt.triton.install(on_error="ignore")
    assert not ptx_opt.triton.installed()
    assert knobs.runtime.add_stages_inspection_hook is recorder


def test_ptx_opt_errors_warn_or_raise(recorder):
    stages = {"ptx": lambda src, metadata: src, "cubin": lambda src, metadata: b""}
    ptx_opt.triton.install(level=2)
    knobs.runtime.add_stages_inspection_hook(None, stages, None, None, 80)
    with pytest.warns(RuntimeWarning, match="k.ptx:7:15: error: expected an operand"):
        assert stages["ptx"](SYNTAX_ERROR, {"name": "k"}) == SYNTAX_ERROR
    assert stages["ptx"](PLAIN, {"name": "plain"}) == PLAIN

    stages = {"ptx": lambda src, metadata: src, "cubin": lambda src, metadata: b""}
    ptx_opt.triton.install(level=2, on_error="raise")
    knobs.runtime.add_stages_inspection_hook(None, stages, None, None, 80)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ptx_opt.PtxError, match="k.ptx:7:15"):
            stages["ptx"](SYNTAX_ERROR, {"name": "k"})


def test_install_writes_the_version_a_driver_accepts(baseline, recorder):
    ptx_opt.triton.install(level=0, cuda="12.4", on_error="raise")
    key, _ = knobs.runtime.add_stages_inspection_hook()
    assert key.endswith("-O0-cuda12.4")
    kernel = compile_kernel("add")
    assert kernel.asm["ptx"] == ptx_opt.optimize(baseline["add"]["ptx"], cuda="12.4").ptx
    assert "\n.version 8.4\n" in kernel.asm["ptx"] and "\n.version 8.4\n" not in baseline["add"]["ptx"]
    assert kernel.asm["cubin"], "ptxas compiles it"
    with pytest.raises(ValueError, match="ptx_version"):
        ptx_opt.triton.install(ptx_version="7.9")
