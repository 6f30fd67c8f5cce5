"""optimize releases the GIL: threads give the sequential results, and
Python threads run while a module is optimized."""

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import ptx_opt
from conftest import PACK_U8, PLAIN, renamed


def big_module(kernels: int, tag: str) -> str:
    """One module of `kernels` kernels (about 0.7 KB of PTX each)."""
    header, _, body = PACK_U8.partition(".visible")
    plain_body = PLAIN.partition(".visible")[2]
    parts = [header]
    for i in range(kernels):
        source = body if i % 2 == 0 else plain_body
        name = "u8_clamps_shl_or" if i % 2 == 0 else "plain"
        parts.append(".visible" + renamed(source, name, f"{name}_{tag}_{i}"))
    return "".join(parts)


def test_thread_pool_results_equal_sequential_results():
    modules = [big_module(40 + 10 * i, f"m{i}") for i in range(8)]
    sequential = [ptx_opt.optimize(m, level=2) for m in modules]
    spans = []

    def timed(module):
        start = time.perf_counter()
        result = ptx_opt.optimize(module, level=2)
        spans.append((start, time.perf_counter()))
        return result

    with ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(timed, modules))
    assert threaded == sequential
    assert all(r.changed and r.stats["combine-cvt-pack"]["combined"] > 0 for r in threaded)
    # The calls overlapped in time: with the GIL held they could not
    # (a thread only gets to start its call once the other call returned).
    spans.sort()
    overlaps = sum(1 for (s0, e0), (s1, e1) in zip(spans, spans[1:]) if s1 < e0)
    assert overlaps > 0, spans


def test_python_threads_run_while_a_module_is_optimized():
    module = big_module(3000, "gil")  # about 2 MB
    counter = [0]
    stop = threading.Event()
    started = threading.Event()

    def spin():
        started.set()
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)  # gives the GIL back, so the main thread gets it as soon as it asks

    old_interval = sys.getswitchinterval()
    # No forced switches: the spinning thread runs only when the main thread
    # releases the GIL itself (blocking calls, and ptx_opt.optimize).
    sys.setswitchinterval(30.0)
    thread = threading.Thread(target=spin, daemon=True)
    try:
        thread.start()
        started.wait()
        before = counter[0]
        result = ptx_opt.optimize(module, level=2)
        during_optimize = counter[0] - before

        # Control: the same wait in pure Python, which holds the GIL.
        before = counter[0]
        deadline = time.perf_counter() + 0.05
        while time.perf_counter() < deadline:
            pass
        during_python = counter[0] - before
    finally:
        stop.set()
        sys.setswitchinterval(old_interval)
        thread.join()
    assert result.changed
    assert during_optimize > 100, (during_optimize, during_python)
    assert during_python < during_optimize / 10, (during_optimize, during_python)
