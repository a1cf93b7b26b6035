"""``LinkTestCase`` and ``LinkInitializersTestCase``: Chainer's link test classes.

Like :class:`~kusari.testing.FunctionTestCase`, a subclass describes the link
(``generate_params``, ``create_link``, ``generate_inputs``, ``forward``,
``forward_expected``, ``param_names``) and the class runs the checks per
backend injected by :func:`~kusari.testing.inject_backend_tests`.
"""

from __future__ import annotations

import unittest
from typing import Any

import numpy

import kusari
from kusari.backends import cuda
from kusari.testing.array import assert_allclose
from kusari.testing.function_link import LinkTestError
from kusari.testing.ops import make_noncontiguous


class InitializerArgument:
    """A constructor argument (e.g. ``None``) and the initializer it stands
    for, for :meth:`LinkInitializersTestCase.get_initializers`."""

    def __init__(self, argument_value: Any, expected_initializer: Any) -> None:
        if expected_initializer is None:
            raise ValueError("InitializerArgument: the expected initializer is None")
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer


def _argument(init: Any) -> Any:
    return init.argument_value if isinstance(init, InitializerArgument) else init


def _expected_initializer(init: Any) -> Any:
    from kusari import initializers

    if isinstance(init, InitializerArgument):
        init = init.expected_initializer
    if init is None:
        raise ValueError(
            "a None initializer must be wrapped in InitializerArgument(None, "
            "expected_initializer)"
        )
    return initializers._get_initializer(init)


class _LinkTestBase(unittest.TestCase):
    backend_config: Any = None
    param_names: tuple[str, ...] | list[str] = ()
    contiguous: str | None = None
    __test__ = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # The base classes here are not tests; users' subclasses are.
        cls.__test__ = cls.__module__ != __name__

    def before_test(self, test_name: str) -> None:
        """Called before each test; raise ``unittest.SkipTest`` to skip."""

    def generate_params(self) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__}: define generate_params()")

    def generate_inputs(self) -> tuple[numpy.ndarray, ...]:
        raise NotImplementedError(f"{type(self).__name__}: define generate_inputs()")

    def create_link(self, initializers: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__}: define create_link()")

    def forward(self, link: Any, inputs: Any, device: Any) -> tuple[Any, ...]:
        outputs = link(*inputs)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def _layout(self, arrays: Any) -> Any:
        if self.contiguous is None:
            return tuple(make_noncontiguous(a) for a in arrays)
        if self.contiguous == "C":
            return tuple(arrays)
        raise ValueError(f"contiguous must be None or 'C', got {self.contiguous!r}")

    def _params(self) -> list[Any]:
        inits = self.generate_params()
        if not isinstance(inits, (tuple, list)):
            raise TypeError("generate_params() must return a tuple or a list")
        return list(inits)

    def _inputs(self) -> tuple[numpy.ndarray, ...]:
        inputs = self.generate_inputs()
        if not isinstance(inputs, tuple) or not all(
            isinstance(a, numpy.ndarray) for a in inputs
        ):
            raise TypeError("generate_inputs() must return a tuple of numpy.ndarray")
        return inputs

    def _link(self, inits: Any, backend_config: Any) -> Any:
        link = self.create_link([_argument(i) for i in inits])
        if not isinstance(link, kusari.Link):
            raise TypeError(f"create_link() must return a Link, got {type(link)}")
        link.to_device(backend_config.device)
        return link

    def _forward(self, link: Any, inputs: Any, backend_config: Any) -> Any:
        with backend_config:
            outputs = self.forward(link, inputs, backend_config.device)
        if not isinstance(outputs, tuple) or not all(
            isinstance(o, kusari.Variable) for o in outputs
        ):
            LinkTestError.fail(
                f"forward() must return a tuple of Variables: {outputs!r}"
            )
        return outputs

    def _initialized_link(self, inits: Any, backend_config: Any) -> tuple[Any, Any]:
        """A link whose lazy parameters are set by one forward pass."""
        link = self._link(inits, backend_config)
        inputs = self._layout(backend_config.get_array(self._inputs()))
        self._forward(link, tuple(kusari.Variable(x) for x in inputs), backend_config)
        link.cleargrads()
        return link, inputs

    def _link_params(self, link: Any) -> list[Any]:
        params = []
        for name in self.param_names:
            param = getattr(link, name, None)
            if param is None:
                LinkTestError.fail(f"the link has no parameter named {name!r}")
            params.append(param)
        return params


