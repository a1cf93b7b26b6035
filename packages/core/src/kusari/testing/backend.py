"""Run one test on several backends: ``BackendConfig`` and ``inject_backend_tests``.

Example:
    >>> import numpy as np
    >>> from kusari import testing
    >>> @testing.inject_backend_tests(None, [{}, {'use_cuda': True}])
    ... class TestDouble:
    ...     def test_double(self, backend_config):
    ...         x = backend_config.get_array(np.ones(3))
    ...         assert float((2 * x).sum()) == 6
    >>> sorted(n for n, m in vars(TestDouble).items() if n.startswith('test') and m)
    ['test_double__use_cuda_false', 'test_double__use_cuda_true__cuda_device_0']
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import unittest
from collections.abc import Callable
from typing import Any

import numpy

import kusari
from kusari.backends import cuda
from kusari.testing import attr
from kusari.testing.parameterized import ParameterizedCases

# Chainer's settings, in its order (the order names the generated methods).
_PROPS: tuple[tuple[str, Any], ...] = (
    ("use_chainerx", False),
    ("chainerx_device", None),
    ("use_cuda", False),
    ("cuda_device", None),
    ("use_cudnn", "never"),
    ("cudnn_deterministic", False),
    ("autotune", False),
    ("cudnn_fast_batch_normalization", False),
    ("use_ideep", "never"),
)
_CONFIG_KEYS = (
    "use_cudnn",
    "cudnn_deterministic",
    "autotune",
    "cudnn_fast_batch_normalization",
    "use_ideep",
)


class BackendConfig:
    """One backend to run a test on; a context manager that selects it.

    Args:
        params: Any of ``use_cuda``, ``cuda_device``, ``use_cudnn``,
            ``cudnn_deterministic``, ``autotune``,
            ``cudnn_fast_batch_normalization``, ``use_ideep``,
            ``use_chainerx``, ``chainerx_device``.
    """

    use_chainerx: bool
    chainerx_device: Any
    use_cuda: bool
    cuda_device: int | None
    use_cudnn: str
    cudnn_deterministic: bool
    autotune: bool
    cudnn_fast_batch_normalization: bool
    use_ideep: str

    def __init__(self, params: dict[str, Any]) -> None:
        if not isinstance(params, dict):
            raise TypeError(f"BackendConfig: params must be a dict, got {params!r}")
        known = dict(_PROPS)
        unknown = sorted(set(params) - set(known))
        if unknown:
            raise ValueError(
                f"BackendConfig: unknown parameters {unknown}; known: {list(known)}"
            )
        for key, default in _PROPS:
            setattr(self, key, params.get(key, default))
        if self.use_cuda and self.cuda_device is None:
            self.cuda_device = 0
        self._stack: contextlib.ExitStack | None = None

    @property
    def xp(self) -> Any:
        """``cupy`` for a CUDA config, else ``numpy``."""
        return cuda.cupy if self.use_cuda else numpy

    @property
    def device(self) -> Any:
        """The kusari device of this config."""
        if self.use_cuda:
            return kusari.get_device(f"@cupy:{self.cuda_device}")
        return kusari.get_device("@numpy")

    def get_array(self, np_array: Any) -> Any:
        """``np_array`` (or a tuple/list of them) moved to this device."""
        if isinstance(np_array, (tuple, list)):
            return type(np_array)(self.get_array(a) for a in np_array)
        return self.device.send(np_array)

    def __enter__(self) -> BackendConfig:
        stack = contextlib.ExitStack()
        for key in _CONFIG_KEYS:
            stack.enter_context(kusari.using_config(key, getattr(self, key)))
        stack.enter_context(self.device.create_context())
        self._stack = stack
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._stack is not None:
            self._stack.__exit__(*exc)
            self._stack = None

    def __repr__(self) -> str:
        inner = " ".join(f"{k}={getattr(self, k)!r}" for k, _ in _PROPS)
        return f"<BackendConfig {inner}>"

    def get_func_str(self) -> str:
        """This config as a suffix for a test method's name."""
        parts = []
        for key, default in _PROPS:
            value = getattr(self, key)
            if value == default and key not in ("use_cuda",):
                continue  # short names: only what differs (use_cuda always)
            text = "true" if value is True else "false" if value is False else value
            text = str(text)
            parts.append(f"{key}_{text}")
        return "__".join(parts)

    def get_pytest_marks(self) -> list[Any]:
        """The marks (and skips) this config needs."""
        marks: list[Any] = []
        if self.use_chainerx:
            marks.append(attr.chainerx)
        if self.use_cuda:
            marks.append(attr.gpu)
            if self.cuda_device:
                marks.append(attr.multi_gpu(int(self.cuda_device) + 1))
            if self.use_cudnn != "never":
                marks.append(attr.cudnn)
        elif self.use_ideep != "never":
            marks.append(attr.ideep)
        return marks


