"""Tests of kusari.function_hooks.PrintHook."""

from __future__ import annotations

import io

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari.function_hooks import PrintHook


def test_forward_prints_label_shapes_and_dtypes() -> None:
    out = io.StringIO()
    a = np.ones((2, 3), np.float32)
    b = np.zeros((2, 3), np.float64)
    with PrintHook(file=out):
        F.relu(a)
        F.tanh(b)
    text = out.getvalue()
    lines = text.splitlines()
    assert lines[0] == "function\tReLU"
    assert lines[1] == "input data"
    assert "- shape: (2, 3)" in text
    assert "- dtype: float32" in text
    assert "- dtype: float64" in text
    assert "function\tTanh" in lines


def test_backward_prints_output_gradient() -> None:
    out = io.StringIO()
    x = kusari.Variable(np.ones((4,), np.float16))
    y = F.sum(x)
    with PrintHook(file=out):
        y.backward()
    text = out.getvalue()
    assert text.startswith("function\tSum\ninput data\n")
    assert "output gradient" in text
    assert "- shape: ()" in text
    assert "- dtype: float16" in text
    # The output gradient (ones) is shown as the printed variable's grad.
    assert "- grad: mean=1.00000000, std=0.00000000" in text


def test_end_and_default_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    with PrintHook(end="|\n"):
        F.relu(np.ones(1, np.float32))
    assert capsys.readouterr().out.startswith("function\tReLU|\ninput data|\n")


def test_sep_is_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match="sep"):
        PrintHook(sep=",")


def test_local_hook() -> None:
    out = io.StringIO()
    node = F.activation.relu.ReLU()
    node.add_hook(PrintHook(file=out))
    node.apply((np.ones(3, np.float32),))
    F.tanh(np.ones(3, np.float32))
    assert out.getvalue().count("function\t") == 1
