//! Special registers (PTX ISA 10): the `%` names an instruction may use
//! without a `.reg` declaration (`%tid`, `%clock64`, `%envreg3`, ...).
//!
//! The parser uses this to tell a special register from an undeclared one,
//! and the verifier to report a `%` name that is neither declared nor
//! special. It lives in the IR so passes can ask without depending on the
//! parser.

/// The special registers with fixed names (components such as `.x` are not
/// part of the name).
pub const SPECIAL_REGISTERS: &[&str] = &[
    "%tid",
    "%ntid",
    "%laneid",
    "%warpid",
    "%nwarpid",
    "%ctaid",
    "%nctaid",
    "%smid",
    "%nsmid",
    "%gridid",
    "%is_explicit_cluster",
    "%clusterid",
    "%nclusterid",
    "%cluster_ctaid",
    "%cluster_nctaid",
    "%cluster_ctarank",
    "%cluster_nctarank",
    "%lanemask_eq",
    "%lanemask_le",
    "%lanemask_lt",
    "%lanemask_ge",
    "%lanemask_gt",
    "%clock",
    "%clock_hi",
    "%clock64",
    "%globaltimer",
    "%globaltimer_lo",
    "%globaltimer_hi",
    "%total_smem_size",
    "%aggr_smem_size",
    "%dynamic_smem_size",
    "%current_graph_exec",
    "%reserved_smem_offset_begin",
    "%reserved_smem_offset_end",
    "%reserved_smem_offset_cap",
    "%reserved_smem_offset_0",
    "%reserved_smem_offset_1",
];

/// True if `name` (without a `.x`-style component) is a special register:
/// one of [`SPECIAL_REGISTERS`], or a numbered family `%envregN`, `%pmN`,
/// `%pmN_64`.
pub fn is_special_register(name: &str) -> bool {
    // Every special register starts with `%`; the parser asks of every
    // symbol and label it meets, which do not.
    if !name.starts_with('%') {
        return false;
    }
    if SPECIAL_REGISTERS.contains(&name) {
        return true;
    }
    ["%envreg", "%pm"].iter().any(|p| {
        name.strip_prefix(p).is_some_and(|rest| {
            let rest = rest.strip_suffix("_64").unwrap_or(rest);
            !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit())
        })
    })
}

#[cfg(test)]
mod tests {
    use super::is_special_register;

    #[test]
    fn every_listed_special_register_starts_with_a_percent_sign() {
        assert!(super::SPECIAL_REGISTERS.iter().all(|n| n.starts_with('%')));
    }

    #[test]
    fn special_names() {
        for n in ["%tid", "%clock64", "%envreg3", "%pm0", "%pm7_64", "%lanemask_lt"] {
            assert!(is_special_register(n), "{n}");
        }
        for n in ["%r1", "%tid.x", "%envreg", "%pm_64", "%pmx", "tid", "", "$L__BB0_1", "pm0"] {
            assert!(!is_special_register(n), "{n}");
        }
    }
}
