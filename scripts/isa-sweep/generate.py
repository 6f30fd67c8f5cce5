#!/usr/bin/env python3
"""The ISA sweep: instances of every instruction the ISA text describes, with
ptxas 13.5's verdict on each (issue 16).

    python3 scripts/isa-sweep/generate.py [--spec DIR] [--ptxas PATH] [--only NAME,...] [--dry]

DIR defaults to ../shared/spec/isa beside the repository; --dry prints the
instances and runs no ptxas. It takes about 2 minutes (5 on a busy machine)
and writes testdata/isa-sweep/:
  * instances.tsv: one row per instance, sorted: spec file, target, PTX
    version, verdict (accepted/rejected), the instance line, and ptxas's
    first message about it (empty when accepted);
  * kernels/<target>-<version>.ptx: the accepted instances of each target in
    one module that ptxas accepts whole, one instance a line, one kernel per
    spec file (what the facade's `isa_sweep` test parses, prints and
    compiles);
  * template.ptx: a module of one kernel with the line `@INSTANCES@` where
    the instances go (@VERSION@ and @TARGET@ for the header): the test puts
    each instance alone in it.

How instances are made. Each `### Syntax` code block of a spec file gives
templates (`add{.sat}.s32 d, a, b;`) and definitions (`.type = { .u16, ... }`,
also `cp-size = { 4, 8, 16 }`, `vop = { vadd, ... }`). A template's choice
points are its optional `{...}` parts (modifiers, `{, operand}`, `{!}`,
`p[|q]`, `a{.asel}`), its `.{1d,2d,3d}` alternatives and the defined names it
uses; the instances first cover every value of every choice point, then add
combinations drawn with a random generator seeded by the file name and
template, up to CAP_PER_FILE per file; then variants: a literal for the last
source, a guard (`@p`, `@!p`), tight spacing. Operands are given by role:
data operands are registers declared with the instance's type (the
destination takes the first type, sources the last; `operand_type` has the
instructions with rules of their own, `matrix_fragment` the register counts
of mma/wmma/wgmma/ldmatrix fragments), `.vN` makes `d` and `b` vectors,
`[a]` is an address (a register, with an offset, or a variable of the
instruction's state space), a texture or surface address holds its
coordinates in a vector sized by the geometry, names that the text defines
take a listed value, and labels, functions, special registers, immediates
and predicates are recognised by name.

How verdicts are measured. Every instance is tried at each of TARGETS in
turn and takes the first that accepts it: the instances of a chunk go into
one module (a kernel per spec file; a kernel cannot mix `.cta_group::1` and
`::2`), one a line, given to `ptxas -arch=<target> -o /dev/null`; the lines
ptxas names in an error are rejected and dropped and the rest tried again
until ptxas accepts the file (a failure naming no instance line, as a crash,
is bisected). An instance rejected everywhere is recorded with its first
target's message. Where ptxas says how (`Vector of size 4 is expected for
argument 0`, `Arguments mismatch`), repaired copies are swept again, for
REPAIR_ROUNDS rounds; a repair ptxas rejects is not recorded. Last, each
target's accepted instances are checked together, in the module the test
reads. At most two ptxas run at a time.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "testdata", "isa-sweep")
DEFAULT_SPEC = os.path.join(os.path.dirname(ROOT), "shared", "spec", "isa")
DEFAULT_PTXAS = os.path.join(ROOT, ".cache", "toolchain", "nvidia-cuda-nvcc-13.5.37", "ptxas")

# Tried in order: an instance takes the first that accepts it. sm_100a has
# the most (tcgen05 and all before it but wgmma/setmaxnreg's sm_90a forms).
# (target, PTX version). Nothing older than sm_75 (ptxas 13's oldest): the
# kernels declare `.b128` registers, which need sm_70 and PTX 8.3, past the
# versions where `shfl` and `vote` without `.sync` were allowed on sm_70.
TARGETS = [("sm_100a", "9.5"), ("sm_90a", "9.5"), ("sm_120a", "9.5"), ("sm_103a", "9.5"), ("sm_80", "9.5")]
VERSION = dict(TARGETS)
CAP_PER_FILE = 240
CHUNK = 600

TYPE_RE = re.compile(r"^(?:[bsu](?:8|16|32|64|128)|[su]16x2|f16|f16x2|bf16|bf16x2|f32|f32x2|f64|tf32|pred"
                     r"|e[2-5]m[1-3]|e[2-5]m[1-3]x[24]|ue8m0x2|s2f6x2|[su][24])$")
# Register types ptxas declares; the others live in bit registers of their size.
REG_TYPES = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
             "f16", "f16x2", "f32", "f64", "pred"]
TYPE_BITS = {"bf16": 16, "bf16x2": 32, "tf32": 32, "u16x2": 32, "s16x2": 32, "f32x2": 64, "ue8m0x2": 16,
             "s2f6x2": 16, "e4m3": 8, "e5m2": 8, "e2m3": 8, "e3m2": 8, "e2m1": 8, "u4": 32, "s4": 32,
             "u2": 32, "s2": 32}
for _t in ("e4m3", "e5m2", "e2m3", "e3m2", "e2m1"):
    TYPE_BITS[_t + "x2"] = 16
    TYPE_BITS[_t + "x4"] = 32
REGS_PER_TYPE = 128

SPACE_SYMBOL = {"shared": "smem", "global": "gmem", "const": "cmem", "local": "lmem"}

MODULE_HEAD = (
    ".version @VERSION@\n.target @TARGET@\n.address_size 64\n"
    ".global .align 16 .b8 gmem[4096];\n"
    ".shared .align 16 .b8 smem[4096];\n"
    ".const .align 16 .b8 cmem[4096];\n"
    ".global .texref tex0;\n.global .surfref surf0;\n"
    ".func (.param .b32 fret) callee(.param .b32 fa)\n{\nst.param.b32 [fret], 0;\nret;\n}\n"
    ".func callee1(.param .b32 fb)\n{\nret;\n}\n"
    ".func callee0()\n{\nret;\n}\n"
)
KERNEL_HEAD = (
    ".visible .entry @KERNEL@(.param .u64 kp0, .param .align 64 .b8 tmap[128])\n{\n"
    ".local .align 16 .b8 lmem[256];\n"
    + "".join(f".reg .{t} %{t}_<{REGS_PER_TYPE}>;\n" for t in REG_TYPES)
    + f".reg .b64 %ad_<{REGS_PER_TYPE}>;\n"
    "fproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
    "fproto1: .callprototype _ (.param .b32 _);\n"
    "fproto0: .callprototype _ ();\n"
    "flist: .branchtargets L0, L1;\n"
    "ctargets: .calltargets callee;\n"
    "ctargets1: .calltargets callee1;\n"
    "ctargets0: .calltargets callee0;\n"
)
KERNEL_TAIL = "L0:\nL1:\nret;\n}\n"
# What the test reads: a module of one kernel, instances in place of the marker.
TEMPLATE = MODULE_HEAD + KERNEL_HEAD.replace("@KERNEL@", "sweep") + "@INSTANCES@\n" + KERNEL_TAIL


# ---------------------------------------------------------------- spec text

def syntax_blocks(text):
    """The code blocks of the `### Syntax` section."""
    m = re.search(r"^### Syntax\s*$(.*?)(?=^### |\Z)", text, re.S | re.M)
    if not m:
        return []
    return re.findall(r"```[^\n]*\n(.*?)```", m.group(1), re.S)


def split_top(s, sep=","):
    """Splits on `sep` outside (), [] and {}."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def expand_value(v):
    """`.shared{::cta, ::cluster}` -> .shared, .shared::cta, .shared::cluster."""
    v = v.strip()
    m = re.fullmatch(r"([^{}]*)\{([^{}]*)\}", v)
    if m:
        bare = [] if m.group(1).endswith("::") else [m.group(1)]
        return bare + [m.group(1) + x.strip() for x in m.group(2).split(",") if x.strip()]
    return [v] if v else []


