//! Integration tests of the IR crate.

#[test]
fn vocabulary_is_sorted_for_binary_search() {
    let words = ptx_ir::words::WORDS;
    assert!(words.windows(2).all(|w| w[0] < w[1]), "WORDS must be sorted byte-wise without duplicates");
    for w in words {
        assert_eq!(ptx_ir::Word::lookup(w).map(|x| x.as_str()), Some(*w));
    }
}
