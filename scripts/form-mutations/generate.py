#!/usr/bin/env python3
"""Form mutations: instruction forms one edit away from a valid one, made from
the PTX ISA 9.1 syntax text, with ptxas 13.5's verdict on each. A test set for
the verifier's instruction-form checks that is independent of the corpus and
of the ISA sweep it was tuned on: nothing ptxas accepts may be rejected, and
what ptxas rejects should be caught.

    python3 scripts/form-mutations/generate.py [--spec DIR] [--ptxas PATH] [--only FAMILY,...] [--dry]

DIR defaults to ../shared/spec/ptx-isa-9.1/9_instruction_set/97_instructions
beside the repository; --only limits it to some families (and writes only
their rows); --dry prints the mutants (of the sweep's instances
only) and runs no ptxas. It takes about 2 minutes (4 on a busy machine;
some 6300 ptxas runs, most of them one mutant alone) and writes
testdata/form-mutations/mutants.tsv: a `#` header line, then one row per
mutant, sorted: family, kind, target, PTX version, verdict (accepted,
rejected or crash), the base instance, the mutant, ptxas's first message
(empty when accepted). A mutant goes alone into
testdata/isa-sweep/template.ptx (at @INSTANCES@, with @VERSION@ and
@TARGET@) exactly as the sweep's instances do: same registers, same
symbols. Rows with verdict `crash` (ptxas died on a signal or timed out)
are not a verdict and are left out of any measurement.

Families. Every `.md` page under DIR with a `Syntax` section is one family,
named by its section number and title (`9.7.13.5-atom`). Its syntax blocks
give templates (`atom{.sem}{.scope}{.space}.op.type d, [a], b;`) and named
sets (`.sem = { .relaxed, .acquire, ... }`); a set written after a group of
templates belongs to that group (`cp.async.bulk`, `mma` write one group per
form), sets written elsewhere in the block or page fill in. Templates
without `;`, `::name` sets (`::op = { ::fill, ... }`) and footnote marks are
read too. The template reading (`split_head`, `head_split`, `split_top`,
`expand_value`) and operand realisation come from the ISA sweep
(scripts/isa-sweep/generate.py, imported as a module under the name
`isa_sweep`).

Bases. The accepted instances of testdata/isa-sweep/instances.tsv, each at
its target and PTX version. A base belongs to the first family (in section
order) one of whose templates it matches: the mnemonic against the
template's head read as a pattern (optional parts, set values, `.{1d,2d}`
alternatives), its operand count against the template's required and
optional operands. The sweep read only the first section of each opcode, so
a family that no sweep instance matches (the floating-point `add`, the
`mbarrier` forms, `cp.async.bulk`, ...) gets bases of its own: instances of
its templates made by the sweep's `instances_of`, the ones ptxas accepts at
the first of the sweep's targets that accepts them (after the sweep's
repairs of vector and argument mismatches), and, for the families whose
operands the sweep cannot realise (tensor memory, descriptors, tensor
coordinates), the instances of HAND_BASES, checked by ptxas. Such bases are
the ones not in instances.tsv.

Mutants (kinds):
  * swap: a modifier that the match puts in a named set replaced by another
    value of that set (`.relaxed` -> `.acquire` from `.sem`; `none` values
    insert or remove); registers of the replaced type are renamed to the new
    type (`%u32_1` -> `%s64_1` when `.u32` becomes `.s64`) and `{...}`
    vectors resized when `.vN`/`.xN` changes, so that the swap tests the form
    rather than the operand types;
  * drop: one modifier word (a dotted word of the mnemonic) removed;
  * add: one modifier word inserted, taken from the syntax blocks of three
    other families (chosen per family) and not a word of any form of the
    base's opcode;
  * drop-operand / add-operand: one optional `{, x}` operand group of the
    matched template removed, or added (realised as the sweep realises
    operands) where the base lacks it.
Per family, candidates are taken round-robin over kinds (swap twice as
often) and over the family's bases, with a random generator seeded by the
family name, up to PER_FAMILY; mutants equal to their base, and repeats,
are skipped. Everything is deterministic.

How verdicts are found. As the sweep does (`sweep_chunk`): the mutants of a
target go CHUNK at a time into one module, a kernel per family, one a line,
given to `ptxas -arch=<target> -o /dev/null`; the lines ptxas names in an
error are rejected (their first message kept) and dropped, the rest tried
again until ptxas accepts the file; a failure naming no mutant line (a
crash) is bisected down to the line. Then every mutant is checked alone in
the template (the way the test reads it), and that verdict is the one
written; the number of disagreements with the batch is printed. At most two
ptxas run at a time.
"""
import argparse
import importlib.util
import itertools
import os
import random
import re
import shutil
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The ISA sweep's generator, as a module (under its own name: this file is
# `generate.py` too).
_spec = importlib.util.spec_from_file_location("isa_sweep", os.path.join(ROOT, "scripts", "isa-sweep", "generate.py"))
sweep = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sweep)

OUT = os.path.join(ROOT, "testdata", "form-mutations")
SWEEP = os.path.join(ROOT, "testdata", "isa-sweep")
DEFAULT_SPEC = os.path.join(os.path.dirname(ROOT), "shared", "spec", "ptx-isa-9.1", "9_instruction_set",
                            "97_instructions")
PER_FAMILY = 36
ADD_SOURCES = 3  # other families whose words `add` inserts
ADDS_PER_BASE = 3
OWN_BASES = 80  # instances tried per family that no sweep instance matches
CHUNK = 400
KIND_CYCLE = ["swap", "drop", "add", "drop-operand", "swap", "add-operand"]
KINDS = ["swap", "drop", "add", "drop-operand", "add-operand"]
SECTION_END = {"Description", "Semantics", "Examples", "PTX ISA Notes", "Target ISA Notes", "Notes"}


