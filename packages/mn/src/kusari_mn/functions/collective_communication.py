"""Differentiable collectives: gradients flow back across ranks.

Every rank of the communicator must call the same function (and later run
backward through it) in the same order. Ranks that only take part (e.g. the
non-root ranks of :func:`bcast`) pass nothing and get their share.
"""

from __future__ import annotations

from typing import Any

from kusari import FunctionNode, backend
from kusari_mn.functions._utility import (
    as_variables,
    delegate_array,
    dummy_variable,
    grad_arrays,
)


def _like(arrays: Any) -> list[Any]:
    return [backend.get_array_module(a).empty(a.shape, a.dtype) for a in arrays]


def _zeros_like(spec: Any, xp: Any) -> Any:
    shape, dtype = spec
    return xp.zeros(shape, dtype)


class AllGather(FunctionNode):
    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        ys = self.comm.allgather(inputs[0])
        self._like = _like(ys)
        return tuple(ys)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gys = grad_arrays(grad_outputs, self._like)
        parts = self.comm.alltoall(tuple(gys))
        total = parts[0].copy()
        for p in parts[1:]:
            total += p
        return as_variables([total])


class AllToAll(FunctionNode):
    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        if len(inputs) != self.comm.size:
            raise ValueError(
                f"alltoall: expected {self.comm.size} inputs (one per rank), "
                f"got {len(inputs)}"
            )
        ys = self.comm.alltoall(tuple(inputs))
        self._like = _like(ys)
        return tuple(ys)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        gys = grad_arrays(grad_outputs, self._like)
        return as_variables(self.comm.alltoall(tuple(gys)))


class Bcast(FunctionNode):
    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._input = (x.shape, x.dtype)
        y = self.comm.bcast(x if self.comm.rank == self.root else None, self.root)
        self._like = _like([y])
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_arrays(grad_outputs, self._like)
        gys = self.comm.gather(gy, self.root)
        if self.comm.rank != self.root:
            return as_variables(
                [_zeros_like(self._input, backend.get_array_module(gy))]
            )
        total = gys[0].copy()
        for g in gys[1:]:
            total += g
        return as_variables([total])


class Gather(FunctionNode):
    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x = inputs[0]
        self._input = (x.shape, x.dtype)
        ys = self.comm.gather(x, self.root)
        if self.comm.rank == self.root:
            self._like = _like(ys)
            return tuple(ys)
        return (delegate_array(backend.get_array_module(x)),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        if self.comm.rank == self.root:
            gys = grad_arrays(grad_outputs, self._like)
            gx = self.comm.scatter(tuple(gys), self.root)
        else:
            gx = self.comm.scatter(None, self.root)
        return as_variables([gx])


class Scatter(FunctionNode):
    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self._inputs = [(x.shape, x.dtype) for x in inputs]
        xs = tuple(inputs) if self.comm.rank == self.root else None
        y = self.comm.scatter(xs, self.root)
        self._like = _like([y])
        return (y,)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        (gy,) = grad_arrays(grad_outputs, self._like)
        gxs = self.comm.gather(gy, self.root)
        if self.comm.rank == self.root:
            return as_variables(gxs)
        xp = backend.get_array_module(gy)
        return as_variables([_zeros_like(s, xp) for s in self._inputs])


def allgather(comm: Any, x: Any) -> tuple[Any, ...]:
    """Every rank's ``x``, on every rank (a tuple by rank); differentiable."""
    return AllGather(comm).apply((x,))


def alltoall(comm: Any, xs: Any) -> tuple[Any, ...]:
    """Send ``xs[j]`` to rank ``j``; returns what each rank sent here."""
    return AllToAll(comm).apply(tuple(xs))


def bcast(comm: Any, x: Any = None, root: int = 0) -> Any:
    """``root``'s ``x`` on every rank; gradients are summed back on ``root``.

    Non-root ranks pass ``x=None``.
    """
    if comm.rank == root:
        if x is None:
            raise ValueError(f"bcast: the root rank {root} must give x")
        inputs: Any = (x,)
    else:
        inputs = (dummy_variable(),)
    return Bcast(comm, root).apply(inputs)[0]


def gather(comm: Any, x: Any, root: int = 0) -> Any:
    """Every rank's ``x`` on ``root`` (a tuple); other ranks get a delegate
    variable whose ``backward()`` receives their gradient from ``root``."""
    ys = Gather(comm, root).apply((x,))
    return ys if comm.rank == root else ys[0]


def scatter(comm: Any, xs: Any = None, root: int = 0) -> Any:
    """Rank ``i`` gets ``xs[i]`` of ``root``; non-root ranks pass ``xs=None``."""
    if comm.rank == root:
        if xs is None or len(xs) != comm.size:
            raise ValueError(
                f"scatter: the root rank must give {comm.size} variables, got "
                f"{None if xs is None else len(xs)}"
            )
        inputs: Any = tuple(xs)
    else:
        inputs = (dummy_variable(),)
    return Scatter(comm, root).apply(inputs)[0]
