//! The scheduling model: threads run one after another, and a thread
//! yields after 64 synchronizing accesses, so spin locks and turn-taking
//! finish whatever order they need; and input generation (struct words,
//! buffers sized from the addresses a kernel touches).

use crate::harness::{module_text, run_text, words};
use ptx_interp::{
    assert_equivalent, diff_modules, infer_params, make_args, DiffOptions, InterpError, Program, Verdict,
};

/// Thread t waits (polling a volatile shared word) until it is its turn,
/// and the turns go from the last thread to the first: in the sequential
/// order thread 0 would spin forever.
#[test]
fn turn_taking_in_reverse_order_finishes() {
    for threads in [2u32, 32, 64, 128] {
        let body =
            "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r5, %ntid.x;\n\tsub.u32 %r4, %r5, 1;\n\tsub.u32 %r4, %r4, %r1;\n\
             $spin:\n\tld.volatile.shared.u32 %r2, [turn];\n\tsetp.ne.u32 %p1, %r2, %r4;\n\t@%p1 bra $spin;\n\
             \tmul.wide.u32 %rd3, %r2, 4;\n\tadd.u64 %rd4, %rd14, %rd3;\n\tst.global.u32 [%rd4], %r1;\n\
             \tadd.u32 %r3, %r2, 1;\n\tst.volatile.shared.u32 [turn], %r3;\n";
        let text = module_text(body, "\t.shared .align 4 .u32 turn;\n", "");
        let out = run_text(&text, &[], threads).unwrap_or_else(|e| panic!("{threads} threads: {e}"));
        let w = words(&out.buffers[0].data);
        let expect: Vec<u32> = (0..threads).rev().collect();
        assert_eq!(&w[..threads as usize], &expect[..], "{threads} threads");
    }
}

/// A lock taken with `atom.cas`: thread t may take it only when the word
/// holds 31 - t, and each holder passes it on; the order of the critical
/// sections is the reverse of the thread order.
#[test]
fn atom_cas_spin_lock_finishes() {
    let body = "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r4, 31;\n\tsub.u32 %r4, %r4, %r1;\n\tadd.u32 %r5, %r4, 1;\n\
         $spin:\n\tatom.shared.cas.b32 %r2, [lock], %r4, %r5;\n\tsetp.ne.u32 %p1, %r2, %r4;\n\t@%p1 bra $spin;\n\
         \tatom.shared.add.u32 %r3, [count], 1;\n\tmul.wide.u32 %rd3, %r3, 4;\n\tadd.u64 %rd4, %rd14, %rd3;\n\
         \tst.global.u32 [%rd4], %r1;\n";
    let text = module_text(body, "\t.shared .align 4 .u32 lock;\n\t.shared .align 4 .u32 count;\n", "");
    let out = run_text(&text, &[], 32).expect("the lock is passed on");
    let expect: Vec<u32> = (0..32).rev().collect();
    assert_eq!(&words(&out.buffers[0].data)[..32], &expect[..]);
    // Deterministic, and equivalent to itself under the checker.
    let again = run_text(&text, &[], 32).expect("runs");
    assert_eq!(out.buffers, again.buffers);
    assert_equivalent(&text, &text).expect("equivalent to itself");
}

/// A spin that can never finish still ends, at the step limit.
#[test]
fn a_spin_nobody_ends_hits_the_step_limit() {
    let body = "$spin:\n\tld.volatile.shared.u32 %r2, [flag];\n\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra $spin;\n";
    let text = module_text(body, "\t.shared .align 4 .u32 flag;\n", "");
    match run_text(&text, &[], 4) {
        Err(InterpError::StepLimit { spinning: true, .. }) => {}
        other => panic!("expected the step limit, got {other:?}"),
    }
}