# Bases written by hand (and checked by ptxas at the given target) for the
# families whose operands the sweep's realisation does not get right: tensor
# memory addresses (32-bit registers), descriptors and instruction
# descriptors, tensor coordinates as vectors, predicates named otherwise
# (`waitComplete`, `enable-input-d`), mixed-precision sources, sparse
# metadata. The deprecated `vote` and `shfl` without `.sync` have no valid
# form at the sweep's targets.
HAND_BASES = {
    "9.7.5.1-add": [
        ("sm_100a", "add.f32.f16 %f32_0, %f16_0, %f32_1;"),
        ("sm_100a", "add.rn.sat.f32.bf16 %f32_0, %b16_0, %f32_1;"),
        ("sm_100a", "add.rz.f32.bf16 %f32_0, %b16_0, %f32_1;"),
    ],
    "9.7.5.2-sub": [
        ("sm_100a", "sub.f32.f16 %f32_0, %f16_0, %f32_1;"),
        ("sm_100a", "sub.rm.sat.f32.bf16 %f32_0, %b16_0, %f32_1;"),
        ("sm_100a", "sub.rp.f32.f16 %f32_0, %f16_0, %f32_1;"),
    ],
    "9.7.5.3-fma": [
        ("sm_100a", "fma.rn.f32.f16 %f32_0, %f16_0, %f16_1, %f32_1;"),
        ("sm_100a", "fma.rz.sat.f32.bf16 %f32_0, %b16_0, %b16_1, %f32_1;"),
        ("sm_100a", "fma.rp.f32.bf16 %f32_0, %b16_0, %b16_1, %f32_1;"),
    ],
    "9.7.9.13-st.bulk": [
        ("sm_100a", "st.bulk [%ad_0], %b64_0, 0;"),
        ("sm_100a", "st.bulk.weak [%ad_0+8], %b64_0, 0;"),
        ("sm_100a", "st.bulk.shared::cta [%ad_1], %b64_0, 0;"),
        ("sm_100a", "st.bulk.weak.shared::cta [%ad_0], 128, 0;"),
    ],
    "9.7.9.27.1.2-cp.async.bulk.tensor": [
        ("sm_100a", "cp.async.bulk.tensor.1d.shared::cta.global.mbarrier::complete_tx::bytes [smem], [%ad_0, {%b32_0}], [smem];"),
        ("sm_100a", "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%ad_0], [%ad_1, {%b32_0, %b32_1}], [%ad_2], %b64_0;"),
        ("sm_100a", "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%ad_0], [%ad_1, {%b32_0, %b32_1, %b32_2}], [%ad_2], %b16_0;"),
        ("sm_100a", "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%ad_0, {%b32_0}], [smem];"),
        ("sm_100a", "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group.L2::cache_hint [%ad_0, {%b32_0, %b32_1}], [%ad_1], %b64_0;"),
    ],
    "9.7.9.27.1.3-cp.reduce.async.bulk.tensor": [
        ("sm_100a", "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group [%ad_0, {%b32_0}], [smem];"),
        ("sm_100a", "cp.reduce.async.bulk.tensor.2d.global.shared::cta.min.tile.bulk_group [%ad_0, {%b32_0, %b32_1}], [%ad_1];"),
        ("sm_100a", "cp.reduce.async.bulk.tensor.3d.global.shared::cta.and.bulk_group.L2::cache_hint [%ad_0, {%b32_0, %b32_1, %b32_2}], [%ad_1], %b64_0;"),
    ],
    "9.7.9.27.1.4-cp.async.bulk.prefetch.tensor": [
        ("sm_100a", "cp.async.bulk.prefetch.tensor.1d.L2.global [%ad_0, {%b32_0}];"),
        ("sm_100a", "cp.async.bulk.prefetch.tensor.2d.L2.global.L2::cache_hint [%ad_0, {%b32_0, %b32_1}], %b64_0;"),
        ("sm_100a", "cp.async.bulk.prefetch.tensor.3d.L2.global.tile [%ad_0, {%b32_0, %b32_1, %b32_2}];"),
    ],
    "9.7.13.15.16-mbarrier.test_wait-mbarrier.try_wait": [
        ("sm_100a", "mbarrier.test_wait.b64 %pred_0, [%ad_0], %b64_1;"),
        ("sm_100a", "mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 %pred_0, [smem], %b32_0;"),
        ("sm_100a", "mbarrier.try_wait.shared::cta.b64 %pred_0, [smem], %b64_1, %b32_0;"),
        ("sm_100a", "mbarrier.try_wait.parity.relaxed.cluster.b64 %pred_0, [%ad_0], %b32_0;"),
        ("sm_100a", "mbarrier.try_wait.acquire.cluster.shared.b64 %pred_0, [%ad_0+8], %b64_1;"),
    ],
    "9.7.13.16-tensormap.cp_fenceproxy": [
        ("sm_100a", "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%ad_0], [smem], 128;"),
        ("sm_100a", "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned [%ad_0], [%ad_1], 128;"),
        ("sm_100a", "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.sys.sync.aligned [gmem], [smem+16], 128;"),
    ],
    "9.7.14.6.3-mma.sp-mma.sp::ordered_metadata": [
        ("sm_100a", "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f32_0, %f32_1, %f32_2, %f32_3}, {%b32_0, %b32_1}, {%b32_2, %b32_3}, {%f32_4, %f32_5, %f32_6, %f32_7}, %b32_4, 0;"),
        ("sm_100a", "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16 {%b32_0, %b32_1}, {%b32_2, %b32_3, %b32_4, %b32_5}, {%b32_6, %b32_7, %b32_8, %b32_9}, {%b32_10, %b32_11}, %b32_12, 0;"),
        ("sm_100a", "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%s32_0, %s32_1, %s32_2, %s32_3}, {%b32_0, %b32_1}, {%b32_2, %b32_3}, {%s32_4, %s32_5, %s32_6, %s32_7}, %b32_4, 1;"),
        ("sm_100a", "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f32_0, %f32_1, %f32_2, %f32_3}, {%b32_0, %b32_1}, {%b32_2, %b32_3}, {%f32_4, %f32_5, %f32_6, %f32_7}, %b32_4, 0;"),
    ],
    "9.7.15.6.3-wgmma.mma_async.sp": [
        ("sm_90a", "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f32_0, %f32_1, %f32_2, %f32_3}, %b64_0, %b64_1, %b32_0, 0, %pred_0, 1, 1, 0, 0;"),
        ("sm_90a", "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16 {%f32_0, %f32_1, %f32_2, %f32_3}, %b64_0, %b64_1, %b32_0, 1, %pred_0, -1, 1, 1, 0;"),
        ("sm_90a", "wgmma.mma_async.sp.sync.aligned.m64n16k64.f32.e4m3.e5m2 {%f32_0, %f32_1, %f32_2, %f32_3, %f32_4, %f32_5, %f32_6, %f32_7}, %b64_0, %b64_1, %b32_0, 0, %pred_0, 1, 1;"),
        ("sm_90a", "wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.u8 {%s32_0, %s32_1, %s32_2, %s32_3}, %b64_0, %b64_1, %b32_0, 0, %pred_0;"),
    ],
    "9.7.16.8.3-tcgen05.ld": [
        ("sm_100a", "tcgen05.ld.sync.aligned.16x64b.x1.b32 {%b32_0}, [%b32_1];"),
        ("sm_100a", "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%b32_0, %b32_1}, [%b32_2];"),
        ("sm_100a", "tcgen05.ld.sync.aligned.16x32bx2.x1.b32 {%b32_0}, [%b32_1], 1;"),
        ("sm_100a", "tcgen05.ld.sync.aligned.16x128b.x1.pack::16b.b32 {%b32_0, %b32_1}, [%b32_2];"),
    ],
    "9.7.16.8.4-tcgen05.st": [
        ("sm_100a", "tcgen05.st.sync.aligned.32x32b.x2.b32 [%b32_2], {%b32_0, %b32_1};"),
        ("sm_100a", "tcgen05.st.sync.aligned.16x32bx2.x1.unpack::16b.b32 [%b32_1], 1, {%b32_0};"),
        ("sm_100a", "tcgen05.st.sync.aligned.16x64b.x1.b32 [%b32_1], {%b32_0};"),
        ("sm_100a", "tcgen05.st.sync.aligned.16x128b.x1.b32 [%b32_2], {%b32_0, %b32_1};"),
    ],
    "9.7.16.9.2-tcgen05.cp": [
        ("sm_100a", "tcgen05.cp.cta_group::1.128x256b [%b32_0], %b64_0;"),
        ("sm_100a", "tcgen05.cp.cta_group::2.32x128b.warpx4 [%b32_0], %b64_0;"),
        ("sm_100a", "tcgen05.cp.cta_group::1.64x128b.warpx2::02_13 [%b32_0], %b64_0;"),
        ("sm_100a", "tcgen05.cp.cta_group::1.128x128b.b8x16.b6x16_p32 [%b32_0], %b64_0;"),
    ],
    "9.7.16.9.3-tcgen05.shift": [
        ("sm_100a", "tcgen05.shift.cta_group::1.down [%b32_0];"),
        ("sm_100a", "tcgen05.shift.cta_group::2.down [%b32_1];"),
    ],
    "9.7.16.10.9.1-tcgen05.mma": [
        ("sm_100a", "tcgen05.mma.cta_group::1.kind::f16 [%b32_0], %b64_0, %b64_1, %b32_1, {%b32_2, %b32_3, %b32_4, %b32_5}, %pred_0;"),
        ("sm_100a", "tcgen05.mma.cta_group::1.kind::tf32 [%b32_0], [%b32_6], %b64_1, %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.cta_group::2.kind::f8f6f4 [%b32_0], %b64_0, %b64_1, %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.cta_group::1.kind::f16 [%b32_0], %b64_0, %b64_1, %b32_1, %pred_0, 1;"),
        ("sm_100a", "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale [%b32_0], %b64_0, %b64_1, %b32_1, [%b32_2], [%b32_3], %pred_0;"),
        ("sm_100a", "tcgen05.mma.cta_group::1.kind::i8 [%b32_0], %b64_0, %b64_1, %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill [%b32_0], %b64_0, %b64_1, %b32_1, %pred_0;"),
    ],
    "9.7.16.10.9.2-tcgen05.mma.sp": [
        ("sm_100a", "tcgen05.mma.sp.cta_group::1.kind::f16 [%b32_0], %b64_0, %b64_1, [%b32_7], %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.sp.cta_group::2.kind::tf32 [%b32_0], [%b32_6], %b64_1, [%b32_7], %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.sp.cta_group::1.kind::i8 [%b32_0], %b64_0, %b64_1, [%b32_7], %b32_1, {%b32_2, %b32_3, %b32_4, %b32_5}, %pred_0;"),
    ],
    "9.7.16.10.9.3-tcgen05.mma.ws": [
        ("sm_100a", "tcgen05.mma.ws.cta_group::1.kind::f16 [%b32_0], %b64_0, %b64_1, %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b0::fill [%b32_0], [%b32_6], %b64_1, %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.ws.cta_group::1.kind::i8 [%b32_0], %b64_0, %b64_1, %b32_1, %pred_0, %b64_2;"),
    ],
    "9.7.16.10.9.4-tcgen05.mma.ws.sp": [
        ("sm_100a", "tcgen05.mma.ws.sp.cta_group::1.kind::f16 [%b32_0], %b64_0, %b64_1, [%b32_7], %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.ws.sp.cta_group::1.kind::f8f6f4 [%b32_0], [%b32_6], %b64_1, [%b32_7], %b32_1, %pred_0;"),
        ("sm_100a", "tcgen05.mma.ws.sp.cta_group::1.kind::i8.collector::b1::use [%b32_0], %b64_0, %b64_1, [%b32_7], %b32_1, %pred_0;"),
    ],
}


