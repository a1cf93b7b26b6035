"""The type check that the element-wise activations share."""

from __future__ import annotations

from typing import Any

from kusari.utils import type_check

_Light = type_check.LightTypeInfoTuple


def check_one_float(in_types: Any) -> None:
    """One input, ``x``, of a float dtype.

    The common case (light mode, where ``in_types`` holds the arrays
    themselves) is decided on sight, without the expectation machinery:
    these activations run once per layer and step, and in chains of small
    ops the check was a visible part of each call.
    """
    if type(in_types) is _Light and len(in_types) == 1:
        x = in_types[0]
        if x is not None and x.dtype.kind == "f":
            return
    type_check._argname(in_types, ("x",))
    type_check.expect(in_types[0].dtype.kind == "f")