/// A struct passed by value whose word at offset 8 is loaded and used as
/// an address is filled with a buffer pointer; its other words are small
/// integers in the tame trial.
#[test]
fn struct_words_are_pointers_or_small_integers() {
    let text = ".version 7.0\n.target sm_75\n.address_size 64\n\
        .visible .entry k(.param .u64 out, .param .align 8 .b8 s[24])\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
        \tld.param.u64 %rd1, [out];\n\tld.param.u32 %r1, [s];\n\tld.param.u64 %rd2, [s+8];\n\tld.param.u32 %r2, [s+16];\n\
        \tcvta.to.global.u64 %rd3, %rd2;\n\tmul.wide.u32 %rd4, %r1, 4;\n\tadd.u64 %rd5, %rd3, %rd4;\n\tld.global.u32 %r3, [%rd5];\n\
        \tadd.u32 %r3, %r3, %r2;\n\tcvta.to.global.u64 %rd6, %rd1;\n\tst.global.u32 [%rd6], %r3;\n\tret;\n}\n";
    let module = ptx_parse::parse(text).expect("parses");
    let prog = Program::new(&module);
    let func = prog.function("k").expect("kernel");
    let specs = infer_params(&prog, func);
    assert_eq!(specs[1].pointer_words, Some(vec![8]));
    for seed in 0..50u64 {
        let args = make_args(&specs, seed, 0, 4096);
        let s = &args.params[1];
        let word = |o: usize| u32::from_le_bytes([s[o], s[o + 1], s[o + 2], s[o + 3]]);
        assert!((1..=100).contains(&word(0)) && (1..=100).contains(&word(16)), "seed {seed}: {s:?}");
        let ptr = u64::from_le_bytes(s[8..16].try_into().unwrap());
        assert!(args.buffers.iter().any(|b| b.base == ptr), "seed {seed}: word 8 points into a buffer");
    }
    let report = diff_modules(&module, &module, &DiffOptions::default());
    assert_eq!(report.kernels[0].verdict, Verdict::Equivalent, "{report}");
}

/// A kernel that reads far past the default buffer size is checked with
/// buffers grown to cover the addresses it touches.
#[test]
fn buffers_grow_to_the_addresses_touched() {
    let text = ".version 7.0\n.target sm_75\n.address_size 64\n\
        .visible .entry k(.param .u64 out, .param .u64 in)\n{\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\
        \tld.param.u64 %rd1, [out];\n\tld.param.u64 %rd2, [in];\n\tmov.u32 %r1, %tid.x;\n\tmul.wide.u32 %rd3, %r1, 4;\n\
        \tadd.u64 %rd4, %rd2, %rd3;\n\tld.global.u32 %r2, [%rd4+300000];\n\tadd.u64 %rd5, %rd1, %rd3;\n\tst.global.u32 [%rd5], %r2;\n\tret;\n}\n";
    let module = ptx_parse::parse(text).expect("parses");
    let report = diff_modules(&module, &module, &DiffOptions::default());
    let k = &report.kernels[0];
    assert_eq!(k.verdict, Verdict::Equivalent, "{report}");
    assert!(k.buffer_size >= 300_128 && k.buffer_size <= 4 << 20, "buffer size {}", k.buffer_size);
}

/// An inconclusive kernel says why, trial by trial, in its report.
#[test]
fn an_inconclusive_report_counts_its_failures() {
    let body = "$spin:\n\tld.volatile.shared.u32 %r2, [flag];\n\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 bra $spin;\n";
    let text = module_text(body, "\t.shared .align 4 .u32 flag;\n", "");
    let module = ptx_parse::parse(&text).expect("parses");
    let opts = DiffOptions {
        launch: ptx_interp::LaunchConfig { step_limit: 20_000, ..Default::default() },
        ..Default::default()
    };
    let report = diff_modules(&module, &module, &opts);
    let k = &report.kernels[0];
    assert!(matches!(k.verdict, Verdict::Inconclusive { .. }), "{report}");
    assert_eq!(k.failures, vec![("step limit".to_string(), k.trials)]);
    assert_eq!(k.cause().as_deref(), Some("inconclusive: step limit"));
    assert!(report.to_string().contains(&format!("failures: {}x step limit", k.trials)), "{report}");
}
