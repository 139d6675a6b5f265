"""Kernels compiled by numba on first use, not at import: importing numba costs ~0.2 s, which
every command and the editor's start would pay for an evaluation they may never run."""

from __future__ import annotations

import threading
from collections.abc import Callable

_COMPILING = threading.Lock()  # batch threads may start the same module's kernels at once

# every kernel: compiled once into numba's cache, with IEEE division (no Python ZeroDivisionError)
OPTIONS = {"cache": True, "nogil": True, "error_model": "numpy"}


def kernel(inline: bool = False) -> Callable:
    """Mark a function to be compiled by `compile_kernels`; `inline` ones are folded into callers."""
    def mark(fn):
        fn.numba_options = dict(OPTIONS, **({"inline": "always"} if inline else {}))
        return fn
    return mark


def compile_kernels(namespace: dict, names: tuple[str, ...]) -> None:
    """Replace the marked functions `names` of a module (callees first) by numba dispatchers.
    Each compiles at its first call, or loads from the cache."""
    if namespace.get("_KERNELS_READY"):
        return
    with _COMPILING:
        if not namespace.get("_KERNELS_READY"):
            _compile(namespace, names)


def _compile(namespace: dict, names: tuple[str, ...]) -> None:
    import numba

    for name in names:
        fn = namespace[name]
        try:
            namespace[name] = numba.njit(**fn.numba_options)(fn)
        except RuntimeError:  # no writable cache folder (numba's, its user folder): compile each run
            namespace[name] = numba.njit(**dict(fn.numba_options, cache=False))(fn)
    namespace["_KERNELS_READY"] = True
