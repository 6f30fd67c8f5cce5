#!/usr/bin/env python3
"""Builds the verify mutation set: single edits of real PTX, each judged by ptxas.

Regenerate (needs the toolchain, `bash scripts/fetch-toolchain.sh`; about a minute):

    python3 scripts/verify-mutations/generate.py

It writes testdata/verify-mutations/mutants.tsv, sorted, one mutant a row:

    kind  file  edit  lines  text  ptxas  verdict  ptxas_line  ptxas_message

* kind: what the edit breaks (or `neutral`: an edit meant to keep the file
  valid). Kinds are named in KINDS below.
* file: the source, relative to the repository root (`../shared/corpus/...`
  or `testdata/...`).
* edit: `replace` (lines A-B, 1-based inclusive, are replaced by text; an
  empty text with `-` deletes them) or `rename` (in lines A-B every register
  whose name is the prefix `FROM` followed by a digit or `<` gets the prefix
  `TO`; text is `FROM>TO`).
* text: `\\n`, `\\t` and `\\\\` are escaped; `-` is the empty text.
* ptxas: the options ptxas ran with: `-arch=` the original file's target
  (ptxas 13.5, or CUDA 12.9's ptxas below sm_75, which CUDA 13 dropped),
  and `-c` for a file that uses functions it does not define.
* verdict: `ok`, `error` or `crash` (ptxas died: no verdict); ptxas_line is the line of ptxas's first error
  (`-` when it names none or accepts), ptxas_message its text.

The sample is deterministic: the smallest file of each kernel of each
compiler (a few per compiler; the one 3.6 MB nvcc file is left out), plus
the valid testdata inputs named in TESTDATA; candidates for each kind are
drawn with a random generator seeded by file and kind.
"""

import concurrent.futures
import hashlib
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CORPUS = os.path.join(ROOT, "..", "shared", "corpus", "public")
OUT = os.path.join(ROOT, "testdata", "verify-mutations", "mutants.tsv")
TOOLCHAIN = os.path.join(ROOT, ".cache", "toolchain")
PTXAS13 = os.path.join(TOOLCHAIN, "nvidia-cuda-nvcc-13.5.37", "ptxas")
PTXAS12 = os.path.join(TOOLCHAIN, "nvidia-cuda-nvcc-cu12-12.9.86", "ptxas")

FILES_PER_COMPILER = 5
PER_KIND = 3  # mutants of each generator per file
TESTDATA = [
    "testdata/examples/narrow_loads.ptx",
    "testdata/parse/async-copies.ptx",
    "testdata/parse/indirect.ptx",
    "testdata/parse/initializers.ptx",
    "testdata/parse/linkage.ptx",
    "testdata/parse/params.ptx",
    "testdata/parse/registers.ptx",
    "testdata/passes/verify/valid-kernel.ptx",
]

KINDS = [
    "unknown-opcode",
    "unknown-modifier",
    "modifier-combination",
    "operand-count",
    "operand-kind",
    "operand-width",
    "vector-size",
    "immediate-range",
    "undeclared-name",
    "double-declaration",
    "state-space",
    "target-required",
    "invalid-header",
    "neutral",
]

INST = re.compile(r"^(\s*)(@!?%[\w$]+\s+)?([a-z][a-zA-Z0-9_.:]*)(\s+(.*?))?\s*;\s*(//.*)?$")
REG_DECL = re.compile(r"^\s*\.reg\s+(\.v\d\s+)?\.(\w+)\s+(.*?);")
LABEL = re.compile(r"^\s*([$\w]+):")
FUNC_START = re.compile(r"^\s*(\.visible\s+|\.extern\s+|\.weak\s+)*\.(entry|func)\b")
WIDTH = {"pred": 1}
for t in ("b", "u", "s", "f"):
    for w in (8, 16, 32, 64):
        WIDTH[f"{t}{w}"] = w