# ---------------------------------------------------------------- spec text

DEF_START = re.compile(r"^((?:(?:\.|::)?[A-Za-z_][\w:.-]*\s*=\s*)+)(.*)$")
TEMPLATE_START = re.compile(r"^(?:@!?\w+\s+)?[a-z][a-z0-9_]*(?:[.{]|\s*;|\s*$)")


def syntax_code(text):
    """The code blocks between a `Syntax` line and the next section."""
    out, on = [], False
    for block in re.split(r"(```[^\n]*\n.*?```)", text, flags=re.S):
        if block.startswith("```"):
            if on:
                out.append(re.sub(r"^```[^\n]*\n|```$", "", block))
            continue
        for line in block.splitlines():
            s = line.strip()
            if s == "Syntax":
                on = True
            elif s in SECTION_END:
                on = False
    return out


def chunks_of(block):
    """The statements of a code block: definitions and templates, with or
    without `;`, over several lines."""
    out, cur = [], ""

    def flush():
        nonlocal cur
        if cur.strip():
            out.append(re.sub(r"\s+", " ", cur).strip())
        cur = ""

    for raw in block.splitlines():
        line = re.sub(r"//.*", "", raw).rstrip()
        s = line.strip()
        depth = cur.count("{") - cur.count("}")
        if not s or re.fullmatch(r"-{3,}", s):
            if depth <= 0:
                flush()
            continue
        if re.match(r"^(\.\w+\s+)?defaults to\b", s):
            continue
        if cur and depth <= 0 and (DEF_START.match(s) or TEMPLATE_START.match(s)) and not cur.rstrip().endswith(","):
            flush()
        cur += " " + s
        if cur.count("{") - cur.count("}") <= 0 and s.endswith(";"):
            flush()
    flush()
    return out


