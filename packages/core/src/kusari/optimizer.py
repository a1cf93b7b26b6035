"""Optimizers' base classes: hyperparameters, per-parameter update rules.

An :class:`Optimizer` owns a target link. A :class:`GradientMethod` gives
every parameter of the link its own :class:`UpdateRule`; each rule keeps the
per-parameter state (moments, accumulators) and a child
:class:`Hyperparameter` whose missing attributes fall back to the
optimizer's, so ``optimizer.lr = 0.1`` reaches every rule while
``param.update_rule.hyperparam.lr = 0.0`` overrides one parameter.

Example:
    >>> import numpy as np
    >>> import kusari
    >>> from kusari import optimizers
    >>> class Model(kusari.Link):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.w = kusari.Parameter(np.array([1.0], dtype=np.float32))
    >>> model = Model()
    >>> opt = optimizers.SGD(lr=0.5).setup(model)
    >>> opt.update(lambda: kusari.functions.sum(model.w * model.w))
    >>> model.w.array
    array([0.], dtype=float32)
"""

from __future__ import annotations

import collections
import math
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from kusari import backend

# Public names of this module, defined in _optimizer_rule to keep files small.
from kusari._optimizer_rule import Hyperparameter as Hyperparameter
from kusari._optimizer_rule import HyperparameterProxy as HyperparameterProxy
from kusari._optimizer_rule import UpdateRule as UpdateRule
from kusari._optimizer_rule import _add_hook_to


def make_deprecation_message(name: str) -> str:
    """The warning text of the deprecated hook aliases in this module."""
    return (
        f"kusari.optimizer.{name} is deprecated; use "
        f"kusari.optimizer_hooks.{name} instead."
    )


