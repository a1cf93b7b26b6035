"""Helpers for the ONNX export tests: export, validate, run with onnxruntime."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kusari


def _session(proto: Any) -> Any:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(
        proto.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def _reference(model: Callable[..., Any], args: Any) -> list[np.ndarray]:
    def wrap(a: Any) -> Any:
        return a if isinstance(a, kusari.Variable) else kusari.Variable(a)

    if isinstance(args, dict):
        args = {k: wrap(v) for k, v in args.items()}
    elif isinstance(args, (list, tuple)):
        args = [wrap(a) for a in args]
    else:
        args = wrap(args)
    with kusari.using_config("train", False):
        if isinstance(args, dict):
            y = model(**args)
        elif isinstance(args, (list, tuple)):
            y = model(*args)
        else:
            y = model(args)
    if isinstance(y, dict):
        y = list(y.values())
    ys = y if isinstance(y, (list, tuple)) else [y]
    return [np.asarray(v.array) for v in ys]


@pytest.fixture
def run_onnx() -> Callable[..., list[np.ndarray]]:
    """``run_onnx(proto, feeds)``: the outputs onnxruntime computes."""

    def run(proto: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        return list(_session(proto).run(None, feeds))

    return run


@pytest.fixture
def check_export() -> Callable[..., Any]:
    """Export ``model`` on ``args``, check it and compare onnxruntime with kusari.

    ``check_export(model, args, atol=..., rtol=..., **export_kwargs)`` returns
    the ModelProto. Inputs are fed by the graph's input names in order.
    """
    import onnx

    import kusari.onnx

    def check(
        model: Callable[..., Any],
        args: Any,
        atol: float = 1e-5,
        rtol: float = 1e-4,
        **kwargs: Any,
    ) -> Any:
        expected = _reference(model, args)
        proto = kusari.onnx.export(model, args, **kwargs)
        onnx.checker.check_model(proto, full_check=True)
        if isinstance(args, dict):
            values = list(args.values())
        elif isinstance(args, (list, tuple)):
            values = list(args)
        else:
            values = [args]
        feeds = {
            i.name: np.asarray(getattr(v, "array", v))
            for i, v in zip(proto.graph.input, values)
        }
        got = _session(proto).run(None, feeds)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape
            assert g.dtype == e.dtype
            np.testing.assert_allclose(g, e, atol=atol, rtol=rtol)
        return proto

    return check