def parse_definition(stmt):
    """`.a = .b = { .x, .y{::p, ::q} }` -> ([names], [values]); None if not one."""
    m = DEF_START.match(stmt)
    if not m or "," in m.group(1):
        return None
    names = [n.lstrip(".") for n in re.findall(r"((?:\.|::)?[A-Za-z_][\w:.-]*)\s*=", m.group(1))]
    body = m.group(2).strip().rstrip(";").strip()
    if ".hxy" in body or ".bxyzw" in body:
        # The sweep reads these (`.hxy, where x,y are from {...}`).
        defs, _ = sweep.statements(".x = " + body + ";\n")
        return names, defs.get("x", [])
    if body.startswith("{") and body.endswith("}"):
        vals = []
        for part in sweep.split_top(body[1:-1]):
            # A missing comma (`.b1, .b10 .b2`) still separates values;
            # blanks inside `{...}` do not.
            for word in re.findall(r"(?:[^\s{}]|\{[^}]*\})+", part):
                vals += sweep.expand_value(re.sub(r"\s+", "", word))
    else:
        vals = sweep.expand_value(body)
    vals = [v.rstrip("*") for v in vals if v.rstrip("*")]
    return names, vals


def read_block(block):
    """[(template, group definitions)] and the block's definitions."""
    groups, cur_t, cur_d = [], [], {}
    block_defs = {}
    for stmt in chunks_of(block):
        d = parse_definition(stmt)
        if d:
            names, vals = d
            for n in names:
                cur_d[n] = vals
                block_defs.setdefault(n, vals)
            continue
        stmt = re.sub(r"^@!?\w+\s+", "", stmt.rstrip(";").strip())
        if not re.match(r"^[a-z][a-z0-9_]*(?:[.{ ]|$)", stmt) or "=" in stmt.split()[0]:
            continue  # prose
        if cur_d:
            groups.append((cur_t, cur_d))
            cur_t, cur_d = [], {}
        cur_t.append(stmt)
    groups.append((cur_t, cur_d))
    return [(t, d) for ts, d in groups for t in ts], block_defs


def expand_refs(own, vals, defs):
    """Values naming other sets (`.collector::buffer::op` with `::op = {
    ::fill, ... }`, `.to_proxy::from_proxy.release.scope`) expanded."""
    out = []
    for v in vals:
        options = []
        for comp in re.split(r"(?=\.)", v):
            name = comp.lstrip(".")
            if comp.startswith(".") and name != own and defs.get(name):
                options.append([word_text(x) or "" for x in defs[name]])
                continue
            parts = re.split(r"(::[A-Za-z_]\w*)", comp)
            opts = [defs[p] if p.startswith("::") and p != own and p in defs else [p] for p in parts]
            options.append(["".join(c) for c in itertools.product(*opts)])
        out += ["".join(c) for c in itertools.product(*options)]
    return out


class Family:
    def __init__(self, name, section, templates):
        self.name = name
        self.section = section
        self.templates = templates  # [Template]
        self.opcodes = set()
        for t in templates:
            self.opcodes |= t.opcodes
        self.words = set()
        for t in templates:
            self.words |= t.words