def _config_parameter(method: Callable[..., Any]) -> str | None:
    """The name of the parameter (after ``self``) that receives a config.

    It is the first one, when its name contains ``backend_config``
    (``backend_config``, ``src_backend_config``, ``backend_config0``...):
    stacked ``inject_backend_tests`` decorators fill such parameters in
    order, the innermost decorator the first one (as in Chainer).
    """
    names = list(inspect.signature(method).parameters)[1:]
    if names and "backend_config" in names[0]:
        return names[0]
    return None


def _takes_backend_config(method: Callable[..., Any]) -> bool:
    return _config_parameter(method) is not None


def _wrap(method: Callable[..., Any], config: BackendConfig) -> Callable[..., Any]:
    @functools.wraps(method)
    def test(self: Any, *args: Any, **kwargs: Any) -> Any:
        # The pytest marks skip these too; this covers a plain unittest run.
        if config.use_chainerx or (not config.use_cuda and config.use_ideep != "never"):
            raise unittest.SkipTest("ChainerX and iDeep are not part of kusari")
        if config.use_cuda and not cuda.available:
            raise unittest.SkipTest("CuPy / a CUDA GPU is not available")
        return method(self, config, *args, **kwargs)

    # pytest must not see the config parameter as a fixture it has to
    # provide; a further (outer) decorator fills the next one.
    del test.__wrapped__
    signature = inspect.signature(method)
    filled = _config_parameter(method)
    test.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[p for n, p in signature.parameters.items() if n != filled]
    )
    for mark in config.get_pytest_marks():
        test = mark(test)
    return test


def inject_backend_tests(
    method_names: list[str] | None, params: list[dict[str, Any]]
) -> Callable[[Any], Any]:
    """Replace each test method that takes ``backend_config`` with one method
    per backend in ``params``, named ``<method>__<config>``.

    Args:
        method_names: The methods to multiply; ``None`` for every ``test*``
            method whose first argument after ``self`` has
            ``backend_config`` in its name. Stacked decorators multiply
            again, each filling the next such argument.
        params: One dict of :class:`BackendConfig` settings per backend. GPU
            ones are marked ``gpu`` and skip without CuPy.
    """
    if method_names is not None and not isinstance(method_names, list):
        raise TypeError("inject_backend_tests: method_names must be None or a list")
    if not isinstance(params, list) or not all(isinstance(p, dict) for p in params):
        raise TypeError("inject_backend_tests: params must be a list of dicts")
    configs = [BackendConfig(p) for p in params]

    def inject(cls: type) -> None:
        names = method_names
        if names is None:
            names = [
                n
                for n, m in inspect.getmembers(cls, inspect.isfunction)
                if n.startswith("test") and _takes_backend_config(m)
            ]
        for name in names:
            method = getattr(cls, name)
            for config in configs:
                new_name = f"{name}__{config.get_func_str()}"
                if new_name in vars(cls):
                    raise RuntimeError(
                        f"inject_backend_tests: {cls.__name__}.{new_name} exists"
                    )
                setattr(cls, new_name, _wrap(method, config))
            # Hide the original: a `None` attribute is not collected.
            setattr(cls, name, None)

    def decorate(target: Any) -> Any:
        classes = target.classes if isinstance(target, ParameterizedCases) else [target]
        for cls in classes:
            inject(cls)
        return target

    return decorate
