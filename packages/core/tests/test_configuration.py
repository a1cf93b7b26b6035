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


# -- the snapshot of the keys the autograd core reads (configuration._hot) --


def _snapshot_is_current():
    hot = kusari.configuration._hot
    return hot.generation == kusari.configuration._generation[0]


def test_entering_no_backprop_mode_refreshes_this_threads_snapshot():
    hot = kusari.configuration._hot
    with kusari.no_backprop_mode():
        # Before any operation has run: the change itself refreshed it.
        assert _snapshot_is_current()
        assert hot.enable_backprop is False
        with kusari.using_config("type_check", False):
            assert _snapshot_is_current() and hot.type_check is False
            assert hot.plain is True
        assert hot.type_check is True and hot.plain is False
    assert _snapshot_is_current() and hot.enable_backprop is True


@pytest.mark.parametrize("op", ["relu", "linear", "tanh", "sum"])
def test_first_op_inside_no_backprop_mode_records_no_creator(op):
    x = Variable(np.ones((2, 3), np.float32))
    w = Variable(np.ones((4, 3), np.float32))
    calls = {
        "relu": lambda: F.relu(x),
        "linear": lambda: F.linear(x, w),
        "tanh": lambda: F.tanh(x),
        "sum": lambda: F.sum(x),
    }
    assert calls[op]().creator is not None  # the graph is on outside
    with kusari.no_backprop_mode():
        y = calls[op]()
    assert y.creator is None and y.requires_grad
    with kusari.no_backprop_mode(), kusari.force_backprop_mode():
        assert calls[op]().creator is not None


def test_change_in_another_thread_is_seen_by_the_next_op_here():
    # Only the changing thread's snapshot is refreshed at once; this one is
    # left stale and FunctionNode.apply notices that from the generation.
    x = Variable(np.ones(3, np.float32))
    F.relu(x)  # this thread's snapshot is current
    changer = threading.Thread(
        target=setattr, args=(kusari.global_config, "enable_backprop", False)
    )
    try:
        changer.start()
        changer.join()
        assert not _snapshot_is_current()
        assert F.relu(x).creator is None
        assert x * 2 is not None and (x * 2).creator is None
    finally:
        kusari.global_config.enable_backprop = True
    assert F.relu(x).creator is not None


def test_missing_hot_key_leaves_the_snapshot_stale_without_error():
    # While `import kusari` sets the defaults one key at a time, a change
    # happens before every hot key exists; the refresh must then neither
    # raise nor mark a half-updated snapshot as current.
    local = kusari.config.__dict__
    had_local = "debug" in local
    saved_local = local.pop("debug", None)  # e.g. left by kusari.set_debug
    saved = kusari.global_config.debug
    del kusari.global_config.debug
    try:
        assert not _snapshot_is_current()
        kusari.global_config.train = True  # another change, still no `debug`
        assert not _snapshot_is_current()
    finally:
        if had_local:
            local["debug"] = saved_local
        kusari.global_config.debug = saved
    assert _snapshot_is_current()
    assert kusari.configuration._hot.debug is kusari.config.debug


def test_reading_the_snapshot_without_a_hot_key_names_the_key():
    local = kusari.config.__dict__
    had_local = "type_check" in local
    saved_local = local.pop("type_check", None)
    saved = kusari.global_config.type_check
    del kusari.global_config.type_check
    try:
        with pytest.raises(AttributeError, match="no key 'type_check'"):
            kusari.configuration.hot_flags()
    finally:
        if had_local:
            local["type_check"] = saved_local
        kusari.global_config.type_check = saved
    assert kusari.configuration.hot_flags().type_check is kusari.config.type_check