def read_families(spec_dir, only):
    pages = []
    shared = {}  # `::` sets a page uses without writing them (`.level::cache_hint`)
    for path in sorted(p for p in _walk(spec_dir) if p.endswith(".md")):
        text = open(path).read()
        blocks = syntax_code(text)
        if not blocks:
            continue
        lines = text.splitlines()
        m = re.match(r"#\s*([\d.]+?)\.?\s+(.*)$", lines[0])
        section, title = m.group(1), m.group(2)
        title = title.split(":", 1)[1].strip() if ":" in title else title
        if not title:
            title = next((l.strip() for l in lines[1:] if l.strip()), "")
        title = re.sub(r"\(deprecated\)", "", title)
        name = section + "-" + re.sub(r"[^\w.:]+", "-", title).strip("-")
        parsed = [read_block(b) for b in blocks]
        for _, bd in parsed:
            for k, v in bd.items():
                if "::" in k.strip(":"):
                    shared.setdefault(k, v)
        if not only or name in only:
            pages.append((name, section, parsed))
    families = []
    for name, section, parsed in pages:
        page_defs = {}
        for _, bd in parsed:
            for k, v in bd.items():
                page_defs.setdefault(k, v)
        for k, v in shared.items():
            page_defs.setdefault(k, v)
        templates = []
        for temps, bd in parsed:
            for t, gd in temps:
                defs = dict(page_defs)
                defs.update(bd)
                defs.update(gd)
                for _ in range(2):
                    defs = {k: expand_refs(k, v, defs) for k, v in defs.items()}
                try:
                    templates.append(Template(t, defs))
                except Exception as e:  # a template the reader does not follow
                    print(f"{name}: cannot read `{t}`: {e}", file=sys.stderr)
        if templates:
            families.append(Family(name, section, templates))
    key = lambda f: [int(x) for x in f.section.split(".")]
    return sorted(families, key=key)


def _walk(d):
    for root, _, files in os.walk(d):
        for f in files:
            yield os.path.join(root, f)


# ---------------------------------------------------------------- templates

def word_text(v):
    """A set value as it follows the opcode: `.x` (`::x` as is); None for none."""
    v = v.strip()
    if v.strip(".") == "none":
        return None
    if v.startswith("::"):
        return v
    return "." + v.lstrip(".")


def split_alts(inner):
    out = []
    for part in sweep.split_top(inner, ","):
        out += sweep.split_top(part, "|")
    return [a.strip() for a in out if a.strip()]


class Template:
    """A template of a syntax block: its head as a pattern over mnemonics
    (named groups for set values), its operands as required and optional."""

    def __init__(self, text, defs):
        self.text = text
        self.defs = defs
        head, rest = sweep.head_split(text)
        self.head, self.rest = head, rest
        items = sweep.split_head(head)
        self.sets = {}  # group -> (set name, [values as text, None for none])
        self.words = set()
        self.counter = 0
        op = items[0]
        if op in defs and defs[op]:
            self.opcodes = {v.strip(".") for v in defs[op]}
            opre = "(?:" + "|".join(re.escape(o) for o in sorted(self.opcodes, key=len, reverse=True)) + ")"
        else:
            self.opcodes = {op}
            opre = re.escape(op)
        self.pattern = re.compile(opre + self._items(items[1:]))
        self.plan = operand_plan(rest)

    def _group(self, name, values):
        g = f"g{self.counter}"
        self.counter += 1
        self.sets[g] = (name, values)
        for v in values:
            if v:
                self.words |= set(w for w in re.split(r"\.", v) if w)
        alts = sorted((re.escape(v) for v in values if v), key=len, reverse=True)
        if None in values:
            alts.append("")
        return f"(?P<{g}>" + "|".join(alts) + ")"

    def _items(self, items):
        out = ""
        for it in items:
            if it.startswith("="):
                vals = [word_text(a) for a in it[1:].split(",") if a.strip()]
                out += self._group("{" + it[1:] + "}", vals)
            elif it.startswith("{"):
                alts = []
                for alt in split_alts(it[1:-1]):
                    if alt.startswith("::"):
                        alts.append(re.escape(alt))
                        self.words.add(alt)
                    else:
                        alts.append(self._items(sweep.split_head("x" + alt)[1:]))
                out += "(?:" + "|".join(alts) + ")?"
            else:
                name = it[1:]
                if name in self.defs and self.defs[name]:
                    out += self._group(name, [word_text(v) for v in self.defs[name]])
                elif name.startswith("::"):
                    out += re.escape(name)
                    self.words.add(name)
                else:
                    out += re.escape("." + name)
                    self.words.add(name)
        return out

    def fits(self, count):
        """The optional groups present (a tuple of flags) for an instance of
        `count` operands, or None; where the count leaves a choice, the
        earlier groups are taken as the ones present."""
        groups = [e for e in self.plan if e[0] == "opt"]
        required = sum(1 for e in self.plan if e[0] == "req")
        for flags in itertools.product([True, False], repeat=len(groups)):
            if required + sum(len(g[1]) for g, f in zip(groups, flags) if f) == count:
                return flags
        return None