WIDTH["b128"] = 128
WIDTH["f16x2"] = 32
WIDTH["bf16"] = 16
WIDTH["bf16x2"] = 32


def split_operands(text):
    out, depth, cur = [], 0, ""
    for c in text:
        if c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


class Inst:
    def __init__(self, lineno, m):
        self.lineno = lineno
        self.indent, self.guard, self.opcode_full = m.group(1), m.group(2) or "", m.group(3)
        self.operands = split_operands(m.group(5) or "")
        self.words = self.opcode_full.split(".")
        self.op = self.words[0]

    def text(self, opcode=None, operands=None):
        opcode = self.opcode_full if opcode is None else opcode
        operands = self.operands if operands is None else operands
        ops = (" " + ", ".join(operands)) if operands else ""
        return f"{self.indent}{self.guard}{opcode}{ops};"


class Source:
    """A PTX file seen line by line: functions, registers, instructions."""

    def __init__(self, rel, text):
        self.rel, self.text = rel, text
        self.lines = text.split("\n")
        self.insts, self.reg_decls, self.labels, self.functions = [], [], [], []
        self.params, self.module_vars, self.body_vars = [], [], []
        self.families = {}  # prefix -> type
        self.target = re.search(r"^\s*\.target\s+(\w+)", text, re.M).group(1)
        depth, in_sig, fstart = 0, False, None
        for i, line in enumerate(self.lines, 1):
            code = line.split("//")[0]
            if depth == 0 and FUNC_START.match(code):
                in_sig, fstart = True, i
            if in_sig and re.match(r"^\s*\.param\b", code) and depth == 0:
                self.params.append(i)
            if depth == 0 and not in_sig and re.match(r"^\s*(\.visible\s+|\.extern\s+|\.weak\s+)*\.(global|shared|const)\b", code):
                self.module_vars.append(i)
            if "{" in code and depth == 0 and in_sig:
                in_sig = False
            opened = code.count("{")
            closed = code.count("}")
            if depth >= 1:
                m = INST.match(code)
                if m and code.count(";") == 1 and not code.strip().startswith("."):
                    self.insts.append(Inst(i, m))
                if REG_DECL.match(code):
                    self.reg_decls.append(i)
                    m = REG_DECL.match(code)
                    for name in m.group(3).split(","):
                        name = name.strip()
                        fam = re.match(r"(%[A-Za-z_]+)<\d+>", name)
                        if fam and not m.group(1):
                            self.families[fam.group(1)] = m.group(2)
                if LABEL.match(code) and not code.strip().startswith("."):
                    self.labels.append(i)
                if re.match(r"^\s*\.(shared|local)\b", code):
                    self.body_vars.append(i)
            depth += opened - closed
            if depth == 0 and fstart is not None and closed and not in_sig:
                self.functions.append((fstart, i))
                fstart = None

    def reg_width(self, tok):
        m = re.match(r"(%[A-Za-z_]+)\d+$", tok)
        if not m or m.group(1) not in self.families:
            return None
        return WIDTH.get(self.families[m.group(1)])

    def function_of(self, lineno):
        for a, b in self.functions:
            if a <= lineno <= b:
                return a, b
        return None


def is_reg(tok):
    return re.fullmatch(r"%[A-Za-z_]+\d+", tok) is not None


def is_imm(tok):
    return re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)U?", tok) is not None


def replace(inst, new_text):
    return ("replace", inst.lineno, inst.lineno, new_text)


def insert_after(src, lineno, new_line):
    return ("replace", lineno, lineno, src.lines[lineno - 1] + "\n" + new_line)


# Generators: each yields (edit, a, b, text) candidates for one source.


def gen_unknown_opcode(src):
    for inst in src.insts:
        yield replace(inst, inst.text(opcode="frob" + inst.opcode_full[len(inst.op):]))
        yield replace(inst, inst.text(opcode=inst.op + "x" + inst.opcode_full[len(inst.op):]))


