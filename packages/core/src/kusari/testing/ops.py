"""``check_op``: the one helper every differentiable function is tested with.

It runs a function on generated inputs and checks, for one dtype and device:

1. the forward output against a NumPy reference (computed in float64),
   with the output dtype preserved, on contiguous and non-contiguous inputs;
2. the backward against numerical gradients (numerical side in float64);
3. the double backward the same way, when asked.

A test is then a line or two::

    @pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
    def test_tanh(dtype, device):
        check_op(F.tanh, np.tanh, [(3, 4)], dtype=dtype, device=device)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from kusari import backend
from kusari.testing.array import assert_allclose

# Default tolerances by dtype: (forward, backward, double backward), each an
# (atol, rtol) pair. float16 keeps ~3 significant digits.
DEFAULT_TOLERANCES: dict[Any, dict[str, tuple[float, float]]] = {
    numpy.dtype(numpy.float16): {
        "forward": (5e-3, 5e-3),
        "backward": (5e-2, 5e-2),
        "double_backward": (1e-1, 1e-1),
    },
    numpy.dtype(numpy.float32): {
        "forward": (1e-5, 1e-4),
        "backward": (1e-3, 1e-3),
        "double_backward": (1e-2, 1e-2),
    },
    numpy.dtype(numpy.float64): {
        "forward": (1e-7, 1e-7),
        "backward": (1e-5, 1e-4),
        "double_backward": (1e-4, 1e-3),
    },
}

InputSpec = Any  # a shape tuple, an array, or a callable (rng, dtype) -> array


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return x if isinstance(x, tuple) else (x,)


def make_noncontiguous(a: Any) -> Any:
    """A copy of ``a`` with the same values laid out non-contiguously."""
    if a.ndim == 0:
        return a
    xp = backend.get_array_module(a)
    big = xp.empty(a.shape[:-1] + (a.shape[-1] * 2,), dtype=a.dtype)
    view = big[..., ::2]
    view[...] = a
    return view


def _generate(spec: InputSpec, rng: numpy.random.Generator, dtype: Any) -> Any:
    if callable(spec):
        return numpy.asarray(spec(rng, dtype))
    if isinstance(spec, numpy.ndarray):
        return spec.astype(dtype) if spec.dtype.kind == "f" else spec.copy()
    return numpy.asarray(rng.uniform(-1, 1, spec), dtype=dtype)


def check_op(
    op: Callable[..., Any],
    reference: Callable[..., Any] | None,
    inputs: Sequence[InputSpec],
    *,
    dtype: Any = numpy.float32,
    input_dtypes: Sequence[Any] | None = None,
    device: Any = "@numpy",
    backward: bool = True,
    double_backward: bool = True,
    no_grads: Sequence[bool] | None = None,
    tolerances: dict[str, tuple[float, float]] | None = None,
    check_dtype: bool = True,
    noncontiguous: bool = True,
    dodge_nondifferentiable: bool = False,
    eps: float | None = None,
    seed: int = 0,
    max_tries: int = 5,
) -> None:
    """Check ``op``'s forward, backward and double backward.

    Args:
        op: The function under test; takes Variables, returns a Variable or
            a tuple of Variables.
        reference: NumPy implementation taking float64 arrays (integer inputs
            unchanged), returning an array or tuple; None skips the forward
            comparison.
        inputs: One spec per input: a shape (uniform in [-1, 1)), an array
            (floats cast to ``dtype``), or ``callable(rng, dtype) -> array``.
        dtype: The float dtype of the inputs, and the dtype the outputs
            must have.
        input_dtypes: Per input, its float dtype, for ops that take mixed
            precisions (a float16 ``x`` with a float32 ``W``); ``dtype`` is
            then only the expected output dtype. Default tolerances and step
            follow the least precise of these and ``dtype``.
        device: Where to run (``'@numpy'``, ``'@cupy:0'``).
        backward: Check gradients numerically.
        double_backward: Check second-order gradients numerically.
        no_grads: Per input, True if it is not differentiated.
        tolerances: Overrides of ``DEFAULT_TOLERANCES[dtype]`` by key
            (``'forward'``, ``'backward'``, ``'double_backward'``).
        check_dtype: Outputs must have the input dtype.
        noncontiguous: Repeat the forward check with non-contiguous inputs.
        dodge_nondifferentiable: Redraw inputs that sit on a kink.
        eps: Step of the numerical differentiation (default by dtype).
        seed: Seed of the input generator.
        max_tries: How many draws ``dodge_nondifferentiable`` may make.
    """
    from kusari import gradient_check
    from kusari.variable import Variable

    dtype = numpy.dtype(dtype)
    if input_dtypes is None:
        in_dtypes = [dtype] * len(inputs)
    else:
        if len(input_dtypes) != len(inputs):
            raise ValueError(
                f"check_op: {len(inputs)} inputs but {len(input_dtypes)} input_dtypes"
            )
        in_dtypes = [numpy.dtype(d) for d in input_dtypes]
    # Tolerances and step of the least precise dtype involved.
    floats = [d for d in (dtype, *in_dtypes) if d.kind == "f"] or [dtype]
    coarse = min(floats, key=lambda d: d.itemsize)
    tol = dict(DEFAULT_TOLERANCES[coarse])
    if tolerances:
        tol.update(tolerances)
    dev = backend.get_device(device)
    rng = numpy.random.default_rng(seed)
    if eps is None:
        eps = {numpy.float16: 2e-2, numpy.float32: 1e-3}.get(coarse.type, 1e-4)

    for attempt in range(max_tries):
        host = [_generate(s, rng, d) for s, d in zip(inputs, in_dtypes)]
        if no_grads is None:
            ng = [a.dtype.kind != "f" for a in host]
        else:
            ng = list(no_grads)
        xs = [dev.send(a) for a in host]

        # Forward, contiguous and not.
        outs = _as_tuple(
            op(*[Variable(x, requires_grad=not n) for x, n in zip(xs, ng)])
        )
        if reference is not None:
            ref_in = [
                a.astype(numpy.float64) if a.dtype.kind == "f" else a for a in host
            ]
            expected = _as_tuple(reference(*ref_in))
            _compare_outputs(op, outs, expected, dtype, tol["forward"], check_dtype)
            if noncontiguous and any(a.ndim > 0 for a in host):
                nc = [make_noncontiguous(x) for x in xs]
                outs_nc = _as_tuple(
                    op(*[Variable(x, requires_grad=not n) for x, n in zip(nc, ng)])
                )
                _compare_outputs(
                    op,
                    outs_nc,
                    expected,
                    dtype,
                    tol["forward"],
                    check_dtype,
                    note=" (non-contiguous inputs)",
                )
        if not backward:
            return
        grads_out = tuple(
            dev.send(rng.uniform(-1, 1, o.shape).astype(o.dtype))
            if o.dtype.kind == "f"
            else None
            for o in outs
        )
        if input_dtypes is not None:
            _check_grad_dtypes(op, xs, ng, grads_out)
        try:
            atol, rtol = tol["backward"]
            gradient_check.check_backward(
                op,
                tuple(xs),
                grads_out,
                eps=eps,
                atol=atol,
                rtol=rtol,
                no_grads=ng,
                dtype=numpy.float64,
                detect_nondifferentiable=dodge_nondifferentiable,
            )
            if double_backward:
                ggs = tuple(
                    dev.send(rng.uniform(-1, 1, x.shape).astype(x.dtype))
                    for x, n in zip(xs, ng)
                    if not n
                )
                atol, rtol = tol["double_backward"]
                gradient_check.check_double_backward(
                    op,
                    tuple(xs),
                    grads_out,
                    ggs,
                    eps=eps,
                    atol=atol,
                    rtol=rtol,
                    no_grads=ng,
                    dtype=numpy.float64,
                    detect_nondifferentiable=dodge_nondifferentiable,
                )
        except gradient_check.NondifferentiableError:
            if attempt + 1 == max_tries:
                raise
            continue
        return


def _check_grad_dtypes(
    op: Any, xs: Sequence[Any], no_grads: Sequence[bool], grads_out: Sequence[Any]
) -> None:
    """Each gradient comes back in its own input's dtype (mixed precisions)."""
    from kusari.function_node import grad
    from kusari.variable import Variable

    in_vars = [Variable(x, requires_grad=not n) for x, n in zip(xs, no_grads)]
    outs = _as_tuple(op(*in_vars))
    pairs = [(o, g) for o, g in zip(outs, grads_out) if g is not None]
    targets = [v for v, n in zip(in_vars, no_grads) if not n]
    gxs = grad([o for o, _ in pairs], targets, grad_outputs=[g for _, g in pairs])
    name = getattr(op, "__name__", repr(op))
    for i, (v, g) in enumerate(zip(targets, gxs)):
        if g is not None and g.dtype != v.dtype:
            raise AssertionError(
                f"{name}: the gradient of differentiable input {i} has dtype "
                f"{g.dtype}, expected its input's dtype {v.dtype}"
            )


def _compare_outputs(
    op: Any,
    outs: tuple[Any, ...],
    expected: tuple[Any, ...],
    dtype: Any,
    tol: tuple[float, float],
    check_dtype: bool,
    note: str = "",
) -> None:
    name = getattr(op, "__name__", repr(op))
    if len(outs) != len(expected):
        raise AssertionError(
            f"{name}{note}: {len(outs)} outputs, reference gives {len(expected)}"
        )
    for i, (o, e) in enumerate(zip(outs, expected)):
        e = numpy.asarray(e)
        if o.shape != e.shape:
            raise AssertionError(
                f"{name}{note}: output {i} has shape {o.shape}, reference {e.shape}"
            )
        if check_dtype and e.dtype.kind == "f" and o.dtype != dtype:
            raise AssertionError(
                f"{name}{note}: output {i} has dtype {o.dtype}, expected {dtype}"
            )
        try:
            assert_allclose(o.array, e, atol=tol[0], rtol=tol[1], verbose=False)
        except AssertionError as err:
            raise AssertionError(
                f"{name}{note}: output {i} differs from the reference\n{err}"
            ) from None
