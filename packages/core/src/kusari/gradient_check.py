"""Numerical gradient checks for functions and links.

:func:`check_backward` compares the gradient that backprop computes with a
central-difference estimate along a random direction (one directional
derivative per check, so the cost does not grow with the input size).
:func:`check_double_backward` does the same for the gradient function
itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari.configuration import using_config
from kusari.testing.array import assert_allclose
from kusari.variable import Variable

__all__ = [
    "NondifferentiableError",
    "assert_allclose",
    "check_backward",
    "check_double_backward",
    "numerical_grad",
]


class NondifferentiableError(Exception):
    """The function is not differentiable at the given inputs."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if x is None:
        return ()
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def numerical_grad(
    f: Callable[[], Any],
    inputs: Sequence[Any],
    grad_outputs: Sequence[Any],
    eps: float = 1e-3,
    detect_nondifferentiable: bool = False,
    diff_atol: float = 0,
    diff_rtol: float = 1e-2,
    center_outputs: Any = None,
) -> tuple[Any, ...]:
    """Central-difference gradients of ``f`` at ``inputs`` (modified in place).

    Args:
        f: A callable with no arguments returning a tuple of output arrays,
            computed from the arrays in ``inputs``.
        inputs: The input arrays; each element is perturbed in turn.
        grad_outputs: Gradients of the outputs (None entries are skipped).
        eps: The step.
        detect_nondifferentiable: Compare the left and right derivatives and
            raise :class:`NondifferentiableError` when they disagree.
        diff_atol: Absolute tolerance of that comparison.
        diff_rtol: Relative tolerance of that comparison.
        center_outputs: The outputs at ``inputs`` (computed when needed).

    Returns:
        One gradient array per input.
    """
    if eps <= 0:
        raise ValueError(f"numerical_grad: eps must be positive, got {eps}")
    for x in inputs:
        # Integer inputs cannot be perturbed by eps (Chainer's error and words).
        if x.dtype.kind != "f":
            raise RuntimeError(
                "The dtype of input arrays must be kind of float "
                f"(numerical_grad got an input of dtype {x.dtype})"
            )
    # The perturbed forward passes run with type checks off, as Chainer v7's
    # do: a link whose parameters keep float32 may then see float64 inputs.
    with using_config("type_check", False):
        return _numerical_grad(
            f, inputs, grad_outputs, eps, detect_nondifferentiable, diff_atol, diff_rtol
        )


def _numerical_grad(
    f: Callable[[], Any],
    inputs: Sequence[Any],
    grad_outputs: Sequence[Any],
    eps: float,
    detect_nondifferentiable: bool,
    diff_atol: float,
    diff_rtol: float,
) -> tuple[Any, ...]:
    grads = []
    for x in inputs:
        xp = backend.get_array_module(x)
        gx = xp.zeros(x.shape, dtype=numpy.float64)
        flat = x.reshape(-1) if x.flags.c_contiguous else None
        for i in numpy.ndindex(x.shape):
            orig = x[i].copy()
            x[i] = orig + eps
            y_plus = [yy.astype(numpy.float64) for yy in _as_tuple(f())]
            x[i] = orig - eps
            y_minus = [yy.astype(numpy.float64) for yy in _as_tuple(f())]
            if detect_nondifferentiable:
                pts = []
                for k in (-2, 0, 2):
                    x[i] = orig + k * eps
                    pts.append([yy.astype(numpy.float64) for yy in _as_tuple(f())])
                _detect(
                    [pts[0], y_minus, pts[1], y_plus, pts[2]], eps, diff_atol, diff_rtol
                )
            x[i] = orig
            total = 0.0
            for yp, ym, gy in zip(y_plus, y_minus, grad_outputs):
                if gy is None:
                    continue
                total += float(((yp - ym) * gy).sum()) / (2 * eps)
            gx[i] = total
        del flat
        grads.append(gx.astype(x.dtype, copy=False))
    return tuple(grads)


def _detect(ys: list[Any], eps: float, atol: float, rtol: float) -> None:
    """Raise NondifferentiableError when the slope jumps at the centre.

    ``ys`` holds the outputs at -2, -1, 0, +1 and +2 steps. On a smooth
    function consecutive one-sided slopes change by about f'' * eps per step,
    so the change across the centre is predicted by the changes on either
    side; a kink shows up as a jump well beyond that prediction.
    """
    for y_m2, y_m1, y_0, y_p1, y_p2 in zip(*ys):
        s1 = (y_m1 - y_m2) / eps
        s2 = (y_0 - y_m1) / eps
        s3 = (y_p1 - y_0) / eps
        s4 = (y_p2 - y_p1) / eps
        expected = ((s2 - s1) + (s4 - s3)) / 2
        jump = cuda.to_cpu(abs((s3 - s2) - expected))
        scale = cuda.to_cpu(numpy.maximum(abs(s2), abs(s3)))
        if (jump > atol + 1e-6 + rtol * scale).any():
            raise NondifferentiableError(
                "the function is not differentiable here: its slope jumps by "
                f"{float(jump.max()):.3g} at the evaluation point"
            )


