"""``FunctionTestCase``: Chainer's declarative forward/backward test class.

A subclass says how to make inputs (``generate_inputs``), how to call the
function (``forward``) and what it should give (``forward_expected``); the
class provides ``test_forward``, ``test_backward`` and
``test_double_backward``, each run per backend by
:func:`~kusari.testing.inject_backend_tests`. New tests in this repository
use :func:`~kusari.testing.check_op`; this class is here so that Chainer-style
test suites run unchanged.
"""

from __future__ import annotations

import contextlib
import unittest
from collections.abc import Iterator
from typing import Any

import numpy

import kusari
from kusari.backends import cuda
from kusari.testing.array import assert_allclose
from kusari.testing.ops import make_noncontiguous


class _TestError(AssertionError):
    @classmethod
    def check(cls, expr: bool, message: str) -> None:
        if not expr:
            raise cls(message)

    @classmethod
    def fail(cls, message: str, exc: BaseException | None = None) -> None:
        if exc is not None:
            raise cls(f"{message}\n\n(caused by)\n{exc}") from exc
        raise cls(message)

    @classmethod
    @contextlib.contextmanager
    def raise_if_fail(
        cls, message: str, error_types: Any = AssertionError
    ) -> Iterator[None]:
        try:
            yield
        except error_types as e:
            cls.fail(message, e)


class FunctionTestError(_TestError):
    """The function under test computed something wrong."""


class LinkTestError(_TestError):
    """The link under test computed something wrong."""


def _array_types() -> tuple[type, ...]:
    return (numpy.ndarray, cuda.ndarray) if cuda.available else (numpy.ndarray,)


def _props(arrays: Any) -> str:
    return ", ".join(f"{a.shape}:{a.dtype}" for a in arrays)


def _check_cpu_arrays(arrays: Any, method: str, allow_none: bool = False) -> None:
    if not isinstance(arrays, tuple) or not all(
        isinstance(a, numpy.ndarray) or (allow_none and a is None) for a in arrays
    ):
        what = "numpy.ndarray or None" if allow_none else "numpy.ndarray"
        raise TypeError(
            f"{method}() must return a tuple of {what}, got {type(arrays)}: {arrays!r}"
        )


