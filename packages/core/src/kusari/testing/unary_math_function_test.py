"""``unary_math_function_unittest``: the standard tests of a unary math function."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy

from kusari.testing.backend import inject_backend_tests
from kusari.testing.parameterized import parameterize


def _default_data(shape: tuple[int, ...], dtype: Any) -> tuple[Any, Any, Any]:
    def draw() -> Any:
        return numpy.random.uniform(-1, 1, shape).astype(dtype)

    return draw(), draw(), draw()


def _expected(reference: Callable[..., Any], x: Any, dtype: Any) -> Any:
    """Call ``reference`` as Chainer v7 does, ``reference(x, dtype=dtype)``.

    v7's references (``numpy.sin``, ``def _erfc_expected(x, dtype)``) take
    ``dtype`` by keyword; a one-argument callable is called with ``x`` alone.
    """
    if isinstance(reference, numpy.ufunc):
        return reference(x, dtype=dtype)
    try:
        params = inspect.signature(reference).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature
        return reference(x)
    takes_dtype = any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        or (p.name == "dtype" and p.kind is not inspect.Parameter.POSITIONAL_ONLY)
        for p in params
    )
    return reference(x, dtype=dtype) if takes_dtype else reference(x)


def unary_math_function_unittest(
    func: Callable[..., Any],
    func_expected: Callable[..., Any] | None = None,
    label_expected: str | None = None,
    make_data: Callable[..., Any] | None = None,
    is_linear: bool | None = None,
    forward_options: dict[str, Any] | None = None,
    backward_options: dict[str, Any] | None = None,
    double_backward_options: dict[str, Any] | None = None,
) -> Callable[[type], Any]:
    """Class decorator: test ``func`` against ``func_expected`` (NumPy's function
    of the same name by default) on shapes ``(3, 2)`` and ``()`` in float16,
    float32 and float64, with numerical backward and double-backward checks,
    on the CPU and (where present) the GPU.

    Args:
        func: The kusari function (one input, one output).
        func_expected: Its NumPy reference, called as Chainer v7 does,
            ``func_expected(x, dtype=x.dtype)`` (a callable without a
            ``dtype`` parameter is called with ``x`` alone).
        label_expected: Unused (kusari's nodes have labels of their own);
            kept for Chainer's signature.
        make_data: ``make_data(shape, dtype) -> (x, gy, ggx)`` for functions
            with a restricted domain.
        is_linear: Skip the double-backward check (it is zero for a linear
            function, so a numerical check says nothing).
        forward_options: ``atol``/``rtol`` for the forward check; they
            update the defaults (float16: its machine epsilon, others: 1e-4).
        backward_options: Options for ``check_backward``; they update the
            defaults (float16: ``eps``, ``atol``, ``rtol`` 2**-4, others:
            ``atol``, ``rtol`` 1e-4), key by key.
        double_backward_options: Options for ``check_double_backward``,
            merged the same way.

    Example:
        >>> import unittest
        >>> import kusari.functions as F
        >>> from kusari import testing
        >>> @testing.unary_math_function_unittest(F.sin)
        ... class TestSin(unittest.TestCase):
        ...     pass
    """
    from kusari import gradient_check
    from kusari.testing.array import assert_allclose
    from kusari.variable import Variable

    reference = func_expected or getattr(numpy, func.__name__)
    data = make_data or _default_data

    # Chainer v7 starts from per-dtype defaults and lets the caller's options
    # override single keys, so ``{'eps': 1e-3}`` keeps the float16 tolerances.
    f16 = {"eps": 2.0**-4, "atol": 2.0**-4, "rtol": 2.0**-4}
    wide = {"atol": 1e-4, "rtol": 1e-4}

    def options(dtype: Any, given: dict[str, Any] | None, f16_default: Any) -> Any:
        merged = dict(f16_default if dtype == numpy.float16 else wide)
        merged.update(given or {})
        return merged

    def setUp(self: Any) -> None:
        self.x, self.gy, self.ggx = data(self.shape, self.dtype)

    def test_forward(self: Any, backend_config: Any) -> None:
        x = backend_config.get_array(self.x)
        with backend_config:
            y = func(Variable(x))
        assert y.dtype == self.dtype, f"{func.__name__}: dtype {y.dtype}"
        expected = numpy.asarray(
            _expected(reference, self.x, self.dtype), dtype=self.dtype
        )
        half_eps = float(numpy.finfo(numpy.float16).eps)
        tol = options(self.dtype, forward_options, {"atol": half_eps, "rtol": half_eps})
        assert_allclose(y.array, expected, **tol)

    def test_backward(self: Any, backend_config: Any) -> None:
        x, gy = backend_config.get_array((self.x, self.gy))
        opts = {"dtype": numpy.float64, **options(self.dtype, backward_options, f16)}
        with backend_config:
            gradient_check.check_backward(func, x, gy, **opts)

    def test_double_backward(self: Any, backend_config: Any) -> None:
        if is_linear:
            return
        x, gy, ggx = backend_config.get_array((self.x, self.gy, self.ggx))
        opts = {
            "dtype": numpy.float64,
            **options(self.dtype, double_backward_options, f16),
        }
        with backend_config:
            gradient_check.check_double_backward(func, x, gy, ggx, **opts)

    def decorate(klass: type) -> Any:
        for name, member in (
            ("setUp", setUp),
            ("test_forward", test_forward),
            ("test_backward", test_backward),
            ("test_double_backward", test_double_backward),
        ):
            setattr(klass, name, member)
        cases = parameterize(
            *(
                {"shape": shape, "dtype": dtype}
                for shape in ((3, 2), ())
                for dtype in (numpy.float16, numpy.float32, numpy.float64)
            )
        )(klass)
        return inject_backend_tests(None, [{}, {"use_cuda": True}])(cases)

    return decorate