class LinkTestCase(_LinkTestBase):
    """Forward (against ``forward_expected(link, inputs)``) and backward (with
    respect to the inputs and the ``param_names`` parameters) of a link.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> from kusari import testing
        >>> @testing.inject_backend_tests(None, [{}])
        ... class TestLinear(testing.LinkTestCase):
        ...     param_names = ('W', 'b')
        ...     def generate_params(self):
        ...         return np.ones((3, 2), np.float32), np.zeros(3, np.float32)
        ...     def generate_inputs(self):
        ...         return np.random.uniform(-1, 1, (4, 2)).astype(np.float32),
        ...     def create_link(self, initializers):
        ...         return L.Linear(2, 3, initialW=initializers[0],
        ...                         initial_bias=initializers[1])
        ...     def forward_expected(self, link, inputs):
        ...         return inputs[0] @ link.W.array.T + link.b.array,
    """

    check_forward_options: dict[str, Any]
    check_backward_options: dict[str, Any]
    skip_forward_test = False
    skip_backward_test = False
    dodge_nondifferentiable = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.check_forward_options = {}
        self.check_backward_options = {}
        super().__init__(*args, **kwargs)

    def forward_expected(self, link: Any, inputs: Any) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__}: define forward_expected()")

    def generate_grad_outputs(self, outputs_template: Any) -> tuple[Any, ...]:
        return tuple(
            numpy.random.uniform(-1, 1, a.shape).astype(a.dtype)
            for a in outputs_template
        )

    def check_forward_outputs(self, outputs: Any, expected_outputs: Any) -> None:
        LinkTestError.check(
            len(outputs) == len(expected_outputs),
            f"forward gave {len(outputs)} outputs, {len(expected_outputs)} expected",
        )
        for i, (out, expected) in enumerate(zip(outputs, expected_outputs)):
            LinkTestError.check(
                out.shape == expected.shape and out.dtype == expected.dtype,
                f"output {i}: {out.shape}:{out.dtype}, expected "
                f"{expected.shape}:{expected.dtype}",
            )
            with LinkTestError.raise_if_fail(f"output {i} is not close"):
                assert_allclose(out, expected, **self.check_forward_options)

    def test_forward(self, backend_config: Any) -> None:
        """The link's outputs match ``forward_expected``."""
        if self.skip_forward_test:
            raise unittest.SkipTest("skip_forward_test is set")
        self.backend_config = backend_config
        self.before_test("test_forward")
        link = self._link(self._params(), backend_config)
        cpu_inputs = self._inputs()
        inputs = self._layout(backend_config.get_array(cpu_inputs))
        outputs = self._forward(
            link, tuple(kusari.Variable(x) for x in inputs), backend_config
        )
        link.to_device(kusari.get_device("@numpy"))
        expected = self.forward_expected(link, cpu_inputs)
        self.check_forward_outputs(
            tuple(cuda.to_cpu(o.array) for o in outputs), tuple(expected)
        )

    def test_backward(self, backend_config: Any) -> None:
        """Gradients of inputs and ``param_names`` match numerical ones."""
        from kusari import gradient_check

        if self.skip_backward_test:
            raise unittest.SkipTest("skip_backward_test is set")
        self.backend_config = backend_config
        self.before_test("test_backward")

        def check() -> None:
            link, inputs = self._initialized_link(self._params(), backend_config)
            with backend_config:
                template = self._forward(
                    link, tuple(kusari.Variable(x) for x in inputs), backend_config
                )
            grads = self.generate_grad_outputs(
                tuple(cuda.to_cpu(o.array) for o in template)
            )
            link.cleargrads()

            def f(*xs: Any) -> Any:
                return self._forward(link, xs, backend_config)

            with (
                backend_config,
                LinkTestError.raise_if_fail("backward is not implemented correctly"),
            ):
                gradient_check.check_backward(
                    f,
                    inputs,
                    self._layout(backend_config.get_array(grads)),
                    params=self._link_params(link),
                    dtype=numpy.float64,
                    detect_nondifferentiable=self.dodge_nondifferentiable,
                    **self.check_backward_options,
                )

        while True:
            try:
                check()
                return
            except gradient_check.NondifferentiableError:
                if not self.dodge_nondifferentiable:
                    raise


class LinkInitializersTestCase(_LinkTestBase):
    """Each initializer-like from ``get_initializers()`` gives the parameter
    the values that the initializer itself produces."""

    check_initializers_options: dict[str, Any]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.check_initializers_options = {}
        super().__init__(*args, **kwargs)

    def get_initializers(self) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__}: define get_initializers()")

    def test_initializers(self, backend_config: Any) -> None:
        """Every listed initializer lands in its parameter."""
        self.backend_config = backend_config
        self.before_test("test_initializers")
        candidates = self.get_initializers()
        if not isinstance(candidates, (tuple, list)) or not all(
            isinstance(c, (tuple, list)) for c in candidates
        ):
            raise TypeError("get_initializers() must return a tuple of tuples/lists")
        for index, options in enumerate(candidates):
            for init in options:
                inits = self._params()
                inits[index] = init
                link, _ = self._initialized_link(inits, backend_config)
                actual = cuda.to_cpu(self._link_params(link)[index].array)
                expected = numpy.empty_like(actual)
                _expected_initializer(init)(expected)
                with LinkTestError.raise_if_fail(
                    f"parameter {self.param_names[index]!r} initialized with "
                    f"{_argument(init)!r} has wrong values"
                ):
                    assert_allclose(actual, expected, **self.check_initializers_options)