def statements(block):
    """Definitions {name: [values]} and templates of one code block."""
    lines = [re.sub(r"//.*", "", l) for l in block.splitlines()]
    defs, templates = {}, []
    cur = ""
    for line in lines + [""]:
        s = line.strip()
        if re.match(r"^(\.\w+\s+)?defaults to\b", s):
            continue  # prose: `.asel defaults to .b3210`
        if not cur:
            if not s:
                continue
            cur = s
        else:
            cur += " " + s
        depth = cur.count("{") - cur.count("}")
        dm = re.match(r"^((?:\.?[A-Za-z][\w:.-]*\s*=\s*)+)(.*)$", cur)
        if dm and "," not in dm.group(1):
            if depth > 0:
                continue
            names = re.findall(r"(\.?[A-Za-z][\w:.-]*)\s*=", dm.group(1))
            body = dm.group(2).strip().rstrip(";").strip()
            if ".hxy" in body and "where" in body:
                # `{ .hxy, where x,y are from { 0, 1, 2, 3 } }`: every pair.
                vals = [f".h{x}{y}" for x in "0123" for y in "0123"]
            elif ".bxyzw" in body and "where" in body:
                # `.bxyzw, where x,y,z,w are from { 0, ..., 7 }`: a sample.
                vals = [".b3210", ".b7654", ".b0123", ".b4567", ".b0000", ".b7777", ".b1357", ".b6420"]
            elif body.startswith("{") and body.endswith("}"):
                # A missing comma (`.b1, .b10 .b2`) still separates values.
                vals = [x for part in split_top(body[1:-1]) for word in part.split() for x in expand_value(word)]
            else:
                vals = expand_value(body)
            for n in names:
                defs[n.lstrip(".")] = vals
            cur = ""
            continue
        if ";" in cur and depth <= 0:
            stmt = cur[: cur.rindex(";")].strip()
            stmt = re.sub(r"^@!?\w+\s+", "", stmt)
            if re.match(r"^[a-z][a-z0-9_]*(?:[.{ ]|$)", stmt) and "=" not in stmt.split()[0]:
                templates.append(stmt)
            cur = ""
        elif not s:
            # A line of prose (or a definition without `;`) ends here.
            cur = ""
    return defs, templates


# ---------------------------------------------------------------- templates

class Choices:
    """Deterministic choice points: each call to pick(n) is one point."""

    def __init__(self, plan):
        self.plan = plan  # function(index, n) -> choice
        self.count = 0
        self.sizes = []

    def pick(self, n):
        k = self.count
        self.count += 1
        self.sizes.append(n)
        return self.plan(k, n)


