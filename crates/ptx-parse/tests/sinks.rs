//! The sink `_` in a pair: either half alone (`_|p`, `d|_`) parses, the
//! same through the body scanner and the grammar; both at once (`_|_`) is
//! a syntax error, as ptxas 13.5 has it ("Parsing error near '_'").

use ptx_ir::Operand;

fn kernel(inst: &str) -> String {
    format!(
        ".version 8.2\n.target sm_90\n.address_size 64\n.visible .entry k()\n{{\n\t.reg .pred %p<2>;\n\
         \t.reg .b32 %r<2>;\n\t{inst}\n\tret;\n}}\n"
    )
}

/// The first operand of the one instruction before `ret`, through both paths.
fn first_operand(inst: &str) -> Result<Operand, String> {
    let source = kernel(inst);
    let scanned = ptx_parse::parse(&source);
    let reference = ptx_parse::parse_reference(&source);
    assert_eq!(format!("{scanned:?}"), format!("{reference:?}"), "scanner and grammar differ on {inst}");
    let module = scanned.map_err(|e| e[0].message.clone())?;
    let func = module.functions.values().next().unwrap();
    let id = func.inst_ids().next().unwrap();
    Ok(func.insts[id].operands[0].clone())
}

#[test]
fn a_sink_may_be_either_half_of_a_pair_but_not_both() {
    for inst in ["elect.sync _|%p1, -1;", "setp.eq.u32 %p1|_, %r1, 0;", "setp.eq.u32 _ | %p1, %r1, 0;"] {
        match first_operand(inst) {
            Ok(Operand::Pair(pair)) => assert!(matches!(*pair, (Operand::Sink, _) | (_, Operand::Sink)), "{inst}"),
            other => panic!("{inst}: {other:?}"),
        }
    }
    for inst in ["elect.sync _|_, -1;", "setp.eq.u32 _|_, %r1, 0;"] {
        assert!(first_operand(inst).is_err(), "{inst} parses");
    }
}