def operand_plan(rest):
    """The operands of a template: [("req", token) | ("opt", [tokens])] in
    order; an optional group is `{, x}` or `{x,}` at the top level."""
    groups, text, i, inside = [], "", 0, 0
    while i < len(rest):
        if rest[i] in "[(":
            inside += 1
        elif rest[i] in "])":
            inside -= 1
        if rest[i] == "{" and inside == 0:
            depth, j = 0, i
            while j < len(rest):
                depth += rest[j] == "{"
                depth -= rest[j] == "}"
                j += 1
                if depth == 0:
                    break
            inner = rest[i + 1 : j - 1].strip()
            if inner.startswith(",") or inner.endswith(","):
                text += f",\x00{len(groups)}\x00,"
                groups.append([t.strip() for t in sweep.split_top(inner) if t.strip()])
            else:
                text += rest[i:j]
            i = j
        else:
            text += rest[i]
            i += 1
    plan = []
    for piece in sweep.split_top(text):
        for part in re.split(r"(\x00\d+\x00)", piece):
            if part.startswith("\x00"):
                plan.append(("opt", groups[int(part.strip("\x00"))]))
            elif part.strip():
                plan.append(("req", part.strip()))
    return plan


# ---------------------------------------------------------------- instances

def split_instance(line):
    """`@p add.s32 d, a, b;` -> ("@p ", "add.s32", "d, a, b" operands list, spacing)."""
    m = re.match(r"^(@!?%?\w+\s+)?(\S+)(\s*)(.*?);\s*$", line)
    guard, mnemonic, space, ops = m.group(1) or "", m.group(2), m.group(3), m.group(4)
    args = [a.strip() for a in sweep.split_top(ops)] if ops.strip() else []
    return guard, mnemonic, space, args


def join_instance(guard, mnemonic, space, args, tight=False):
    if not args:
        return f"{guard}{mnemonic};"
    sep = "," if tight else ", "
    return f"{guard}{mnemonic}{space or ' '}{sep.join(args)};"


def reg_class(ty):
    ty = ty.lstrip(".")
    if ty in sweep.REG_TYPES:
        return ty
    if sweep.TYPE_RE.match(ty):
        return f"b{sweep.TYPE_BITS.get(ty, 32)}"
    return None


def resize_vectors(args, old, new):
    """`{...}` register vectors of `old` elements made `new` long."""
    out = []
    for a in args:
        m = re.fullmatch(r"\{(.*)\}", a)
        elems = [e.strip() for e in m.group(1).split(",")] if m else []
        regs = [re.fullmatch(r"%(\w+?)_(\d+)", e) for e in elems]
        if m and len(elems) == old and all(regs):
            cls = regs[0].group(1)
            start = int(regs[0].group(2))
            out.append("{" + ", ".join(f"%{cls}_{(start + k) % sweep.REGS_PER_TYPE}" for k in range(new)) + "}")
        else:
            out.append(a)
    return out


def retyped(args, old, new):
    """Registers of `old`'s class renamed to `new`'s, vectors resized for
    `.vN`/`.xN`."""
    if old is None or new is None:
        return args
    o, n = old.lstrip("."), new.lstrip(".")
    mo, mn = re.fullmatch(r"[vx](\d+)", o), re.fullmatch(r"[vx](\d+)", n)
    if mo and mn:
        return resize_vectors(args, int(mo.group(1)), int(mn.group(1)))
    co, cn = reg_class(o), reg_class(n)
    if not co or not cn or co == cn:
        return args
    return [re.sub(rf"%{co}_(\d+)\b", rf"%{cn}_\1", a) for a in args]


class Base:
    def __init__(self, line, target, version, own=False):
        self.line, self.target, self.version, self.own = line, target, version, own
        self.guard, self.mnemonic, self.space, self.args = split_instance(line)
        self.tight = bool(self.args) and ", " not in line and "," in line
        self.template = None
        self.match = None
        self.flags = None

    def text(self, mnemonic=None, args=None):
        return join_instance(self.guard, mnemonic or self.mnemonic, self.space,
                             self.args if args is None else args, self.tight)


def assign(families, bases):
    """Each base to the first family with a template it matches."""
    by_opcode = {}
    for f in families:
        for t in f.templates:
            for op in t.opcodes:
                by_opcode.setdefault(op, []).append((f, t))
    owned = {f.name: [] for f in families}
    unmatched = []
    for b in bases:
        op = b.mnemonic.split(".")[0]
        best = None
        for f, t in by_opcode.get(op, []):
            m = t.pattern.fullmatch(b.mnemonic)
            if not m:
                continue
            flags = t.fits(len(b.args))
            if flags is not None:
                best = (f, t, m, flags)
                break
            if best is None:
                best = (f, t, m, None)
        if best is None:
            unmatched.append(b)
            continue
        f, b.template, b.match, b.flags = best
        owned[f.name].append(b)
    return owned, unmatched


# ---------------------------------------------------------------- mutants

def swaps(b):
    t, m = b.template, b.match
    out = []
    for g, (name, values) in t.sets.items():
        start, end = m.span(g)
        if start < 0:
            continue  # in an optional part that is absent
        cur = m.group(g)
        if cur == "" and None not in values:
            continue
        for v in values:
            v = v or ""
            if v == cur:
                continue
            mnem = b.mnemonic[:start] + v + b.mnemonic[end:]
            out.append(b.text(mnem, retyped(b.args, cur or None, v or None)))
    return out


def drops(b):
    words = b.mnemonic.split(".")
    return [b.text(".".join(words[:i] + words[i + 1 :])) for i in range(1, len(words))]


def adds(b, pool, rng, vocab):
    words = b.mnemonic.split(".")
    cands = sorted(w for w in pool if w not in vocab and w.lstrip(":") not in words)
    out = []
    for w in rng.sample(cands, min(ADDS_PER_BASE, len(cands))):
        if w.startswith("::"):
            i = rng.randrange(1, len(words)) if len(words) > 1 else 0
            if i == 0:
                continue
            new = words[:i] + [words[i] + w] + words[i + 1 :]
        else:
            i = rng.randrange(1, len(words) + 1)
            new = words[:i] + [w] + words[i:]
        out.append(b.text(".".join(new)))
    return out


