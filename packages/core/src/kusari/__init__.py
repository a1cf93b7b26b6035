"""kusari (鎖, "chain"): define-by-run deep learning with Chainer v7's API.

Example:
    >>> import numpy as np
    >>> import kusari
    >>> import kusari.functions as F
    >>> x = kusari.Variable(np.array([1., 2.], dtype=np.float32))
    >>> F.sum(x * x).backward()
    >>> x.grad
    array([2., 4.], dtype=float32)
"""

# ruff: noqa: I001  (import order is load order here; see below)
from __future__ import annotations

import os as _os
import sys as _sys
from typing import Any as _Any

import numpy as _numpy

from kusari import _allocator, configuration
from kusari.configuration import config, global_config, using_config

__version__ = "0.1.0"

# glibc's malloc set for large arrays freed and made again every step (see
# _allocator.py; KUSARI_MALLOC_TUNING=0 leaves it alone).
_allocator.tune()


def _env_flag(name: str, default: bool) -> bool:
    value = _os.environ.get(name)
    if value is None:
        return default
    return value not in ("0", "", "false", "False")


class _Mixed16:
    """The ``mixed16`` dtype setting: float16 arrays, float32 where it matters."""

    # NumPy reads ``.dtype`` off objects it is given as a dtype, so
    # ``numpy.zeros(2, kusari.mixed16)`` works as in Chainer.
    dtype = _numpy.dtype(_numpy.float16)

    def __repr__(self) -> str:
        return "mixed16"

    def __eq__(self, other: object) -> bool:
        return other is self

    def __hash__(self) -> int:
        return id(self)


mixed16 = _Mixed16()


def _parse_dtype(name: str | None) -> _Any:
    if name in (None, ""):
        return _numpy.dtype("float32")
    if name == "mixed16":
        return mixed16
    dtype = _numpy.dtype(name)
    if dtype.kind != "f":
        raise ValueError(f"KUSARI_DTYPE must be a float dtype or mixed16, got {name!r}")
    return dtype


global_config.debug = _env_flag("KUSARI_DEBUG", False)
global_config.enable_backprop = True
global_config.train = True
global_config.type_check = _env_flag("KUSARI_TYPE_CHECK", True)
global_config.dtype = _parse_dtype(_os.environ.get("KUSARI_DTYPE"))
global_config.lazy_grad_sum = False
global_config.keep_graph_on_report = False
global_config.free_graph_in_backward = True
global_config.in_recomputing = False
global_config.compute_mode = None
global_config.warn_nondeterministic = False
global_config.use_cudnn = "never"
global_config.use_cudnn_tensor_core = "never"
global_config.cudnn_deterministic = False
global_config.autotune = False
global_config.cudnn_fast_batch_normalization = False
global_config.use_ideep = "never"
global_config.use_static_graph = False
global_config.schedule_func = None
global_config._will_recompute = False

# The layers, each built only on those above it: engine (variable,
# function_node, _backprop) <- functions <- links <- optimizers, serializers
# <- training. No module imports a layer below its own; where the engine needs
# something of a higher layer, the higher layer installs it, here.
from kusari import backend, backends  # noqa: E402
from kusari.backends import cuda  # noqa: E402
from kusari.backend import get_device, using_device  # noqa: E402
from kusari import variable  # noqa: E402
from kusari.variable import (  # noqa: E402
    Variable,
    VariableNode,
    as_array,
    as_variable,
)
from kusari import function_node  # noqa: E402
from kusari.function_node import FunctionNode, grad  # noqa: E402
from kusari import function  # noqa: E402
from kusari.function import (  # noqa: E402
    Function,
    FunctionAdapter,
    force_backprop_mode,
    no_backprop_mode,
)
from kusari.function_hook import FunctionHook, get_function_hooks  # noqa: E402
from kusari._backprop import backward, grad_destinations  # noqa: E402
from kusari._dlpack import from_dlpack  # noqa: E402
from kusari import functions, utils  # noqa: E402
from kusari.functions.math import basic_math  # noqa: E402

# THE place where Variable gets its operators (``x + y``, ``x @ w``) and
# array methods (``x.reshape``, ``x.T``, ``x[i]``): they are FunctionNodes of
# the functions layer, which the engine does not import.
basic_math.bind_variable_methods(Variable)

