//! The shipped description parses.

#[test]
fn the_description_parses() {
    match ptx_isa::description::parse_dir(&ptx_isa::description::shipped_dir()) {
        Ok(isa) => {
            println!("{} opcodes, {} forms, {} words", isa.opcodes.len(), isa.forms.len(), isa.words.len());
        }
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
            panic!("{} errors:\n{}", errors.len(), text.join("\n"));
        }
    }
}
