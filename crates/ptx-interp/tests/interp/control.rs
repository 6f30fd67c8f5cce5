//! Control flow and threads: branches and loops, device-function calls with
//! .param and .reg arguments, indirect calls, the step limit, barriers,
//! warp collectives, and deadlocks.

use crate::harness::{module_text, run_grid, run_text, words};
use ptx_interp::{assert_equivalent, InterpError};

#[test]
fn loops_and_branches() {
    // Sum 1..=10 with a backward branch.
    let body = "\tmov.u32 %r1, 0;\n\tmov.u32 %r2, 1;\nL_LOOP:\n\tadd.u32 %r1, %r1, %r2;\n\tadd.u32 %r2, %r2, 1;\n\
        \tsetp.le.u32 %p1, %r2, 10;\n\t@%p1 bra.uni L_LOOP;\n\tst.global.u32 [%rd14], %r1;";
    let out = run_text(&module_text(body, "", ""), &[], 1).unwrap();
    assert_eq!(words(&out.buffers[0].data[..4]), vec![55]);
}

#[test]
fn the_step_limit_stops_infinite_loops() {
    let body = "L_SPIN:\n\tbra.uni L_SPIN;";
    match run_text(&module_text(body, "", ""), &[], 1) {
        // A loop that synchronizes with nobody is not a spin.
        Err(InterpError::StepLimit { spinning: false, .. }) => {}
        other => panic!("{other:?}"),
    }
}

const CALLS: &str = r#"
.version 8.5
.target sm_90
.address_size 64

.func (.param .b32 add3_ret) add3(.param .b32 add3_a, .param .b32 add3_b, .param .b32 add3_c)
{
	.reg .b32 %r<5>;
	ld.param.b32 %r1, [add3_a];
	ld.param.b32 %r2, [add3_b];
	ld.param.b32 %r3, [add3_c];
	add.s32 %r4, %r1, %r2;
	add.s32 %r4, %r4, %r3;
	st.param.b32 [add3_ret], %r4;
	ret;
}

.func (.reg .b32 twice_ret) twice(.reg .b32 twice_x)
{
	shl.b32 twice_ret, twice_x, 1;
	ret;
}

.func (.param .align 4 .b8 pair_ret[8]) pair(.param .b32 pair_x)
{
	.reg .b32 %r<3>;
	ld.param.b32 %r1, [pair_x];
	add.s32 %r2, %r1, 1;
	st.param.b32 [pair_ret], %r1;
	st.param.b32 [pair_ret+4], %r2;
	ret;
}

.func (.param .b32 fact_ret) fact(.param .b32 fact_n)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	ld.param.b32 %r1, [fact_n];
	setp.le.s32 %p1, %r1, 1;
	@%p1 bra DONE;
	sub.s32 %r2, %r1, 1;
	{
	.param .b32 param0;
	st.param.b32 [param0], %r2;
	.param .b32 retval0;
	call.uni (retval0), fact, (param0);
	ld.param.b32 %r3, [retval0];
	}
	mul.lo.s32 %r4, %r1, %r3;
	st.param.b32 [fact_ret], %r4;
	ret;
DONE:
	st.param.b32 [fact_ret], 1;
	ret;
}