def _is_float(a: Any) -> bool:
    return a is not None and numpy.dtype(a.dtype).kind == "f"


def check_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    params: Any = (),
    eps: float = 1e-3,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
    is_immutable_params: bool = False,
) -> None:
    """Check backprop's gradients of ``func`` against numerical ones.

    The check compares directional derivatives along a random unit direction
    over all inputs and ``params``.

    Args:
        func: Takes Variables, returns a Variable or a tuple of them.
        x_data: Input array or tuple of arrays.
        y_grad: Output gradient array (tuple for several outputs), or None
            for a single-element output.
        params: Parameters (Variables) whose gradients are checked too.
        eps: Step of the central difference.
        atol: Absolute tolerance.
        rtol: Relative tolerance.
        no_grads: Per input, True to skip it (non-float inputs are skipped).
        dtype: Compute the numerical side in this dtype (e.g. float64).
        detect_nondifferentiable: Raise :class:`NondifferentiableError` at kinks.
        is_immutable_params: Kept for Chainer compatibility.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> from kusari import gradient_check
        >>> x = np.random.uniform(-1, 1, (3,))
        >>> gradient_check.check_backward(F.tanh, x, np.ones(3))
    """
    x_data = _as_tuple(x_data)
    y_grad = _as_tuple(y_grad)
    params = _as_tuple(params)
    if no_grads is None:
        no_grads = [not _is_float(x) for x in x_data]
    elif len(no_grads) != len(x_data):
        raise ValueError(
            f"check_backward: {len(x_data)} inputs but {len(no_grads)} no_grads entries"
        )
    xs = [Variable(x, requires_grad=not ng) for x, ng in zip(x_data, no_grads)]
    for p in params:
        p.cleargrad()
    with using_config("enable_backprop", True):
        ys = _as_tuple(func(*xs))
    ys = tuple(y for y in ys if y is not None)
    if not y_grad or all(g is None for g in y_grad):
        if len(ys) != 1 or ys[0].size != 1:
            raise ValueError(
                "check_backward: y_grad is None but the output is not a scalar; "
                "pass the output gradients"
            )
        y_grad = (backend.get_array_module(ys[0].array).ones_like(ys[0].array),)
    if len(y_grad) != len(ys):
        raise ValueError(
            f"check_backward: func returned {len(ys)} outputs but {len(y_grad)} "
            "gradients were given"
        )
    from kusari._backprop import backward

    # An output whose gradient is None takes no part in backprop (Chainer's
    # meaning of None in grad_outputs), so it is left out here.
    given = [(y, g.copy()) for y, g in zip(ys, y_grad) if g is not None]
    with using_config("enable_backprop", True):
        backward([y for y, _ in given], [g for _, g in given])

    targets = [x for x, ng in zip(xs, no_grads) if not ng] + list(params)
    analytic_grads = [t.grad for t in targets]
    for t, g in zip(targets, analytic_grads):
        if g is None:
            continue
        if g.shape != t.shape:
            raise AssertionError(f"gradient shape {g.shape} != input shape {t.shape}")
    if not targets:
        return
    xp = backend.get_array_module(*x_data) if x_data else numpy
    rng = numpy.random.default_rng(0x5EED)
    directions = [rng.standard_normal(t.shape) for t in targets]
    norm = numpy.sqrt(sum(float((d * d).sum()) for d in directions)) or 1.0
    directions = [xp.asarray(d / norm) for d in directions]
    analytic = 0.0
    for g, d in zip(analytic_grads, directions):
        if g is not None:
            analytic += float((g.astype(numpy.float64) * d).sum())

    # The numerical side: f(t) = <y(x + t d), gy>, differentiated at t = 0.
    casted = []
    for t in targets:
        arr = t.array
        casted.append(arr.astype(dtype) if dtype is not None else arr.copy())
    base_inputs = list(x_data)
    target_index = [i for i, ng in enumerate(no_grads) if not ng]
    originals = [p.array for p in params]

    def evaluate(step: float) -> list[Any]:
        # Every float input is computed in `dtype`, differentiated or not,
        # so the function never sees mixed precisions.
        inputs = [
            xp.asarray(a, dtype=dtype) if dtype is not None and _is_float(a) else a
            for a in base_inputs
        ]
        for k, i in enumerate(target_index):
            inputs[i] = xp.asarray(
                casted[k] + step * directions[k], dtype=casted[k].dtype
            )
        for k, p in enumerate(params):
            c = casted[len(target_index) + k]
            p.array = xp.asarray(
                c + step * directions[len(target_index) + k], dtype=c.dtype
            )
        # Backprop stays on: the function may itself differentiate (as the
        # first-order gradient function of check_double_backward does).
        in_vars = [Variable(a, requires_grad=not ng) for a, ng in zip(inputs, no_grads)]
        # Type checks off as in Chainer v7's numerical side: with `dtype` the
        # inputs become float64 while a link's own parameters keep theirs.
        with using_config("type_check", False):
            outs = _as_tuple(func(*in_vars))
        return [None if o is None else o.array.astype(numpy.float64) for o in outs]

    try:
        y_plus = evaluate(eps)
        y_minus = evaluate(-eps)
        if detect_nondifferentiable:
            _detect(
                [evaluate(-2 * eps), y_minus, evaluate(0.0), y_plus, evaluate(2 * eps)],
                eps,
                0,
                0.1,
            )
    finally:
        for p, o in zip(params, originals):
            p.array = o
    numeric = 0.0
    for yp, ym, gy in zip(y_plus, y_minus, y_grad):
        if gy is None or yp is None:
            continue
        numeric += float(((yp - ym) * gy.astype(numpy.float64)).sum()) / (2 * eps)
    try:
        assert_allclose(
            numpy.asarray(numeric),
            numpy.asarray(analytic),
            atol=atol,
            rtol=rtol,
            verbose=False,
        )
    except AssertionError:
        raise AssertionError(
            "check_backward failed: the directional derivative of backprop does not "
            f"match the numerical one.\nbackprop:  {analytic!r}\nnumerical: "
            f"{numeric!r}\natol={atol} rtol={rtol} eps={eps}\ninputs: "
            + ", ".join(f"{x.shape} {x.dtype}" for x in x_data)
        ) from None