def split_head(head):
    """`add{.sat}.s32` -> ['add', '{.sat}', '.s32']."""
    items, i = [], 0
    m = re.match(r"[a-z][a-z0-9_]*", head)
    items.append(m.group(0))
    i = m.end()
    while i < len(head):
        c = head[i]
        if c == "{":
            depth, j = 0, i
            while j < len(head):
                depth += head[j] == "{"
                depth -= head[j] == "}"
                j += 1
                if depth == 0:
                    break
            items.append(head[i:j])
            i = j
        elif head.startswith(".{", i) and not head.startswith(".{.", i):
            # `.{1d,2d,3d}`: one of the words, not optional.
            j = head.index("}", i)
            items.append("=" + head[i + 2 : j])
            i = j + 1
        elif c == ".":
            m = re.match(r"\.[A-Za-z0-9_:]+", head[i:])
            if not m:
                i += 1
                continue
            items.append(m.group(0))
            i += m.end()
        else:
            m = re.match(r"[A-Za-z0-9_:]+", head[i:])
            if m:
                items.append("." + m.group(0))
                i += m.end()
            else:
                i += 1
    return items


def realise_head(items, defs, ch):
    words = []
    for it in items[1:]:
        if it.startswith("="):
            alts = [a.strip() for a in it[1:].split(",") if a.strip()]
            words.append(alts[ch.pick(len(alts))])
            continue
        if it.startswith("{"):
            inner = it[1:-1].strip()
            if ch.pick(2):
                alts = [a.strip() for a in re.split(r"[|,]", inner)]
                alt = alts[ch.pick(len(alts))] if len(alts) > 1 else alts[0]
                if alt.startswith("::"):
                    if words:
                        words[-1] += alt
                    continue
                words += realise_head(["_"] + split_head("x" + alt)[1:], defs, ch)[1]
            continue
        name = it[1:]
        if name in defs and defs[name]:
            vals = defs[name]
            v = vals[ch.pick(len(vals))]
            if v.strip(".") == "none":
                continue
            for part in v.split(".") if not v.startswith(".") else v[1:].split("."):
                if part:
                    words.append(part)
        elif name.startswith("::") and words:
            words[-1] += name
        else:
            words.append(name)
    return items[0], words


def head_split(template):
    depth = 0
    for i, c in enumerate(template):
        depth += c == "{"
        depth -= c == "}"
        if c in " \t" and depth == 0:
            return template[:i], template[i:].strip()
    return template, ""


OPERAND_NAME = re.compile(r"[A-Za-z_][\w-]*")


class Context:
    def __init__(self, opcode, words, index):
        self.opcode = opcode
        self.words = words
        self.types = [w for w in words if TYPE_RE.match(w)]
        self.vec = next((int(w[1:]) for w in words if re.fullmatch(r"v\d+", w)), 0)
        self.space = next((w.split("::")[0] for w in words if w.split("::")[0] in SPACE_SYMBOL), None)
        self.index = index
        self.reg_counter = {}

    def reg(self, ty):
        if ty not in REG_TYPES:
            bits = TYPE_BITS.get(ty, 32)
            ty = f"b{bits}"
        n = self.reg_counter.get(ty, 0)
        self.reg_counter[ty] = n + 1
        return f"%{ty}_{n % REGS_PER_TYPE}"


def wide(ty):
    m = re.fullmatch(r"([bsuf])(\d+)", ty)
    return f"{m.group(1)}{int(m.group(2)) * 2}" if m else ty


def operand_type(cx, name, position):
    """The type of a data operand, by instruction and position."""
    t = cx.types
    op = cx.opcode
    first = t[0] if t else "b32"
    last = t[-1] if t else "b32"
    if op in ("mul", "mad") and "wide" in cx.words:
        return wide(first) if name in ("d", "c") else first
    if op in ("shl", "shr") and name == "b":
        return "u32"
    if op in ("bfe",) and name in ("b", "c"):
        return "u32"
    if op in ("bfi",) and name in ("c", "d") and position > 0:
        return "u32"
    if op in ("slct",):
        return last if name == "c" else first
    if op in ("set",):
        return first if position == 0 else last
    if op in ("cvt", "cvta", "prmt", "dp4a", "dp2a", "sad"):
        return first if position == 0 else last
    if op in ("selp",) and name == "c":
        return "pred"
    if op in ("bar", "barrier") and name in ("a", "b"):
        return "b32"
    if re.fullmatch(r"v(add|sub|absdiff|min|max|avrg|shl|shr|mad)[24]?", op) and len(t) == 3:
        # Video instructions: `.dtype.atype.btype`; `c` is added to the result.
        return {"a": t[1], "b": t[2]}.get(name, t[0])
    if op == "movmatrix":
        return "b32"
    if op in ("popc", "clz", "bfind", "cnot") and position == 0:
        return "u32" if op != "cnot" else first
    if position == 0:
        return first
    return last


def is_pred_name(name):
    return name in ("p", "q", "pd", "pa", "pb", "pred", "pq") or name.startswith("pred")