.visible .entry k(.param .u64 k_out)
{
	.reg .b32 %r<12>;
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [k_out];
	{
	.param .b32 param0;
	st.param.b32 [param0], 1;
	.param .b32 param1;
	st.param.b32 [param1], 2;
	.param .b32 param2;
	st.param.b32 [param2], 39;
	.param .b32 retval0;
	call.uni (retval0), add3, (param0, param1, param2);
	ld.param.b32 %r1, [retval0];
	}
	mov.b32 %r2, 21;
	call.uni (%r3), twice, (%r2);
	{
	.param .b32 param0;
	st.param.b32 [param0], 7;
	.param .align 4 .b8 retval0[8];
	call.uni (retval0), pair, (param0);
	ld.param.b32 %r4, [retval0];
	ld.param.b32 %r5, [retval0+4];
	}
	mov.u64 %rd2, add3;
	{
	.param .b32 param0;
	st.param.b32 [param0], 100;
	.param .b32 param1;
	st.param.b32 [param1], 20;
	.param .b32 param2;
	st.param.b32 [param2], 3;
	.param .b32 retval0;
	proto_1 : .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _, .param .b32 _);
	call (retval0), %rd2, (param0, param1, param2), proto_1;
	ld.param.b32 %r6, [retval0];
	}
	{
	.param .b32 param0;
	st.param.b32 [param0], 5;
	.param .b32 retval0;
	call.uni (retval0), fact, (param0);
	ld.param.b32 %r7, [retval0];
	}
	st.global.v4.u32 [%rd1], {%r1, %r3, %r4, %r5};
	st.global.v2.u32 [%rd1+16], {%r6, %r7};
	ret;
}
"#;

/// A table of function addresses in a `.global` initializer (a jump table,
/// as nvcc emits for arrays of function pointers): the entries are the
/// functions' addresses, and the functions named there can be called
/// through them.
#[test]
fn calls_through_a_jump_table_in_an_initializer() {
    let functions = ".func (.param .b32 twice_ret) twice(.param .b32 twice_x)\n{\n\t.reg .b32 %r<2>;\n\tld.param.b32 %r1, [twice_x];\n\tshl.b32 %r1, %r1, 1;\n\tst.param.b32 [twice_ret], %r1;\n\tret;\n}\n\
        .func (.param .b32 square_ret) square(.param .b32 square_x)\n{\n\t.reg .b32 %r<2>;\n\tld.param.b32 %r1, [square_x];\n\tmul.lo.s32 %r1, %r1, %r1;\n\tst.param.b32 [square_ret], %r1;\n\tret;\n}\n\
        .global .align 8 .u64 ops[2] = {twice, square};";
    let call = |slot: u32, out: u32| {
        format!(
            "\tld.global.u64 %rd1, [ops+{}];\n\t{{\n\t.param .b32 param0;\n\tst.param.b32 [param0], 7;\n\t.param .b32 retval0;\n\
             \tproto_{slot} : .callprototype (.param .b32 _) _ (.param .b32 _);\n\tcall (retval0), %rd1, (param0), proto_{slot};\n\
             \tld.param.b32 %r1, [retval0];\n\t}}\n\tst.global.u32 [%rd14+{out}], %r1;\n",
            8 * slot
        )
    };
    let body = format!("{}{}", call(0, 0), call(1, 4));
    let text = module_text(&body, "", functions);
    let out = run_text(&text, &[], 1).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(words(&out.buffers[0].data[..8]), vec![14, 49]);
}

#[test]
fn calls_with_param_and_reg_arguments() {
    let module = ptx_parse::parse(CALLS).unwrap();
    let out_buf = ptx_interp::Buffer { name: "out".into(), base: 0x10_0000_0000, data: vec![0; 64] };
    let args = ptx_interp::KernelArgs { params: vec![out_buf.base.to_le_bytes().to_vec()], buffers: vec![out_buf] };
    let cfg = ptx_interp::LaunchConfig { grid: [1, 1, 1], block: [1, 1, 1], ..Default::default() };
    let out = ptx_interp::run_kernel(&module, "k", &args, &cfg).unwrap();
    assert_eq!(words(&out.buffers[0].data[..24]), vec![42, 42, 7, 8, 123, 120]);
}

