"""Fused optimizer updates: one pass over a flat buffer per rule type and dtype.

A :class:`~kusari.optimizer.GradientMethod` on CPU packs the arrays of the
parameters whose rules support it into one contiguous buffer per (rule
class, dtype, state names): each ``Parameter.array`` and each state array
(``m``, ``v``, ...) becomes a view into its buffer, so the rule's update
runs as a few NumPy calls over the whole buffer instead of a dozen per
parameter (:mod:`kusari.optimizers._fused` runs them). Results are
identical to the per-parameter update.

A parameter takes the per-parameter path instead when its rule cannot be
fused: a rule type without a kernel, a disabled rule, a rule with its own
hooks, a float16 parameter updated through float32 masters, a missing
gradient, an array off the CPU or one that is a view of memory kusari does
not own (tied storage would be broken by copying it).  Per-rule
hyperparameter overrides stay fused: consecutive parameters with equal
constants share one kernel call.

The packing is checked on every update by identity: when anything replaced
a parameter's array or a state array (a deserializer, ``to_device``, lazy
initialization of a new parameter), the buffer is rebuilt from the current
values.  After an update that packed every parameter, the next one first
tries a shorter check of the same facts (:class:`_Fast`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy

from kusari.optimizers._fused import (
    ElementwiseKernel,
    Piece,
    _flat,
    run_blocks,
    run_whole,
)
from kusari.parameter import Parameter


class _Pack:
    """One flat buffer of parameters (and their rules' states)."""

    def __init__(self, params: list[Any], state_names: tuple[str, ...]) -> None:
        self.params = params
        self.state_names = state_names
        first = params[0].array
        sizes = [p.array.size for p in params]
        self.offsets = [0]
        for n in sizes:
            self.offsets.append(self.offsets[-1] + n)
        total = self.offsets[-1]
        self.buf = numpy.empty(total, dtype=first.dtype)
        self.states = {k: numpy.empty(total, dtype=first.dtype) for k in state_names}
        self.views: list[Any] = []
        self.state_views: list[dict[str, Any]] = []
        # Flat views of each parameter (the kernels' ``whole`` takes them).
        self.flat = [self.buf[a:b] for a, b in zip(self.offsets, self.offsets[1:])]
        # The blocked update's cuts of this layout (see run_blocks).
        self.plans: dict[Any, list[Piece]] = {}
        # False once the kernel's ``whole`` declined these arrays.
        self.whole_ok = True
        for param, a, b in zip(params, self.offsets, self.offsets[1:]):
            shape = param.array.shape
            view = self.buf[a:b].reshape(shape)
            view[...] = param.array
            param.array = view
            self.views.append(view)
            rule = param.update_rule
            sv = {}
            for k in state_names:
                v = self.states[k][a:b].reshape(shape)
                v[...] = rule._state[k]
                rule._state[k] = v
                sv[k] = v
            self.state_views.append(sv)

    def matches(self, params: list[Any]) -> bool:
        """Whether the params and their arrays are still the packed ones."""
        if len(params) != len(self.params):
            return False
        for param, mine, view, sv in zip(
            params, self.params, self.views, self.state_views
        ):
            arr = param.array
            # A copied optimizer and model (deepcopy) keep the identities but
            # not the sharing: check that the view still points into buf.
            if param is not mine or arr is not view or arr.base is not self.buf:
                return False
            state = param.update_rule._state
            for k, v in sv.items():
                if state.get(k) is not v or v.base is not self.states[k]:
                    return False
            if len(state) != len(sv):
                return False
        return True


def kernel_of(rule: Any) -> ElementwiseKernel | None:
    """The fused kernel of ``rule``'s exact class (a subclass may change the
    update, so it does not inherit its parent's)."""
    return type(rule).__dict__.get("_fused_kernel")


def _fusable(param: Any, owned: set[int]) -> bool:
    # A Parameter subclass may update itself differently.
    if type(param).update is not Parameter.update:
        return False
    rule = param.update_rule
    if rule is None or kernel_of(rule) is None or not rule.enabled:
        return False
    if rule._pre_update_hooks or rule._post_update_hooks:
        return False
    arr, grad = param.array, param.grad
    if type(arr) is not numpy.ndarray or type(grad) is not numpy.ndarray:
        return False
    if arr.dtype.kind != "f" or grad.dtype != arr.dtype or grad.shape != arr.shape:
        return False
    if rule._use_fp32_update and arr.dtype == numpy.float16:
        return False
    if arr.size == 0 or not arr.flags.c_contiguous:
        return False
    state = rule._state
    if state:
        for v in state.values():
            if (
                type(v) is not numpy.ndarray
                or v.shape != arr.shape
                or v.dtype != arr.dtype
            ):
                return False
    # Memory laid out by someone else (a view, e.g. tied storage) is left
    # alone; views into our own buffers are known by identity.
    return arr.base is None or id(arr) in owned


class _Fast:
    """The packing of the last update, checked cheaply on the next one.

    Built after an update that packed every parameter. The next update
    takes it when the same parameters come in the same order, each with its
    packed array, its rule (still enabled, without hooks, with the same
    state arrays) and a NumPy gradient of its array's shape and dtype, and
    no loss scale: the checks of :func:`_fusable` and :meth:`_Pack.matches`
    for that case, without re-deriving the groups. Anything else sends the
    update through the full path, which packs again where needed.
    """

    def __init__(self, params: list[Any], packs: dict[tuple[Any, ...], _Pack]) -> None:
        self.params = params
        self.entries = []
        for param in params:
            rule = param.update_rule
            arr = param.array
            self.entries.append(
                (
                    param,
                    rule,
                    arr,
                    rule._state,
                    tuple(rule._state.items()),
                    arr.dtype == numpy.float16,
                )
            )
        where = {id(param): i for i, param in enumerate(params)}
        self.runs = [
            (
                kernel_of(pack.params[0].update_rule),
                pack,
                [where[id(q)] for q in pack.params],
            )
            for pack in packs.values()
        ]

    def grads(self, params: list[Any]) -> list[Any] | None:
        """Each parameter's gradient, or None when the packing cannot be used."""
        if len(params) != len(self.entries):
            return None
        out = []
        for param, (mine, rule, arr, state, items, half) in zip(params, self.entries):
            if (
                param is not mine
                or param.update_rule is not rule
                or param.array is not arr
                or param._loss_scale is not None
                or not rule.enabled
                or rule._pre_update_hooks
                or rule._post_update_hooks
                or (half and rule._use_fp32_update)
            ):
                return None
            st = rule._state
            if st is not state or len(st) != len(items):
                return None
            for k, v in items:
                if st.get(k) is not v:
                    return None
            g = param.grad
            if (
                type(g) is not numpy.ndarray
                or g.dtype != arr.dtype
                or g.shape != arr.shape
            ):
                return None
            out.append(g)
        return out

    def run(self, grads: list[Any]) -> None:
        """Update every pack from ``grads`` (as :meth:`grads` returned them)."""
        for _, rule, _, _, _, _ in self.entries:
            rule.t += 1
        for kernel, pack, where in self.runs:
            FusedUpdater._run(kernel, pack, [grads[i] for i in where])


class FusedUpdater:
    """Runs a GradientMethod's update with the fusable parameters packed."""

    def __init__(self) -> None:
        self.packs: dict[tuple[Any, ...], _Pack] = {}
        self.fast: _Fast | None = None

    def __getstate__(self) -> dict[str, Any]:
        # A copy or a pickle re-packs from the arrays it finds.
        return {"packs": {}, "fast": None}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("fast", None)

    def update(self, params: Iterable[Any]) -> None:
        """Update ``params``: the fusable ones packed, the others one by one."""
        params = list(params)
        fast = self.fast
        if fast is not None:
            grads = fast.grads(params)
            if grads is not None:
                fast.run(grads)
                return
            self.fast = None
        groups: dict[tuple[Any, ...], list[Any]] = {}
        owned = {id(v) for pack in self.packs.values() for v in pack.views}
        fusable = [_fusable(param, owned) for param in params]
        # Parameters sharing one array (tied weights) must keep sharing it:
        # copying them into a buffer would split them.
        seen: dict[int, int] = {}
        for i, param in enumerate(params):
            if fusable[i]:
                j = seen.setdefault(id(param.array), i)
                if j != i:
                    fusable[i] = fusable[j] = False
        for param, fuse in zip(params, fusable):
            if not fuse:
                param.update()
                continue
            rule = param.update_rule
            rule.t += 1
            if rule._state is None:
                rule._state = {}
                rule.init_state(param)
            if param._loss_scale is not None:
                param.grad /= param._loss_scale
            key = (type(rule), param.array.dtype, tuple(rule._state))
            groups.setdefault(key, []).append(param)
        packs = {}
        for key, members in groups.items():
            pack = self.packs.get(key)
            if pack is None or not pack.matches(members):
                pack = _Pack(members, key[2])
            packs[key] = pack
            self._run(
                kernel_of(members[0].update_rule), pack, [q.grad for q in members]
            )
        self.packs = packs
        if all(fusable) and packs:
            self.fast = _Fast(params, packs)

    @staticmethod
    def _run(kernel: ElementwiseKernel | None, pack: _Pack, grads: list[Any]) -> None:
        """Update ``pack`` from its parameters' gradients ``grads``."""
        assert kernel is not None
        consts = [q.update_rule._fused_consts(q) for q in pack.params]
        if kernel.whole is not None and pack.whole_ok and not pack.states:
            flat = [_flat(g) for g in grads]
            if not run_whole(kernel, consts, pack.flat, flat, pack.plans):
                pack.whole_ok = False  # the blocks from the next update on
            return
        FusedUpdater._blocked(kernel, pack, consts, grads, 0)

    @staticmethod
    def _blocked(
        kernel: ElementwiseKernel,
        pack: _Pack,
        consts: list[Any],
        grads: list[Any],
        first: int,
    ) -> None:
        """The blocked update of the pack's parameters from index ``first``
        (``consts`` and ``grads`` are theirs)."""
        offsets = pack.offsets
        ranges: list[tuple[int, int, Any]] = []
        for c, a, b in zip(consts, offsets[first:], offsets[first + 1 :]):
            if ranges and ranges[-1][1] == a and ranges[-1][2] == c:
                ranges[-1] = (ranges[-1][0], b, c)
            else:
                ranges.append((a, b, c))
        flat: list[Any] = [None] * first + [_flat(g) for g in grads]
        run_blocks(
            kernel, ranges, pack.buf, pack.states, flat, offsets, cache=pack.plans
        )