def realise_operand(tok, cx, ch, position, defs, state):
    """One operand template -> text (None: drop it)."""
    tok = tok.strip()
    if not tok:
        return None
    # `{!}c`: optional negation.
    neg = False
    if tok.startswith("{-}"):
        # `{-}a`: an optional negated source (vmad).
        inner = realise_operand(tok[3:], cx, ch, position, defs, state)
        return ("-" if ch.pick(2) else "") + inner
    negatable = tok.startswith("{!}") or tok.startswith("!")
    if tok.startswith("{!}"):
        neg = bool(ch.pick(2))
        tok = tok[3:].strip()
    elif tok.startswith("!"):
        neg = True
        tok = tok[1:].strip()
    # `p[|q]`, `d[|p]`: optional second predicate.
    m = re.fullmatch(r"(\w+)\[\|(\w+)\]", tok)
    if m:
        first = realise_operand(m.group(1), cx, ch, position, defs, state)
        if ch.pick(2):
            return first + "|" + cx.reg("pred")
        return first
    m = re.fullmatch(r"(\w+)\|(\w+)", tok)
    if m:
        return realise_operand(m.group(1), cx, ch, position, defs, state) + "|" + cx.reg("pred")
    # Selector suffixes: `a{.asel}` (optional), `d.dsel`, `[a]{.unified}`.
    m = re.fullmatch(r"(.+?)(?:\{\.([\w:]+)\}|\.([A-Za-z]\w*))", tok)
    if m and not tok.startswith("{") and (m.group(3) is None or m.group(3) in defs):
        base, optional, word = m.group(1), m.group(2), m.group(2) or m.group(3)
        inner = realise_operand(base, cx, ch, position, defs, state)
        if optional is not None and not ch.pick(2):
            return inner
        vals = defs.get(word) or ["." + word]
        return inner + "." + vals[ch.pick(len(vals))].lstrip(".")
    if tok.startswith("[") and tok.endswith("]"):
        inner = tok[1:-1].strip()
        parts = [p for p in split_top(inner) if p.strip()]
        if len(parts) <= 1:
            return "[" + address(cx, state) + "]"
        out = [handle(cx) if i == 0 else coordinates(cx, p, ch, position, defs, state)
               for i, p in enumerate(parts)]
        return "[" + ", ".join(o for o in out if o) + "]"
    if tok.startswith("{") and tok.endswith("}"):
        parts = [p for p in split_top(tok[1:-1]) if p.strip()]
        return "{" + ", ".join(realise_operand(p, cx, ch, position, defs, state) or "_" for p in parts) + "}"
    if tok.startswith("(") and tok.endswith(")"):
        inner = tok[1:-1].strip()
        if "ret" in inner:
            return "(%b32_0)"
        return "(%b32_1)"
    if negatable:
        # Only a predicate can be negated.
        return ("!" if neg else "") + cx.reg("pred")
    return reg_or_value(tok, cx, ch, position, defs, state)


GEOMETRY_COORDS = {"1d": 1, "2d": 2, "3d": 4, "a1d": 2, "a2d": 4, "cube": 4, "acube": 4, "2dms": 4,
                   "a2dms": 4}


def handle(cx):
    """The first element of a texture or surface address: the texture, surface or tensor map."""
    if cx.opcode.startswith("su"):
        return "surf0"
    if cx.opcode in ("tex", "tld4", "txq"):
        return "tex0"
    return "%ad_0"


def coordinates(cx, tok, ch, position, defs, state):
    """Texture and surface coordinates are a vector sized by the geometry."""
    geom = next((w for w in cx.words if w in GEOMETRY_COORDS), None)
    tok = tok.strip()
    if geom and re.fullmatch(r"[bc]", tok) and (cx.opcode.startswith("su") or tok == "c"):
        ty = "s32" if cx.opcode.startswith("su") else (cx.types[-1] if cx.types else "s32")
        n = GEOMETRY_COORDS[geom]
        return "{" + ", ".join(cx.reg(ty) for _ in range(n)) + "}"
    return realise_operand(tok, cx, ch, position, defs, state)


def address(cx, state):
    """Address forms in turn: a register, with an offset (positive, negative,
    an explicit zero), the variable of the instruction's state space, plus an
    offset."""
    form = cx.index % 6
    sym = SPACE_SYMBOL.get(cx.space) if cx.space else None
    if form == 2 and sym:
        return sym
    if form == 3 and sym:
        return sym + "+16"
    # ptxas reads `[%r-8]` as a syntax error, `[%r+-8]` as a negative offset.
    return ["%ad_0", "%ad_0+8", "%ad_1", "%ad_2+64", "%ad_3+-8", "%ad_0+0"][form]