#[test]
fn device_functions_can_be_diffed_directly() {
    let other = CALLS.replace("shl.b32 twice_ret, twice_x, 1;", "add.s32 twice_ret, twice_x, twice_x;");
    let a = ptx_parse::parse(CALLS).unwrap();
    let b = ptx_parse::parse(&other).unwrap();
    let opts = ptx_interp::DiffOptions { kernel: Some("twice".into()), ..Default::default() };
    let report = ptx_interp::diff_modules(&a, &b, &opts);
    assert!(report.is_equivalent(), "{report}");
    let wrong = CALLS.replace("shl.b32 twice_ret, twice_x, 1;", "shl.b32 twice_ret, twice_x, 2;");
    let report = ptx_interp::diff_modules(&a, &ptx_parse::parse(&wrong).unwrap(), &opts);
    assert_eq!(report.exit_code(), 1, "{report}");
}

#[test]
fn calls_to_functions_without_a_body_are_unsupported() {
    let text = ".version 8.5\n.target sm_90\n.address_size 64\n.extern .func ext(.param .b32 x);\n\
        .visible .entry k()\n{\n\t{\n\t.param .b32 param0;\n\tst.param.b32 [param0], 1;\n\tcall.uni ext, (param0);\n\t}\n\tret;\n}\n";
    let module = ptx_parse::parse(text).unwrap();
    let err = ptx_interp::run_kernel(&module, "k", &Default::default(), &Default::default()).unwrap_err();
    assert!(matches!(err, InterpError::Unsupported { .. }), "{err}");
}

/// Shared-memory reversal: correct only if every thread's store happens
/// before any thread's load, which bar.sync guarantees.
#[test]
fn barriers_order_shared_memory() {
    let body = "\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd1, %r1, 4;\n\tmov.u64 %rd2, s_buf;\n\tadd.s64 %rd3, %rd2, %rd1;\n\
        \tst.shared.u32 [%rd3], %r1;\n\tbar.sync 0;\n\
        \tsub.u32 %r2, 63, %r1;\n\tmul.wide.u32 %rd4, %r2, 4;\n\tadd.s64 %rd5, %rd2, %rd4;\n\tld.shared.u32 %r3, [%rd5];\n\
        \tadd.s64 %rd6, %rd14, %rd1;\n\tst.global.u32 [%rd6], %r3;";
    let text = module_text(body, "", ".shared .align 4 .b32 s_buf[64];");
    let out = run_grid(&text, &[], 1, 64, 4096).unwrap();
    let w = words(&out.buffers[0].data[..256]);
    assert_eq!(w, (0..64).rev().collect::<Vec<u32>>());
}

#[test]
fn bar_red_reduces_predicates() {
    let body = "\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 5;\n\tbar.red.popc.u32 %r2, 0, %p1;\n\
        \tbar.red.and.pred %p2, 1, %p1;\n\tbar.red.or.pred %p3, 2, %p1;\n\
        \tselp.u32 %r3, 1, 0, %p2;\n\tselp.u32 %r4, 1, 0, %p3;\n\
        \tst.global.v4.u32 [%rd14], {%r2, %r3, %r4, %r1};";
    let out = run_grid(&module_text(body, "", ""), &[], 1, 32, 4096).unwrap();
    assert_eq!(words(&out.buffers[0].data[..12]), vec![5, 0, 1]);
}

#[test]
fn a_barrier_some_threads_never_reach_is_a_deadlock() {
    // Thread 0 exits early; the others wait at bar.sync for... only the
    // non-exited threads, which is fine. But a barrier inside a branch that
    // half the warp skips while the other half waits at a second barrier
    // with a count that cannot be met deadlocks.
    let body = "\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra SKIP;\n\tbar.sync 0, 64;\nSKIP:\n\tret;";
    match run_grid(&module_text(body, "", ""), &[], 1, 32, 4096) {
        Err(InterpError::Deadlock { .. }) => {}
        other => panic!("{other:?}"),
    }
    let body = "\tmov.u32 %r1, %tid.x;\n\tsetp.eq.u32 %p1, %r1, 0;\n\t@%p1 bra SKIP;\n\tbar.sync 0;\n\
        \tst.global.u32 [%rd14], 1;\nSKIP:\n\tret;";
    let out = run_grid(&module_text(body, "", ""), &[], 1, 32, 4096).unwrap();
    assert_eq!(out.buffers[0].data[0], 1, "exited threads do not hold a barrier");
}