def gen_unknown_modifier(src):
    for inst in src.insts:
        if len(inst.words) > 1:
            w = list(inst.words)
            w.insert(1, "zork")
            yield replace(inst, inst.text(opcode=".".join(w)))
            w = list(inst.words)
            w[-1] = w[-1] + "q"
            yield replace(inst, inst.text(opcode=".".join(w)))


WRONG_WORDS = ["rn", "sat", "wide", "hi", "ftz", "approx", "volatile", "uni", "cc", "relaxed", "shared", "s32", "v2"]


def gen_modifier_combination(src):
    for inst in src.insts:
        if len(inst.words) < 2:
            continue
        for word in WRONG_WORDS:
            if word in inst.words:
                continue
            w = list(inst.words)
            w.insert(1, word)
            yield replace(inst, inst.text(opcode=".".join(w)))
        # A modifier twice.
        w = list(inst.words)
        w.insert(1, w[-1])
        yield replace(inst, inst.text(opcode=".".join(w)))


def gen_operand_count(src):
    for inst in src.insts:
        if inst.operands:
            yield replace(inst, inst.text(operands=inst.operands + [inst.operands[-1]]))
        if len(inst.operands) >= 2:
            yield replace(inst, inst.text(operands=inst.operands[:-1]))


def gen_operand_kind(src):
    label_names = [LABEL.match(src.lines[i - 1]).group(1) for i in src.labels]
    param_names = (re.search(r"([A-Za-z_$][\w$]*)\s*(\[\d*\])?\s*,?\s*$", src.lines[i - 1].split("//")[0]) for i in src.params)
    params = [m.group(1) for m in param_names if m]
    for inst in src.insts:
        ops = inst.operands
        for k, op in enumerate(ops):
            def with_op(new):
                return replace(inst, inst.text(operands=ops[:k] + [new] + ops[k + 1:]))

            if is_reg(op):
                yield with_op("7")  # register -> immediate (a destination too)
                yield with_op(f"[{op}]")  # register -> address
                yield with_op(f"{{{op}, {op}}}")  # scalar -> vector
                if label_names:
                    yield with_op(label_names[0])
                if params:
                    yield with_op(params[0])
            elif op.startswith("[") and op.endswith("]"):
                inner = op[1:-1].strip()
                if "," not in inner:
                    yield with_op(inner.split("+")[0])  # address -> register/symbol
            elif is_imm(op):
                if k == 0:
                    continue
                for name in sorted(src.families):
                    w = WIDTH.get(src.families[name])
                    if w in (32, 64):
                        yield with_op(f"[{name}1]")
                        break


def gen_operand_width(src):
    by_width = {}
    for prefix, ty in sorted(src.families.items()):
        w = WIDTH.get(ty)
        if w is not None:
            by_width.setdefault(w, prefix)
    for inst in src.insts:
        for k, op in enumerate(inst.operands):
            w = src.reg_width(op)
            if w is None:
                continue
            for other_w, prefix in sorted(by_width.items()):
                if other_w != w:
                    new = inst.operands[:k] + [f"{prefix}0"] + inst.operands[k + 1:]
                    yield replace(inst, inst.text(operands=new))
            # Inside an address too.
        for k, op in enumerate(inst.operands):
            m = re.fullmatch(r"\[(%[A-Za-z_]+\d+)(.*)\]", op)
            if m and src.reg_width(m.group(1)) == 64:
                for other_w, prefix in sorted(by_width.items()):
                    if other_w in (1, 16):
                        new = inst.operands[:k] + [f"[{prefix}0{m.group(2)}]"] + inst.operands[k + 1:]
                        yield replace(inst, inst.text(operands=new))