def matrix_fragment(cx, name, position):
    """The registers of a matrix fragment, for the forms whose size the
    modifiers give: `ldmatrix`/`stmatrix` (`.x1/.x2/.x4` registers of 32
    bits) and `wgmma`'s accumulator (n/2 or n/4 of an m64nNkK shape)."""
    if cx.opcode in ("ldmatrix", "stmatrix") and name in ("d", "r"):
        n = next((int(w[1:]) for w in cx.words if re.fullmatch(r"x[124]", w)), 1)
        return ["b32"] * n
    if cx.opcode == "wgmma" and name == "d":
        shape = next((w for w in cx.words if re.fullmatch(r"m64n\d+k\d+", w)), None)
        if shape:
            n = int(re.match(r"m64n(\d+)", shape).group(1))
            dtype = cx.types[0] if cx.types else "f32"
            return ["b32"] * (n // 4) if dtype == "f16" else [dtype if dtype in REG_TYPES else "b32"] * (n // 2)
    if cx.opcode == "wgmma" and name == "a":
        return ["b32"] * 4
    if cx.opcode == "mma" and name in ("d", "a", "b", "c") and len(cx.types) == 4:
        return mma_fragment(cx, name)
    if cx.opcode == "wmma":
        return wmma_fragment(cx, name)
    return None


def wmma_fragment(cx, name):
    """`wmma` fragments: as `mma.sync`'s (the warp shares the matrices), but
    an f16 A or B fragment is eight registers whatever the shape."""
    shape = next((w for w in cx.words if re.fullmatch(r"m\d+n\d+k\d+", w)), None)
    if not shape or not cx.types:
        return None
    m, n, k = map(int, re.findall(r"\d+", shape))
    if cx.words[0] in ("load", "store") and len(cx.words) > 1 and name == "r":
        role, ty = cx.words[1], cx.types[0]
    elif cx.words[0] == "mma" and name in ("a", "b", "c", "d"):
        role = name
        if len(cx.types) == 2:
            dtype, ctype, atype, btype = cx.types[0], cx.types[1], "f16", "f16"
        elif len(cx.types) == 4:
            dtype, atype, btype, ctype = cx.types
        else:
            return None
        ty = {"a": atype, "b": btype, "c": ctype, "d": dtype}[role]
    else:
        return None
    if role in ("a", "b"):
        if ty == "f16":
            return ["b32"] * 8
        bits = ELEMENT_BITS.get(ty)
        if bits is None:
            return None
        elems = (m * k if role == "a" else k * n) // 32
        return ["f64"] * elems if bits == 64 else ["b32"] * max(1, elems * bits // 32)
    elems = m * n // 32
    if ty == "f16":
        return ["b32"] * (elems // 2)
    return [ty if ty in REG_TYPES else "b32"] * elems


ELEMENT_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f64": 64, "s8": 8, "u8": 8, "s4": 4, "u4": 4, "b1": 1,
                "e4m3": 8, "e5m2": 8, "e3m2": 8, "e2m3": 8, "e2m1": 8}


def mma_fragment(cx, name):
    """Registers per thread of an `mma.sync` fragment: a warp's 32 threads
    share the m x k, k x n and m x n matrices; A and B elements are packed in
    32-bit registers (f64 take one register each), C and D hold f32, s32 or
    f64 elements each, f16 two per register. m8n8k4 with f16 inputs is the
    quad-pair form: A and B two registers, C and D four (f16) or eight."""
    shape = next((w for w in cx.words if re.fullmatch(r"m\d+n\d+k\d+", w)), None)
    if not shape:
        return None
    m, n, k = map(int, re.findall(r"\d+", shape))
    dtype, atype, btype, ctype = cx.types
    if name in ("a", "b"):
        ty = atype if name == "a" else btype
        bits = ELEMENT_BITS.get(ty)
        if bits is None:
            return None
        elems = (m * k if name == "a" else k * n) // 32
        if shape == "m8n8k4" and ty == "f16":
            return ["b32"] * 2
        if bits == 64:
            return ["f64"] * elems
        return ["b32"] * max(1, elems * bits // 32)
    ty = dtype if name == "d" else ctype
    elems = m * n // 32
    if shape == "m8n8k4" and atype == "f16":
        elems = 8
    if ty == "f16":
        return ["b32"] * (elems // 2)
    return [ty if ty in REG_TYPES else "b32"] * elems


def reg_or_value(name, cx, ch, position, defs, state):
    if re.fullmatch(r"-?\d+|0[xX][0-9a-fA-F]+", name) or name.startswith("%"):
        return name
    if name == "_":
        return "_"
    key = name
    if key in defs and defs[key] and key not in ("d", "a", "b", "c"):
        vals = defs[key]
        v = vals[ch.pick(len(vals))]
        return v.lstrip(".")
    low = name.lower()
    if low in ("sreg",):
        return "%tid.x"
    if low in ("avar", "var"):
        return "gmem"
    if low in ("fname", "func"):
        return "callee"
    if low in ("kernel",):
        return "sweep"
    if low in ("fptr",):
        return "%b64_0"
    if low in ("flist",):
        return "flist"
    if low in ("fproto",):
        return "fproto"
    if low in ("tgt", "target", "label", "tlist") or low.startswith("label"):
        return "flist" if low == "tlist" else "L0"
    if low == "imm-reg-count":
        return "32"  # a multiple of 8 in [24, 256]
    if "imm" in low or low in ("n", "count_imm"):
        return "1"
    if low == "size" and cx.opcode in ("applypriority", "discard", "fence", "membar"):
        return "128"
    if low == "a" and cx.opcode == "istypep":
        return cx.reg("b64")  # a texture, sampler or surface handle
    if low == "a" and cx.opcode == "pmevent":
        return "1"
    if low == "scale-d":
        return cx.reg("pred")
    fragment = matrix_fragment(cx, low, position)
    if fragment:
        return "{" + ", ".join(cx.reg(ty) for ty in fragment) + "}"
    if "cache-policy" in low or "policy" in low or "desc" in low or low in ("taddr",):
        return cx.reg("b64") if "taddr" not in low else cx.reg("b32")
    if is_pred_name(low) and cx.opcode != "cvta":
        return cx.reg("pred")
    if low in ("count", "ncols", "size", "cp-size", "src-size", "b-size", "stride"):
        return cx.reg("b32")
    ty = operand_type(cx, low, position)
    if cx.vec and (low in ("d", "b") or (cx.opcode == "sust" and low == "c")) and ty != "pred":
        return "{" + ", ".join(cx.reg(ty) for _ in range(cx.vec)) + "}"
    return cx.reg(ty)


def call_operands(texts):
    """A call's callee, prototype and target list agree with its argument
    lists: `callee` returns a value and takes one, `callee1` takes one,
    `callee0` neither (and their prototypes `fproto`, `fproto1`, `fproto0`,
    target lists `ctargets`, `ctargets1`, `ctargets0`)."""
    returns = texts[0].startswith("(") if texts else False
    args = sum(1 for t in texts[1:] if t.startswith("(")) if returns else sum(1 for t in texts if t.startswith("("))
    suffix = "" if returns else ("1" if args else "0")
    rename = {"callee": "callee" + suffix, "fproto": "fproto" + suffix, "flist": "ctargets" + suffix}
    return [rename.get(t, t) for t in texts]


def realise(template, defs, ch, index):
    head, rest = head_split(template)
    items = split_head(head)
    opcode, words = realise_head(items, defs, ch)
    if opcode in defs and defs[opcode]:
        # `vop = { vadd, vsub, ... }`: the opcode is a choice too.
        opcode = defs[opcode][ch.pick(len(defs[opcode]))].strip(".")
    cx = Context(opcode, words, index)
    # Expand optional comma groups first: `{, e}` and `{b,}`.
    def expand_optionals(s):
        out, i = "", 0
        while i < len(s):
            if s[i] == "{":
                depth, j = 0, i
                while j < len(s):
                    depth += s[j] == "{"
                    depth -= s[j] == "}"
                    j += 1
                    if depth == 0:
                        break
                inner = s[i + 1 : j - 1]
                if inner.strip().startswith(",") or inner.strip().endswith(","):
                    if ch.pick(2):
                        out += expand_optionals(inner)
                else:
                    out += "{" + expand_optionals(inner) + "}"
                i = j
            else:
                out += s[i]
                i += 1
        return out

    rest = expand_optionals(rest)
    rest = re.sub(r",\s*,", ",", rest).strip().strip(",")
    operands = [p for p in split_top(rest) if p.strip()] if rest else []
    state = {}
    texts = []
    for pos, tok in enumerate(operands):
        t = realise_operand(tok, cx, ch, pos, defs, state)
        if t is not None:
            texts.append(t)
    if opcode == "call":
        texts = call_operands(texts)
    mnemonic = ".".join([opcode] + words)
    return mnemonic + (" " + ", ".join(texts) if texts else "") + ";"


def instances_of(name, templates, cap):
    """Deterministic instances of one spec file's templates."""
    out = []
    seen = set()
    per_template = max(4, cap // max(1, len(templates)))
    for ti, (template, defs) in enumerate(templates):
        mine = []
        # Cover every value of every choice point: point k takes i mod n.
        i = 0
        while i < 64:
            ch = Choices(lambda k, n, i=i: (i + k) % n if i > 0 else 0)
            try:
                inst = realise(template, defs, ch, len(mine))
            except Exception as e:  # a template the reader does not follow
                print(f"{name}: cannot read `{template}`: {e}", file=sys.stderr)
                break
            if inst not in seen:
                seen.add(inst)
                mine.append(inst)
            if i >= max(ch.sizes + [1]) - 1 and i > 0:
                break
            i += 1
        rng = random.Random(f"{name}:{ti}")
        tries = 0
        while len(mine) < per_template and tries < per_template * 4:
            tries += 1
            ch = Choices(lambda k, n: rng.randrange(n))
            try:
                inst = realise(template, defs, ch, len(mine))
            except Exception:
                break
            if inst not in seen:
                seen.add(inst)
                mine.append(inst)
        out += mine
    if len(out) > cap:
        rng = random.Random(name)
        out = sorted(rng.sample(out, cap), key=out.index)
    # Literals as sources: a variant of every other instance; a guard on
    # every fourth (negated on every eighth); every sixth written tightly
    # (no blank after a comma, three after the mnemonic;
    # no tab: it would split the row of instances.tsv).
    extra = []
    for k, inst in enumerate(out):
        variants = [with_immediate(inst, k // 2) if k % 2 == 0 else None]
        if k % 4 == 1:
            variants.append(("@!%pred_9 " if k % 8 == 1 else "@%pred_9 ") + inst)
        if k % 6 == 3:
            variants.append(re.sub(r", ", ",", inst.replace(" ", "   ", 1)))
        for v in variants:
            if v and v not in seen:
                seen.add(v)
                extra.append(v)
    return out + extra


def read_spec(spec_dir, only):
    result = {}
    for fn in sorted(os.listdir(spec_dir)):
        if not fn.endswith(".md"):
            continue
        name = fn[:-3]
        if only and name not in only:
            continue
        text = open(os.path.join(spec_dir, fn)).read()
        file_defs = {}
        blocks = []
        for block in syntax_blocks(text):
            defs, templates = statements(block)
            file_defs.update({k: v for k, v in defs.items() if k not in file_defs})
            blocks.append((defs, templates))
        templates = []
        for defs, temps in blocks:
            merged = dict(file_defs)
            merged.update(defs)
            templates += [(t, merged) for t in temps]
        result[name] = templates
    return result


# ---------------------------------------------------------------- ptxas

def module(target, kernels):
    """The text of a module of kernels [(name, lines)] and, per line number
    (from 1), the (kernel, line) it holds."""
    text = MODULE_HEAD.replace("@VERSION@", VERSION[target]).replace("@TARGET@", target)
    where = {}
    line = text.count("\n")
    for k, (name, lines) in enumerate(kernels):
        head = KERNEL_HEAD.replace("@KERNEL@", name)
        text += head
        line += head.count("\n")
        for i, l in enumerate(lines):
            text += l + "\n"
            line += 1
            where[line] = (k, i)
        text += KERNEL_TAIL
        line += KERNEL_TAIL.count("\n")
    return text, where


def kernel_name(file, line):
    """Instances of a file share a kernel; some forms cannot share one with
    others (a kernel uses one `.cta_group`)."""
    cls = "_cg2" if "cta_group::2" in line else ""
    return "sweep_" + re.sub(r"\W", "_", file) + cls


def grouped(items):
    """[(kernel name, [item])] in first-seen order; items are (id, file, line)."""
    groups = {}
    for it in items:
        groups.setdefault(kernel_name(it[1], it[2]), []).append(it)
    return list(groups.items())


class Ptxas:
    def __init__(self, path):
        self.path = path
        self.calls = 0
        self.dir = tempfile.mkdtemp(prefix="isa-sweep-")

    def run(self, text, target, tag):
        f = os.path.join(self.dir, f"{tag}.ptx")
        with open(f, "w") as out:
            out.write(text)
        self.calls += 1
        try:
            p = subprocess.run([self.path, f"-arch={target}", "-o", "/dev/null", f], capture_output=True,
                               text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return False, "ptxas timed out"
        out = p.stdout + p.stderr
        if p.returncode < 0:
            out += f"\nptxas crashed (signal {-p.returncode})"
        return p.returncode == 0, out


def first_message(out):
    for l in out.splitlines():
        if "error" in l or "fatal" in l or "crashed" in l or "timed out" in l:
            return re.sub(r"^ptxas [^,]*, line \d+; ", "", l).strip()
    return out.strip().splitlines()[0] if out.strip() else "rejected"


def sweep_chunk(ptxas, target, items, tag):
    """{id: None (accepted) or message (rejected)} for items (id, file, line)."""
    verdict = {}

    def solve(live):
        while live:
            kernels = grouped(live)
            text, where = module(target, [(n, [it[2] for it in g]) for n, g in kernels])
            ok, out = ptxas.run(text, target, tag)
            if ok:
                for it in live:
                    verdict[it[0]] = None
                return
            bad = {}
            for l in out.splitlines():
                m = re.search(r"\.ptx, line (\d+); (error|fatal)", l)
                if m and int(m.group(1)) in where:
                    k, i = where[int(m.group(1))]
                    bad.setdefault(kernels[k][1][i][0], re.sub(r"^ptxas [^,]*, line \d+; ", "", l).strip())
            if not bad:
                # A failure that names no instance line: bisect.
                if len(live) == 1:
                    verdict[live[0][0]] = first_message(out)
                    return
                half = len(live) // 2
                solve(live[:half])
                solve(live[half:])
                return
            verdict.update(bad)
            live = [it for it in live if it[0] not in bad]

    solve(list(items))
    return verdict


REPAIR_ROUNDS = 4
REPAIRS_PER_FILE = 120


def immediate_for(ty, k):
    """A literal of type `ty` (None where none is written: f16, b128)."""
    if ty == "f32":
        return ["0f3F800000", "1.5", "0fBF000000"][k % 3]
    if ty == "f64":
        return ["0d3FF0000000000000", "2.5", "0dC000000000000000"][k % 3]
    if re.fullmatch(r"[bsu](8|16|32|64)", ty):
        return ["1", "0x10", "-1", "7", "0b101", "010"][k % 6]
    return None


def with_immediate(line, k):
    """The instance with its last source register replaced by a literal."""
    head, _, ops = line.rstrip(";").partition(" ")
    args = [a.strip() for a in split_top(ops)] if ops else []
    if len(args) < 2:
        return None
    m = re.fullmatch(r"%(\w+?)_\d+", args[-1])
    lit = immediate_for(m.group(1), k) if m else None
    if lit is None:
        return None
    return head + " " + ", ".join(args[:-1] + [lit]) + ";"


def mismatch_variants(line):
    """Guesses for 'Arguments mismatch': registers of 32 bits for narrower or
    half-precision ones (packed operands), the last source a literal, every
    scalar source a literal."""
    out = []
    widened = re.sub(r"%(?:[bsu](?:8|16)|f16|f16x2)_(\d+)", r"%b32_\1", line)
    if widened != line:
        out.append(widened)
    head, _, ops = line.rstrip(";").partition(" ")
    args = [a.strip() for a in split_top(ops)] if ops else []
    if len(args) >= 2 and re.fullmatch(r"%\w+_\d+", args[-1]) and not args[-1].startswith("%pred"):
        out.append(head + " " + ", ".join(args[:-1] + ["1"]) + ";")
    lits = [a if i == 0 or not re.fullmatch(r"%\w+_\d+", a) or a.startswith("%pred") else "1"
            for i, a in enumerate(args)]
    if lits != args:
        out.append(head + " " + ", ".join(lits) + ";")
    return out


def repaired(line, msg):
    """The instance with the argument ptxas names made a vector."""
    if "Arguments mismatch" in msg:
        return mismatch_variants(line)
    m = re.search(r"Vector of size (\d+) is expected for argument (\d+)", msg)
    if m:
        sizes, arg = [int(m.group(1))], int(m.group(2))
    else:
        m = re.search(r"Vector expected for argument (\d+)", msg)
        if not m:
            return []
        sizes, arg = [2, 4, 8], int(m.group(1))
    head, _, ops = line.rstrip(";").partition(" ")
    args = [a.strip() for a in split_top(ops)]
    if arg >= len(args):
        return []
    pred = ""
    first = args[arg]
    if "|" in first and not first.startswith("{"):
        first, pred = first.split("|", 1)
        pred = "|" + pred
    if first.startswith("{"):
        first = split_top(first[1:-1])[0].strip()
    reg = re.fullmatch(r"%(\w+?)_(\d+)", first)
    if not reg:
        return []
    ty = reg.group(1)
    out = []
    for n in sizes:
        vec = "{" + ", ".join(f"%{ty}_{(16 + arg * 4 + k) % REGS_PER_TYPE}" for k in range(n)) + "}"
        args2 = args[:arg] + [vec + pred] + args[arg + 1 :]
        out.append(head + " " + ", ".join(args2) + ";")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default=DEFAULT_SPEC)
    ap.add_argument("--ptxas", default=DEFAULT_PTXAS)
    ap.add_argument("--only", default="")
    ap.add_argument("--dry", action="store_true", help="print the instances, run no ptxas")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    spec = read_spec(args.spec, only)
    instances = []  # (file, line)
    for name, templates in spec.items():
        for inst in instances_of(name, templates, CAP_PER_FILE):
            instances.append((name, inst))
    # One row per distinct line (the first file that makes it names it).
    seen = set()
    instances = [x for x in instances if not (x[1] in seen or seen.add(x[1]))]
    print(f"{len(spec)} spec files, {len(instances)} instances", file=sys.stderr)
    if args.dry:
        for name, inst in instances:
            print(f"{name}\t{inst}")
        return

    ptxas = Ptxas(args.ptxas)
    originals = len(instances)
    for target, _ in TARGETS:
        ok, out = ptxas.run(module(target, [("sweep", [])])[0], target, f"empty-{target}")
        assert ok, f"the kernel without instances is rejected at {target}: {first_message(out)}"
    result = {}  # index -> (target, message or None)
    pending = list(range(len(instances)))
    for round_ in range(REPAIR_ROUNDS + 1):
        messages = {}  # index -> every target's message
        for target, _ in TARGETS:
            chunks = [pending[i : i + CHUNK] for i in range(0, len(pending), CHUNK)]

            def work(arg):
                k, chunk = arg
                return sweep_chunk(ptxas, target, [(i, *instances[i]) for i in chunk], f"{target}-{k}")

            with ThreadPoolExecutor(max_workers=2) as pool:
                for v in pool.map(work, enumerate(chunks)):
                    for i, msg in v.items():
                        if msg is None or i not in result:
                            result[i] = (target, msg)
                        if msg is not None:
                            messages.setdefault(i, []).append(msg)
            pending = [i for i in pending if result[i][1] is not None]
        accepted = sum(1 for r in result.values() if r[1] is None)
        print(f"round {round_}: {accepted} accepted so far, {len(pending)} rejected, {ptxas.calls} ptxas calls",
              file=sys.stderr)
        if round_ == REPAIR_ROUNDS:
            break
        # Instances ptxas says how to repair (a vector where a scalar is) are
        # tried again, repaired, as instances of their own.
        fresh = []
        per_file = {}
        for i in pending:
            for msg in messages.get(i, []):
                for line in repaired(instances[i][1], msg):
                    name = instances[i][0]
                    if per_file.get(name, 0) >= REPAIRS_PER_FILE:
                        break
                    per_file[name] = per_file.get(name, 0) + 1
                    if line not in seen:
                        seen.add(line)
                        fresh.append(len(instances))
                        instances.append((instances[i][0], line))
        pending = fresh
        if not pending:
            break

    # The accepted instances of a target, all in one module (one kernel per
    # instruction file): what the test reads. Instances that ptxas rejects
    # only beside others there are rejected.
    kernels_dir = os.path.join(OUT, "kernels")
    os.makedirs(kernels_dir, exist_ok=True)
    for f in os.listdir(kernels_dir):
        os.remove(os.path.join(kernels_dir, f))
    for target, _ in TARGETS:
        ids = [i for i in range(len(instances)) if result[i] == (target, None)]
        ids.sort(key=lambda i: (instances[i][0], instances[i][1]))
        items = [(i, *instances[i]) for i in ids]
        v = sweep_chunk(ptxas, target, items, f"final-{target}")
        for i, msg in v.items():
            if msg is not None:
                result[i] = (target, "beside other instances: " + msg)
        kept = [it for it in items if v[it[0]] is None]
        if not kept:
            continue
        text, _ = module(target, [(n, [it[2] for it in g]) for n, g in grouped(kept)])
        with open(os.path.join(kernels_dir, f"{target}-{VERSION[target]}.ptx"), "w") as f:
            f.write(text)

    with open(os.path.join(OUT, "template.ptx"), "w") as f:
        f.write(TEMPLATE)
    rows = []
    for i, (name, inst) in enumerate(instances):
        target, msg = result[i]
        if i >= originals and msg is not None:
            continue  # a repair that did not help
        clean = re.sub(r"^(?:ptxas )?(error|fatal)\s*:\s*", "", (msg or "").replace("\t", " "))[:160]
        rows.append((name, target, VERSION[target], "accepted" if msg is None else "rejected", inst, clean))
    rows.sort()
    with open(os.path.join(OUT, "instances.tsv"), "w") as f:
        f.write("# file\ttarget\tversion\tverdict\tinstance\tptxas's first message\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    counts = {}
    for r in rows:
        key = r[3] if r[3] == "rejected" else f"accepted at {r[1]}"
        counts[key] = counts.get(key, 0) + 1
    files_with = len({r[0] for r in rows if r[3] == "accepted"})
    print(f"verdicts: {dict(sorted(counts.items()))}; {files_with} of {len(spec)} files with an accepted "
          f"instance; {ptxas.calls} ptxas calls", file=sys.stderr)


if __name__ == "__main__":
    main()
