# Type stubs of the Rust extension module (python/src/lib.rs). Use the
# `ptx_opt` package instead: it wraps these in typed classes.
from typing import Dict, List, Optional, Sequence, Tuple

LIBRARY_VERSION: str

class _Failure(Exception):
    # args: (kind, rendered, [(line, col, end_line, end_col, message, [(line, col, message)])], detail)
    args: Tuple[str, str, List[Tuple[int, int, int, int, str, List[Tuple[int, int, str]]]], str]  # type: ignore[assignment]

def optimize(
    ptx: str,
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
) -> Tuple[str, bool, Dict[str, Dict[str, int]], List[Tuple[int, int, str, str, Optional[str], str]]]: ...
def passes() -> List[Tuple[str, str]]: ...
def pipeline(level: int) -> List[str]: ...
def _time_rust(
    ptx: str,
    passes: Optional[Sequence[str]] = None,
    level: Optional[int] = None,
    verify: bool = True,
    threads: Optional[int] = None,
    iterations: int = 1,
) -> List[float]: ...