#[test]
fn warp_shuffles_votes_and_reductions() {
    let body = "\tmov.u32 %r1, %tid.x;\n\tmul.lo.u32 %r2, %r1, 10;\n\
        \tshfl.sync.down.b32 %r3|%p1, %r2, 1, 0x1f, -1;\n\
        \tshfl.sync.bfly.b32 %r4, %r2, 16, 0x1f, -1;\n\
        \tshfl.sync.idx.b32 %r5, %r2, 3, 0x1f, -1;\n\
        \tshfl.sync.up.b32 %r6|%p2, %r2, 2, 0, -1;\n\
        \tsetp.lt.u32 %p3, %r1, 4;\n\tvote.sync.ballot.b32 %r7, %p3, -1;\n\
        \tvote.sync.any.pred %p4, %p3, -1;\n\tvote.sync.all.pred %p5, %p3, -1;\n\
        \tredux.sync.add.u32 %r8, %r1, -1;\n\tredux.sync.max.s32 %r9, %r2, -1;\n\
        \tand.b32 %r10, %r1, 1;\n\tmatch.any.sync.b32 %r11, %r10, -1;\n\
        \tselp.u32 %r12, 1, 0, %p1;\n\tselp.u32 %r13, 1, 0, %p2;\n\tselp.u32 %r14, 1, 0, %p4;\n\tselp.u32 %r15, 1, 0, %p5;\n\
        \tmul.wide.u32 %rd1, %r1, 64;\n\tadd.s64 %rd2, %rd14, %rd1;\n\
        \tst.global.v4.u32 [%rd2], {%r3, %r4, %r5, %r6};\n\tst.global.v4.u32 [%rd2+16], {%r7, %r8, %r9, %r11};\n\
        \tst.global.v4.u32 [%rd2+32], {%r12, %r13, %r14, %r15};";
    let out = run_grid(&module_text(body, "", ""), &[], 1, 32, 4096).unwrap();
    let w = words(&out.buffers[0].data);
    for lane in 0..32u32 {
        let r = &w[(lane * 16) as usize..(lane * 16 + 12) as usize];
        let down = if lane < 31 { (lane + 1) * 10 } else { lane * 10 };
        let up = if lane >= 2 { (lane - 2) * 10 } else { lane * 10 };
        let evens = 0x5555_5555u32;
        let want = [
            down,
            (lane ^ 16) * 10,
            30,
            up,
            0xf,
            496,
            310,
            if lane % 2 == 0 { evens } else { !evens },
            (lane < 31) as u32,
            (lane >= 2) as u32,
            1,
            0,
        ];
        assert_eq!(r, &want, "lane {lane}");
    }
}

/// A `.sync` collective waits for the lanes its mask names that have not
/// exited: lanes still running elsewhere (here at a `bar.warp.sync`)
/// never arrive, which is a deadlock, not a guess.
#[test]
fn a_shuffle_half_the_warp_skips_is_a_deadlock_not_a_guess() {
    let body = "\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 bra SKIP;\n\
        \tshfl.sync.bfly.b32 %r2, %r1, 1, 0x1f, -1;\nSKIP:\n\tbar.warp.sync -1;\n\tret;";
    assert!(matches!(run_grid(&module_text(body, "", ""), &[], 1, 32, 4096), Err(InterpError::Deadlock { .. })));
    // With a membermask naming exactly the participating lanes it is fine.
    let body = "\tmov.u32 %r1, %tid.x;\n\tsetp.lt.u32 %p1, %r1, 16;\n\t@%p1 bra SKIP;\n\
        \tshfl.sync.bfly.b32 %r2, %r1, 1, 0x1f, 0xffff0000;\n\tmul.wide.u32 %rd1, %r1, 4;\n\tadd.s64 %rd2, %rd14, %rd1;\n\
        \tst.global.u32 [%rd2], %r2;\nSKIP:\n\tret;";
    let out = run_grid(&module_text(body, "", ""), &[], 1, 32, 4096).unwrap();
    let w = words(&out.buffers[0].data[..128]);
    assert_eq!(w[16], 17);
    assert_eq!(w[17], 16);
}

