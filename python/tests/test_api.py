import pytest

import ptx_opt
from conftest import PACK_U8, PLAIN, SYNTAX_ERROR, TYPE_MISMATCH


def test_passes_lists_the_registry():
    passes = ptx_opt.passes()
    names = [p.name for p in passes]
    assert names == sorted(names)
    for expected in ["combine-cvt-pack", "dce", "fold-byte-gathers", "fold-prmt", "legalize-relaxed", "verify"]:
        assert expected in names
    assert all(isinstance(p.description, str) and p.description for p in passes)


def test_pipelines():
    assert ptx_opt.pipeline(0) == []
    assert ptx_opt.pipeline(1) == ["fold-prmt", "dce"]
    two = ptx_opt.pipeline(2)
    assert "combine-cvt-pack" in two and two[-1] == "dce"
    assert set(two) <= {p.name for p in ptx_opt.passes()}
    for bad in (3, -1):
        with pytest.raises(ValueError, match="level"):
            ptx_opt.pipeline(bad)


def test_no_pass_gives_the_input_back_byte_for_byte():
    result = ptx_opt.optimize(PLAIN)
    assert result.ptx == PLAIN
    assert result.changed is False
    assert result.stats == {}
    assert result.remarks == []


def test_level_2_on_a_module_it_cannot_improve_is_byte_identical():
    result = ptx_opt.optimize(PLAIN, level=2)
    assert result.ptx == PLAIN
    assert not result.changed
    assert list(result.stats) == ptx_opt.pipeline(2)
    assert all(counters == {} for counters in result.stats.values())


def test_level_2_packs_the_saturations():
    result = ptx_opt.optimize(PACK_U8, level=2, source_name="pack.ptx")
    assert result.changed
    assert "cvt.pack.sat.u8.s32.b32" in result.ptx
    assert "shl.b32" not in result.ptx
    assert result.stats["combine-cvt-pack"]["combined"] == 1
    assert list(result.stats) == ptx_opt.pipeline(2)
    assert result.remarks, "a rewrite has a remark"
    remark = result.remarks[0]
    assert (remark.file, remark.pass_, remark.function) == ("pack.ptx", "combine-cvt-pack", "u8_clamps_shl_or")
    # The rewritten instruction is in the input at that place.
    assert remark.line > 0 and remark.col > 0
    assert PACK_U8.splitlines()[remark.line - 1][remark.col - 1 :].split()[0] in {"or.b32", "shl.b32", "min.s32"}
    assert str(remark).startswith(f"pack.ptx:{remark.line}:{remark.col}: remark: [combine-cvt-pack]")
    # As the Rust library gives it: the same output for the same pipeline by name.
    assert ptx_opt.optimize(PACK_U8, passes=ptx_opt.pipeline(2)).ptx == result.ptx


def test_named_passes_run_in_order_and_a_pass_twice_sums_its_counters():
    once = ptx_opt.optimize(PACK_U8, passes=["combine-cvt-pack"])
    assert list(once.stats) == ["combine-cvt-pack"]
    twice = ptx_opt.optimize(PACK_U8, passes=("fold-prmt", "combine-cvt-pack", "combine-cvt-pack"))
    assert list(twice.stats) == ["fold-prmt", "combine-cvt-pack"]
    assert twice.stats["combine-cvt-pack"]["combined"] == once.stats["combine-cvt-pack"]["combined"]


def test_a_step_may_carry_options_or_name_a_default_pipeline():
    default = ptx_opt.optimize(PACK_U8, passes=["default<O2>"])
    level = ptx_opt.optimize(PACK_U8, level=2)
    assert default.changed and default.ptx == level.ptx
    assert default.stats == level.stats
    with_option = ptx_opt.optimize(PACK_U8, passes=["fold-byte-gathers<min-saving=1>"])
    assert list(with_option.stats) == ["fold-byte-gathers"]
    with pytest.raises(ValueError, match="min-saving"):
        ptx_opt.optimize(PLAIN, passes=["fold-byte-gathers<min-saving=lots>"])
    with pytest.raises(ValueError, match="takes no options"):
        ptx_opt.optimize(PLAIN, passes=["dce<aggressive>"])
    with pytest.raises(ValueError, match="one pipeline step per list entry"):
        ptx_opt.optimize(PLAIN, passes=["dce,fold-prmt"])


def test_unknown_pass_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="unknown pass 'no-such-pass'") as info:
        ptx_opt.optimize(PLAIN, passes=["dce", "no-such-pass"])
    assert not isinstance(info.value, ptx_opt.PtxError)


