"""Running a model with its graph recorded, for the exporter.

A function hook keeps every function's input arrays during the run: an
input that is neither a graph input, a parameter nor computed inside the
graph (a NumPy array the model multiplies by, a state carried from an
earlier call) becomes a constant of the ONNX graph, and only the hook still
knows its value.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from kusari import configuration
from kusari.function_hook import FunctionHook
from kusari.variable import Variable

Calls = Mapping[int, tuple[int, Any, tuple[Any, ...]]]


class Recorder(FunctionHook):
    """Remembers each function applied and the arrays it got, in call order."""

    name = "kusari.onnx.export"

    def __init__(self) -> None:
        self.calls: dict[int, tuple[int, Any, tuple[Any, ...]]] = {}

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        self.calls[id(function)] = (len(self.calls), function, tuple(in_data))


def flatten(value: Any) -> tuple[list[Any], list[Any] | None]:
    """Values and, for a dict, its keys."""
    if isinstance(value, Mapping):
        return list(value.values()), list(value.keys())
    if isinstance(value, (list, tuple)):
        return list(value), None
    return [value], None


def run(
    model: Any, args: Any, arg_keys: list[Any] | None, in_vars: list[Variable]
) -> tuple[Any, Recorder]:
    """Call the model in test mode with the graph recorded."""
    recorder = Recorder()
    with (
        configuration.using_config("train", False),
        configuration.using_config("enable_backprop", True),
        recorder,
    ):
        if isinstance(args, Mapping):
            result = model(**dict(zip(arg_keys or [], in_vars)))
        elif isinstance(args, (list, tuple)):
            result = model(*in_vars)
        else:
            result = model(in_vars[0])
    return result, recorder


def reachable(
    outputs: Sequence[Variable], recorder: Recorder, leaves: Mapping[int, str]
) -> dict[int, tuple[int, Any, tuple[Any, ...]]]:
    """The recorded calls the outputs depend on."""
    found: dict[int, tuple[int, Any, tuple[Any, ...]]] = {}
    stack = [y.node for y in outputs]
    while stack:
        node = stack.pop()
        creator = node.creator_node
        if id(node) in leaves or creator is None or id(creator) in found:
            continue
        call = recorder.calls.get(id(creator))
        if call is None:  # made before export ran: a constant
            continue
        found[id(creator)] = call
        stack.extend(creator.inputs)
    return found
