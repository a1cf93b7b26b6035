"""``forget``: drop a sub-graph's intermediates and recompute them in backward."""

from __future__ import annotations

from typing import Any

import kusari
from kusari import configuration
from kusari.function_node import FunctionNode
from kusari.variable import Variable


def _call_func(func: Any, xs: tuple[Variable, ...]) -> tuple[Variable, ...]:
    outs = func(*xs)
    if isinstance(outs, tuple):
        for i, out in enumerate(outs):
            if not isinstance(out, Variable):
                raise RuntimeError(
                    f"forget: element {i} of the tuple returned by func is not a "
                    f"Variable but {type(out).__name__}"
                )
        return outs
    if isinstance(outs, Variable):
        return (outs,)
    raise RuntimeError(
        "forget: func must return a Variable or a tuple of Variables, "
        f"got {type(outs).__name__}"
    )


class Forget(FunctionNode):
    """Run ``func`` without recording its graph; re-run it in backward."""

    def __init__(self, func: Any) -> None:
        if not callable(func):
            raise TypeError(f"forget: func must be callable, got {type(func).__name__}")
        self.func = func

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        with kusari.no_backprop_mode():
            xs = tuple(Variable(x) for x in inputs)
            outs = _call_func(self.func, xs)
        # FunctionNode.apply holds the thread's hot-flags snapshot across
        # forward; refresh it so the no_backprop_mode above does not leak
        # into apply's graph recording (engine issue, reported).
        configuration.hot_flags()
        return tuple(out.array for out in outs)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        inputs = self.get_retained_inputs()
        double = bool(kusari.config.enable_backprop)
        # First order: recompute on fresh leaves, so nothing is kept.
        # Double backprop: recompute on the inputs themselves, so the
        # gradients stay connected to them (and to grad_outputs).
        xs = inputs if double else tuple(Variable(x.array) for x in inputs)
        with kusari.force_backprop_mode():
            outs = _call_func(self.func, xs)
        if len(outs) != len(grad_outputs):
            raise RuntimeError(
                f"forget: func returned {len(outs)} outputs on the "
                f"recomputation but {len(grad_outputs)} in forward"
            )
        gys = []
        for out, gy in zip(outs, grad_outputs, strict=False):
            if gy is None:
                gy = Variable(out.xp.zeros_like(out.array), requires_grad=False)
            gys.append(gy)
        targets = [xs[i] for i in indexes]
        gxs = kusari.grad(list(outs), targets, gys, enable_double_backprop=double)
        return tuple(gxs)


def forget(func: Any, *xs: Any) -> Any:
    """Call ``func(*xs)`` without keeping its intermediate results.

    The intermediate arrays of ``func`` are not stored; backward runs
    ``func`` again to rebuild them, trading computation for memory. ``func``
    must be deterministic and return a Variable or a tuple of Variables.
    Double backprop recomputes ``func`` on the inputs themselves (Chainer
    raises there instead).

    Args:
        func: A function of Variables.
        xs: Its inputs (Variables or arrays).

    Returns:
        A Variable, or a tuple of Variables when ``func`` returns several.

    Example:
        >>> import numpy as np
        >>> import kusari
        >>> import kusari.functions as F
        >>> x = kusari.Variable(np.array([1., 2.], np.float32))
        >>> y = F.forget(lambda a: a * a * a, x)
        >>> F.sum(y).backward()
        >>> x.grad
        array([ 3., 12.], dtype=float32)
    """
    ys = Forget(func).apply(xs)
    if len(ys) == 1:
        return ys[0]
    return ys