def check_double_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    x_grad_grad: Any,
    params: Any = (),
    params_grad_grad: Any = (),
    eps: float = 1e-3,
    atol: float = 1e-4,
    rtol: float = 1e-3,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
) -> None:
    """Check the second-order gradients of ``func`` numerically.

    It checks the backward of the first-order gradient function
    ``(x, gy) -> gx`` with :func:`check_backward`.

    Args:
        func: Takes Variables, returns a Variable or a tuple of them.
        x_data: Inputs.
        y_grad: Output gradients (inputs of the gradient function).
        x_grad_grad: Gradients of the input gradients.
        params: Parameters; their gradients are outputs too.
        params_grad_grad: Gradients of the parameter gradients.
        eps, atol, rtol, dtype, detect_nondifferentiable: As in
            :func:`check_backward`.
        no_grads: Per input, True to skip it.
    """
    from kusari.function_node import grad

    x_data = _as_tuple(x_data)
    y_grad = _as_tuple(y_grad)
    x_grad_grad = _as_tuple(x_grad_grad)
    params = _as_tuple(params)
    params_grad_grad = _as_tuple(params_grad_grad)
    n_x = len(x_data)
    if no_grads is None:
        no_grads = [not _is_float(x) for x in x_data]
    differentiable = [i for i in range(n_x) if not no_grads[i]]

    # Upstream gradients given as None are not inputs of the first-order
    # function (there is nothing to perturb), and their outputs take no part
    # in its backprop, as in check_backward.
    given_gy = [i for i, g in enumerate(y_grad) if g is not None]

    def first_order(*inputs: Variable) -> tuple[Any, ...]:
        xs = inputs[:n_x]
        ys = _as_tuple(func(*xs))
        used = [ys[i] for i in given_gy]
        targets = [xs[i] for i in differentiable] + list(params)
        gxs = grad(
            used, targets, grad_outputs=list(inputs[n_x:]), enable_double_backprop=True
        )
        out = []
        for t, g in zip(targets, gxs):
            if g is None:
                xp = backend.get_array_module(t.array)
                g = Variable(xp.zeros_like(t.array), requires_grad=False)
            out.append(g)
        return tuple(out)

    ggs = [x_grad_grad[i] if len(x_grad_grad) == n_x else None for i in differentiable]
    if len(x_grad_grad) == len(differentiable):
        ggs = list(x_grad_grad)
    ggs += list(params_grad_grad)
    check_backward(
        first_order,
        x_data + tuple(y_grad[i] for i in given_gy),
        tuple(ggs),
        params=params,
        eps=eps,
        atol=atol,
        rtol=rtol,
        no_grads=list(no_grads) + [False] * len(given_gy),
        dtype=dtype,
        detect_nondifferentiable=detect_nondifferentiable,
    )