class FunctionTestCase(unittest.TestCase):
    """Declarative forward/backward/double-backward checks of one function.

    Override ``generate_inputs()`` (a tuple of NumPy arrays),
    ``forward(inputs, device)`` (Variables in, a tuple of Variables out) and
    ``forward_expected(inputs)`` (NumPy in, a tuple of NumPy arrays out).
    Optional: ``before_test(test_name)``, ``generate_grad_outputs``,
    ``generate_grad_grad_inputs``, ``check_forward_outputs``. Attributes:
    ``skip_forward_test``, ``skip_backward_test``,
    ``skip_double_backward_test``, ``dodge_nondifferentiable``,
    ``contiguous`` (None: non-contiguous arrays; ``'C'``: contiguous) and the
    ``check_*_options`` dicts (tolerances), set per test in ``setUp``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> from kusari import testing
        >>> @testing.inject_backend_tests(None, [{}])
        ... class TestTanh(testing.FunctionTestCase):
        ...     def generate_inputs(self):
        ...         return np.random.uniform(-1, 1, (2, 3)).astype(np.float64),
        ...     def forward(self, inputs, device):
        ...         return F.tanh(inputs[0]),
        ...     def forward_expected(self, inputs):
        ...         return np.tanh(inputs[0]),
    """

    backend_config: Any = None
    check_forward_options: dict[str, Any]
    check_backward_options: dict[str, Any]
    check_double_backward_options: dict[str, Any]
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False
    dodge_nondifferentiable = False
    contiguous: str | None = None

    # The base class is not a test itself (its test methods need a backend
    # config); each subclass is collected again.
    __test__ = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.__test__ = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check_forward_options = {}
        self.check_backward_options = {}
        self.check_double_backward_options = {}

    # -- what subclasses provide ------------------------------------------
    def before_test(self, test_name: str) -> None:
        """Called before each test; raise ``unittest.SkipTest`` to skip."""

    def generate_inputs(self) -> tuple[numpy.ndarray, ...]:
        raise NotImplementedError(f"{type(self).__name__}: define generate_inputs()")

    def forward(self, inputs: tuple[Any, ...], device: Any) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__}: define forward()")

    def forward_expected(self, inputs: tuple[numpy.ndarray, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__}: define forward_expected()")

    def generate_grad_outputs(self, outputs_template: Any) -> tuple[Any, ...]:
        return tuple(
            numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
            for a in outputs_template
        )

    def generate_grad_grad_inputs(self, inputs_template: Any) -> tuple[Any, ...]:
        return tuple(
            numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
            for a in inputs_template
        )

    def check_forward_outputs(self, outputs: Any, expected_outputs: Any) -> None:
        FunctionTestError.check(
            len(outputs) == len(expected_outputs),
            f"forward gave {len(outputs)} outputs, {len(expected_outputs)} expected",
        )
        for i, (out, expected) in enumerate(zip(outputs, expected_outputs)):
            FunctionTestError.check(
                out.shape == expected.shape and out.dtype == expected.dtype,
                f"output {i}: shape/dtype {out.shape}:{out.dtype}, expected "
                f"{expected.shape}:{expected.dtype}",
            )
            with FunctionTestError.raise_if_fail(f"output {i} is not close"):
                assert_allclose(out, expected, **self.check_forward_options)

    # -- the tests ----------------------------------------------------------
    def test_forward(self, backend_config: Any) -> None:
        """Forward matches ``forward_expected`` and leaves its inputs alone."""
        self._run_test_forward(backend_config)

    def test_backward(self, backend_config: Any) -> None:
        """Backward matches numerical gradients (computed in float64)."""
        self._run_test_backward(backend_config)

    def test_double_backward(self, backend_config: Any) -> None:
        """The gradient's own backward matches numerical gradients."""
        self._run_test_double_backward(backend_config)

    # -- machinery ----------------------------------------------------------
    def _layout(self, arrays: Any) -> Any:
        if self.contiguous is None:
            # None stands for an upstream gradient that is not given.
            return tuple(None if a is None else make_noncontiguous(a) for a in arrays)
        if self.contiguous == "C":
            return tuple(arrays)
        raise ValueError(f"contiguous must be None or 'C', got {self.contiguous!r}")

    def _start(self, backend_config: Any, name: str, skip: bool) -> None:
        if skip:
            raise unittest.SkipTest(f"skip_{name[len('test_') :]}_test is set")
        self.backend_config = backend_config
        self.test_name = name
        self.before_test(name)

    def _inputs(self) -> tuple[numpy.ndarray, ...]:
        inputs = self.generate_inputs()
        _check_cpu_arrays(inputs, "generate_inputs")
        return inputs

    def _expected(self, inputs: Any) -> tuple[numpy.ndarray, ...]:
        outputs = self.forward_expected(inputs)
        _check_cpu_arrays(outputs, "forward_expected")
        return outputs

    def _forward(self, inputs: Any, backend_config: Any) -> tuple[Any, ...]:
        with backend_config:
            outputs = self.forward(inputs, backend_config.device)
        if not isinstance(outputs, tuple) or not all(
            isinstance(o, kusari.Variable) for o in outputs
        ):
            FunctionTestError.fail(
                f"forward() must return a tuple of Variables, got {outputs!r}"
            )
        return outputs

    def _run_test_forward(self, backend_config: Any) -> None:
        self._start(backend_config, "test_forward", self.skip_forward_test)
        cpu_inputs = self._layout(self._inputs())
        before = [a.copy() for a in cpu_inputs]
        expected = self._expected(cpu_inputs)
        inputs = self._layout(backend_config.get_array(cpu_inputs))
        outputs = self._forward(
            tuple(
                kusari.Variable(a, requires_grad=a.dtype.kind == "f") for a in inputs
            ),
            backend_config,
        )
        changed = [
            i
            for i, (a, b) in enumerate(zip(before, inputs))
            if not numpy.array_equal(a, cuda.to_cpu(b), equal_nan=a.dtype.kind in "fc")
        ]
        FunctionTestError.check(
            not changed,
            f"forward modified its inputs {changed} (inputs: {_props(inputs)})",
        )
        self.check_forward_outputs(
            tuple(cuda.to_cpu(v.array) for v in outputs), expected
        )

    def _retrying(self, check: Any) -> None:
        from kusari import gradient_check

        while True:
            try:
                check()
                return
            except gradient_check.NondifferentiableError:
                if not self.dodge_nondifferentiable:
                    raise
                # A non-differentiable point was drawn: draw other inputs.

    def _run_test_backward(self, backend_config: Any) -> None:
        from kusari import gradient_check

        self._start(backend_config, "test_backward", self.skip_backward_test)

        def f(*args: Any) -> Any:
            return self._forward(args, backend_config)

        def check() -> None:
            inputs = self._inputs()
            grads = self.generate_grad_outputs(self._expected(inputs))
            # None: that output's upstream gradient is not given (as when a
            # function with several outputs is used through only some).
            _check_cpu_arrays(grads, "generate_grad_outputs", allow_none=True)
            with (
                backend_config,
                FunctionTestError.raise_if_fail(
                    "backward is not implemented correctly"
                ),
            ):
                gradient_check.check_backward(
                    f,
                    self._layout(backend_config.get_array(inputs)),
                    self._layout(backend_config.get_array(grads)),
                    dtype=numpy.float64,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_backward_options,
                )

        self._retrying(check)

    def _run_test_double_backward(self, backend_config: Any) -> None:
        from kusari import gradient_check

        self._start(
            backend_config, "test_double_backward", self.skip_double_backward_test
        )

        def f(*args: Any) -> Any:
            return self._forward(args, backend_config)

        def check() -> None:
            inputs = self._inputs()
            grads = self.generate_grad_outputs(self._expected(inputs))
            grad_grads = self.generate_grad_grad_inputs(inputs)
            _check_cpu_arrays(grads, "generate_grad_outputs", allow_none=True)
            _check_cpu_arrays(grad_grads, "generate_grad_grad_inputs", allow_none=True)
            # Integer inputs have no gradient, so no second-order input either.
            grad_grads = tuple(
                g for g, x in zip(grad_grads, inputs) if x.dtype.kind == "f"
            )
            with (
                backend_config,
                FunctionTestError.raise_if_fail(
                    "double backward is not implemented correctly"
                ),
            ):
                gradient_check.check_double_backward(
                    f,
                    self._layout(backend_config.get_array(inputs)),
                    self._layout(backend_config.get_array(grads)),
                    self._layout(backend_config.get_array(grad_grads)),
                    dtype=numpy.float64,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_double_backward_options,
                )

        self._retrying(check)