def test_bad_arguments():
    with pytest.raises(ValueError, match="not both"):
        ptx_opt.optimize(PLAIN, passes=["dce"], level=2)
    for bad in (3, -1, 1000):
        with pytest.raises(ValueError, match="level"):
            ptx_opt.optimize(PLAIN, level=bad)
    with pytest.raises(TypeError):
        ptx_opt.optimize(PLAIN, passes="dce")
    with pytest.raises(TypeError):
        ptx_opt.optimize(PLAIN.encode())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="invalid target 'ampere'") as info:
        ptx_opt.optimize(PLAIN, level=2, target="ampere")
    assert not isinstance(info.value, ptx_opt.PtxError)
    with pytest.raises(ValueError, match="set_target needs a target"):
        ptx_opt.optimize(PLAIN, level=2, set_target=True)
    with pytest.raises(ValueError, match="threads"):
        ptx_opt.optimize(PLAIN, level=2, threads=100000)


def test_syntax_error_is_a_ptx_error_with_located_diagnostics():
    with pytest.raises(ptx_opt.PtxError) as info:
        ptx_opt.optimize(SYNTAX_ERROR, level=2, source_name="kernel.ptx")
    e = info.value
    assert isinstance(e, ValueError)
    assert e.kind == "parse"
    # What the ptx-opt tool prints (the library's renderer): the line, the source, a caret.
    assert str(e) == "kernel.ptx:7:15: error: expected an operand, found ','\n  |\n7 | \tadd.s32 %r1, , %r2;\n  | \t             ^"
    [d] = e.diagnostics
    assert (d.file, d.line, d.col, d.message, d.notes) == ("kernel.ptx", 7, 15, "expected an operand, found ','", ())
    assert str(d) == str(e).splitlines()[0]


def test_verifier_rejects_invalid_input_unless_verify_is_false():
    with pytest.raises(ptx_opt.PtxError) as info:
        ptx_opt.optimize(TYPE_MISMATCH)
    e = info.value
    assert e.kind == "invalid-input"
    assert e.diagnostics and all(d.file == "<input>" for d in e.diagnostics)
    assert (e.diagnostics[0].line, e.diagnostics[0].col) == (13, 2)
    lines = [line for line in str(e).splitlines() if ": error: " in line]
    assert lines == [str(d) for d in e.diagnostics]
    assert lines[0].startswith("<input>:13:2: error: add.s32: operand 2 (%rd1) is .b64")
    # Without the verifier only the parser checks: the input comes back.
    assert ptx_opt.optimize(TYPE_MISMATCH, verify=False).ptx == TYPE_MISMATCH


def test_verify_pass_in_the_pipeline_reports_as_a_pass_error():
    with pytest.raises(ptx_opt.PtxError) as info:
        ptx_opt.optimize(TYPE_MISMATCH, passes=["verify"], verify=False)
    assert info.value.kind == "pass" and info.value.pass_ == "verify"
    assert str(info.value).startswith("<input>:13:2: error: ")


def test_diagnostic_notes_point_into_the_input():
    twice = PLAIN.replace("\tret;\n", "$L1:\n$L1:\n\tret;\n")
    with pytest.raises(ptx_opt.PtxError) as info:
        ptx_opt.optimize(twice, source_name="k.ptx")
    [d] = info.value.diagnostics
    assert (d.line, d.col, d.message) == (18, 1, "label '$L1' is defined twice")
    assert d.notes == (ptx_opt.Note("k.ptx", 17, 1, "first defined here"),)
    assert "k.ptx:17:1: note: first defined here" in str(info.value)


def test_remarks_name_the_demangled_function():
    mangled = PACK_U8.replace("u8_clamps_shl_or", "_Z4packPj")
    [remark] = ptx_opt.optimize(mangled, passes=["combine-cvt-pack"]).remarks
    assert (remark.function, remark.demangled) == ("_Z4packPj", "pack(unsigned int*)")
    assert ptx_opt.optimize(PACK_U8, passes=["combine-cvt-pack"]).remarks[0].demangled is None


def test_result_types():
    result = ptx_opt.optimize(PACK_U8, level=2, threads=1)
    assert isinstance(result, ptx_opt.Result)
    assert isinstance(result.ptx, str) and isinstance(result.changed, bool)
    for pass_, counters in result.stats.items():
        assert isinstance(pass_, str)
        assert all(isinstance(k, str) and isinstance(v, int) for k, v in counters.items())
    assert all(isinstance(r, ptx_opt.Remark) for r in result.remarks)


def test_package_ships_type_information():
    from importlib import resources

    files = resources.files("ptx_opt")
    assert files.joinpath("py.typed").is_file()
    assert files.joinpath("_native.pyi").is_file()