def gen_vector_size(src):
    for inst in src.insts:
        words = inst.words
        for i, w in enumerate(words):
            if w in ("v2", "v4", "v8"):
                for other in ("v3", "v8", "v16", "v2", "v4"):
                    if other != w:
                        nw = list(words)
                        nw[i] = other
                        yield replace(inst, inst.text(opcode=".".join(nw)))
                nw = words[:i] + words[i + 1:]
                yield replace(inst, inst.text(opcode=".".join(nw)))
        for k, op in enumerate(inst.operands):
            if op.startswith("{") and op.endswith("}"):
                elems = split_operands(op[1:-1])
                if len(elems) >= 2:
                    for new in (elems[:-1], elems + [elems[-1]]):
                        ops = inst.operands[:k] + ["{" + ", ".join(new) + "}"] + inst.operands[k + 1:]
                        yield replace(inst, inst.text(operands=ops))
        if inst.op in ("ld", "st") and not any(w.startswith("v") and w[1:].isdigit() for w in words):
            nw = words[:-1] + ["v2", words[-1]]
            yield replace(inst, inst.text(opcode=".".join(nw)))


def gen_immediate_range(src):
    for inst in src.insts:
        for k, op in enumerate(inst.operands):
            if k == 0:
                continue
            ops = inst.operands
            if is_imm(op) or re.fullmatch(r"0[fFdD][0-9a-fA-F]+", op):
                for new in ("0x1FFFFFFFFFFFFFFFF", "4294967296", "-4294967297", "65536", "1.5", "0d3FF8000000000000", "0f7F8000001", "0f3FC00000"):
                    yield replace(inst, inst.text(operands=ops[:k] + [new] + ops[k + 1:]))
            m = re.fullmatch(r"\[(.*?)\+(-?\d+)\]", op)
            if m:
                for off in ("99999999999999999999", "4294967296"):
                    yield replace(inst, inst.text(operands=ops[:k] + [f"[{m.group(1)}+{off}]"] + ops[k + 1:]))


def gen_undeclared_name(src):
    for inst in src.insts:
        ops = inst.operands
        for k, op in enumerate(ops):
            def with_op(new):
                return replace(inst, inst.text(operands=ops[:k] + [new] + ops[k + 1:]))

            if is_reg(op):
                yield with_op("%nosuch0")
                yield with_op(re.sub(r"\d+$", "99999", op))  # beyond its family
            m = re.fullmatch(r"\[([A-Za-z_$][\w$]*)(\+\d+)?\]", op)
            if m:
                yield with_op(f"[nosuch_var{m.group(2) or ''}]")
            if re.fullmatch(r"[A-Za-z_][\w$]*", op) and inst.op in ("mov", "cvta", "call"):
                yield with_op("nosuch_sym")
            if inst.op == "bra" and k == len(ops) - 1:
                yield with_op("$L__nosuch")
        if inst.guard:
            g = re.match(r"@(!?)(%[\w$]+)", inst.guard)
            yield replace(inst, f"{inst.indent}@{g.group(1)}%nosuchp {inst.text()[len(inst.indent) + len(inst.guard):]}")
    for lineno in src.labels:
        line = src.lines[lineno - 1]
        name = LABEL.match(line).group(1)
        # The label is used elsewhere but no longer placed.
        if src.text.count(name) > 1:
            yield ("replace", lineno, lineno, line.replace(name + ":", name + "_moved:", 1))


def gen_double_declaration(src):
    for lineno in src.reg_decls:
        yield insert_after(src, lineno, src.lines[lineno - 1])
        m = REG_DECL.match(src.lines[lineno - 1])
        fam = re.match(r"(%[A-Za-z_]+)<(\d+)>", m.group(3).strip())
        if fam and int(fam.group(2)) > 1:
            yield insert_after(src, lineno, f"\t.reg .{m.group(2)} {fam.group(1)}1;")
    for lineno in src.labels:
        yield insert_after(src, lineno, src.lines[lineno - 1].split("//")[0].rstrip())
    for lineno in src.body_vars + src.module_vars:
        yield insert_after(src, lineno, src.lines[lineno - 1])
    for lineno in src.params:
        line = src.lines[lineno - 1].split("//")[0].rstrip()
        if line.endswith(","):
            yield insert_after(src, lineno, line)
        else:
            yield ("replace", lineno, lineno, line + ",\n" + line)


