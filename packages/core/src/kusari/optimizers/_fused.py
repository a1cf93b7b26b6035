"""Fused optimizer updates: one pass over a flat buffer per rule type and dtype.

A :class:`~kusari.optimizer.GradientMethod` on CPU packs the arrays of the
parameters whose rules support it into one contiguous buffer per (rule
class, dtype, state names): each ``Parameter.array`` and each state array
(``m``, ``v``, ...) becomes a view into its buffer, so the rule's update
runs as a few NumPy calls over the whole buffer instead of a dozen per
parameter, split over the intra-op threads (:mod:`kusari.utils.threads`).

The update itself is the rule's own element-wise kernel (the same function
its per-parameter ``update_core_cpu`` runs), applied block by block: each
block's gradients are copied into a cache-sized scratch buffer and every
pass of the formula runs on data in cache.  Results are therefore identical
to the per-parameter update.

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
values.
"""

from __future__ import annotations

import bisect
import contextlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from kusari.parameter import Parameter
from kusari.utils import threads

# Elements per block of the blocked update. Measured (CPU time, one thread,
# AMD EPYC with 1 MiB L2 per core) on 39M float32 parameters: Adam 106 ms
# at 16K elements, 99 ms at 32K, 97 ms at 128K, against 290-340 ms for the
# former unblocked per-parameter formula; larger blocks also cut the Python
# overhead per block, which is what SGD's two passes are sensitive to. On
# the 1.8M parameters of an MLP 784-1000-1000-10 (same machine, four
# optimizers interleaved, best of 60), 256K beat 128K by 5-8% for both SGD
# (0.96 vs 1.03 ms) and Adam (3.90 vs 4.13 ms); 512K was slower again.
BLOCK = 1 << 18
# The smallest block when a smaller BLOCK spreads the update over the
# intra-op threads (below it the per-block calls cost more than they share).
MIN_BLOCK = 1 << 15

Kernel = Callable[..., None]


def _flat(a: Any) -> Any:
    return a.reshape(-1)


class ElementwiseKernel:
    """An in-place update ``kernel(consts, p, g, state, t1, t2)`` on blocks.

    ``p`` and the arrays of ``state`` (a dict) are updated in place from
    ``g``; ``t1`` and ``t2`` are scratch arrays of the same length. A kernel
    that calls BLAS (``blas=True``) runs with BLAS held to one thread: its
    blocks are already the pool threads' shares, and BLAS's own threads
    would spin on the cores the pool needs.
    """

    def __init__(self, fn: Kernel, n_temps: int = 2, blas: bool = False) -> None:
        self.fn = fn
        self.n_temps = n_temps
        self.blas = blas

    def held(self) -> Any:
        """The context the kernel runs in (BLAS at one thread when it calls it)."""
        return threads.one_blas_thread() if self.blas else contextlib.nullcontext()

    def apply(self, consts: Any, p: Any, g: Any, state: dict[str, Any]) -> None:
        """Update one parameter's arrays (any shape), blocked and threaded."""
        arrays = [p, g, *state.values()]
        if not all(
            a.flags.c_contiguous and a.shape == p.shape and a.dtype == p.dtype
            for a in arrays
        ):
            temps = [numpy.empty_like(p) for _ in range(self.n_temps)]
            with self.held():
                self.fn(consts, p, g, state, *temps)
            return
        sflat = {k: _flat(v) for k, v in state.items()}
        run_blocks(
            self, [(0, p.size, consts)], _flat(p), sflat, [_flat(g)], [0, p.size]
        )


