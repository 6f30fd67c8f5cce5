//! The memory model: one segment of byte regions per state space, checked
//! accesses, and the generic address space.
//!
//! Each state space has its own addresses. Global addresses are also the
//! generic ones (as in CUDA); the other spaces appear in the generic space
//! through fixed windows, so `cvta` is an addition and `cvta.to` a
//! subtraction that checks the window. Regions are separated by gaps and
//! nothing lives at address 0, so stray and null accesses fault instead of
//! landing in a neighbour. Every access is bounds- and alignment-checked:
//! a fault is an error value, never undefined behaviour of the interpreter.

use ptx_ir::StateSpace;

/// Where global buffers (kernel pointer arguments) start; each one is
/// [`GLOBAL_STRIDE`] apart. Above 4 GiB so that a pointer truncated to 32
/// bits faults.
pub const GLOBAL_BUFFER_BASE: u64 = 0x10_0000_0000;
/// Distance between global buffers.
pub const GLOBAL_STRIDE: u64 = 0x100_0000;
/// Where module-level `.global` variables start.
pub const GLOBAL_VAR_BASE: u64 = 0x0f_0000_0000;
/// Start of the non-generic addresses of const, shared, local and param.
pub const SPACE_BASE: u64 = 0x1000;
/// Start of the per-thread param stack (device-function arguments), above the
/// kernel parameters.
pub const PARAM_STACK_BASE: u64 = 0x10_0000;
/// Size of each generic window.
pub const WINDOW_SIZE: u64 = 1 << 40;
/// Generic window of the const space.
pub const CONST_WINDOW: u64 = 0x7100_0000_0000;
/// Generic window of the shared space.
pub const SHARED_WINDOW: u64 = 0x7200_0000_0000;
/// Generic window of the local space.
pub const LOCAL_WINDOW: u64 = 0x7300_0000_0000;
/// Generic window of the param space.
pub const PARAM_WINDOW: u64 = 0x7400_0000_0000;
/// Addresses handed out for functions (`mov.u64 %rd, func`), 16 apart.
pub const FUNCTION_BASE: u64 = 0x7f00_0000_0000;
/// The largest variable the interpreter allocates (a declaration beyond it
/// is reported as unsupported instead of exhausting memory).
pub const MAX_VARIABLE_BYTES: u64 = 64 << 20;

/// The generic address of an address in `space`.
pub fn to_generic(space: StateSpace, addr: u64) -> Option<u64> {
    let window = match space {
        StateSpace::Global => return Some(addr),
        StateSpace::Const => CONST_WINDOW,
        StateSpace::Shared => SHARED_WINDOW,
        StateSpace::Local => LOCAL_WINDOW,
        StateSpace::Param => PARAM_WINDOW,
        _ => return None,
    };
    if addr >= WINDOW_SIZE {
        return None;
    }
    Some(window + addr)
}

/// The state space and in-space address of a generic address.
pub fn from_generic(addr: u64) -> (StateSpace, u64) {
    for (window, space) in [
        (CONST_WINDOW, StateSpace::Const),
        (SHARED_WINDOW, StateSpace::Shared),
        (LOCAL_WINDOW, StateSpace::Local),
        (PARAM_WINDOW, StateSpace::Param),
    ] {
        if (window..window + WINDOW_SIZE).contains(&addr) {
            return (space, addr - window);
        }
    }
    (StateSpace::Global, addr)
}

/// One allocation: a named byte array at a base address.
#[derive(Clone, Debug)]
pub struct Region {
    /// First address.
    pub base: u64,
    /// Contents.
    pub data: Vec<u8>,
    /// What it is (variable or parameter name), for messages.
    pub name: String,
    /// Stores fault.
    pub read_only: bool,
}

/// The regions of one state space (or of one thread's part of it).
#[derive(Clone, Debug, Default)]
pub struct Segment {
    regions: Vec<Region>,
}

/// Alignment of new regions and the gap left between them.
const REGION_GAP: u64 = 256;

impl Segment {
    /// An empty segment.
    pub fn new() -> Segment {
        Segment::default()
    }

    /// The regions, in address order.
    pub fn regions(&self) -> &[Region] {
        &self.regions
    }

    /// Adds a region at `base` (callers keep regions disjoint).
    pub fn add_at(&mut self, base: u64, data: Vec<u8>, name: &str, read_only: bool) -> usize {
        let region = Region { base, data, name: name.to_string(), read_only };
        let at = self.regions.partition_point(|r| r.base < base);
        self.regions.insert(at, region);
        at
    }

    /// The first free address at or above `floor`, after every region,
    /// aligned to `align` and leaving a gap.
    pub fn next_base(&self, floor: u64, align: u64) -> u64 {
        let end = self.regions.last().map(|r| r.base + r.data.len() as u64 + REGION_GAP).unwrap_or(floor).max(floor);
        let align = align.clamp(1, 1 << 20);
        end.div_ceil(align) * align
    }

    /// Appends a zero-filled region after all others; returns its base.
    pub fn push(&mut self, floor: u64, size: u64, align: u64, name: &str) -> u64 {
        let base = self.next_base(floor, align.max(16));
        self.regions.push(Region { base, data: vec![0; size as usize], name: name.to_string(), read_only: false });
        base
    }

    /// Number of regions (to pop back to after a call returns).
    pub fn len(&self) -> usize {
        self.regions.len()
    }

    /// True if there are no regions.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// Drops the regions added after the first `n`.
    pub fn truncate(&mut self, n: usize) {
        self.regions.truncate(n);
    }

    fn find(&self, addr: u64, len: u64) -> Option<(usize, usize)> {
        let i = self.regions.partition_point(|r| r.base <= addr).checked_sub(1)?;
        let r = &self.regions[i];
        let off = addr - r.base;
        if off.checked_add(len)? <= r.data.len() as u64 {
            Some((i, off as usize))
        } else {
            None
        }
    }

    /// True if `[addr, addr+len)` lies inside one region.
    pub fn contains(&self, addr: u64, len: u64) -> bool {
        self.find(addr, len).is_some()
    }

    /// Reads `len` bytes.
    pub fn read(&self, addr: u64, len: u64) -> Option<&[u8]> {
        let (i, off) = self.find(addr, len)?;
        Some(&self.regions[i].data[off..off + len as usize])
    }

    /// Writes bytes; Err(true) if the region is read-only, Err(false) if out of bounds.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), bool> {
        let (i, off) = self.find(addr, bytes.len() as u64).ok_or(false)?;
        let r = &mut self.regions[i];
        if r.read_only {
            return Err(true);
        }
        r.data[off..off + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// The region containing `addr`, if any.
    pub fn region_at(&self, addr: u64) -> Option<&Region> {
        self.find(addr, 0).map(|(i, _)| &self.regions[i])
    }
}

/// Little-endian bytes of the low `len` bytes of `v`.
pub fn to_bytes(v: u128, len: usize) -> Vec<u8> {
    v.to_le_bytes()[..len.min(16)].to_vec()
}

/// The little-endian value of up to 16 bytes.
pub fn from_bytes(bytes: &[u8]) -> u128 {
    let mut buf = [0u8; 16];
    let n = bytes.len().min(16);
    buf[..n].copy_from_slice(&bytes[..n]);
    u128::from_le_bytes(buf)
}
