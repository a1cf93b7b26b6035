"""Parameters and optimizer states in shared memory, for asynchronous training.

A3C-style training runs several worker processes that update one set of
parameters without locks (Hogwild!). Here each parameter array of a link (and
each state array of an optimizer) is moved into a ``multiprocessing.RawArray``
and the link keeps a NumPy view of it. Worker processes are then *forked*:
they inherit the views, so an in-place update in any process is seen by all.

Only NumPy (CPU) arrays can be shared this way; fork is required (the
default start method on Linux).
"""

from __future__ import annotations

import ctypes
import multiprocessing as mp
import os
import signal
from collections.abc import Callable
from typing import Any

import numpy

import kusari

__all__ = [
    "AbnormalExitError",
    "as_shared_objects",
    "extract_params_as_shared_arrays",
    "run_async",
    "set_shared_params",
    "set_shared_states",
    "share_params_as_shared_arrays",
    "share_states_as_shared_arrays",
]

_CTYPES: dict[numpy.dtype[Any], Any] = {
    numpy.dtype(numpy.float32): ctypes.c_float,
    numpy.dtype(numpy.float64): ctypes.c_double,
    numpy.dtype(numpy.int32): ctypes.c_int32,
    numpy.dtype(numpy.int64): ctypes.c_int64,
}


class AbnormalExitError(RuntimeError):
    """A worker process of :func:`run_async` exited with a non-zero code."""


def _shared_copy(array: Any, owner: str) -> numpy.ndarray:
    if not isinstance(array, numpy.ndarray):
        raise TypeError(
            f"{owner}: only NumPy (CPU) arrays can be shared between processes, "
            f"got {type(array).__name__}; keep the shared model on the CPU"
        )
    ctype = _CTYPES.get(array.dtype)
    if ctype is None:
        raise TypeError(f"{owner}: cannot share arrays of dtype {array.dtype}")
    raw: Any = mp.RawArray(ctype, max(array.size, 1))
    view = numpy.frombuffer(raw, dtype=array.dtype, count=array.size)
    view = view.reshape(array.shape)
    view[...] = array
    return view


def extract_params_as_shared_arrays(link: kusari.Link) -> dict[str, numpy.ndarray]:
    """Shared-memory copies of ``link``'s parameters, by parameter path."""
    out = {}
    for name, param in link.namedparams():
        if param.array is None:
            raise ValueError(
                f"extract_params_as_shared_arrays: parameter {name!r} is not "
                "initialised; give every layer its input size or run the link "
                "once before sharing it"
            )
        out[name] = _shared_copy(param.array, "extract_params_as_shared_arrays")
    return out


def set_shared_params(link: kusari.Link, shared: dict[str, numpy.ndarray]) -> None:
    """Make ``link``'s parameters views of the arrays in ``shared``."""
    for name, param in link.namedparams():
        if name in shared:
            param.array = shared[name]


def share_params_as_shared_arrays(link: kusari.Link) -> dict[str, numpy.ndarray]:
    """Move ``link``'s parameters into shared memory (in place); return them."""
    shared = extract_params_as_shared_arrays(link)
    set_shared_params(link, shared)
    return shared


def _rules(optimizer: kusari.Optimizer) -> dict[str, Any]:
    return {
        name: param.update_rule
        for name, param in optimizer.target.namedparams()
        if param.update_rule is not None
    }


def _ensure_state(rule: Any, param: Any) -> None:
    """Create an update rule's lazily built state without changing ``param``.

    States appear on a rule's first update. An update without a gradient
    creates them and leaves the parameter as it is; the step count is put
    back so the next real update is still the first.
    """
    if rule.state is not None:
        return
    grad, t = param.grad, rule.t
    param.grad = None
    try:
        rule.update(param)
    finally:
        param.grad = grad
        rule.t = t


def share_states_as_shared_arrays(
    optimizer: kusari.Optimizer,
) -> dict[str, dict[str, Any]]:
    """Create the optimizer's per-parameter states now and move them to shared memory.

    Returns ``{param_path: {state_name: array}}``.
    """
    params = dict(optimizer.target.namedparams())
    shared: dict[str, dict[str, Any]] = {}
    for name, rule in _rules(optimizer).items():
        param = params[name]
        _ensure_state(rule, param)
        states = {}
        for key, value in rule.state.items():
            if isinstance(value, numpy.ndarray):
                value = _shared_copy(value, "share_states_as_shared_arrays")
                rule.state[key] = value
            states[key] = value
        shared[name] = states
    return shared


def set_shared_states(
    optimizer: kusari.Optimizer, shared: dict[str, dict[str, Any]]
) -> None:
    """Make ``optimizer``'s states views of the arrays in ``shared``."""
    params = dict(optimizer.target.namedparams())
    for name, rule in _rules(optimizer).items():
        if name in shared:
            _ensure_state(rule, params[name])
            rule.state.update(shared[name])


def as_shared_objects(obj: Any) -> Any:
    """Move a link's parameters or an optimizer's states into shared memory."""
    if isinstance(obj, kusari.Link):
        return share_params_as_shared_arrays(obj)
    if isinstance(obj, kusari.Optimizer):
        return share_states_as_shared_arrays(obj)
    raise TypeError(
        f"as_shared_objects: expected a Link or an Optimizer, got {type(obj).__name__}"
    )


def run_async(n_process: int, run_func: Callable[[int], Any]) -> None:
    """Run ``run_func(process_idx)`` in ``n_process`` forked processes and wait.

    Raises:
        AbnormalExitError: If a process exits with a non-zero code (the
            others are terminated).
    """
    ctx = mp.get_context("fork")
    processes = [ctx.Process(target=run_func, args=(idx,)) for idx in range(n_process)]
    for p in processes:
        p.start()
    failed = []
    try:
        for idx, p in enumerate(processes):
            p.join()
            if p.exitcode != 0:
                failed.append((idx, p.exitcode))
                break
    finally:
        for p in processes:
            if p.is_alive():
                os.kill(p.pid, signal.SIGTERM)  # type: ignore[arg-type]
                p.join()
    if failed:
        idx, code = failed[0]
        raise AbnormalExitError(
            f"run_async: process {idx} exited with code {code}; see its traceback above"
        )