class Optimizer:
    """Base class of optimizers.

    Attributes:
        target: The link being optimized (set by :meth:`setup`).
        t: Number of :meth:`update` calls.
        epoch: Current epoch, advanced by :meth:`new_epoch`.
        use_auto_new_epoch: True when an updater calls ``new_epoch(auto=True)``.
    """

    target: Any = None
    t = 0
    epoch = 0
    use_auto_new_epoch = False
    _pre_update_hooks: dict[str, Any] | None = None
    _post_update_hooks: dict[str, Any] | None = None
    _loss_scale: float | None = None
    _loss_scale_max = 65504.0
    _loss_scaling_is_dynamic = False
    _loss_scaling_multiplier = 2.0
    _loss_scaling_isnan = False
    _loss_scaling_isnan_ever = False

    @property
    def loss_scale(self) -> float | None:
        """The current loss scale (None when loss scaling is off)."""
        return self._loss_scale

    def setup(self, link: Any) -> Optimizer:
        """Attach the optimizer to ``link``; returns ``self``."""
        from kusari.link import Link

        if not isinstance(link, Link):
            raise TypeError(
                "optimization target must be a link "
                f"(got {type(link).__module__}.{type(link).__name__})"
            )
        self.target = link
        self.t = 0
        self.epoch = 0
        self._pre_update_hooks = collections.OrderedDict()
        self._post_update_hooks = collections.OrderedDict()
        return self

    def update(
        self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any
    ) -> None:
        """Update the target's parameters."""
        raise NotImplementedError

    def new_epoch(self, auto: bool = False) -> None:
        """Count one more epoch.

        Args:
            auto: True when called by an updater with ``auto_new_epoch``.
        """
        if auto:
            if not self.use_auto_new_epoch:
                raise RuntimeError(
                    "new_epoch(auto=True) called but use_auto_new_epoch is False; "
                    "pass auto_new_epoch=True to the updater"
                )
        elif self.use_auto_new_epoch:
            raise RuntimeError(
                "new_epoch() called while the updater already calls it "
                "(use_auto_new_epoch is True); pass auto_new_epoch=False to the "
                "updater or stop calling new_epoch yourself"
            )
        self.epoch += 1

    def _require_setup(self) -> tuple[dict[str, Any], dict[str, Any]]:
        if self._pre_update_hooks is None or self._post_update_hooks is None:
            raise RuntimeError("call setup() before adding or calling hooks")
        return self._pre_update_hooks, self._post_update_hooks

    def add_hook(
        self, hook: Any, name: str | None = None, timing: str = "auto"
    ) -> None:
        """Register an optimizer hook.

        A hook with ``call_for_each_param = True`` is called as
        ``hook(param.update_rule, param)`` for each parameter, others as
        ``hook(optimizer)``.

        Args:
            hook: The hook.
            name: Its name (``hook.name`` by default).
            timing: ``'pre'``, ``'post'`` or ``'auto'`` (``hook.timing``).
        """
        pre, post = self._require_setup()
        _add_hook_to(pre, post, hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Remove the hook registered as ``name``."""
        pre, post = self._require_setup()
        if name in pre:
            del pre[name]
        else:
            del post[name]

    def call_hooks(self, timing: str = "pre") -> None:
        """Call the hooks registered for ``timing`` (``'pre'`` or ``'post'``)."""
        if timing not in ("pre", "post"):
            raise ValueError(f"timing must be 'pre' or 'post', got {timing!r}")
        pre, post = self._require_setup()
        hooks = pre if timing == "pre" else post
        for hook in list(hooks.values()):
            self._call_hook(hook)
            self.reallocate_cleared_grads()

    def _call_hook(self, hook: Any) -> None:
        if getattr(hook, "call_for_each_param", False):
            for param in self.target.params():
                hook(param.update_rule, param)
        else:
            hook(self)

    def reallocate_cleared_grads(self) -> None:
        """Give a zero gradient to every initialized parameter without one."""
        _give_zero_grads(self.target.params(include_uninit=False))

    def serialize(self, serializer: Any) -> None:
        """Save or load ``t``, ``epoch`` and every update rule's state.

        A rule's state lives under its parameter's path, e.g. ``l1/W/m``.
        """
        self.t = serializer("t", self.t)
        self.epoch = serializer("epoch", self.epoch)
        if self._loss_scaling_is_dynamic:
            try:
                self._loss_scale = float(serializer("loss_scale", self._loss_scale))
                self._loss_scaling_isnan_ever = bool(
                    serializer("loss_scaling_isnan_ever", self._loss_scaling_isnan_ever)
                )
            except KeyError:
                pass  # saved without dynamic scaling: keep the current scale
        for name, param in self.target.namedparams():
            rule = getattr(param, "update_rule", None)
            if rule is not None:
                rule.serialize(serializer[name.lstrip("/")])

    def loss_scaling(self, interval: int = 1000, scale: float | None = None) -> None:
        """Configure loss scaling for float16 training.

        Args:
            interval: Updates between doublings of a dynamic scale.
            scale: A fixed scale; None means dynamic scaling (start at 1,
                double every ``interval`` safe updates, halve on inf/NaN
                gradients, whose update is then skipped).
        """
        if scale is None:
            if interval < 1:
                raise ValueError(f"interval must be >= 1, got {interval}")
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = math.pow(2.0, 1.0 / interval)
            self._loss_scaling_isnan_ever = False
        else:
            if scale <= 0:
                raise ValueError(f"loss scale must be positive, got {scale}")
            self._loss_scaling_is_dynamic = False
            self._loss_scale = scale

    def set_loss_scale(self, loss_scale: float) -> None:
        """Use a fixed loss scale."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> None:
        """Record whether any gradient is inf/NaN (dynamic scaling only)."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for param in self.target.params(include_uninit=False):
            if param.grad is None:
                continue
            xp = backend.get_array_module(param.grad)
            if not bool(xp.all(xp.isfinite(param.grad))):
                self._loss_scaling_isnan = True
                self._loss_scaling_isnan_ever = True
                return

    def is_safe_to_update(self) -> bool:
        """False when the last gradients held inf/NaN under dynamic scaling."""
        return not self._loss_scaling_isnan

    def update_loss_scale(self) -> None:
        """Grow or shrink a dynamic loss scale after an update."""
        if not self._loss_scaling_is_dynamic or self._loss_scale is None:
            return
        if self._loss_scaling_isnan:
            multiplier = 0.5
        elif self._loss_scaling_isnan_ever:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        self._loss_scale = max(
            1.0, min(self._loss_scale_max, self._loss_scale * multiplier)
        )


class GradientMethod(Optimizer):
    """Optimizer updating each parameter from its gradient with an UpdateRule.

    Subclasses implement :meth:`create_update_rule`.
    """

    def __init__(self) -> None:
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False
        self._use_cleargrads = True
        self._use_fused_update = True
        self._fused: Any = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.hyperparam!r})"

    def setup(self, link: Any) -> GradientMethod:
        super().setup(link)
        for param in link.params():
            param.update_rule = self.create_update_rule()
            if self._use_fp32_update:
                param.update_rule.use_fp32_update()
        return self

    def create_update_rule(self) -> UpdateRule:
        """A new update rule for one parameter."""
        raise NotImplementedError

    def use_cleargrads(self, use: bool = True) -> None:
        """Deprecated: choose cleargrads (default) or zerograds in update."""
        warnings.warn(
            "GradientMethod.use_cleargrads is deprecated.",
            DeprecationWarning,
            stacklevel=2,
        )
        self._use_cleargrads = use

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through float32 master copies."""
        self._use_fp32_update = flag
        if self.target is not None:
            for param in self.target.params():
                if param.update_rule is not None:
                    param.update_rule.use_fp32_update(flag)

    def use_fused_update(self, flag: bool = True) -> None:
        """Choose fused (default) or per-parameter updates on CPU.

        Fused updates pack the parameters (and the rules' states) into one
        flat buffer per rule type and dtype, each ``Parameter.array`` a view
        into it, and update the buffer in a few threaded passes; results are
        the same as per-parameter updates. An array reference taken before
        the first update no longer follows the parameter after it (use
        ``param.array`` again, or turn fusing off).

        Args:
            flag: True to fuse, False for one update per parameter.
        """
        self._use_fused_update = bool(flag)
        if not flag:
            self._fused = None

    def _update_params(self, params: list[Any] | None = None) -> None:
        if params is None:
            params = list(self.target.params())
        if not getattr(self, "_use_fused_update", True):
            for param in params:
                param.update()
            return
        if getattr(self, "_fused", None) is None:
            from kusari.optimizers._fused_update import FusedUpdater

            self._fused = FusedUpdater()
        self._fused.update(params)

    def update(
        self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any
    ) -> None:
        """Update the parameters.

        With ``lossfun``, first compute ``loss = lossfun(*args, **kwds)``,
        clear the gradients and backpropagate (scaled by the loss scale).
        Then run the pre hooks, every parameter's update rule, and the post
        hooks.
        """
        if self.target is None:
            raise RuntimeError(
                f"{type(self).__name__}.update: the optimizer has no target; "
                "call optimizer.setup(link) before update()"
            )
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(self, "_use_cleargrads", True):
                self.target.cleargrads()
            else:
                self.target.zerograds()
            loss.backward(loss_scale=self._loss_scale)
            del loss
        # One walk over the parameters serves the update and both gradient
        # checks around it, unless a subclass reallocates its own way or a
        # hook runs in between (it may change the parameters).
        params = None
        if type(self).reallocate_cleared_grads is Optimizer.reallocate_cleared_grads:
            params = list(self.target.params())
            _give_zero_grads(params)
        else:
            self.reallocate_cleared_grads()
        self.check_nan_in_grads()
        if self._pre_update_hooks or self._pre_update_hooks is None:
            self.call_hooks("pre")  # (which refuses when setup() was not run)
            params = None
        self.t += 1
        if self.is_safe_to_update():
            self._update_params(params)
        if params is None:
            self.reallocate_cleared_grads()
        else:
            _give_zero_grads(params)
        self.call_hooks("post")
        self.update_loss_scale()


def _give_zero_grads(params: Iterable[Any]) -> None:
    """A zero gradient for each initialized parameter of ``params`` without one."""
    for param in params:
        if param.grad is None and param.array is not None:
            xp = backend.get_array_module(param.array)
            param.grad = xp.zeros_like(param.array)


# Deprecated aliases kept for code written against Chainer < v4.
from kusari import optimizer_hooks as _hooks  # noqa: E402


class WeightDecay(_hooks.WeightDecay):
    """Deprecated alias of :class:`kusari.optimizer_hooks.WeightDecay`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            make_deprecation_message("WeightDecay"), DeprecationWarning, stacklevel=2
        )
        super().__init__(*args, **kwargs)


class Lasso(_hooks.Lasso):
    """Deprecated alias of :class:`kusari.optimizer_hooks.Lasso`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            make_deprecation_message("Lasso"), DeprecationWarning, stacklevel=2
        )
        super().__init__(*args, **kwargs)


class GradientClipping(_hooks.GradientClipping):
    """Deprecated alias of :class:`kusari.optimizer_hooks.GradientClipping`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            make_deprecation_message("GradientClipping"),
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(*args, **kwargs)


class GradientNoise(_hooks.GradientNoise):
    """Deprecated alias of :class:`kusari.optimizer_hooks.GradientNoise`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            make_deprecation_message("GradientNoise"), DeprecationWarning, stacklevel=2
        )
        super().__init__(*args, **kwargs)


class GradientHardClipping(_hooks.GradientHardClipping):
    """Deprecated alias of :class:`kusari.optimizer_hooks.GradientHardClipping`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            make_deprecation_message("GradientHardClipping"),
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(*args, **kwargs)
