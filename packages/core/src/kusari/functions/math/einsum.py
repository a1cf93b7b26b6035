"""``einsum``: Einstein summation over any number of operands."""

from __future__ import annotations

import operator
import string
from typing import Any

from kusari import backend
from kusari.function_node import FunctionNode
from kusari.utils import force_array, type_check
from kusari.variable import Variable


class EinSum(FunctionNode):
    """Einsum with explicit subscripts (letters only, output given)."""

    def __init__(self, in_subs: list[str], out_sub: str) -> None:
        self.in_subs = in_subs
        self.out_sub = out_sub

    @property
    def label(self) -> str:
        return "einsum"

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, tuple(f"x{i}" for i in range(len(in_types))))
        type_check.expect(in_types[0].dtype.kind == "f")
        for t in in_types[1:]:
            type_check.expect(in_types[0].dtype == t.dtype)
        sizes: dict[str, int] = {}
        for i, (t, sub) in enumerate(zip(in_types, self.in_subs, strict=False)):
            shape = type_check.eval(t.shape)
            if len(shape) != len(sub):
                raise type_check.InvalidType(
                    f"in_types[{i}].ndim == len('{sub}')", f"{len(shape)} != {len(sub)}"
                )
            for c, s in zip(sub, shape, strict=False):
                if sizes.setdefault(c, s) != s:
                    raise type_check.InvalidType(
                        f"all axes labelled '{c}' have the same length",
                        f"{sizes[c]} != {s} (operand {i})",
                    )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        xp = backend.get_array_module(*inputs)
        subs = ",".join(self.in_subs) + "->" + self.out_sub
        y = xp.einsum(subs, *inputs, optimize=len(inputs) > 2)
        return (force_array(y, inputs[0].dtype),)

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        xs = self.get_retained_inputs()
        gy = grad_outputs[0]
        xp = backend.get_array_module(gy.array)
        sizes: dict[str, int] = {}
        for x, sub in zip(xs, self.in_subs, strict=False):
            sizes.update(zip(sub, x.shape, strict=False))
        ret = []
        for i in indexes:
            ops: list[Any] = [gy]
            subs = [self.out_sub]
            for j, (x, sub) in enumerate(zip(xs, self.in_subs, strict=False)):
                if j != i:
                    ops.append(x)
                    subs.append(sub)
            ret.append(_einsum_to(ops, subs, self.in_subs[i], sizes, xp, gy.dtype))
        return tuple(ret)


def _einsum_to(
    ops: list[Any],
    subs: list[str],
    out_sub: str,
    sizes: dict[str, int],
    xp: Any,
    dtype: Any,
) -> Variable:
    """Einsum of ``ops`` into ``out_sub``, which may repeat a label (the result
    lives on that diagonal, zero elsewhere) or hold a label no input has (the
    result is broadcast along it): an identity matrix or a ones vector joins
    the operands for each, so the whole stays one differentiable EinSum."""
    ops = list(ops)
    subs = list(subs)
    present = set("".join(subs))
    used = present | set(out_sub)
    fresh = iter([c for c in string.ascii_letters if c not in used])
    target = []
    seen = set()
    for c in out_sub:
        if c in seen:  # a repeated label: the values sit on a diagonal
            f = next(fresh)
            ops.append(xp.eye(sizes[c], dtype=dtype))
            subs.append(c + f)
            target.append(f)
            continue
        seen.add(c)
        target.append(c)
        if c not in present:  # no input has it: broadcast along it
            ops.append(xp.ones(sizes[c], dtype=dtype))
            subs.append(c)
            present.add(c)
    return EinSum(subs, "".join(target)).apply(tuple(ops))[0]