def test_target_sets_what_the_passes_gate_on():
    sm70 = PACK_U8.replace(".target sm_80", ".target sm_70")  # cvt.pack.sat needs sm_72
    assert not ptx_opt.optimize(sm70, level=2).changed
    # Down: gated off on an sm_80 module.
    off = ptx_opt.optimize(PACK_U8, level=2, target="sm_70")
    assert not off.changed and off.ptx == PACK_U8
    # Up, with the header written: the pass fires, and the output says sm_80.
    up = ptx_opt.optimize(sm70, level=2, target="sm_80", set_target=True, source_name="k.ptx")
    assert up.changed and up.stats["combine-cvt-pack"]["combined"] == 1
    assert ".target sm_80\n" in up.ptx and "cvt.pack.sat.u8.s32.b32" in up.ptx
    # Up, header kept: an output ptxas would reject is an error, not a result.
    with pytest.raises(ptx_opt.PtxError) as info:
        ptx_opt.optimize(sm70, level=2, target="sm_80", source_name="k.ptx")
    e = info.value
    assert e.kind == "needs-target" and e.diagnostics
    assert all(d.file == "k.ptx" and d.line > 0 for d in e.diagnostics)
    assert str(e).startswith(f"k.ptx:{e.diagnostics[0].line}:{e.diagnostics[0].col}: error: ")
    assert "--set-target" in str(e)


POLICY_STORED = """.version 8.0
.target sm_80
.address_size 64

.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
	ld.global.L2::cache_hint.u32 %r1, [%rd1], %rd2;
	st.global.u32 [%rd1+4], %r1;
	st.global.u64 [%rd1+8], %rd2;
	ret;
}
"""


def test_ptx_version_lowers_or_refuses_and_cuda_names_a_driver():
    lowest = ptx_opt.optimize(PLAIN, ptx_version="min")
    assert lowest.ptx.startswith(".version 7.0\n") and lowest.ptx[len(".version 7.0"):] == PLAIN[len(".version 8.0"):]
    assert ptx_opt.optimize(PLAIN, cuda="12.0").ptx == PLAIN  # its driver accepts 8.0
    assert ptx_opt.optimize(PLAIN, cuda="11.8").ptx.startswith(".version 7.8\n")
    # The hint goes (a remark), the policy stays: it is stored.
    hints = POLICY_STORED.replace("\tst.global.u64 [%rd1+8], %rd2;\n", "")
    dropped = ptx_opt.optimize(hints, ptx_version="7.0", source_name="k.ptx")
    assert dropped.ptx.startswith(".version 7.0\n") and "cache_hint" not in dropped.ptx
    assert dropped.stats["lower-ptx-version"] == {"hints-dropped": 1, "policies-deleted": 1}
    assert [r.pass_ for r in dropped.remarks] == ["lower-ptx-version"]
    with pytest.raises(ptx_opt.PtxError) as info:
        ptx_opt.optimize(POLICY_STORED, ptx_version="7.0", source_name="k.ptx")
    e = info.value
    assert e.kind == "needs-version" and len(e.diagnostics) == 1
    assert (e.diagnostics[0].line, e.diagnostics[0].message) == (
        10,
        "'createpolicy' needs PTX 7.4, --ptx-version asks for 7.0",
    )
    for bad in ({"ptx_version": "7.9"}, {"cuda": "twelve"}, {"ptx_version": "7.0", "cuda": "12.4"}):
        with pytest.raises(ValueError):
            ptx_opt.optimize(PLAIN, **bad)


# A word of PTX ISA 9.3 that the ISA 9.1 text ptx-opt describes lacks.
NEWER = (
    ".version 9.3\n.target sm_90a\n.address_size 64\n.shared .align 8 .b64 barrier;\n.visible .entry k()\n{\n"
    "\t.reg .pred %p<3>;\n\t.reg .b8 %rs<2>;\n\t.reg .b64 %rd<2>;\n\tmov.b64 %rd1, 0;\n"
    "\tmbarrier.test_wait.phase_type::primary.b64 %p1|%p2, %rs1, [barrier], %rd1;\n\tret;\n}\n"
)


def test_newer_forms_are_reported_unless_accepted():
    with pytest.raises(ptx_opt.PtxError) as info:
        ptx_opt.optimize(NEWER)
    assert info.value.kind == "invalid-input"
    assert "unknown modifier .phase_type::primary" in info.value.diagnostics[0].message
    assert ptx_opt.optimize(NEWER, level=2, accept_newer_forms=True).ptx == NEWER
