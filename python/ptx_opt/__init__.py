"""ptx-opt: LLVM-opt-style rewriting passes for NVIDIA PTX.

>>> import ptx_opt
>>> result = ptx_opt.optimize(ptx, level=2)          # doctest: +SKIP
>>> result.ptx, result.changed, result.stats, result.remarks  # doctest: +SKIP

Everything runs in memory, with the GIL released: threads optimizing
different modules run in parallel. Invalid PTX raises :class:`PtxError`
(a ``ValueError``) with located diagnostics. ``ptx_opt.triton.install()``
runs the passes on every kernel Triton compiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

from . import _native

__all__ = [
    "optimize",
    "passes",
    "pipeline",
    "Result",
    "Remark",
    "Diagnostic",
    "Note",
    "PassInfo",
    "PtxError",
    "__version__",
]

__version__: str = _native.LIBRARY_VERSION


@dataclass(frozen=True)
class Remark:
    """One rewrite a pass made: where (1-based line and column of the rewritten
    instruction in the input; 0, 0 for synthesized code), which pass, in which
    function (``demangled``: its C++ name when it is a mangled one, else
    None), and what."""

    file: str
    line: int
    col: int
    pass_: str
    function: str
    message: str
    demangled: Optional[str] = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: remark: [{self.pass_}] {self.function}: {self.message}"


@dataclass(frozen=True)
class Note:
    """A place a :class:`Diagnostic` refers to ("first declared here")."""

    file: str
    line: int
    col: int
    message: str


@dataclass(frozen=True)
class Diagnostic:
    """One error in the input: 1-based line and column of its start (and of its
    end; 0 for a place that is not in the input), the message, and notes."""

    file: str
    line: int
    col: int
    end_line: int
    end_col: int
    message: str
    notes: Tuple[Note, ...] = ()

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}: error: {self.message}"


@dataclass(frozen=True)
class PassInfo:
    """A registered pass: its name (for ``passes=[...]``) and what it does."""

    name: str
    description: str


@dataclass(frozen=True)
class Result:
    """What :func:`optimize` returns.

    ``ptx``: the optimized module (the input, byte for byte, when no pass
    changed anything). ``changed``: whether any pass changed it. ``stats``:
    ``{pass: {counter: value}}`` for every pass run, in pipeline order (an
    empty dict for a pass that rewrote nothing). ``remarks``: one
    :class:`Remark` per rewrite, in pass order, then function order.
    """

    ptx: str
    changed: bool
    stats: Dict[str, Dict[str, int]]
    remarks: List[Remark] = field(default_factory=list)


class PtxError(ValueError):
    """The input is not valid PTX (the parser or the verifier rejected it), or a
    pass of the pipeline reported an error.

    ``str(e)`` is the text the ``ptx-opt`` tool prints: per diagnostic a
    ``FILE:LINE:COL: error: MESSAGE`` line, the source line with carets under
    the place, and its notes (at most 20 diagnostics, then a count);
    ``e.diagnostics`` has them all as :class:`Diagnostic` objects.
    ``e.kind`` is ``"parse"`` (the parser), ``"invalid-input"`` (the
    verifier), ``"pass"`` (a pass of the pipeline, named by ``e.pass_``) or
    ``"needs-target"`` (passes gating on ``target=`` wrote instructions the
    module's ``.target`` does not allow: give ``set_target=True``).
    """

    def __init__(self, rendered: str, diagnostics: Sequence[Diagnostic], kind: str, pass_: Optional[str] = None):
        super().__init__(rendered)
        self.diagnostics: List[Diagnostic] = list(diagnostics)
        self.kind = kind
        self.pass_ = pass_

    def __str__(self) -> str:
        return str(self.args[0])


def optimize(
    ptx: str,
    *,
    passes: Optional[Sequence[str]] = None,
    level: Optional[int] = None,
    verify: bool = True,
    target: Optional[str] = None,
    set_target: bool = False,
    threads: Optional[int] = None,
    source_name: str = "<input>",
    ptx_version: Optional[str] = None,
    cuda: Optional[str] = None,
    accept_newer_forms: bool = False,
) -> Result:
    """Runs ptx-opt passes on a PTX module.

    ``passes``: registered pass names, run in order (see :func:`passes`),
    each as a step of ``ptx-opt --passes`` may be written: with the pass's
    options (``"fold-byte-gathers<min-saving=1>"``) or a default pipeline
    (``"default<O2>"``);
    ``level``: the default pipeline of ``-O0``/``-O1``/``-O2`` (see
    :func:`pipeline`); give one or neither (then the module is only checked and
    printed back, byte for byte). ``verify``: check the input with the verifier
    first (as every ``ptx-opt`` run does); ``False`` leaves only the parser's
    checks. ``threads``: worker threads for the passes (default: one per core).
    ``source_name``: the FILE of rendered diagnostics and remarks.

    ``target`` (``"sm_90"``, ``"sm_90a"``): the target the passes gate on,
    instead of the module's ``.target`` (``ptx-opt --target``). The module's
    ``.target`` stays as written, and the verifier checks against it, the
    output too: if the passes wrote an instruction it does not allow,
    :class:`PtxError` with ``kind == "needs-target"``. ``set_target=True``
    also writes ``target`` into the output's ``.target`` (``--set-target``).
    A target not of the form ``sm_`` and a number is a ``ValueError``.

    ``ptx_version`` (``"7.8"``, or ``"min"``): the ``.version`` the output is
    written with (``ptx-opt --ptx-version``), for a driver older than the
    toolkit that wrote the PTX. After the passes the module is checked at it;
    what needs more and has an exactly equivalent older form is rewritten
    (pass ``lower-ptx-version``: cache hints dropped, ``cvt.pack.sat``
    expanded, ...; each a remark) and otherwise only the ``.version`` line
    changes. A module still not valid at it raises :class:`PtxError` with
    ``kind == "needs-version"``, a diagnostic at each instruction that needs
    more. ``"min"``: the lowest version the module allows as it is.
    ``cuda`` (``"12.4"``, as ``nvidia-smi`` prints it): the newest version
    that CUDA release's driver accepts, if the module's is newer
    (``--cuda``). Give one or neither; anything else is a ``ValueError``.

    ``accept_newer_forms``: in a module whose ``.version`` is newer than PTX
    ISA 9.1 (the text ptx-opt describes), keep an instruction with a word 9.1
    does not have as an unknown instruction, for ptxas to judge
    (``--accept-newer-forms``); by default the verifier reports the word.

    The GIL is released while the passes run. Raises :class:`PtxError` for
    invalid PTX, ``ValueError`` for an unknown pass name or a bad level.
    """
    if not isinstance(ptx, str):
        raise TypeError(f"ptx must be a str, not {type(ptx).__name__}")
    if isinstance(passes, str):
        raise TypeError("passes must be a list of pass names, not a str")
    try:
        text, changed, stats, rows = _native.optimize(
            ptx,
            passes=None if passes is None else list(passes),
            level=level,
            verify=verify,
            target=target,
            set_target=set_target,
            threads=threads,
            source_name=source_name,
            ptx_version=ptx_version,
            cuda=cuda,
            accept_newer_forms=accept_newer_forms,
        )
    except _native._Failure as failure:
        raise _error(failure, source_name) from None
    except OverflowError:
        raise ValueError(f"no optimization level {level} (levels are 0 to 2)") from None
    remarks = [
        Remark(source_name, line, col, pass_, function, message, demangled)
        for line, col, pass_, function, demangled, message in rows
    ]
    return Result(text, changed, stats, remarks)


def _error(failure: "_native._Failure", file: str) -> Exception:
    kind, rendered, rows, detail = failure.args
    diagnostics = [
        Diagnostic(file, line, col, end_line, end_col, message, tuple(Note(file, *note) for note in notes))
        for line, col, end_line, end_col, message, notes in rows
    ]
    if kind in ("parse", "invalid-input", "pass"):
        return PtxError(rendered, diagnostics, kind, detail or None)
    if kind in ("needs-target", "needs-version"):
        return PtxError(rendered, diagnostics, kind)
    if kind in ("unknown-pass", "unknown-level", "threads", "invalid-target"):
        return ValueError(rendered)
    if kind == "broke-ir":
        # A pass produced invalid PTX: a bug in ptx-opt, not in the input.
        return RuntimeError(f"ptx-opt bug: pass '{detail}' produced invalid PTX:\n{rendered}")
    return RuntimeError(rendered)


def passes() -> List[PassInfo]:
    """Every registered pass, alphabetically."""
    return [PassInfo(name, description) for name, description in _native.passes()]


def pipeline(level: int) -> List[str]:
    """The pass names of the default pipeline of ``-O{level}`` (0, 1 or 2)."""
    try:
        return list(_native.pipeline(level))
    except OverflowError:
        raise ValueError(f"no optimization level {level} (levels are 0 to 2)") from None
