//! Integration tests of the IR crate.

#[test]
fn vocabulary_is_sorted_for_binary_search() {
    let words = ptx_ir::words::WORDS;
    assert!(words.windows(2).all(|w| w[0] < w[1]), "WORDS must be sorted byte-wise without duplicates");
    for w in words {
        assert_eq!(ptx_ir::Word::lookup(w).map(|x| x.as_str()), Some(*w));
    }
}

/// The opcode table agrees with itself: names and variants map both ways,
/// and the columns do not contradict each other.
#[test]
fn opcode_table_is_consistent() {
    use ptx_ir::{Control, Effects, Inst, Opcode, Shape};
    let table = ptx_ir::opcodes::OPCODES;
    assert!(table.windows(2).all(|w| w[0].name < w[1].name), "OPCODES must be sorted by name without duplicates");
    for entry in table {
        let op = entry.opcode;
        assert_eq!(Opcode::from_name(entry.name), Some(op), "{}", entry.name);
        assert_eq!(op.known_name(), Some(entry.name));
        assert_eq!(op.info(), Some(*entry));
        assert_eq!(op.control(), entry.control);
        assert_eq!(Inst::new(op, Vec::new(), Vec::new()).is_terminator(), entry.control.ends_block(), "{op}");
        // What transfers control must never be deleted as dead.
        if entry.control != Control::Falls {
            assert_eq!(entry.effects, Effects::Effectful, "{op} transfers control");
        }
        // An instruction that writes no register is dead by construction
        // unless it has effects; one whose writes are not fully known must
        // be kept as well.
        if matches!(entry.shape, Shape::NoDst | Shape::Unknown | Shape::ByModifier) {
            assert_eq!(entry.effects, Effects::Effectful, "{op} ({:?})", entry.shape);
        }
        // `call` is the one instruction whose result list is optional.
        assert_eq!(entry.shape == Shape::Call, entry.control == Control::Call, "{op}");
    }
    let terminators: Vec<&str> = table.iter().filter(|e| e.control.ends_block()).map(|e| e.name).collect();
    assert_eq!(terminators, ["bra", "brx", "exit", "ret", "trap"]);

    // An opcode the table does not know falls through.
    let other = Opcode::Other(ptx_ir::Names::default().intern("frobnicate"));
    assert_eq!(other.info(), None);
    assert_eq!(other.control(), Control::Falls);
    assert!(!Inst::new(other, Vec::new(), Vec::new()).is_terminator());
}
