"""The check run of ``export(check_constants=True)``.

The exported graph freezes every value computed outside it (through
``.array``, or by a function that records no graph such as ``F.floor``) at
its value in the export run. Running the model again on slightly changed
inputs shows which of those constants in fact follow the inputs, and whether
the functions applied (the control flow) follow them too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy

from kusari import backend
from kusari.onnx import _context
from kusari.onnx._record import Calls, Recorder, flatten, run
from kusari.variable import Variable


def _perturbed(array: Any, rng: numpy.random.Generator) -> Any:
    if array.dtype.kind != "f":
        return array
    xp = backend.get_array_module(array)
    noise = xp.asarray(rng.uniform(-1.0, 1.0, array.shape).astype(array.dtype))
    return array + noise * (abs(array) * 0.1 + 0.1)


def check_constants(
    model: Any,
    args: Any,
    arg_keys: list[Any] | None,
    in_vars: list[Variable],
    recorder: Recorder,
    result: Any,
    order: Calls,
    names: Mapping[int, str],
) -> None:
    """Refuse constants that depend on the inputs (see ``check_constants``)."""
    rng = numpy.random.default_rng(0)
    again = [Variable(_perturbed(v.array, rng), requires_grad=True) for v in in_vars]
    hint = "pass check_constants=False to export anyway"
    try:
        with numpy.errstate(all="ignore"):
            second_result, second = run(model, args, arg_keys, again)
    except Exception as e:
        raise RuntimeError(
            f"kusari.onnx.export: the check run on slightly changed inputs failed "
            f"({type(e).__name__}: {e}); {hint}"
        ) from e
    first_calls = sorted(recorder.calls.values(), key=lambda t: t[0])
    second_calls = sorted(second.calls.values(), key=lambda t: t[0])
    labels = [type(f).__name__ for _, f, _ in first_calls]
    if labels != [type(f).__name__ for _, f, _ in second_calls]:
        raise ValueError(
            "kusari.onnx.export: the model applied other functions when its input "
            "values changed (control flow that depends on input values), which "
            f"one ONNX graph cannot express; {hint}"
        )
    for index, func, in_data in order.values():
        other = second_calls[index][2]
        for i, node in enumerate(func.inputs):
            creator = node.creator_node
            if id(node) in names or (creator is not None and id(creator) in order):
                continue
            if not _same(in_data[i], other[i]):
                raise ValueError(_frozen_message(f"input {i} of {func.label}"))
    out_first, _ = flatten(result)
    out_second, _ = flatten(second_result)
    for k, (y, y2) in enumerate(zip(out_first, out_second)):
        creator = y.node.creator_node
        if id(y.node) in names or (creator is not None and id(creator) in order):
            continue
        if not _same(y.array, getattr(y2, "array", None)):
            raise ValueError(_frozen_message(f"output {k}"))


def _same(a: Any, b: Any) -> bool:
    if b is None:
        return False
    a, b = (numpy.asarray(_context._to_numpy(d)) for d in (a, b))
    return a.shape == b.shape and bool(numpy.array_equal(a, b, equal_nan=True))


def _frozen_message(what: str) -> str:
    return (
        f"kusari.onnx.export: {what} changed when the model's inputs changed, but "
        "it was computed outside the graph (through `.array` or a function that "
        "records no graph, such as F.floor or F.sign); exporting would freeze it "
        "as a constant. Compute it with graph-recording functions, or pass "
        "check_constants=False to export anyway"
    )
