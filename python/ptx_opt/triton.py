"""Run ptx-opt on every kernel Triton compiles for NVIDIA GPUs.

>>> import ptx_opt.triton
>>> ptx_opt.triton.install(level=2)          # doctest: +SKIP
>>> # ... @triton.jit kernels now go through ptx-opt between LLVM and ptxas
>>> ptx_opt.triton.uninstall()               # doctest: +SKIP

This wraps the ``ptx`` stage of Triton's NVIDIA backend through
``triton.knobs.runtime.add_stages_inspection_hook``: the PTX that LLVM wrote
is optimized, and what ptx-opt prints is what Triton keeps
(``kernel.asm["ptx"]``) and hands to ptxas. Tested with Triton 3.9.0, which
calls the hook with no argument for a cache key and with the stages to amend.
A hook already set is chained: it runs first, and its own wrapping of the
stages is kept. The hook adds the ptx-opt version and pipeline to Triton's
cache key, so kernels cached without ptx-opt (or with another pipeline) are
compiled anew. A kernel found in Triton's cache is not compiled again, so its
remarks are not reported again.
"""

from __future__ import annotations

import hashlib
import warnings
from typing import Any, Callable, Dict, Optional, Sequence

from . import PtxError, Remark, __version__, optimize

__all__ = ["install", "uninstall", "installed"]

_installed: Optional["_Hook"] = None


class _Hook:
    """The function Triton calls: with no argument for a cache key, with
    (backend, stages, options, language, capability) to amend the stages."""

    def __init__(
        self,
        previous: Optional[Callable[..., Any]],
        passes: Optional[Sequence[str]],
        level: Optional[int],
        remarks: Optional[Callable[[Remark], None]],
        on_error: str,
        ptx_version: Optional[str] = None,
        cuda: Optional[str] = None,
    ):
        self.previous = previous
        self.passes = None if passes is None else list(passes)
        self.level = level
        self.remarks = remarks
        self.on_error = on_error
        self.ptx_version = ptx_version
        self.cuda = cuda
        self.active = True
        pipeline = f"passes={','.join(self.passes)}" if self.passes is not None else f"O{level}"
        written = f"-ptx{ptx_version}" if ptx_version else f"-cuda{cuda}" if cuda else ""
        self.key = f"ptx-opt-{__version__}-{pipeline}{written}"

    def __call__(
        self,
        backend: Any = None,
        stages: Optional[Dict[str, Callable[[Any, Dict[str, Any]], Any]]] = None,
        options: Any = None,
        language: Any = None,
        capability: Any = None,
    ) -> Any:
        if stages is None:
            return self._cache_key()
        if self.previous is not None:
            self.previous(backend, stages, options, language, capability)
        # Only the NVIDIA backend has a "ptx" stage.
        if self.active and "ptx" in stages:
            stages["ptx"] = self._wrap(stages["ptx"])
        return None

    def _cache_key(self) -> Any:
        key = self.key if self.active else ""
        digest = hashlib.sha256(key.encode()).hexdigest()
        if self.previous is None:
            return key, digest
        previous_key, previous_hash = self.previous()
        return f"{previous_key}{key}", hashlib.sha256(f"{previous_hash}{digest}".encode()).hexdigest()

    def _wrap(self, make_ptx: Callable[[Any, Dict[str, Any]], str]) -> Callable[[Any, Dict[str, Any]], str]:
        def ptx_stage(src: Any, metadata: Dict[str, Any]) -> str:
            ptx = make_ptx(src, metadata)
            name = f"{metadata.get('name', 'triton')}.ptx"
            try:
                result = optimize(
                    ptx,
                    passes=self.passes,
                    level=self.level,
                    source_name=name,
                    ptx_version=self.ptx_version,
                    cuda=self.cuda,
                )
            except PtxError as error:
                if self.on_error == "raise":
                    raise
                warnings.warn(f"ptx-opt left {name} unoptimized:\n{error}", RuntimeWarning, stacklevel=2)
                return ptx
            if self.remarks is not None:
                for remark in result.remarks:
                    self.remarks(remark)
            return result.ptx

        return ptx_stage


def install(
    level: Optional[int] = None,
    passes: Optional[Sequence[str]] = None,
    remarks: Optional[Callable[[Remark], None]] = None,
    on_error: str = "warn",
    ptx_version: Optional[str] = None,
    cuda: Optional[str] = None,
) -> None:
    """Runs ptx-opt on the PTX of every kernel Triton compiles from now on.

    ``level`` (0-2; 2 when neither is given) or ``passes``: the pipeline, as for
    :func:`ptx_opt.optimize`. ``remarks``: called with each
    :class:`ptx_opt.Remark` (its ``file`` is ``KERNEL.ptx``). ``on_error``:
    ``"warn"`` (default) keeps Triton's PTX, with a ``RuntimeWarning``, when
    ptx-opt rejects it; ``"raise"`` lets the :class:`ptx_opt.PtxError` fail the
    compilation. Installing again replaces the previous installation.
    ``ptx_version`` (``"7.8"``, ``"min"``) or ``cuda`` (``"12.4"``): write each
    kernel's PTX for that version or that CUDA release's driver, as
    :func:`ptx_opt.optimize` does (a kernel that needs more is an error,
    handled as ``on_error`` says). Pass names, the level and the version are
    checked now (``ValueError``).
    """
    from triton import knobs

    if not hasattr(knobs.runtime, "add_stages_inspection_hook"):
        raise RuntimeError(f"Triton {_triton_version()} has no knobs.runtime.add_stages_inspection_hook")
    if passes is not None and level is not None:
        raise ValueError("give passes or level, not both")
    if passes is None and level is None:
        level = 2
    if on_error not in ("warn", "raise"):
        raise ValueError(f"on_error must be 'warn' or 'raise', not {on_error!r}")
    # Checks the names and the level once, here, rather than at the first kernel.
    optimize(_EMPTY_MODULE, passes=passes, level=level, ptx_version=ptx_version, cuda=cuda)
    uninstall()
    global _installed
    _installed = _Hook(
        knobs.runtime.add_stages_inspection_hook, passes, level, remarks, on_error, ptx_version, cuda
    )
    knobs.runtime.add_stages_inspection_hook = _installed


def uninstall() -> None:
    """Undoes :func:`install`: the hook that was set before it is set again.
    If another hook was chained over ours since, ours stays in the chain but
    does nothing. Does nothing when not installed."""
    from triton import knobs

    global _installed
    if _installed is None:
        return
    if knobs.runtime.add_stages_inspection_hook is _installed:
        knobs.runtime.add_stages_inspection_hook = _installed.previous
    else:
        _installed.active = False
    _installed = None


def installed() -> bool:
    """Whether :func:`install` is in effect."""
    return _installed is not None


def _triton_version() -> str:
    import triton

    return getattr(triton, "__version__", "?")


_EMPTY_MODULE = ".version 8.0\n.target sm_80\n.address_size 64\n"
