#!/usr/bin/env python3
"""Which modifier words ptxas 13.5 accepts on each opcode although they mean
nothing there (it ignores them): `or.infinite.b32`, `add.s32.pred`,
`mov.b8x16.u32` are accepted, `add.bogus.s32` and `add.nc.s32` are not.

    python3 scripts/isa-leniency/probe.py [--ptxas PATH] [--vocabulary FILE]
        [--forms FILE] [--only OP,...] [--details FILE] [--dry]

Writes crates/ptx-isa/isa/01-ptxas-leniency.ptxisa: a `#` header, then one
`ignored OPCODE: .w1 .w2 ...` line per opcode with ignored words, sorted.
--details writes every measurement as JSON (default: a file in the temporary
directory, named on stderr); --only measures some opcodes and writes no
description file; --dry lists the bases and runs no ptxas. It needs no
network. It takes about 3 minutes on two cores (more on a busy machine), of
which ptxas takes most (about 5,600 runs).

What is measured. The candidate words are those of /work/isa_vocabulary.txt
(or --vocabulary; one word a line, without the dot: types, state spaces,
rounding modes, comparison operators, ... and the bogus word `bogus`). The
instructions are the accepted rows of testdata/isa-sweep/instances.tsv
(ptxas 13.5's verdicts on instances of every form of the ISA text), with
their target and PTX version, in the module of testdata/isa-sweep/template.ptx
(it declares every register and symbol the instances use); `shfl` and `vote`,
of which the sweep has no accepted instance, take the hand-written bases of
EXTRA_BASES.

How. For each opcode (the first dotted word), up to BASES_PER_OPCODE bases,
from the unguarded, normally spaced instances: the simplest (fewest
modifiers, register operands, shortest), then, fewest modifiers first, one
of a family not yet chosen (the first modifier word; a type counts as its
class: integer, float, pred), else of a head not yet chosen, preferring the
one that adds the most new words and type classes. Each base alone must be
accepted in the module, else it is dropped. For each base and
each word W, the variant has `.W` appended to the dotted head (`add.s32 d, a,
b;` -> `add.s32.W d, a, b;`). The variants go to ptxas (`-arch=<the base's
target> -o /dev/null`, at most two at a time) in modules of about CHUNK
lines, one variant a line, one kernel per base (a kernel cannot mix
`.cta_group::1` and `::2`, so variants naming `cta_group::2` get a kernel of
their own); the lines ptxas names in an error are rejected and the rest tried
again until ptxas accepts the whole module: those are accepted. A syntax
error (`fatal : Parsing error`) stops ptxas at that line (the errors before
it are still reported), so the words that were fatal on a reference base go
first in each module, and each run rejects at least the fatal line. A failure
that names no variant line (a crash) is bisected. Warnings are recorded by
line and compared with the base's own. The words `ptxisa:N` (265 of them,
cross-reference anchors of the text) are one lexical class, `.ptxisa` then
`:N`, a syntax error wherever it stands: each base tries three of them
(CLASS_REPRESENTATIVES) and the class takes their verdict (every one is tried
on a base that accepts any of the three); the reference base tries every one,
to check the class.

Then every target's accepted variants are compiled together in one module
(again until ptxas accepts it); a variant rejected only there is reported and
counts as rejected. A word is accepted on an opcode if every base of the
opcode accepts it; it is ignored if besides it is none of the opcode's own
words: those of its forms in the description, as printed by
`cargo run -q -p ptx-isa --example isa_forms` (each `.word` and each
`name={w1|w2}` of a form; --forms reads that output from a file). Last,
whether the place of the word matters: each base's accepted words are tried
again right after the opcode name (`add.W.s32`) and right after the first
modifier (`ld.volatile.W.u16`), and for the first base of POSITION_OPCODES
every word is; --details lists the verdicts that differ.
"""
import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SWEEP = os.path.join(ROOT, "testdata", "isa-sweep")
OUT_FILE = os.path.join(ROOT, "crates", "ptx-isa", "isa", "01-ptxas-leniency.ptxisa")
DEFAULT_PTXAS = os.path.join(ROOT, ".cache", "toolchain", "nvidia-cuda-nvcc-13.5.37", "ptxas")
DEFAULT_VOCABULARY = "/work/isa_vocabulary.txt"