class DiagEinSum:
    """Chainer v7's ``DiagEinSum``: einsum into ``out_shape`` whose output
    subscript may repeat a label (a diagonal; zeros elsewhere) or name a label
    no input has (broadcast). It is the gradient of :func:`einsum`.

    Args:
        in_subs: Input subscripts joined by commas (letters only), e.g. ``',i'``.
        out_sub: Output subscript, e.g. ``'ii'`` or ``'ij'``.
        out_shape: Shape of the output (gives the lengths of labels no input has).

    Example:
        >>> import numpy as np
        >>> node = DiagEinSum(in_subs='i', out_sub='ii', out_shape=(2, 2))
        >>> node.apply((np.array([1., 2.], np.float32),))[0].array
        array([[1., 0.],
               [0., 2.]], dtype=float32)
    """

    def __init__(self, in_subs: str, out_sub: str, out_shape: tuple[int, ...]) -> None:
        self.in_subs = in_subs
        self.out_sub = out_sub
        self.out_shape = tuple(out_shape)
        for sub in in_subs.split(",") + [out_sub]:
            bad = [c for c in sub if c not in string.ascii_letters]
            if bad:
                raise ValueError(
                    f"DiagEinSum: subscripts are letters, got {bad[0]!r} in "
                    f"'{in_subs}->{out_sub}'"
                )
        if len(self.out_shape) != len(out_sub):
            raise ValueError(
                f"DiagEinSum: out_shape {self.out_shape} does not fit '{out_sub}'"
            )

    def apply(self, inputs: tuple[Any, ...]) -> tuple[Variable]:
        """Return ``(y,)`` for the input arrays or variables."""
        import numpy

        from kusari.variable import as_variable

        xs = [as_variable(x) for x in inputs]
        subs = self.in_subs.split(",")
        if len(subs) != len(xs):
            raise ValueError(
                f"DiagEinSum: '{self.in_subs}' names {len(subs)} operands, "
                f"got {len(xs)}"
            )
        sizes = dict(zip(self.out_sub, self.out_shape, strict=True))
        for x, sub in zip(xs, subs, strict=True):
            sizes.update(zip(sub, x.shape, strict=False))
        xp = backend.get_array_module(*(x.array for x in xs))
        dtype = numpy.result_type(*(x.dtype for x in xs))
        return (_einsum_to(list(xs), subs, self.out_sub, sizes, xp, dtype),)


def _ellipsis_ndim(
    subscripts: str, in_subs: list[str], out: str, operands: tuple[Any, ...]
) -> int:
    """How many axes '...' stands for (checked as Chainer v7 checks it)."""
    if "..." in out and not any("..." in sub for sub in in_subs):
        raise ValueError(
            f"einsum: output '{out}' has '...' but no input does ('{subscripts}')"
        )
    n_ell = 0
    ell_ndims = set()
    for sub, x in zip(in_subs, operands, strict=False):
        if "..." in sub:
            n_ell = max(n_ell, x.ndim - (len(sub) - 3))
            if x.ndim >= len(sub) - 3:  # too few axes: ValueError later
                ell_ndims.add(x.ndim - (len(sub) - 3))
    # Chainer v7 does not broadcast over '...': every operand's '...' covers
    # the same number of axes (their lengths are then checked label by label).
    if len(ell_ndims) > 1:
        raise type_check.InvalidType(
            f"einsum: '...' covers the same number of axes in every operand "
            f"of '{subscripts}'",
            f"{sorted(ell_ndims)} axes",
        )
    return n_ell


