//! Prints the forms of the description, as the tables see them:
//! `cargo run -p ptx-isa --example isa_forms [OPCODE...]` (all without one).

use ptx_isa::model::{Isa, OperandKind, Presence};

fn main() {
    let isa = match ptx_isa::description::parse_dir(&ptx_isa::description::shipped_dir()) {
        Ok(isa) => isa,
        Err(errors) => {
            for e in errors {
                eprintln!("{e}");
            }
            std::process::exit(1);
        }
    };
    let wanted: Vec<String> = std::env::args().skip(1).collect();
    for (i, op) in isa.opcodes.iter().enumerate() {
        if !wanted.is_empty() && !wanted.iter().any(|w| op.name == w.as_str()) {
            continue;
        }
        println!("opcode {} ({:?}, {:?}, {:?})", op.name, op.effects, op.control, op.shape);
        if op.forms.0 == op.forms.1 {
            println!("  (no forms)");
        }
        for f in isa.forms_of(i as u16) {
            println!("  {}  [{}:{}]", form_text(isa, f), isa.blocks[f.block as usize].file, f.line);
        }
    }
}

fn form_text(isa: &Isa, f: &ptx_isa::model::Form) -> String {
    let mut s = String::new();
    for slot in f.slots {
        let words: Vec<&str> = slot.words.iter().map(|&w| isa.words[w as usize]).collect();
        let body =
            if words.len() == 1 { words[0].to_string() } else { format!("{}={{{}}}", slot.name, words.join("|")) };
        match slot.presence {
            Presence::Required => s += &format!(".{body}"),
            Presence::Optional => s += &format!("{{.{body}}}"),
            Presence::Group(g) => s += &format!("{{{g}:.{body}}}"),
        }
    }
    let ops: Vec<String> = f
        .operands
        .iter()
        .map(|o| {
            let k = match o.kind {
                OperandKind::Value => String::new(),
                OperandKind::Address(a, b, u) => format!("[{a}..{b}]{}", if u { "{.unified}" } else { "" }),
                OperandKind::Pair { second_optional } => {
                    if second_optional {
                        "|?".into()
                    } else {
                        "|".into()
                    }
                }
                OperandKind::Vector(n) => format!("{{{}}}", n.map_or("?".to_string(), |n| n.to_string())),
                OperandKind::Parens => "()".into(),
                OperandKind::Sink => "_".into(),
                OperandKind::Target => "@".into(),
            };
            let mut t = format!("{}{k}", o.name);
            if o.immediate {
                t += "#";
            }
            if let Some(w) = o.with_word {
                t += &format!("(with .{})", isa.words[w as usize]);
            }
            if o.optional {
                t = format!("?{t}");
            }
            t
        })
        .collect();
    format!("{s} {} ;{:?}", ops.join(", "), f.shape)
}