def optional_operands(b):
    """[(group index, position, operand texts)] of the optional groups
    present in base `b`."""
    out, pos, k = [], 0, 0
    for entry in b.template.plan:
        if entry[0] == "req":
            pos += 1
            continue
        if b.flags[k]:
            out.append((k, pos, b.args[pos : pos + len(entry[1])]))
            pos += len(entry[1])
        k += 1
    return out


def operand_edits(b, known):
    """(drops, adds) of optional operand groups. An added group takes the
    operands another base of the family has there (`known`: (template,
    group) -> operand texts), else is realised as the sweep realises
    operands."""
    if b.flags is None:
        return [], []
    t = b.template
    cx = sweep.Context(b.mnemonic.split(".")[0], b.mnemonic.split(".")[1:], 0)
    cx.reg_counter = {ty: 40 for ty in sweep.REG_TYPES}
    drop, add = [], []
    pos, k = 0, 0
    for entry in t.plan:
        if entry[0] == "req":
            pos += 1
            continue
        toks = entry[1]
        present = b.flags[k]
        k += 1
        if present:
            drop.append(b.text(args=b.args[:pos] + b.args[pos + len(toks) :]))
            pos += len(toks)
            continue
        new = known.get((t.text, k - 1))
        if new is None:
            ch = sweep.Choices(lambda i, n: 0)
            try:
                new = [sweep.realise_operand(tok, cx, ch, pos + j, t.defs, {}) for j, tok in enumerate(toks)]
            except Exception:
                continue
            if any(x is None for x in new):
                continue
        add.append(b.text(args=b.args[:pos] + list(new) + b.args[pos:]))
    return drop, add


def mutants_of(family, bases, families, vocab_of):
    """[(kind, base, mutant)] of one family, at most PER_FAMILY."""
    rng = random.Random(family.name)
    others = [f for f in families if f is not family and f.words]
    sources = rng.sample(others, min(ADD_SOURCES, len(others)))
    pool = set()
    for f in sources:
        pool |= f.words
    per_kind = {k: [] for k in KINDS}  # kind -> [(base, [mutants])]
    known = {}
    for b in bases:
        if b.flags is not None:
            for k, _, texts in optional_operands(b):
                known.setdefault((b.template.text, k), texts)
    for b in bases:
        vocab = set()
        for op in b.template.opcodes:
            vocab |= vocab_of.get(op, set())
        od, oa = operand_edits(b, known)
        got = {"swap": swaps(b), "drop": drops(b), "add": adds(b, pool, rng, vocab),
               "drop-operand": od, "add-operand": oa}
        for k in KINDS:
            ms = [m for m in dict.fromkeys(got[k]) if m != b.line]
            if ms:
                per_kind[k].append((b, ms))
    for k in KINDS:
        rng.shuffle(per_kind[k])
        for _, ms in per_kind[k]:
            rng.shuffle(ms)
    out, seen = [], set()
    cursor = {k: 0 for k in KINDS}
    while len(out) < PER_FAMILY:
        progressed = False
        for k in KIND_CYCLE:
            if len(out) >= PER_FAMILY:
                break
            lists = per_kind[k]
            while lists:
                i = cursor[k] % len(lists)
                b, ms = lists[i]
                m = ms.pop()
                if not ms:
                    lists.pop(i)
                else:
                    cursor[k] += 1
                if m not in seen:
                    seen.add(m)
                    out.append((k, b, m))
                    progressed = True
                    break
        if not progressed:
            break
    return out


# ---------------------------------------------------------------- ptxas

def is_crash(msg):
    return msg is not None and ("crashed (signal" in msg or "timed out" in msg)


def sweep_target(ptxas, target, items, tag):
    """{id: None or message} for items (id, family, line) at one target:
    CHUNK lines a module, two ptxas at a time."""
    chunks = [items[i : i + CHUNK] for i in range(0, len(items), CHUNK)]
    verdict = {}

    def work(arg):
        k, chunk = arg
        return sweep.sweep_chunk(ptxas, target, chunk, f"{tag}-{target}-{threading.get_ident()}")

    with ThreadPoolExecutor(max_workers=2) as pool:
        for v in pool.map(work, enumerate(chunks)):
            verdict.update(v)
    return verdict


def judge_batches(ptxas, items):
    """{id: None or message} for items (id, family, line, target)."""
    verdict = {}
    for target in sorted({it[3] for it in items}):
        verdict.update(sweep_target(ptxas, target, [it[:3] for it in items if it[3] == target], "fm"))
    return verdict


def judge_alone(ptxas, items):
    """{id: None or message}: each line alone in the sweep's template."""
    def work(it):
        i, fam, line, target = it
        text, _ = sweep.module(target, [("sweep", [line])])
        ok, out = ptxas.run(text, target, f"alone-{threading.get_ident()}")
        return i, None if ok else sweep.first_message(out)

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(work, items))


