"""Per-parameter half of the optimizer machinery: hyperparameter sets and
update rules.

These classes are public as :mod:`kusari.optimizer` names (``Hyperparameter``,
``HyperparameterProxy``, ``UpdateRule``); they live here only to keep
``optimizer.py`` small. Import them from :mod:`kusari.optimizer`.
"""

from __future__ import annotations

import collections
import copy
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from kusari import backend
from kusari import serializer as serializer_module
from kusari.variable import Variable

_TIMINGS = ("auto", "pre", "post")


class Hyperparameter:
    """A set of hyperparameters that falls back to a parent set.

    Reading an attribute this object does not hold asks the parent, so a
    rule's hyperparameters follow the optimizer's until overridden.

    Args:
        parent: The fallback :class:`Hyperparameter`, or None.

    Example:
        >>> parent = Hyperparameter()
        >>> parent.lr = 0.1
        >>> child = Hyperparameter(parent)
        >>> child.lr
        0.1
        >>> child.lr = 0.2
        >>> (parent.lr, child.lr)
        (0.1, 0.2)
        >>> child
        Hyperparameter(lr=0.2)
    """

    def __init__(self, parent: Hyperparameter | None = None) -> None:
        self._parent = parent

    def __getattr__(self, name: str) -> Any:
        # Only called for attributes not found normally; it sits on the hot
        # path of every update, hence the plain dict access.
        parent = self.__dict__.get("_parent")
        if parent is None or name[:2] == "__":
            raise AttributeError(f"hyperparameter {name!r} is not set")
        return getattr(parent, name)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        d = self.get_dict()
        items = ", ".join(f"{k}={d[k]}" for k in sorted(d))
        return f"Hyperparameter({items})"

    @property
    def parent(self) -> Hyperparameter | None:
        """The parent hyperparameter set."""
        return self._parent

    def get_dict(self) -> dict[str, Any]:
        """All hyperparameters, the parent's overridden by this object's."""
        d = {} if self._parent is None else self._parent.get_dict()
        for k, v in self.__dict__.items():
            if k != "_parent":
                d[k] = v
        return d


class HyperparameterProxy:
    """Class attribute forwarding to ``self.hyperparam.<name>``.

    Args:
        attr_name: The hyperparameter's name.
    """

    def __init__(self, attr_name: str) -> None:
        self._attr_name = attr_name
        self.__doc__ = f"Alias of ``self.hyperparam.{attr_name}``."

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.hyperparam, self._attr_name, value)


def _add_hook_to(
    pre: dict[str, Any],
    post: dict[str, Any],
    hook: Any,
    name: str | None,
    timing: str,
    odd_timing: str = "pre",
) -> str:
    """Register ``hook`` in ``pre`` or ``post``; returns the timing used.

    A ``hook.timing`` other than ``'pre'``/``'post'`` (read for
    ``timing='auto'``) is registered at ``odd_timing`` with a warning:
    Chainer v7 accepts such hooks, as pre-update hooks of an optimizer and
    post-update hooks of an update rule.
    """
    if not callable(hook):
        raise TypeError(f"hook must be callable, got {type(hook).__name__}")
    if timing not in _TIMINGS:
        raise ValueError(f"timing must be one of {_TIMINGS}, got {timing!r}")
    if timing == "auto":
        timing = getattr(hook, "timing", "pre")
        if timing not in ("pre", "post"):
            warnings.warn(
                f"hook.timing is neither 'pre' nor 'post' ({timing!r}); the hook "
                f"is called at {odd_timing!r}",
                stacklevel=3,
            )
            timing = odd_timing
    if name is None:
        name = getattr(hook, "name", None) or getattr(hook, "__name__", None)
    if name is None:
        raise ValueError("the hook has no name; pass name=")
    if name in pre or name in post:
        raise KeyError(f'hook "{name}" already exists')
    (pre if timing == "pre" else post)[name] = hook
    return timing