def _parse(subscripts: str, operands: tuple[Any, ...]) -> tuple[list[str], str]:
    if not isinstance(subscripts, str):
        raise TypeError(
            f"einsum: subscripts must be a str, got {type(subscripts).__name__}"
        )
    s = subscripts.replace(" ", "")
    if "->" in s:
        ins, out = s.split("->", 1)
        explicit = True
    else:
        ins, out, explicit = s, "", False
    in_subs = ins.split(",")
    if len(in_subs) != len(operands):
        raise ValueError(
            f"einsum: subscripts '{subscripts}' name {len(in_subs)} operands, "
            f"got {len(operands)}"
        )
    n_ell = _ellipsis_ndim(subscripts, in_subs, out, operands)
    # Expand '...' into letters that are not used elsewhere.
    letters = set(s) - set(",->.")
    spare = [c for c in string.ascii_letters if c not in letters]
    ell = "".join(spare[:n_ell])
    new_in = []
    for sub, x in zip(in_subs, operands, strict=False):
        if "..." in sub:
            k = x.ndim - (len(sub) - 3)
            if k < 0:
                raise ValueError(
                    f"einsum: operand of ndim {x.ndim} does not fit '{sub}'"
                )
            sub = sub.replace("...", ell[n_ell - k :] if k else "")
        new_in.append(sub)
    for sub in new_in + [out.replace("...", "")]:
        bad = [c for c in sub if c not in string.ascii_letters]
        if bad:
            raise ValueError(
                f"einsum: invalid subscript character {bad[0]!r} in '{subscripts}'"
            )
    if explicit:
        out = out.replace("...", ell)
        for c in out:
            if not any(c in sub for sub in new_in):
                raise ValueError(
                    f"einsum: output label '{c}' does not appear in the inputs"
                )
        if len(set(out)) != len(out):
            raise ValueError(f"einsum: output labels repeat in '{subscripts}'")
    else:
        joined = "".join(new_in)
        out = ell + "".join(
            sorted(c for c in set(joined) if joined.count(c) == 1 and c not in ell)
        )
    return new_in, out


# Sublist labels: 0-25 are upper case, 26-51 lower case, so sorting the
# letters (the implicit output order) sorts the integers too, as NumPy does.
_SUBLIST_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _sublist_to_str(sublist: Any, where: str) -> str:
    try:
        items = list(sublist)
    except TypeError:
        raise TypeError(
            f"einsum: {where} must be a list of ints and Ellipsis, "
            f"got {type(sublist).__name__}"
        ) from None
    out = []
    for item in items:
        if item is Ellipsis:
            out.append("...")
            continue
        try:
            if isinstance(item, bool):
                raise TypeError
            i = operator.index(item)
        except TypeError:
            raise TypeError(
                f"einsum: {where} holds ints and Ellipsis, got {item!r}"
            ) from None
        if not 0 <= i < len(_SUBLIST_LETTERS):
            raise ValueError(
                f"einsum: subscript {i} in {where} is outside "
                f"[0, {len(_SUBLIST_LETTERS)})"
            )
        out.append(_SUBLIST_LETTERS[i])
    return "".join(out)


def _from_sublists(args: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """``(op0, sub0, op1, sub1, ..., [out])`` -> ``('..,..->..', ops)``."""
    has_out = len(args) % 2 == 1
    pairs = args[:-1] if has_out else args
    ops = tuple(pairs[0::2])
    ins = [_sublist_to_str(sub, f"sublist {i}") for i, sub in enumerate(pairs[1::2])]
    subscripts = ",".join(ins)
    if has_out:
        subscripts += "->" + _sublist_to_str(args[-1], "the output sublist")
    return subscripts, ops


def einsum(subscripts: str | Any, *operands: Any) -> Variable:
    """Einstein summation, as ``numpy.einsum`` (diagonals and ``...`` included).

    Two forms, as in Chainer v7 and NumPy: ``einsum('ij,jk->ik', a, b)`` and
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])`` (integer labels 0-51 and
    ``Ellipsis``; the output sublist is optional).

    Args:
        subscripts: Labels such as ``'ij,jk->ik'``; implicit output if no
            ``->``. In the sublist form, the first operand.
        operands: Input variables of one float dtype (in the sublist form,
            interleaved with their sublists).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
        >>> F.einsum('ij,jk->ik', a, b).shape
        (2, 4)
    """
    from kusari.variable import as_variable

    if not isinstance(subscripts, str):
        subscripts, operands = _from_sublists((subscripts, *operands))
    ops = tuple(as_variable(x) for x in operands)
    if not ops:
        raise ValueError("einsum: at least one operand is required")
    in_subs, out = _parse(subscripts, ops)
    return EinSum(in_subs, out).apply(ops)[0]