SPACE_SWAPS = {
    "ld": ["global", "shared", "local", "const", "param"],
    "st": ["global", "shared", "local", "const", "param"],
    "atom": ["global", "shared", "local", "const", "param"],
    "red": ["global", "shared", "local", "const"],
    "cvta": ["global", "shared", "local", "const", "param"],
    "ldu": ["global", "shared"],
    "prefetch": ["global", "local", "shared"],
}
SPACES = {"global", "shared", "local", "const", "param", "generic"}


def gen_state_space(src):
    for inst in src.insts:
        if inst.op not in SPACE_SWAPS:
            continue
        words = inst.words
        idx = next((i for i, w in enumerate(words) if w in SPACES), None)
        for space in SPACE_SWAPS[inst.op]:
            if idx is not None:
                if words[idx] == space:
                    continue
                nw = list(words)
                nw[idx] = space
            else:
                pos = 2 if inst.op == "cvta" and len(words) > 1 and words[1] == "to" else 1
                nw = words[:pos] + [space] + words[pos:]
            yield replace(inst, inst.text(opcode=".".join(nw)))


NEWER = [
    "wgmma.fence.sync.aligned;",
    "griddepcontrol.wait;",
    "fence.proxy.async;",
    "setmaxnreg.inc.sync.aligned.u32 240;",
    "nanosleep.u32 100;",
    "elect.sync _|%nosuchp, 0xffffffff;",
    "barrier.cluster.arrive;",
    "cp.async.commit_group;",
]


def gen_target_required(src):
    m = re.search(r"^(\s*\.target\s+)(sm_\d+)(\w*)(.*)$", src.text, re.M)
    lineno = src.text[: m.start()].count("\n") + 1
    for lower in ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89"):
        if int(lower[3:]) < int(m.group(2)[3:]):
            yield ("replace", lineno, lineno, m.group(1) + lower + m.group(4))
    v = re.search(r"^(\s*\.version\s+)(\d+)\.(\d+)(.*)$", src.text, re.M)
    vline = src.text[: v.start()].count("\n") + 1
    for lower in ("4.0", "6.0", "6.3", "7.0", "7.4", "7.8", "8.0"):
        if tuple(map(int, lower.split("."))) < (int(v.group(2)), int(v.group(3))):
            yield ("replace", vline, vline, v.group(1) + lower + v.group(4))
    for inst in src.insts[:1] + src.insts[-1:]:
        for new in NEWER:
            if "%nosuchp" in new:
                continue
            yield ("replace", inst.lineno, inst.lineno, inst.indent + new + "\n" + src.lines[inst.lineno - 1])


def gen_invalid_header(src):
    t = re.search(r"^(\s*\.target\s+)(\w+)(.*)$", src.text, re.M)
    tline = src.text[: t.start()].count("\n") + 1
    for bad in ("sm_800", "sm_13", "sm_xyz", "compute_80x", "sm_80,sm_90"):
        yield ("replace", tline, tline, t.group(1) + bad + t.group(3))
    v = re.search(r"^(\s*\.version\s+)(\S+)(.*)$", src.text, re.M)
    vline = src.text[: v.start()].count("\n") + 1
    for bad in ("99.0", "1.0", "8", "9.99", "0.1"):
        yield ("replace", vline, vline, v.group(1) + bad + v.group(3))
    a = re.search(r"^(\s*\.address_size\s+)(\S+)(.*)$", src.text, re.M)
    if a:
        aline = src.text[: a.start()].count("\n") + 1
        for bad in ("48", "16", "128"):
            yield ("replace", aline, aline, a.group(1) + bad + a.group(3))