/// The ISA's `.sync` collectives: the lanes a mask names that have exited
/// (or lie past the end of a partial warp) are not waited for, and on
/// sm_70 and later lanes of a divergent warp meet at different
/// instructions of the same form (same qualifiers and mask); before
/// sm_70 that is a deadlock.
#[test]
fn sync_collectives_wait_for_the_non_exited_lanes_of_their_mask() {
    let store = "\tmul.wide.u32 %rd1, %r1, 4;\n\tadd.s64 %rd2, %rd14, %rd1;\n\tst.global.u32 [%rd2], %r4;";
    // Lanes 16..31 exit; the others vote with a full mask: odd lanes of 0..15.
    let exited = format!(
        "\tmov.u32 %r1, %tid.x;\n\tsetp.ge.u32 %p1, %r1, 16;\n\t@%p1 bra DONE;\n\tand.b32 %r3, %r1, 1;\n\
         \tsetp.eq.u32 %p2, %r3, 1;\n\tvote.sync.ballot.b32 %r4, %p2, -1;\n{store}\nDONE:"
    );
    let out = run_grid(&module_text(&exited, "", ""), &[], 1, 32, 4096).unwrap();
    let w = words(&out.buffers[0].data[..128]);
    assert_eq!(&w[..16], &[0xaaaa; 16]);
    assert_eq!(&w[16..], &[0; 16], "exited lanes store nothing");
    // A partial warp of 12 threads with a full mask.
    let out = run_grid(&module_text(&exited, "", ""), &[], 1, 12, 4096).unwrap();
    assert_eq!(words(&out.buffers[0].data[..48]), [0xaaa; 12]);
    // The two halves of a divergent warp vote at two instructions.
    let split = format!(
        "\tmov.u32 %r1, %tid.x;\n\tand.b32 %r3, %r1, 1;\n\tsetp.eq.u32 %p2, %r3, 1;\n\tsetp.ge.u32 %p1, %r1, 16;\n\
         \t@%p1 bra HIGH;\n\tvote.sync.ballot.b32 %r4, %p2, -1;\n\tbra.uni JOIN;\nHIGH:\n\
         \tvote.sync.ballot.b32 %r4, %p2, -1;\n\tadd.u32 %r4, %r4, 1;\nJOIN:\n{store}"
    );
    let out = run_grid(&module_text(&split, "", ""), &[], 1, 32, 4096).unwrap();
    let w = words(&out.buffers[0].data[..128]);
    assert_eq!(&w[..16], &[0xaaaa_aaaa; 16]);
    assert_eq!(&w[16..], &[0xaaaa_aaab; 16]);
    // Different qualifiers do not meet (.any and .all wait for each other forever).
    let other =
        split.replacen("vote.sync.ballot.b32 %r4, %p2, -1;\n\tadd", "vote.sync.any.pred %p3, %p2, -1;\n\tadd", 1);
    assert_ne!(other, split);
    assert!(matches!(run_grid(&module_text(&other, "", ""), &[], 1, 32, 4096), Err(InterpError::Deadlock { .. })));
    // Before sm_70 the lanes must meet at one instruction.
    let old = module_text(&split, "", "").replace(".target sm_90", ".target sm_61");
    assert!(matches!(run_grid(&old, &[], 1, 32, 4096), Err(InterpError::Deadlock { .. })));
}

#[test]
fn diff_of_a_kernel_with_itself_is_equivalent() {
    let text =
        module_text("\tld.global.u32 %r1, [%rd15];\n\tadd.u32 %r1, %r1, 1;\n\tst.global.u32 [%rd14], %r1;", "", "");
    let report = assert_equivalent(&text, &text).unwrap();
    assert_eq!(report.kernels.len(), 1);
}

