#!/usr/bin/env python3
"""Writes crates/ptx-isa/isa/02-targets-and-requirements.ptxisa (the part of the
description of the instruction set that says which .version/.target values
ptxas accepts, and which target and PTX version each instruction form of
probes.txt needs, all measured with ptxas 13.5 (not read from the ISA text:
ptxas is the judge, and the ISA's notes are not in ../shared/spec).

    python3 scripts/verify-target/generate.py [--ptxas PATH] [--check-only]

How the table is measured:
  * headers: every sm_N, sm_Na, sm_Nf (N < 200) is tried in `.target`;
    ptxas's "Unsupported .target" rejects it. For each accepted target, the
    lowest `.version` whose "does not support .target" does not appear.
  * instructions: for every probed target (sm_20..sm_121f) and every valid
    .version >= 3.0, one kernel holding every probe, one a line, is given to
    `ptxas -arch=compute_XX` (parse and check, no code generation). Lines
    ptxas names in an error are rejected probes; they are dropped and the
    rest tried again until ptxas accepts, so an accepted probe was accepted
    in a file ptxas passed whole.
  * a row (KEY) then requires the lowest .version at which any of its probes
    was accepted, and one of the targets where any was accepted (the loosest
    of its probes). The generator checks that the rule rejects only
    combinations where every probe of the row was rejected, then confirms
    each row's boundary on its own, in a file with that probe alone: the
    probe is accepted at the row's lowest target and version, rejected one
    version below (where a target allows it) and rejected on a probed target
    outside the row's set.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "crates", "ptx-isa", "isa", "02-targets-and-requirements.ptxisa")
DEFAULT_PTXAS = os.path.join(ROOT, ".cache", "toolchain", "nvidia-cuda-nvcc-13.5.37", "ptxas")

# The targets whose instructions are probed: ptxas 13.5 checks code for
# them with a `compute_` architecture (those below sm_75 with compute_75).
PROBED_TARGETS = [
    "sm_20", "sm_21", "sm_30", "sm_32", "sm_35", "sm_37", "sm_50", "sm_52", "sm_53",
    "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75", "sm_80", "sm_86", "sm_87",
    "sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103",
    "sm_103a", "sm_103f", "sm_107", "sm_107a", "sm_107f", "sm_110", "sm_110a",
    "sm_110f", "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f",
]
# Instruction checks start at PTX 3.0: older modules are left to ptxas.
MIN_PROBED_VERSION = 30

PREAMBLE = """\
.version {version}
.target {target}
.address_size 64
.shared .align 16 .b8 smem[1024];
.global .align 16 .b8 gmem[1024];
.func probe_callee()
{{
ret;
}}
.visible .entry probe(.param .u64 p0)
{{
.reg .b32 %r<40>; .reg .b64 %rd<20>; .reg .b16 %h<20>; .reg .f32 %f<40>; .reg .f64 %fd<20>; .reg .pred %p<8>;
"""
EPILOGUE = "L0:\nret;\n}\n"
PREAMBLE_LINES = PREAMBLE.count("\n")


def vtext(v):
    return f"{v // 10}.{v % 10}"


def arch_for(target):
    m = re.fullmatch(r"sm_(\d+)([af]?)", target)
    n, suffix = int(m.group(1)), m.group(2)
    return f"compute_{max(n, 75)}{suffix}" if n >= 75 else "compute_75"


class Ptxas:
    def __init__(self, path):
        self.path = path
        self.calls = 0
        self.dir = tempfile.mkdtemp(prefix="verify-target-")

    def run(self, text, arch, tag):
        f = os.path.join(self.dir, f"{tag}.ptx")
        with open(f, "w") as out:
            out.write(text)
        self.calls += 1
        p = subprocess.run([self.path, f"-arch={arch}", "-o", "/dev/null", f], capture_output=True, text=True)
        return p.returncode == 0, p.stdout + p.stderr


def read_probes():
    probes = []
    for line in open(os.path.join(HERE, "probes.txt")):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        key, ptx = line.split("\t", 1)
        probes.append((key, ptx.strip()))
    return probes


def normal_key(key):
    """`cvt.bf16.f32` and `cvt.f32.bf16` name the same set of instructions."""
    if key.startswith("%"):
        return (key, ())
    # Split on dots that do not belong to a `::` qualifier.
    parts = key.split(".")
    return (parts[0], tuple(sorted(set(parts[1:]))))


def instructions(ptx):
    """(opcode, modifiers) of each instruction of a probe line."""
    for stmt in ptx.strip("{} ").split(";"):
        stmt = stmt.strip()
        if stmt and not stmt.startswith(".") and not stmt.startswith("$"):
            words = stmt.split()[0].split(".")
            yield words[0], set(words[1:])


def matches(key, ptx):
    opcode, mods = key
    if opcode.startswith("%"):
        return re.search(re.escape(opcode) + r"\b", ptx) is not None
    return any(op == opcode and set(mods) <= m for op, m in instructions(ptx))


def header_tables(ptxas, versions):
    header = ".version 9.5\n.target {}\n.address_size 64\n"
    accepted = []
    for n in range(0, 200):
        for suffix in ("", "a", "f"):
            t = f"sm_{n}{suffix}"
            ok, out = ptxas.run(header.format(t), "sm_75", "header")
            if "Unsupported .target" not in out:
                accepted.append(t)
    words = {}
    for w in ("debug", "texmode_unified", "texmode_independent", "map_f64_to_f32", "foo", "sm80"):
        ok, out = ptxas.run(header.format("sm_75, " + w), "sm_75", "word")
        words[w] = "Unsupported .target" not in out
    min_version = {}
    for t in accepted:
        m = re.fullmatch(r"sm_(\d+)([af]?)", t)
        n, suffix = int(m.group(1)), m.group(2)
        arch = t if suffix else ("sm_75" if n < 75 else "sm_121")
        for v in versions:
            text = f".version {vtext(v)}\n.target {t}\n.entry k() {{ ret; }}\n"
            ok, out = ptxas.run(text, arch, "tv")
            if "does not support .target" not in out and "Unsupported" not in out:
                min_version[t] = v
                break
    return accepted, words, min_version


def batch(ptxas, probes, target, version):
    """Indices of the probes ptxas accepts at (target, version), or None if
    it rejected the file for a reason not on a probe line."""
    live = list(range(len(probes)))
    tag = f"{target}-{version}"
    while True:
        body = "".join(probes[i][1] + "\n" for i in live)
        ok, out = ptxas.run(PREAMBLE.format(version=vtext(version), target=target) + body + EPILOGUE,
                            arch_for(target), tag)
        if ok:
            return set(live)
        # Errors inside ptxas's own macro expansions (`<macro util>`) come
        # with errors on the probe's line; they alone leave the file unusable.
        bad_lines = set()
        for line in out.splitlines():
            m = re.search(r"\.ptx, line (\d+); (error|fatal)", line)
            if m:
                bad_lines.add(int(m.group(1)))
        bad = {live[n - PREAMBLE_LINES - 1] for n in bad_lines if 0 <= n - PREAMBLE_LINES - 1 < len(live)}
        if not bad or len(bad) != len(bad_lines):
            return None
        live = [i for i in live if i not in bad]


def isolated(ptxas, ptx, target, version):
    ok, out = ptxas.run(PREAMBLE.format(version=vtext(version), target=target) + ptx + "\n" + EPILOGUE,
                        arch_for(target), f"iso-{os.getpid()}-{target}-{version}-{abs(hash(ptx))}")
    first = next((l for l in out.splitlines() if "error" in l and "aborted" not in l), "")
    return ok, re.sub(r"^ptxas [^,]*, line \d+; error\s*: ", "", first)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default=DEFAULT_PTXAS)
    args = ap.parse_args()
    ptxas = Ptxas(args.ptxas)
    out = subprocess.run([args.ptxas, "--list-version"], capture_output=True, text=True).stdout.split()
    versions = sorted(int(a) * 10 + int(b) for a, b in (v.split(".") for v in out))
    ident = subprocess.run([args.ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]

    accepted, words, target_min_version = header_tables(ptxas, versions)
    for t in PROBED_TARGETS:
        assert t in accepted and t in target_min_version, t
    print(f"{len(accepted)} targets accepted, {len(versions)} versions", file=sys.stderr)

    probes = read_probes()
    combos = [(t, v) for t in PROBED_TARGETS for v in versions
              if v >= MIN_PROBED_VERSION and v >= target_min_version[t]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda c: batch(ptxas, probes, *c), combos))
    matrix = {}
    unknown = []
    for c, r in zip(combos, results):
        if r is None:
            unknown.append(c)
        else:
            matrix[c] = r
    print(f"{len(combos)} target/version combinations, {len(unknown)} unusable: {unknown[:5]}", file=sys.stderr)

    # A row's requirement must hold for every probe it matches, its own or
    # another key's (`mbarrier.relaxed` would match `mbarrier.expect_tx.relaxed`).
    keys = sorted({normal_key(key) for key, _ in probes})
    rows = {key: [i for i, (_, ptx) in enumerate(probes) if matches(key, ptx)] for key in keys}
    for key, idx in rows.items():
        assert idx, f"{key} matches none of its own probes"
    tix = {t: k for k, t in enumerate(PROBED_TARGETS)}
    table = []
    never = []
    for key, idx in sorted(rows.items()):
        acc = [(t, v) for (t, v), ok in matrix.items() if any(i in ok for i in idx)]
        if not acc:
            never.append(key)
            continue
        min_v = min(v for _, v in acc)
        targets = {t for t, _ in acc}
        # The rule rejects (t, v) when v < min_v or t is not in targets; it
        # must reject only where every probe of the row was rejected.
        rejects = [(t, v) for (t, v) in matrix if v < min_v or t not in targets]
        assert all(not any(i in matrix[c] for i in idx) for c in rejects)
        if not rejects:
            continue
        table.append((key, idx, min_v, targets))
    print(f"{len(rows)} keys: {len(table)} rows with a requirement, {len(never)} never accepted: {never}",
          file=sys.stderr)

    # Self-check: each row's boundary, probe by probe, in files of their own.
    def confirm(row):
        key, idx, min_v, targets = row
        notes = []
        best = None
        for i in idx:
            ptx = probes[i][1]
            acc = sorted(((t, v) for (t, v), ok in matrix.items() if i in ok), key=lambda c: (c[1], tix[c[0]]))
            if not acc:
                continue
            t0, v0 = acc[0]
            ok, _ = isolated(ptxas, ptx, t0, v0)
            assert ok, f"{key}: {ptx} not accepted alone at {t0} {vtext(v0)}"
            below = [v for v in versions if v < min_v and v >= max(MIN_PROBED_VERSION, target_min_version[t0])]
            ptx_message = tgt_message = ""
            if below:
                ok, ptx_message = isolated(ptxas, ptx, t0, below[-1])
                assert not ok, f"{key}: {ptx} accepted alone at {t0} {vtext(below[-1])}"
            outside = [t for t in PROBED_TARGETS if t not in targets]
            for t in outside:
                v = max(versions)
                ok, msg = isolated(ptxas, ptx, t, v)
                assert not ok, f"{key}: {ptx} accepted alone at {t} {vtext(v)}"
                tgt_message = tgt_message or msg
            if best is None:
                best = (i, t0, v0, ptx_message, tgt_message)
        return best

    with ThreadPoolExecutor(max_workers=2) as pool:
        confirmed = list(pool.map(confirm, table))

    def vtext_(v):
        return f"{v // 10}.{v % 10}"

    lines = []
    w = lines.append
    w("# The module header and what instructions need of it, measured with ptxas")
    w(f"# ({ident}) by scripts/verify-target/generate.py from the probes of")
    w("# scripts/verify-target/probes.txt; regenerate with that script.")
    w("#")
    w("# `versions`: the .version values ptxas accepts. `target NAME MIN-VERSION")
    w("# [probed]`: an sm_ target ptxas accepts in .target and the lowest .version")
    w("# that supports it; `probed` if its instructions were probed (ptxas 13.5")
    w("# cannot check code for sm_1x or sm_101). `target-words`: the other words")
    w("# ptxas accepts in .target. `probed-from VERSION`: the lowest .version whose")
    w("# instructions were probed.")
    w("#")
    w("# `need KEY VERSION TARGETS @ PROBE-TARGET : PROBE`: the instructions with")
    w("# KEY's opcode and every word of KEY (`cvt.pack.u4`: a cvt with .pack and")
    w("# .u4, in any order), or a special register (`%cluster_ctarank`) in any")
    w("# operand, need .version VERSION and one of TARGETS (`sm_90+`: every probed")
    w("# target numbered 90 or more, with or without a suffix; else a list). PROBE")
    w("# is accepted on PROBE-TARGET at VERSION and rejected below it and on the")
    w("# probed targets outside TARGETS.")
    w("")
    w("versions " + " ".join(vtext_(v) for v in versions))
    for t in accepted:
        mv = target_min_version.get(t) or 0
        w(f"target {t} {vtext_(mv)}" + (" probed" if t in tix else ""))
    w("target-words " + " ".join(k for k, ok in words.items() if ok))
    w(f"probed-from {vtext_(MIN_PROBED_VERSION)}")
    w("")
    n_ptx = n_tgt = 0
    number = lambda t: int(re.match(r"sm_(\d+)", t).group(1))
    for (key, idx, min_v, targets), best in zip(table, confirmed):
        opcode, mods = key
        i, t0, _, _, _ = best
        needs_version = any(v < min_v for (_, v) in matrix)
        n_ptx += needs_version
        n_tgt += len(targets) < len(PROBED_TARGETS)
        lowest = min(targets, key=lambda t: (number(t), tix[t]))
        from_lowest = targets == {t for t in PROBED_TARGETS if number(t) >= number(lowest)}
        listed = [t for t in PROBED_TARGETS if t in targets]
        spelled = f"{lowest}+" if from_lowest else ",".join(listed)
        first = lowest if from_lowest else listed[0]
        at = "" if t0 == first else f" @ {t0}"
        w(f"need {'.'.join([opcode] + list(mods))} {vtext_(min_v)} {spelled}{at} : {probes[i][1]}")
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {OUT}: {len(table)} needs ({n_ptx} with a version bound, {n_tgt} with a target set), "
          f"{ptxas.calls} ptxas calls; regenerate the tables: "
          f"PTX_ISA_UPDATE=1 cargo test -p ptx-isa --test generated", file=sys.stderr)


if __name__ == "__main__":
    main()