COMMUTATIVE = {"add", "mul", "and", "or", "xor", "min", "max"}


def gen_neutral(src):
    for prefix in sorted(src.families):
        fn = None
        for a, b in src.functions:
            if any(REG_DECL.match(src.lines[i - 1]) and prefix + "<" in src.lines[i - 1] for i in range(a, b + 1)):
                fn = (a, b)
                break
        if fn and ("%z" + prefix[1:]) not in src.text:
            yield ("rename", fn[0], fn[1], f"{prefix}>%z{prefix[1:]}")
    for inst in src.insts:
        ops = inst.operands
        if inst.op in COMMUTATIVE and len(ops) == 3 and "cc" not in inst.words:
            yield replace(inst, inst.text(operands=[ops[0], ops[2], ops[1]]))
        for k, op in enumerate(ops):
            if k > 0 and re.fullmatch(r"\d+", op) and int(op) < 1000:
                yield replace(inst, inst.text(operands=ops[:k] + [str(int(op) + 1)] + ops[k + 1:]))
        yield ("replace", inst.lineno, inst.lineno, src.lines[inst.lineno - 1] + " // a comment")
        yield ("replace", inst.lineno, inst.lineno, inst.indent + "/* c */ " + inst.text().lstrip())
        yield replace(inst, inst.text().replace(", ", " ,  "))
        for alt in (("u32", "b32"), ("u64", "b64"), ("s32", "b32"), ("u16", "b16")):
            if inst.op in ("mov", "ld", "st") and alt[0] in inst.words:
                yield replace(inst, inst.text(opcode=inst.opcode_full.replace("." + alt[0], "." + alt[1])))
        if inst.op == "add" and "u32" in inst.words:
            yield replace(inst, inst.text(opcode=inst.opcode_full.replace(".u32", ".s32")))
    for i in src.reg_decls:
        if i + 1 in src.reg_decls:
            yield ("replace", i, i + 1, src.lines[i] + "\n" + src.lines[i - 1])


GENERATORS = {
    "unknown-opcode": gen_unknown_opcode,
    "unknown-modifier": gen_unknown_modifier,
    "modifier-combination": gen_modifier_combination,
    "operand-count": gen_operand_count,
    "operand-kind": gen_operand_kind,
    "operand-width": gen_operand_width,
    "vector-size": gen_vector_size,
    "immediate-range": gen_immediate_range,
    "undeclared-name": gen_undeclared_name,
    "double-declaration": gen_double_declaration,
    "state-space": gen_state_space,
    "target-required": gen_target_required,
    "invalid-header": gen_invalid_header,
    "neutral": gen_neutral,
}
# Kinds whose candidates are few per file and all worth keeping.
PER_KIND_OVERRIDE = {"invalid-header": 4, "target-required": 5, "neutral": 8, "state-space": 5, "double-declaration": 4, "undeclared-name": 4}


def sample_files():
    by_kernel = {}
    for name in sorted(os.listdir(CORPUS)):
        if not name.endswith(".ptx"):
            continue
        parts = name.split("__")
        compiler, kernel = parts[0], "__".join(parts[1:-1])
        size = os.path.getsize(os.path.join(CORPUS, name))
        if size > 200_000:
            continue
        key = (compiler, kernel)
        if key not in by_kernel or size < by_kernel[key][0]:
            by_kernel[key] = (size, name)
    per_compiler = {}
    for (compiler, _), (size, name) in sorted(by_kernel.items()):
        per_compiler.setdefault(compiler, []).append((size, name))
    files = []
    for compiler, entries in sorted(per_compiler.items()):
        for _, name in sorted(entries)[:FILES_PER_COMPILER]:
            files.append("../shared/corpus/public/" + name)
    return files + TESTDATA


