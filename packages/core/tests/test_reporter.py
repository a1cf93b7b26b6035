"""Reporter, report/report_scope, Summary and DictSummary."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
from kusari import reporter as reporter_module
from kusari.configuration import using_config
from kusari.reporter import DictSummary, Reporter, Summary
from kusari.serializers import DictionarySerializer, NpzDeserializer


def test_report_with_observer_prefixes():
    r = Reporter()
    link = kusari.Chain()
    r.add_observer("main", link)
    r.add_observers("main", [("/l1", object())])
    obs = {}
    with r.scope(obs):
        reporter_module.report({"loss": 1.5}, link)
        reporter_module.report({"x": 2})
    assert obs == {"main/loss": 1.5, "x": 2}
    assert r.observation == {}  # restored after the scope


def test_report_unregistered_observer_raises():
    r = Reporter()
    with r.scope({}), pytest.raises(KeyError, match="not registered"):
        reporter_module.report({"a": 1}, object())


def test_report_without_reporter_is_noop():
    reporter_module.report({"a": 1})
    with pytest.raises(RuntimeError):
        reporter_module.get_current_reporter()


def test_nested_reporters_and_current():
    outer, inner = Reporter(), Reporter()
    with outer:
        assert reporter_module.get_current_reporter() is outer
        with inner:
            assert reporter_module.get_current_reporter() is inner
        assert reporter_module.get_current_reporter() is outer


def test_report_scope_redirects():
    r = Reporter()
    top, inner = {}, {}
    with r.scope(top):
        with reporter_module.report_scope(inner):
            reporter_module.report({"a": 1})
        reporter_module.report({"b": 2})
    assert inner == {"a": 1} and top == {"b": 2}


def test_reported_variable_drops_graph_unless_configured():
    x = kusari.Variable(np.array([2.0], dtype=np.float32))
    y = x * x
    obs = {}
    with Reporter().scope(obs):
        reporter_module.report({"y": y})
    assert obs["y"].creator is None
    np.testing.assert_array_equal(obs["y"].array, [4.0])
    obs = {}
    with using_config("keep_graph_on_report", True), Reporter().scope(obs):
        reporter_module.report({"y": y})
    assert obs["y"] is y


def test_summary_weighted_stats():
    s = Summary()
    s.add(1.0, weight=1)
    s.add(kusari.Variable(np.array(4.0)), weight=2)
    assert s.compute_mean() == pytest.approx(3.0)
    mean, std = s.make_statistics()
    assert float(mean) == pytest.approx(3.0)
    assert float(std) == pytest.approx(np.sqrt((1 + 32) / 3 - 9))


def test_dict_summary_skips_non_scalars_and_weights():
    d = DictSummary()
    d.add({"a": 1.0, "b": np.zeros(3), "c": (np.float32(2.0), 3)})
    d.add({"a": np.array(3.0), "c": (kusari.Variable(np.array(6.0)), 1)})
    mean = d.compute_mean()
    assert set(mean) == {"a", "c"}
    assert float(mean["a"]) == 2.0
    assert float(mean["c"]) == pytest.approx(3.0)
    stats = d.make_statistics()
    assert float(stats["a.std"]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="scalar"):
        d.add({"z": (1.0, np.ones(2))})


def test_dict_summary_serialize_round_trip():
    d = DictSummary()
    d.add({"main/loss": 1.0, "acc": np.float32(0.5)})
    d.add({"main/loss": 2.0})
    s = DictionarySerializer()
    d.serialize(s)
    loaded = DictSummary()
    loaded.serialize(NpzDeserializer(s.target))
    assert loaded.compute_mean() == pytest.approx(d.compute_mean())
    loaded.add({"main/loss": 3.0})
    assert float(loaded.compute_mean()["main/loss"]) == pytest.approx(2.0)


def test_reporter_scopes_are_per_thread():
    import threading

    from kusari import reporter as reporter_module

    main_obs: dict = {}
    other_obs: dict = {}
    started, release = threading.Event(), threading.Event()

    def worker():
        r = reporter_module.Reporter()
        with r.scope(other_obs):
            started.set()
            release.wait(10)
            reporter_module.report({"who": "worker"})

    t = threading.Thread(target=worker)
    r = reporter_module.Reporter()
    with r.scope(main_obs):
        t.start()
        started.wait(10)
        # The worker's scope is open, yet this thread's current reporter is r.
        assert reporter_module.get_current_reporter() is r
        reporter_module.report({"who": "main"})
        release.set()
        t.join(10)
    assert main_obs == {"who": "main"} and other_obs == {"who": "worker"}
    # Outside any scope, in a thread that never opened one: reports are dropped.
    reporter_module.report({"nobody": 1})