BASES_PER_OPCODE = 3
CHUNK = 3000
JOBS = 2
REFERENCE = "add.s32 %s32_0, %s32_1, %s32_2;"
CLASS_RE = re.compile(r"ptxisa:\d+")
CLASS_REPRESENTATIVES = ("ptxisa:3", "ptxisa:10", "ptxisa:541")
POSITION_OPCODES = ("add", "ld", "st", "cvt", "mov", "setp", "atom", "fma", "mbarrier", "tcgen05", "wgmma",
                    "tex", "bar", "fence", "cp")
# Opcodes of which the sweep accepted no instance: (target, version, line).
EXTRA_BASES = {
    "shfl": [("sm_100a", "9.5", "shfl.sync.idx.b32 %b32_0, %b32_1, %b32_2, %b32_3, %b32_4;"),
             ("sm_100a", "9.5", "shfl.sync.bfly.b32 %b32_0|%pred_0, %b32_1, %b32_2, %b32_3, %b32_4;")],
    "vote": [("sm_100a", "9.5", "vote.sync.all.pred %pred_0, %pred_1, %b32_0;"),
             ("sm_100a", "9.5", "vote.sync.ballot.b32 %b32_0, %pred_1, %b32_1;")],
}

TYPE_CLASS = [
    (re.compile(r"[su]\d+(x\d+)?|b\d+(x\d+)?"), "int"),
    (re.compile(r"f\d+(x\d+)?|bf16(x2)?|tf32|e\dm\d(x\d)?|ue\dm\d(x\d)?|s2f6x2"), "float"),
    (re.compile(r"pred"), "pred"),
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- instances

def split_instance(line):
    """(guard, head, rest): `@p add.s32 d, a;` -> ('@p ', 'add.s32', ' d, a;')."""
    m = re.match(r"(@!?%?\w+\s+)?([^\s;]+)(.*)$", line)
    return m.group(1) or "", m.group(2), m.group(3)


def head_words(head):
    """`ld.global.L2::64B.f32` -> ['global', 'L2::64B', 'f32'] (`::` stays in its word)."""
    return head.split(".")[1:]


def family(words):
    if not words:
        return ""
    w = words[0]
    for rx, cls in TYPE_CLASS:
        if rx.fullmatch(w):
            return "type:" + cls
    return w


def simplicity(line):
    """Sort key: unguarded, normally spaced, fewest modifiers, register
    operands, shortest."""
    guard, head, rest = split_instance(line)
    tight = bool(re.match(r"\s{2,}", rest)) or bool(re.search(r",\S", rest))
    args = rest.strip().rstrip(";").split(",")
    literal = bool(args[-1].strip()) and args[-1].strip()[0] not in "%{["
    return (bool(guard), tight, len(head_words(head)), literal, len(line), line)


def novelty(line, chosen):
    """How many head words (and type classes) `line` adds to those of `chosen`."""
    seen = {w for r in chosen for w in head_words(split_instance(r[2])[1])}
    classes = {family([w]) for w in seen}
    ws = head_words(split_instance(line)[1])
    return len(set(ws) - seen) + len({family([w]) for w in ws if family([w]).startswith("type:")} - classes)


def choose_bases(rows):
    """{opcode: [(target, version, line)]}: up to BASES_PER_OPCODE bases each:
    the simplest instance, then, fewest modifiers first, instances of new
    families (else new heads), those adding the most new words first."""
    by_op = {}
    for target, version, line in rows:
        guard, head, _ = split_instance(line)
        if guard:
            continue
        op = head.split(".")[0]
        by_op.setdefault(op, []).append((target, version, line))
    bases = {}
    for op, insts in sorted(by_op.items()):
        insts = sorted(set(insts), key=lambda r: simplicity(r[2]))
        if any(not simplicity(r[2])[1] for r in insts):
            insts = [r for r in insts if not simplicity(r[2])[1]]
        chosen = [insts[0]]
        while len(chosen) < BASES_PER_OPCODE:
            heads = {split_instance(r[2])[1] for r in chosen}
            fams = {family(head_words(split_instance(r[2])[1])) for r in chosen}
            pool = [r for r in insts if split_instance(r[2])[1] not in heads]
            if not pool:
                break
            fresh = [r for r in pool if family(head_words(split_instance(r[2])[1])) not in fams]
            pool = fresh or pool
            best = min(pool, key=lambda r: (simplicity(r[2])[2], -novelty(r[2], chosen), simplicity(r[2])))
            chosen.append(best)
        bases[op] = chosen
    for op, extra in EXTRA_BASES.items():
        if op not in bases:
            bases[op] = list(extra)
    return bases


def variant(line, word, at=None):
    """The line with `.word` after its `at` first modifiers (None: after all)."""
    guard, head, rest = split_instance(line)
    parts = head.split(".")
    k = len(parts) if at is None else 1 + at
    return guard + ".".join(parts[:k] + [word] + parts[k:]) + rest


# ---------------------------------------------------------------- ptxas

class Module:
    def __init__(self, template):
        i = template.index(".visible .entry sweep")
        j = template.index("@INSTANCES@")
        self.head = template[:i]
        self.kernel_head = template[i:j]
        self.tail = template[j + len("@INSTANCES@"):]

    def text(self, target, version, kernels):
        """(text, {line number: item}) for kernels [(name, [item])], items
        having .line."""
        text = self.head.replace("@VERSION@", version).replace("@TARGET@", target)
        where = {}
        n = text.count("\n")
        for name, items in kernels:
            kh = self.kernel_head.replace(".entry sweep", ".entry " + name)
            text += kh
            n += kh.count("\n")
            for it in items:
                text += it.line + "\n"
                n += 1
                where[n] = it
            text += self.tail.lstrip("\n")
            n += self.tail.lstrip("\n").count("\n")
        return text, where


class Item:
    __slots__ = ("id", "base", "word", "front", "line", "first", "verdict", "warnings")

    def __init__(self, id_, base, word, front, line, first=False):
        self.id, self.base, self.word, self.front, self.line, self.first = id_, base, word, front, line, first
        self.verdict = None  # None: pending; "" accepted; else the message
        self.warnings = set()


class Ptxas:
    def __init__(self, path, module):
        self.path = path
        self.module = module
        self.calls = 0
        self.dir = tempfile.mkdtemp(prefix="isa-leniency-")

    def run(self, text, target, tag):
        f = os.path.join(self.dir, f"{tag}.ptx")
        with open(f, "w") as out:
            out.write(text)
        self.calls += 1
        try:
            p = subprocess.run([self.path, f"-arch={target}", "-o", "/dev/null", f], capture_output=True,
                               text=True, timeout=600)
            out = p.stdout + p.stderr
            if p.returncode < 0:
                out += f"\nptxas crashed (signal {-p.returncode})"
            ok = p.returncode == 0
        except subprocess.TimeoutExpired:
            ok, out = False, "ptxas timed out"
        os.remove(f)
        return ok, out

    def solve(self, target, version, items, tag):
        """Sets every item's verdict: "" if accepted, else ptxas's message.
        Items with .first go first in the module (suspected syntax errors)."""

        def kernels_of(live):
            groups = {}
            for it in live:
                key = (0 if it.first else 1, it.base, "cg2" if "cta_group::2" in it.line else "")
                groups.setdefault(key, []).append(it)
            return [(f"k{i}", g) for i, (_, g) in enumerate(sorted(groups.items(), key=lambda kv: kv[0]))]

        def go(live):
            while live:
                text, where = self.module.text(target, version, kernels_of(live))
                ok, out = self.run(text, target, tag)
                for l in out.splitlines():
                    m = re.search(r"\.ptx, line (\d+); warning\s*:\s*(.*)", l)
                    if m and int(m.group(1)) in where:
                        where[int(m.group(1))].warnings.add(m.group(2).strip())
                if ok:
                    for it in live:
                        it.verdict = ""
                    return
                bad = {}
                for l in out.splitlines():
                    m = re.search(r"\.ptx, line (\d+); (error|fatal)\s*:\s*(.*)", l)
                    if m and int(m.group(1)) in where:
                        it = where[int(m.group(1))]
                        # A syntax error (fatal) wins over the errors before it.
                        if it.id not in bad or m.group(2) == "fatal":
                            bad[it.id] = (it, m.group(3).strip())
                if not bad:
                    if len(live) == 1:
                        live[0].verdict = first_message(out)
                        return
                    half = len(live) // 2
                    go(live[:half])
                    go(live[half:])
                    return
                for it, msg in bad.values():
                    it.verdict = msg
                live = [it for it in live if it.id not in bad]

        go(list(items))


def first_message(out):
    for l in out.splitlines():
        if "error" in l or "fatal" in l or "crashed" in l or "timed out" in l:
            return re.sub(r"^ptxas [^;]*; ", "", l).strip()
    return (out.strip().splitlines() or ["rejected"])[0]


def sweep(ptxas, items, bases, tag):
    """Runs items (of bases {bid: (op, target, version, line)}) in chunks per target."""
    by_target = {}
    for it in items:
        _, target, version, _ = bases[it.base]
        by_target.setdefault((target, version), []).append(it)
    jobs = []
    for (target, version), its in sorted(by_target.items()):
        # Chunks hold whole bases where they can (one kernel per base).
        its.sort(key=lambda it: (it.base, it.id))
        chunk = []
        for it in its:
            if len(chunk) >= CHUNK and chunk[-1].base != it.base:
                jobs.append((target, version, chunk))
                chunk = []
            chunk.append(it)
        if chunk:
            jobs.append((target, version, chunk))

    def work(arg):
        k, (target, version, chunk) = arg
        ptxas.solve(target, version, chunk, f"{tag}-{k}")

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        list(pool.map(work, enumerate(jobs)))


# ---------------------------------------------------------------- own words

def own_words(forms_text):
    """{opcode: set of words} from isa_forms's output."""
    own = {}
    op = None
    for line in forms_text.splitlines():
        m = re.match(r"opcode (\S+)", line)
        if m:
            op = m.group(1)
            own.setdefault(op, set())
            continue
        if op is None or not line.startswith("  ") or line.strip() == "(no forms)":
            continue
        slots = line.strip().split(" ", 1)[0]
        for m in re.finditer(r"\.([\w:]+)=\{([^}]*)\}", slots):
            own[op].update(w for w in m.group(2).split("|") if w)
        rest = re.sub(r"\.([\w:]+)=\{([^}]*)\}", "", slots)
        for m in re.finditer(r"\.([A-Za-z0-9_:]+)", rest):
            own[op].add(m.group(1))
    return own


def read_forms(path):
    if path:
        return open(path).read()
    p = subprocess.run(["cargo", "run", "-q", "-p", "ptx-isa", "--example", "isa_forms"], cwd=ROOT,
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"isa_forms failed:\n{p.stderr}")
    return p.stdout


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ptxas", default=DEFAULT_PTXAS)
    ap.add_argument("--vocabulary", default=DEFAULT_VOCABULARY)
    ap.add_argument("--forms", default="", help="isa_forms output saved in a file (default: run it)")
    ap.add_argument("--only", default="")
    ap.add_argument("--details", default="")
    ap.add_argument("--dry", action="store_true")
    args = ap.parse_args()
    t0 = time.time()

    words = [w.strip().lstrip(".") for w in open(args.vocabulary) if w.strip()]
    words = list(dict.fromkeys(words))
    class_words = [w for w in words if CLASS_RE.fullmatch(w)]
    reps = [w for w in CLASS_REPRESENTATIVES if w in class_words] or class_words[:1]
    plain = [w for w in words if not CLASS_RE.fullmatch(w)]
    own = own_words(read_forms(args.forms))

    rows = []
    with open(os.path.join(SWEEP, "instances.tsv")) as f:
        for l in f:
            if l.startswith("#"):
                continue
            c = l.rstrip("\n").split("\t")
            if len(c) >= 5 and c[3] == "accepted":
                rows.append((c[1], c[2], c[4]))
    only = set(filter(None, args.only.split(",")))
    chosen = choose_bases(rows)
    if only:
        chosen = {op: b for op, b in chosen.items() if op in only}
    missing = sorted(set(chosen) - set(own))
    if missing:
        log(f"opcodes the description does not know (skipped): {missing}")
        for op in missing:
            del chosen[op]
    if args.dry:
        for op, bs in chosen.items():
            for target, version, line in bs:
                print(f"{op}\t{target}\t{version}\t{line}")
        return

    module = Module(open(os.path.join(SWEEP, "template.ptx")).read())
    ptxas = Ptxas(args.ptxas, module)
    bases = {}  # bid -> (op, target, version, line)
    for op, bs in chosen.items():
        for target, version, line in bs:
            bases[len(bases)] = (op, target, version, line)
    ref = len(bases)
    bases[ref] = ("add", "sm_100a", "9.5", REFERENCE)

    ids = iter(range(10 ** 9))

    # 1. The bases alone, and the reference base with every word: its fatal
    # words go first in every module after.
    base_items = [Item(next(ids), b, None, None, bases[b][3]) for b in bases]
    sweep(ptxas, base_items, bases, "bases")
    base_warn = {it.base: it.warnings for it in base_items}
    dropped = {bases[it.base][3]: it.verdict for it in base_items if it.verdict}
    for it in base_items:
        if it.verdict:
            log(f"base rejected, dropped: {it.line}: {it.verdict}")
            del bases[it.base]
    ref_items = [Item(next(ids), ref, w, None, variant(REFERENCE, w)) for w in words]
    sweep(ptxas, ref_items, bases, "reference")
    fatal_words = {it.word for it in ref_items if it.verdict and "Parsing error" in it.verdict}
    class_verdicts = {it.word: it.verdict for it in ref_items if it.word in class_words}
    log(f"reference: {len(fatal_words)} words are syntax errors on `{REFERENCE}` "
        f"({sum(1 for w in fatal_words if CLASS_RE.fullmatch(w))} of the class ptxisa:N); "
        f"{time.time() - t0:.0f}s, {ptxas.calls} ptxas calls")

    # 2. Every base with every word (the class: its representatives).
    items = []
    for b, (op, target, version, line) in bases.items():
        if b == ref:
            continue
        for w in plain + reps:
            items.append(Item(next(ids), b, w, None, variant(line, w), first=w in fatal_words))
    sweep(ptxas, items, bases, "sweep")
    # The class where its representatives disagree or are accepted: every word.
    again = []
    for b in bases:
        if b == ref:
            continue
        vs = [it.verdict for it in items if it.base == b and it.word in reps]
        if any(v == "" for v in vs):
            for w in class_words:
                if w not in reps:
                    again.append(Item(next(ids), b, w, None, variant(bases[b][3], w), first=True))
    if again:
        log(f"the class ptxisa:N is tried whole on {len({it.base for it in again})} bases")
        sweep(ptxas, again, bases, "class")
    items += again
    log(f"sweep: {len(items)} variants, {sum(1 for it in items if it.verdict == '')} accepted; "
        f"{time.time() - t0:.0f}s, {ptxas.calls} ptxas calls")

    # 3. Every target's accepted variants together.
    accepted = [it for it in items if it.verdict == ""]
    together = [Item(it.id, it.base, it.word, None, it.line) for it in accepted]
    sweep(ptxas, together, bases, "together")
    beside = {}
    for it, t in zip(accepted, together):
        it.warnings |= t.warnings
        if t.verdict:
            beside[it.line] = t.verdict
            it.verdict = "beside other variants: " + t.verdict
    log(f"together: {len(together)} variants, {len(beside)} rejected beside others; "
        f"{time.time() - t0:.0f}s, {ptxas.calls} ptxas calls")

    # 4. Position: accepted words right after the opcode name and right after
    # the first modifier (where there are two); every word for the first base
    # of POSITION_OPCODES.
    first_base = {}
    for b, (op, *_rest) in bases.items():
        if b != ref:
            first_base.setdefault(op, b)
    front = []
    for it in items:
        if it.verdict == "" or (bases[it.base][0] in POSITION_OPCODES and first_base[bases[it.base][0]] == it.base):
            n = len(head_words(split_instance(bases[it.base][3])[1]))
            for at in range(min(n - 1, 1) + 1) if n else ():
                front.append(Item(next(ids), it.base, it.word, at, variant(bases[it.base][3], it.word, at),
                                  first=it.word in fatal_words))
    sweep(ptxas, front, bases, "front")
    end_verdict = {(it.base, it.word): it.verdict for it in items}
    position = []
    for it in front:
        a, f = end_verdict[(it.base, it.word)] == "", it.verdict == ""
        if a != f:
            position.append({"base": bases[it.base][3], "word": it.word, "after_modifiers": it.front,
                             "variant": it.line, "at_end": end_verdict[(it.base, it.word)], "there": it.verdict})
    log(f"position: {len(front)} variants after the opcode name, {len(position)} differ; "
        f"{time.time() - t0:.0f}s, {ptxas.calls} ptxas calls")

    # 5. Per opcode: words every base accepts; ignored = not its own.
    verdict = {}
    warnings = {}
    for it in items:
        w = it.word
        ws = [w] if w not in reps else class_words
        for x in ws:
            if (it.base, x) in verdict and x != w:
                continue
            verdict[(it.base, x)] = it.verdict
        new = sorted(it.warnings - base_warn.get(it.base, set()))
        if new and it.verdict == "":
            warnings[(it.base, w)] = new
    ops = {}
    for b, (op, *_rest) in bases.items():
        if b != ref:
            ops.setdefault(op, []).append(b)
    result, partial = {}, {}
    # Words every probed base of an opcode accepts that a family the bases
    # miss rejects (checked by hand on 30 instructions outside the sweep):
    # ptxas takes a narrow type word after mma's own types only for some
    # type combinations (rejected on a bf16 mma). Not listed as ignored.
    family_specific = {"mma": {"b2", "bf16x2", "s2", "u2"}}
    for op, bs in sorted(ops.items()):
        acc = [w for w in words if all(verdict.get((b, w)) == "" for b in bs)]
        some = [w for w in words if any(verdict.get((b, w)) == "" for b in bs) and w not in acc]
        result[op] = {"bases": [bases[b][3] for b in bs],
                      "accepted": acc,
                      "ignored": sorted(w for w in acc if w not in own.get(op, set())
                                        and w not in family_specific.get(op, set())),
                      "own_accepted": sorted(w for w in acc if w in own.get(op, set()))}
        partial[op] = {w: [bases[b][3] for b in bs if verdict.get((b, w)) == ""] for w in some}

    elapsed = time.time() - t0
    details = {
        "ptxas": args.ptxas, "seconds": round(elapsed), "ptxas_calls": ptxas.calls,
        "words": len(words), "fatal_on_reference": sorted(fatal_words),
        "class_on_reference": {"accepted": sorted(w for w, v in class_verdicts.items() if v == ""),
                               "messages": sorted({re.sub(r"'[^']*'", "'X'", v) for v in class_verdicts.values() if v})},
        "dropped_bases": dropped,
        "opcodes": result,
        "partial": {op: p for op, p in partial.items() if p},
        "warnings": [{"base": bases[b][3], "word": w, "warnings": ws, "base_warnings": sorted(base_warn.get(b, []))}
                     for (b, w), ws in sorted(warnings.items())],
        "base_warnings": {bases[b][3]: sorted(ws) for b, ws in base_warn.items() if ws and b in bases},
        "rejected_beside_others": beside,
        "position_differs": position,
        "position_tried": {"after_opcode": sum(1 for it in front if it.front == 0),
                           "after_first_modifier": sum(1 for it in front if it.front == 1)},
        "messages": count_messages(items),
    }
    path = args.details or os.path.join(tempfile.gettempdir(), "isa-leniency-details.json")
    with open(path, "w") as f:
        json.dump(details, f, indent=1, sort_keys=True)
    pairs = sum(len(r["ignored"]) for r in result.values())
    with_words = sum(1 for r in result.values() if r["ignored"])
    log(f"{with_words} of {len(result)} opcodes have ignored words, {pairs} (opcode, word) pairs; "
        f"{elapsed:.0f}s, {ptxas.calls} ptxas calls; details in {path}")
    if only:
        return
    today = datetime.date.today().isoformat()
    with open(OUT_FILE, "w") as f:
        f.write("# Generated by scripts/isa-leniency/probe.py with ptxas 13.5 (CUDA 13.5.37) on "
                f"{today}; do not edit.\n"
                "#\n"
                "# `ignored OPCODE: .w ...`: ptxas accepts each word as a modifier of OPCODE although\n"
                "# it is none of OPCODE's own words (the words of its forms in this description) and\n"
                "# means nothing there: ptxas ignores it (`or.infinite.b32`, `add.s32.pred`).\n"
                "# Measured by appending each word of a vocabulary (959 words) to up to three\n"
                "# accepted instances per opcode of the ISA sweep (testdata/isa-sweep/instances.tsv):\n"
                "# a word is listed when ptxas accepts it on every one. The place among the\n"
                "# modifiers is free, but only after ptxas's instruction name, which may take the\n"
                "# first modifiers (`mbarrier.init`, `mul.lo`, `cp.async`, `wmma.load.a`); on `mma`\n"
                "# an extra type word is accepted only after the instruction's own types, and not\n"
                "# for every type combination. See scripts/isa-leniency/report.md.\n")
        for op, r in sorted(result.items()):
            if r["ignored"]:
                f.write(f"ignored {op}: " + " ".join("." + w for w in r["ignored"]) + "\n")
    log(f"wrote {os.path.relpath(OUT_FILE, ROOT)}")


def count_messages(items):
    c = {}
    for it in items:
        if it.verdict:
            k = re.sub(r"'[^']*'", "'X'", it.verdict)
            c[k] = c.get(k, 0) + 1
    return dict(sorted(c.items(), key=lambda kv: -kv[1]))


if __name__ == "__main__":
    main()