def run_blocks(
    kernel: ElementwiseKernel,
    ranges: list[tuple[int, int, Any]],
    p: Any,
    state: dict[str, Any],
    grads: list[Any],
    offsets: list[int],
) -> None:
    """Apply ``kernel`` over the flat ``p`` / ``state`` buffers.

    The buffer is cut into blocks of at most :data:`BLOCK` elements.  A block
    inside one parameter reads that parameter's gradient where it lies; a
    block of several small parameters first gathers their gradients into a
    scratch block (one kernel call for all of them instead of one each).

    Args:
        kernel: The update.
        ranges: ``(start, stop, consts)`` element ranges of the buffer.
        p: The flat parameter buffer.
        state: Flat state buffers by name.
        grads: The flat gradient of each packed parameter, in buffer order.
        offsets: Start of each parameter in the buffer, then the total size.
    """
    total = sum(b - a for a, b, _ in ranges)
    nbytes = total * p.itemsize * (3 + len(state))
    block = BLOCK
    threads_wanted = threads.plan(nbytes, total // MIN_BLOCK)
    if threads_wanted > 1:
        # Several blocks per thread (see threads.OVERSPLIT): with a model
        # of a few BLOCKs, one thread would otherwise get most of the work.
        per = -(-total // (threads_wanted * threads.OVERSPLIT))
        block = min(BLOCK, max(MIN_BLOCK, per))
    pieces: list[tuple[int, int, Any, Any]] = []  # start, stop, consts, grad
    for a, b, consts in ranges:
        i = bisect.bisect_right(offsets, a) - 1
        pos = a
        while pos < b:
            lo, hi = offsets[i], min(offsets[i + 1], b)
            if hi - pos >= block or hi - lo >= block:
                # A large parameter: blocks of its own gradient.
                stop = min(hi, pos + block)
                pieces.append((pos, stop, consts, grads[i][pos - lo : stop - lo]))
                pos = stop
                if pos == offsets[i + 1]:
                    i += 1
                continue
            # Small parameters: gather as many as fit in a block.
            stop = hi
            j = i + 1
            while j < len(offsets) - 1 and offsets[j + 1] <= min(b, pos + block):
                stop = offsets[j + 1]
                j += 1
            pieces.append((pos, stop, consts, None))
            pos = stop
            i = j
    if not pieces:
        return

    def work(lo: int, hi: int) -> None:
        mine = pieces[lo:hi]
        cap = max(e - s for s, e, _, _ in mine)  # small models: small scratch
        gbuf: Any = None
        temps = [numpy.empty(cap, dtype=p.dtype) for _ in range(kernel.n_temps)]
        for s, e, consts, g in mine:
            m = e - s
            if g is None:
                if gbuf is None:
                    gbuf = numpy.empty(cap, dtype=p.dtype)
                g = gbuf[:m]
                _gather(g, grads, offsets, s, e)
            kernel.fn(
                consts,
                p[s:e],
                g,
                {k: v[s:e] for k, v in state.items()},
                *[t[:m] for t in temps],
            )

    with kernel.held():
        threads.run_split(work, len(pieces), nbytes)


def _gather(out: Any, grads: list[Any], offsets: list[int], s: int, e: int) -> None:
    """Copy buffer range ``s:e`` of the concatenated ``grads`` into ``out``."""
    i = bisect.bisect_right(offsets, s) - 1
    pos = s
    while pos < e:
        lo = offsets[i]
        hi = min(offsets[i + 1], e)
        out[pos - s : hi - s] = grads[i][pos - lo : hi - lo]
        pos = hi
        i += 1


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


class FusedUpdater:
    """Runs a GradientMethod's update with the fusable parameters packed."""

    def __init__(self) -> None:
        self.packs: dict[tuple[Any, ...], _Pack] = {}

    def __getstate__(self) -> dict[str, Any]:
        # A copy or a pickle re-packs from the arrays it finds.
        return {"packs": {}}

    def update(self, params: Iterable[Any]) -> None:
        """Update ``params``: the fusable ones packed, the others one by one."""
        groups: dict[tuple[Any, ...], list[Any]] = {}
        owned = {id(v) for pack in self.packs.values() for v in pack.views}
        params = list(params)
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
            self._run(kernel_of(members[0].update_rule), pack)
        self.packs = packs

    @staticmethod
    def _run(kernel: ElementwiseKernel | None, pack: _Pack) -> None:
        assert kernel is not None
        ranges: list[tuple[int, int, Any]] = []
        grads = []
        for param, a, b in zip(pack.params, pack.offsets, pack.offsets[1:]):
            consts = param.update_rule._fused_consts(param)
            if ranges and ranges[-1][1] == a and ranges[-1][2] == consts:
                ranges[-1] = (ranges[-1][0], b, consts)
            else:
                ranges.append((a, b, consts))
            grads.append(_flat(param.grad))
        run_blocks(kernel, ranges, pack.buf, pack.states, grads, pack.offsets)