/// `activemask` and `vote` without `.sync` name the lanes that wait at the
/// instruction together once no lane of the warp can run on: after a
/// divergent branch the odd and the even lanes reach their instructions
/// separately (a schedule independent thread scheduling allows), so each
/// half sees only itself, also at the instruction after the join.
#[test]
fn activemask_and_unsynchronized_vote_see_the_converged_lanes() {
    let body = "\tmov.u32 %r1, %tid.x;\n\tand.b32 %r2, %r1, 1;\n\tsetp.eq.u32 %p1, %r2, 0;\n\
        \tmul.wide.u32 %rd1, %r1, 32;\n\tadd.s64 %rd2, %rd14, %rd1;\n\
        \t@%p1 bra EVEN;\n\tactivemask.b32 %r3;\n\tsetp.lt.u32 %p2, %r1, 8;\n\tvote.ballot.b32 %r4, %p2;\n\
        \tvote.any.pred %p3, %p2;\n\tselp.u32 %r5, 1, 0, %p3;\n\tst.global.v4.u32 [%rd2], {%r3, %r4, %r5, 7};\nEVEN:\n\
        \tactivemask.b32 %r6;\n\tvote.all.pred %p4, %p1;\n\tselp.u32 %r7, 1, 0, %p4;\n\
        \tst.global.v2.u32 [%rd2+16], {%r6, %r7};";
    let out = run_grid(&module_text(body, "", ""), &[], 1, 32, 4096).unwrap();
    let w = words(&out.buffers[0].data[..1024]);
    for lane in 0..32usize {
        let r = &w[lane * 8..lane * 8 + 6];
        if lane % 2 == 1 {
            // Odd lanes 1, 3, 5 and 7 are below 8: ballot 0xaa.
            assert_eq!(r, [0xaaaa_aaaa, 0xaa, 1, 7, 0xaaaa_aaaa, 0], "lane {lane}");
        } else {
            assert_eq!(r, [0, 0, 0, 0, 0x5555_5555, 1], "lane {lane}");
        }
    }
    // 20 threads: a partial warp; the odd lanes are 1, 3, .., 19.
    let out = run_grid(&module_text(body, "", ""), &[], 1, 20, 4096).unwrap();
    assert_eq!(words(&out.buffers[0].data[32..36])[0], 0xa_aaaa);
}

/// Clocks are counters of their reads: identical on both sides of a diff
/// and increasing within a thread.
#[test]
fn clocks_are_deterministic_increasing_counters() {
    let body = "\tmov.u64 %rd1, %clock64;\n\tmov.u32 %r1, %clock;\n\tmov.u64 %rd2, %globaltimer;\n\
        \tmov.u64 %rd3, %clock64;\n\tsub.s64 %rd4, %rd3, %rd1;\n\
        \tst.global.v2.u64 [%rd14], {%rd1, %rd4};\n\tst.global.u32 [%rd14+16], %r1;\n\tst.global.u64 [%rd14+24], %rd2;";
    let text = module_text(body, "", "");
    let out = run_grid(&text, &[], 1, 1, 4096).unwrap();
    let w = words(&out.buffers[0].data[..32]);
    let first = w[0] as u64 | (w[1] as u64) << 32;
    let elapsed = w[2] as u64 | (w[3] as u64) << 32;
    assert_eq!(elapsed, 3 * 64, "three reads later, at 64 cycles a read");
    assert_eq!(w[4] as u64, first + 64, "%clock is the low half of the next tick");
    let timer = w[6] as u64 | (w[7] as u64) << 32;
    assert_eq!(timer, (first + 128) * 32, "globaltimer counts 32 ns a cycle-tick");
    assert!(assert_equivalent(&text, &text).is_ok());
}