from kusari import function_hooks  # noqa: E402
from kusari.utils import type_check  # noqa: E402
from kusari import distribution, distributions  # noqa: E402
from kusari.distribution import (  # noqa: E402
    Distribution,
    cross_entropy,
    kl_divergence,
    register_kl,
)
from kusari import initializer, initializers  # noqa: E402
from kusari.initializer import Initializer  # noqa: E402
from kusari import parameter  # noqa: E402
from kusari.parameter import Parameter  # noqa: E402
from kusari import device_resident, link_hook, link, sequential  # noqa: E402
from kusari.device_resident import DeviceResident  # noqa: E402
from kusari.link_hook import LinkHook  # noqa: E402
from kusari.link import Link  # noqa: E402
from kusari.chain import Chain  # noqa: E402
from kusari.chain_list import ChainList  # noqa: E402
from kusari.sequential import Sequential  # noqa: E402
from kusari import computational_graph  # noqa: E402
from kusari import links  # noqa: E402
from kusari import dataset, datasets, iterators, serializer, serializers  # noqa: E402
from kusari.serializer import AbstractSerializer, Deserializer, Serializer  # noqa: E402
from kusari import reporter  # noqa: E402
from kusari.reporter import (  # noqa: E402
    DictSummary,
    Reporter,
    Summary,
    get_current_reporter,
    report,
    report_scope,
)
from kusari import optimizer, optimizer_hooks, optimizers  # noqa: E402
from kusari.optimizer import GradientMethod, Optimizer, UpdateRule  # noqa: E402
from kusari import training  # noqa: E402

from kusari import memory_layouts  # noqa: E402
from kusari.utils.threads import get_num_threads, set_num_threads  # noqa: E402

# `chainer.cuda` is an alias of `chainer.backends.cuda`, and Chainer code
# imports `chainer.basic_math` (the arithmetic FunctionNodes) by that name.
_sys.modules[__name__ + ".cuda"] = cuda
_sys.modules[__name__ + ".basic_math"] = basic_math


def is_debug() -> bool:
    """True when debug mode (NaN checks, more messages) is on."""
    return bool(config.debug)


def set_debug(debug: bool) -> None:
    """Turn debug mode on or off in this thread."""
    config.debug = debug


class DebugMode:
    """Context manager setting debug mode: ``with kusari.DebugMode(True): ...``."""

    def __init__(self, debug: bool) -> None:
        self._using = using_config("debug", debug)

    def __enter__(self) -> None:
        self._using.__enter__()

    def __exit__(self, *args: _Any) -> None:
        self._using.__exit__(*args)


def get_dtype(dtype: _Any = None, map_mixed16: _Any = None) -> _Any:
    """The default float dtype (``config.dtype``), or ``dtype`` resolved.

    Args:
        dtype: A dtype to resolve; None means ``config.dtype``.
        map_mixed16: What ``mixed16`` maps to (float16 by default).
    """
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16:
        return _numpy.dtype(_numpy.float16 if map_mixed16 is None else map_mixed16)
    return _numpy.dtype(dtype)


def get_array_types() -> tuple[type, ...]:
    """All array types kusari can hold (NumPy's and, if present, CuPy's)."""
    return variable._array_types


def get_cpu_array_types() -> tuple[type, ...]:
    """Array types living in host memory."""
    return (_numpy.ndarray,)


def is_arrays_compatible(arrays: _Any) -> bool:
    """True when the non-None arrays are all of one backend."""
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return True
    types = get_array_types()
    if not all(isinstance(a, types) for a in arrays):
        return False
    first = type(arrays[0])
    return all(
        type(a) is first
        or (isinstance(a, _numpy.ndarray) and issubclass(first, _numpy.ndarray))
        for a in arrays
    )


def get_compute_mode() -> _Any:
    return config.compute_mode


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Always False: kusari runs without cuDNN."""
    return False


def should_use_cudnn_tensor_core(dtype: _Any) -> bool:
    """Always False: kusari runs without cuDNN."""
    return False


#: Set to ``True`` to silence the FutureWarning of experimental APIs
#: (:func:`kusari.utils.experimental`). A plain flag, as in Chainer v7.
disable_experimental_feature_warning: bool = False


def print_runtime_info(out: _Any = None) -> None:
    """Print the versions of kusari, Python, NumPy and CuPy."""
    out = _sys.stdout if out is None else out
    out.write(f"Platform: {_sys.platform}\n")
    out.write(f"kusari: {__version__}\n")
    out.write(f"Python: {_sys.version.split()[0]}\n")
    out.write(f"NumPy: {_numpy.__version__}\n")
    out.write(f"CuPy: {cuda.cupy.__version__ if cuda.available else 'Not Available'}\n")