def own_bases(ptxas, families):
    """{family name: [Base]}: accepted instances of the templates of
    families the sweep has no instance of, made as the sweep makes them
    (`instances_of`, then its repairs for what ptxas says is wrong), each at
    the first of the sweep's targets that accepts it."""
    insts = []  # (family, line)
    for f in families:
        temps = [(t.text, t.defs) for t in f.templates]
        insts += [(f.name, l) for l in dict.fromkeys(sweep.instances_of(f.name, temps, OWN_BASES))]
    seen = {l for _, l in insts}
    found = {}  # index -> (target, version)
    pending = list(range(len(insts)))
    for _ in range(sweep.REPAIR_ROUNDS + 1):
        messages = {}
        for target, version in sweep.TARGETS:
            if not pending:
                break
            v = sweep_target(ptxas, target, [(i, *insts[i]) for i in pending], "own")
            for i, msg in v.items():
                if msg is None:
                    found[i] = (target, version)
                else:
                    messages.setdefault(i, []).append(msg)
            pending = [i for i in pending if i not in found]
        fresh, per_family = [], {}
        for i in pending:
            name = insts[i][0]
            for msg in messages.get(i, []):
                for line in sweep.repaired(insts[i][1], msg):
                    if line in seen or per_family.get(name, 0) >= sweep.REPAIRS_PER_FILE:
                        continue
                    seen.add(line)
                    per_family[name] = per_family.get(name, 0) + 1
                    fresh.append(len(insts))
                    insts.append((name, line))
        pending = fresh
        if not pending:
            break
    out = {f.name: [] for f in families}
    for i in sorted(found, key=lambda i: insts[i]):
        out[insts[i][0]].append(Base(insts[i][1], *found[i], own=True))
    return out


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default=DEFAULT_SPEC)
    ap.add_argument("--ptxas", default=sweep.DEFAULT_PTXAS)
    ap.add_argument("--only", default="")
    ap.add_argument("--dry", action="store_true", help="print the mutants, run no ptxas")
    args = ap.parse_args()
    started = time.time()
    only = set(filter(None, args.only.split(",")))
    families = read_families(args.spec, only)
    vocab_of = {}
    for f in families:
        for op in f.opcodes:
            vocab_of.setdefault(op, set()).update(f.words)
            vocab_of[op].add(op)

    bases = []
    for line in open(os.path.join(SWEEP, "instances.tsv")):
        if line.startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        if cols[3] == "accepted":
            assert sweep.VERSION.get(cols[1]) == cols[2], f"{cols[1]} {cols[2]}: not a sweep target"
            bases.append(Base(cols[4], cols[1], cols[2]))
    owned, unmatched = assign(families, bases)
    print(f"{len(families)} families, {len(bases)} accepted sweep instances, {len(unmatched)} matching no "
          f"template", file=sys.stderr)

    ptxas = None if args.dry else sweep.Ptxas(args.ptxas)
    if ptxas:
        for target, _ in sweep.TARGETS:
            ok, out = ptxas.run(sweep.module(target, [("sweep", [])])[0], target, f"empty-{target}")
            assert ok, f"the empty kernel is rejected at {target}: {sweep.first_message(out)}"
    lacking = [f for f in families if not owned[f.name]]
    if lacking and ptxas:
        made = own_bases(ptxas, lacking)
        for f in lacking:
            got, _ = assign([f], made[f.name])
            owned[f.name] = got[f.name]
        print(f"{len(lacking)} families without a sweep instance; bases of their own: "
              + ", ".join(f"{f.name} {len(owned[f.name])}" for f in lacking), file=sys.stderr)
    by_name = {f.name: f for f in families}
    hand = [(name, t, l) for name, lines in HAND_BASES.items() if name in by_name for t, l in lines]
    if hand and ptxas:
        verdict = judge_alone(ptxas, [(i, n, l, t) for i, (n, t, l) in enumerate(hand)])
        for i, (name, target, line) in enumerate(hand):
            got, _ = assign([by_name[name]], [Base(line, target, sweep.VERSION[target], own=True)])
            if verdict[i] is not None or not got[name]:
                print(f"hand base dropped ({verdict[i] or 'matches no template'}): {line}", file=sys.stderr)
                continue
            if all(b.line != line for b in owned[name]):
                owned[name] += got[name]

    rows = []  # (family, kind, target, version, base, mutant)
    seen = set()
    for f in families:
        for kind, b, m in mutants_of(f, owned[f.name], families, vocab_of):
            if (b.target, m) in seen:
                continue
            seen.add((b.target, m))
            rows.append((f.name, kind, b.target, b.version, b.line, m))
    print(f"{len(rows)} mutants", file=sys.stderr)
    if args.dry:
        for r in rows:
            print("\t".join(r))
        return

    items = [(i, r[0], r[5], r[2]) for i, r in enumerate(rows)]
    batch = judge_batches(ptxas, items)
    alone = judge_alone(ptxas, items)
    differ = [i for i in alone if (alone[i] is None) != (batch[i] is None)]
    print(f"{ptxas.calls} ptxas calls; alone and in batches disagree on {len(differ)}", file=sys.stderr)
    for i in differ[:20]:
        print(f"  {rows[i][5]}: batch {batch[i]!r}, alone {alone[i]!r}", file=sys.stderr)

    out_rows = []
    for i, r in enumerate(rows):
        msg = alone[i]
        verdict = "accepted" if msg is None else "crash" if is_crash(msg) else "rejected"
        clean = re.sub(r"^(?:ptxas )?(error|fatal)\s*:\s*", "", (msg or "").replace("\t", " "))[:160]
        out_rows.append(r[:2] + (r[2], r[3], verdict) + r[4:] + (clean,))
    out_rows.sort()
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "mutants.tsv"), "w") as fh:
        fh.write("# family\tkind\ttarget\tversion\tverdict\tbase instance\tmutant instance\t"
                 "ptxas's first message\n")
        for r in out_rows:
            fh.write("\t".join(r) + "\n")
    counts = {}
    for r in out_rows:
        counts[(r[1], r[4])] = counts.get((r[1], r[4]), 0) + 1
    print("verdicts: " + ", ".join(f"{k} {v}: {n}" for (k, v), n in sorted(counts.items())), file=sys.stderr)
    shutil.rmtree(ptxas.dir, ignore_errors=True)
    print(f"{len(out_rows)} mutants of {len({r[0] for r in out_rows})} families in {time.time() - started:.0f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