class UpdateRule:
    """Updates one parameter from its gradient, keeping per-parameter state.

    Subclasses implement :meth:`update_core_cpu` / :meth:`update_core_gpu`
    (in-place array updates) and :meth:`init_state` (fills :attr:`state`).

    Args:
        parent_hyperparam: The hyperparameters to fall back to.

    Attributes:
        enabled: When False, :meth:`update` does nothing.
        hyperparam: This rule's :class:`Hyperparameter`.
        t: Number of updates done so far.
    """

    is_elementwise = False

    def __init__(self, parent_hyperparam: Hyperparameter | None = None) -> None:
        self._pre_update_hooks: dict[str, Any] = collections.OrderedDict()
        self._post_update_hooks: dict[str, Any] = collections.OrderedDict()
        self._state: dict[str, Any] | None = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param: Variable | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.hyperparam!r}, t={self.t})"

    @property
    def state(self) -> Any:
        """The per-parameter state dictionary (None before the first update)."""
        return self._state

    def add_hook(
        self, hook: Callable[..., Any], name: str | None = None, timing: str = "auto"
    ) -> None:
        """Add a hook called as ``hook(rule, param)`` around each update.

        Args:
            hook: The callable.
            name: Its name; ``hook.name`` or ``hook.__name__`` by default.
            timing: ``'pre'`` (before the update), ``'post'``, or ``'auto'``
                (``hook.timing``, else ``'pre'``).
        """
        _add_hook_to(
            self._pre_update_hooks,
            self._post_update_hooks,
            hook,
            name,
            timing,
            odd_timing="post",
        )

    def remove_hook(self, name: str) -> None:
        """Remove the hook registered as ``name``."""
        if name in self._pre_update_hooks:
            del self._pre_update_hooks[name]
        else:
            del self._post_update_hooks[name]

    def update(self, param: Any) -> None:
        """Update ``param`` with its gradient (divided by its loss scale)."""
        if not self.enabled:
            return
        self.t += 1
        if self._use_fp32_update and param.dtype == numpy.float16:
            self._update_through_fp32(param)
            return
        if param.array is not None:
            self._prepare(param)
        if param._loss_scale is not None and param.grad is not None:
            param.grad /= param._loss_scale
        for hook in list(self._pre_update_hooks.values()):
            hook(self, param)
        self.update_core(param)
        for hook in list(self._post_update_hooks.values()):
            hook(self, param)

    def _update_through_fp32(self, param: Any) -> None:
        if param.array is None:
            return
        if self._fp32_param is None:
            self._fp32_param = Variable(
                param.array.astype(numpy.float32), name=param.name
            )
        fp32 = self._fp32_param
        fp32.grad = None if param.grad is None else param.grad.astype(numpy.float32)
        self._prepare(fp32)
        if param._loss_scale is not None and fp32.grad is not None:
            fp32.grad /= param._loss_scale
        for hook in list(self._pre_update_hooks.values()):
            hook(self, fp32)
        self.update_core(fp32)
        for hook in list(self._post_update_hooks.values()):
            hook(self, fp32)
        param.array[...] = fp32.array.astype(param.dtype)
        fp32.grad = None

    def update_core(self, param: Any) -> None:
        """Dispatch to :meth:`update_core_cpu` or :meth:`update_core_gpu`."""
        if backend.get_array_module(param.array) is numpy:
            self.update_core_cpu(param)
        else:
            with backend.using_device(backend.get_device_from_array(param.array)):
                self.update_core_gpu(param)

    def update_core_cpu(self, param: Any) -> None:
        """Update a parameter held in NumPy arrays."""
        raise NotImplementedError

    def update_core_gpu(self, param: Any) -> None:
        """Update a parameter held in CuPy arrays."""
        raise NotImplementedError

    def update_core_chainerx(self, param: Any) -> None:
        """Update a parameter held in ChainerX arrays: never called here.

        kusari has no ChainerX device (see ``docs/chainer.md``), so
        :meth:`update_core` never picks this method. It exists for rules
        written for Chainer that override or wrap it; when called, it does
        what Chainer's default does with the arrays' own backend, running
        :meth:`update_core_cpu` or :meth:`update_core_gpu`.
        """
        self.update_core(param)

    def init_state(self, param: Any) -> None:
        """Fill :attr:`state` for ``param`` (called before the first update)."""

    def serialize(self, serializer: Any) -> None:
        """Save or load ``t`` and every state entry."""
        self.t = serializer("t", self.t)
        if self._state is None:
            if isinstance(serializer, serializer_module.Deserializer):
                self._load_uninitialized_state(serializer)
            return
        for key in list(self._state):
            self._state[key] = serializer(key, self._state[key])

    def _load_uninitialized_state(self, serializer: Any) -> None:
        # Learn the state's keys by initializing a throw-away copy for a dummy
        # parameter, then read those keys from the snapshot. The copy shares
        # this rule's (temporary) dict, as in Chainer: an ``init_state`` that
        # fills the state through another reference to this rule still works.
        self._state = {}
        probe = copy.copy(self)
        dummy = numpy.zeros(1, dtype=numpy.float32)
        try:
            probe.init_state(Variable(dummy, grad=dummy.copy()))
            keys = list(probe._state or ())
        finally:
            self._state = None
        state: dict[str, Any] = {}
        for key in keys:
            try:
                value = serializer(key, None)
            except KeyError:
                if self.enabled:
                    raise
                value = None
            if value is None:
                return  # not in the snapshot: keep the state uninitialized
            # Own the array: a deserializer may hand out its storage.
            state[key] = value.copy() if hasattr(value, "copy") else value
        self._state = state

    def _prepare(self, param: Any) -> None:
        device = backend.get_device_from_array(param.array)
        if self._state is None:
            self._state = {}
            self.init_state(param)
        for name, value in self._state.items():
            if isinstance(value, (numpy.ndarray, numpy.generic)) or (
                hasattr(value, "__cuda_array_interface__")
            ):
                self._state[name] = device.send(value)

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through a float32 master copy."""
        self._use_fp32_update = flag


# Public under kusari.optimizer (as in Chainer): repr, pickle and docs name
# that module, where these classes are re-exported.
for _cls in (Hyperparameter, HyperparameterProxy, UpdateRule):
    _cls.__module__ = "kusari.optimizer"
del _cls
