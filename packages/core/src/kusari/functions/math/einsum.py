"""``einsum``: Einstein summation over any number of operands."""

from __future__ import annotations

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
        used = set("".join(self.in_subs))
        fresh = iter([c for c in string.ascii_letters if c not in used])
        ret = []
        for i in indexes:
            ops: list[Any] = [gy]
            subs = [self.out_sub]
            for j, (x, sub) in enumerate(zip(xs, self.in_subs, strict=False)):
                if j != i:
                    ops.append(x)
                    subs.append(sub)
            present = set("".join(subs))
            target = []
            seen = set()
            for c in self.in_subs[i]:
                if c in seen:  # a repeated label: the gradient lives on a diagonal
                    f = next(fresh)
                    ops.append(xp.eye(sizes[c], dtype=gy.dtype))
                    subs.append(c + f)
                    target.append(f)
                    continue
                seen.add(c)
                target.append(c)
                if c not in present:  # summed only here: the gradient broadcasts
                    ops.append(xp.ones(sizes[c], dtype=gy.dtype))
                    subs.append(c)
                    present.add(c)
            ret.append(EinSum(subs, "".join(target)).apply(tuple(ops))[0])
        return tuple(ret)


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
    # Expand '...' into letters that are not used elsewhere.
    letters = set(s) - set(",->.")
    spare = [c for c in string.ascii_letters if c not in letters]
    n_ell = 0
    for sub, x in zip(in_subs, operands, strict=False):
        if "..." in sub:
            n_ell = max(n_ell, x.ndim - (len(sub) - 3))
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


def einsum(subscripts: str, *operands: Any) -> Variable:
    """Einstein summation, as ``numpy.einsum`` (diagonals and ``...`` included).

    Args:
        subscripts: Labels such as ``'ij,jk->ik'``; implicit output if no ``->``.
        operands: Input variables of one float dtype.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> a, b = np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)
        >>> F.einsum('ij,jk->ik', a, b).shape
        (2, 4)
    """
    from kusari.variable import as_variable

    ops = tuple(as_variable(x) for x in operands)
    if not ops:
        raise ValueError("einsum: at least one operand is required")
    in_subs, out = _parse(subscripts, ops)
    return EinSum(in_subs, out).apply(ops)[0]
