"""Configuration: thread-local values over global defaults, and debug mode."""

from __future__ import annotations

import io
import threading

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import FunctionNode, Variable


def test_defaults():
    assert kusari.config.train is True
    assert kusari.config.enable_backprop is True
    assert kusari.config.type_check is True
    assert kusari.config.debug is False
    assert kusari.config.lazy_grad_sum is False
    assert kusari.get_dtype() == np.float32


def test_using_config_restores_on_error():
    with pytest.raises(ZeroDivisionError):
        with kusari.using_config("train", False):
            assert kusari.config.train is False
            1 / 0  # noqa: B018
    assert kusari.config.train is True


def test_nested_using_config():
    with kusari.using_config("train", False):
        with kusari.using_config("train", True):
            assert kusari.config.train
        assert not kusari.config.train


def test_local_values_are_per_thread():
    seen = {}

    def worker():
        seen["before"] = kusari.config.train
        kusari.config.train = False
        seen["after"] = kusari.config.train

    with kusari.using_config("train", True):
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert kusari.config.train is True
    assert seen == {"before": True, "after": False}


def test_global_change_is_seen_by_threads_without_local_value():
    seen = {}
    old = kusari.global_config.train
    kusari.global_config.train = False
    try:
        t = threading.Thread(target=lambda: seen.setdefault("v", kusari.config.train))
        t.start()
        t.join()
    finally:
        kusari.global_config.train = old
    assert seen["v"] is False


def test_unknown_key():
    with pytest.raises(AttributeError, match="no key 'nonexistent'"):
        kusari.config.nonexistent  # noqa: B018


def test_get_dtype_and_mixed16():
    with kusari.using_config("dtype", np.float16):
        assert kusari.get_dtype() == np.float16
    with kusari.using_config("dtype", kusari.mixed16):
        assert kusari.get_dtype() == np.float16
        assert kusari.get_dtype(map_mixed16=np.float32) == np.float32


def test_no_backprop_mode_is_thread_local():
    x = Variable(np.ones(1, np.float32))
    results = []

    def worker():
        results.append(F.tanh(x).creator is not None)

    with kusari.no_backprop_mode():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert F.tanh(x).creator is None
    assert results == [True]


class _NaNForward(FunctionNode):
    def forward(self, inputs):
        return (np.log(inputs[0] - 2),)


class _NaNBackward(FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * 1,)

    def backward(self, indexes, grad_outputs):
        return (Variable(np.full(grad_outputs[0].shape, np.nan, np.float32)),)


def test_debug_mode_detects_nan_in_forward():
    x = Variable(np.ones((2, 3), np.float32))
    with kusari.DebugMode(True):
        assert kusari.is_debug()
        with (
            np.errstate(invalid="ignore"),
            pytest.raises(
                RuntimeError,
                match=r"NaN is detected on forward computation of _NaNForward "
                r"\(inputs: \(2, 3\) float32\)",
            ),
        ):
            _NaNForward().apply((x,))
    assert not kusari.is_debug()


def test_debug_mode_detects_nan_in_backward():
    x = Variable(np.ones(2, np.float32))
    kusari.set_debug(True)
    try:
        (y,) = _NaNBackward().apply((x,))
        with pytest.raises(
            RuntimeError,
            match="NaN is detected on backward computation of _NaNBackward",
        ):
            F.sum(y).backward()
    finally:
        kusari.set_debug(False)


def test_show(capsys):
    kusari.config.show()
    out = capsys.readouterr().out
    assert "enable_backprop" in out and "type_check" in out


def test_show_aligns_values_one_space_after_the_longest_key():
    # Chainer's layout (scripts parse `print_runtime_info`-style dumps).
    global_config = kusari.configuration.GlobalConfig()
    local = kusari.configuration.LocalConfig(global_config)
    global_config.x = "global x"
    global_config.abc = 1
    local.long_name = "local"
    out = io.StringIO()
    local.show(out)
    assert out.getvalue() == "abc       1\nlong_name local\nx         global x\n"
    out = io.StringIO()
    global_config.show(out)
    assert out.getvalue() == "abc 1\nx   global x\n"
    out = io.StringIO()
    kusari.configuration.GlobalConfig().show(out)
    assert out.getvalue() == ""