def apply(lines, edit, a, b, text):
    if edit == "replace":
        new = [] if text == "" else text.split("\n")
        return lines[: a - 1] + new + lines[b:]
    frm, to = text.split(">")
    pat = re.compile(r"(?<![\w$])" + re.escape(frm) + r"(?=[0-9<])")
    return lines[: a - 1] + [pat.sub(to, line) for line in lines[a - 1: b]] + lines[b:]


def escape(s):
    return "-" if s == "" else s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


def arch_for(target):
    return target


def ptxas_for(arch):
    n = int(re.match(r"sm_(\d+)", arch).group(1))
    return PTXAS12 if n < 75 else PTXAS13


ERROR = re.compile(r"^ptxas [^,]*, line (\d+); (?:error|fatal)\s*:\s*(.*)$")
FATAL = re.compile(r"^ptxas (?:fatal|error)\s*:\s*(.*)$")


def judge(text, arch, opts=()):
    with tempfile.TemporaryDirectory(prefix="verify-mutations-") as d:
        with open(os.path.join(d, "in.ptx"), "w") as f:
            f.write(text)
        p = subprocess.run([ptxas_for(arch), f"-arch={arch}", *opts, "-o", "/dev/null", "in.ptx"], cwd=d, capture_output=True, text=True)
    if p.returncode == 0:
        return "ok", "-", "-"
    if p.returncode < 0:
        return "crash", "-", f"ptxas died of signal {-p.returncode}"
    out = (p.stdout + p.stderr).splitlines()
    for line in out:
        m = ERROR.match(line)
        if m:
            return "error", m.group(1), m.group(2).strip()
    for line in out:
        m = FATAL.match(line)
        if m and "aborted due to errors" not in m.group(1):
            return "error", "-", m.group(1).strip()
    return "error", "-", (out[0] if out else f"exit status {p.returncode}").strip()


def main():
    jobs = []
    for rel in sample_files():
        with open(os.path.join(ROOT, rel)) as f:
            text = f.read()
        src = Source(rel, text)
        arch = arch_for(src.target)
        # A file that declares functions it does not define is judged as
        # ptxas judges a separately compiled unit (-c), as its original is.
        opts = ()
        if judge(text, arch)[0] != "ok":
            opts = ("-c",)
            if judge(text, arch, opts)[0] != "ok":
                sys.exit(f"{rel}: ptxas rejects the original")
        for kind in KINDS:
            cands = []
            seen = set()
            for c in GENERATORS[kind](src):
                if c not in seen and not (c[0] == "replace" and c[3] == "\n".join(src.lines[c[1] - 1: c[2]])):
                    seen.add(c)
                    cands.append(c)
            rng = random.Random(hashlib.sha256(f"{rel}:{kind}".encode()).hexdigest())
            n = PER_KIND_OVERRIDE.get(kind, PER_KIND)
            for c in sorted(rng.sample(cands, min(n, len(cands)))):
                jobs.append((kind, rel, arch, opts, c, "\n".join(apply(src.lines, *c))))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        verdicts = list(pool.map(lambda j: judge(j[5], j[2], j[3]), jobs))
    rows = set()
    for (kind, rel, arch, opts, (edit, a, b, text), _), (verdict, line, msg) in zip(jobs, verdicts):
        rows.add((kind, rel, edit, f"{a}-{b}", escape(text), " ".join((f"-arch={arch}",) + opts), verdict, line, escape(msg)))
    rows = sorted(rows)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("kind\tfile\tedit\tlines\ttext\tptxas\tverdict\tptxas_line\tptxas_message\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    counts = {}
    for r in rows:
        c = counts.setdefault(r[0], [0, 0])
        c[0 if r[6] == "ok" else 1] += 1
    for k in KINDS:
        ok, err = counts.get(k, [0, 0])
        print(f"{k:22} {ok:4} accepted {err:4} rejected", file=sys.stderr)
    print(f"{len(rows)} mutants -> {os.path.relpath(OUT, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
