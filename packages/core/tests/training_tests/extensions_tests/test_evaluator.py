"""Evaluator: test-mode sweeps over a validation set, reported means."""

from __future__ import annotations

import numpy as np
import pytest
from _training_helpers import TinyMLP, build_real_trainer, make_dataset

import kusari
from kusari import iterators, reporter
from kusari.configuration import config
from kusari.dataset import concat_examples
from kusari.training import extensions


def test_evaluator_reports_prefixed_means(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(1, "epoch"))
    model = trainer.updater.get_optimizer("main").target
    modes = []

    def hook(evaluator):
        modes.append(config.train)

    it = iterators.SerialIterator(make_dataset(10), 4, repeat=False, shuffle=False)
    trainer.extend(extensions.Evaluator(it, model, eval_hook=hook))
    trainer.extend(extensions.LogReport())
    trainer.run()
    entry = trainer.get_extension("LogReport").log[0]
    assert "validation/main/loss" in entry and "validation/main/accuracy" in entry
    # The mean of per-batch means over batches of 4, 4, 2.
    x, t = kusari.dataset.concat_examples(make_dataset(10))
    losses = []
    with kusari.using_config("train", False), reporter.Reporter().scope({}):
        for sl in (slice(0, 4), slice(4, 8), slice(8, 10)):
            losses.append(
                float(
                    kusari.functions.softmax_cross_entropy(
                        model.predict(x[sl]), t[sl]
                    ).array
                )
            )
    assert entry["validation/main/loss"] == pytest.approx(np.mean(losses), rel=1e-5)
    assert modes == [False]  # the hook runs inside evaluate(), in test mode


def test_evaluator_warns_on_repeating_iterator():
    it = iterators.SerialIterator(make_dataset(4), 2)
    with pytest.warns(UserWarning, match="repeat"):
        ev = extensions.Evaluator(it, TinyMLP())
    assert ev.get_target("main") is not None and ev.default_name == "validation"


def test_evaluator_with_eval_func_and_direct_call():
    model = TinyMLP()
    calls = []

    def eval_func(x, t):
        calls.append(len(x))
        reporter.report({"n": float(len(x))})

    it = iterators.SerialIterator(make_dataset(6), 4, repeat=False, shuffle=False)
    result = extensions.Evaluator(it, model, eval_func=eval_func)()
    assert calls == [4, 2] and result == {"n": 3.0}


def test_evaluator_progress_bar(capsys):
    it = iterators.SerialIterator(make_dataset(6), 4, repeat=False, shuffle=False)
    extensions.Evaluator(it, TinyMLP(), progress_bar=True)()
    out = capsys.readouterr().out
    assert "validation [" in out and "100.00%" in out


def _eval_iterator(n=10, batch_size=4):
    return iterators.SerialIterator(
        make_dataset(n), batch_size, repeat=False, shuffle=False
    )


def test_iterator_is_reset_so_each_call_sweeps_the_whole_set():
    ev = extensions.Evaluator(_eval_iterator(), TinyMLP())
    first, second = ev(), ev()
    assert first.keys() == second.keys() and first
    for key in first:
        assert float(first[key]) == float(second[key])


def test_no_graph_is_built_and_train_mode_is_off():
    seen = []

    def eval_func(x, t):
        y = model.predict(x)
        seen.append((y.creator is None, config.train))

    model = TinyMLP()
    extensions.Evaluator(_eval_iterator(6), model, eval_func=eval_func)()
    assert seen == [(True, False), (True, False)]


def test_name_under_which_it_is_registered_prefixes_the_keys(tmp_path):
    trainer = build_real_trainer(tmp_path, stop=(1, "epoch"))
    model = trainer.updater.get_optimizer("main").target
    trainer.extend(extensions.Evaluator(_eval_iterator(), model), name="val")
    got = []
    trainer.extend(
        lambda tr: got.append(sorted(tr.observation)),
        name="spy",
        trigger=(1, "epoch"),
        priority=0,
    )
    trainer.run()
    assert "val/main/loss" in got[-1] and "validation/main/loss" not in got[-1]


def test_dicts_of_iterators_and_targets():
    model, other = TinyMLP(1), TinyMLP(2)
    ev = extensions.Evaluator(
        {"main": _eval_iterator(), "extra": _eval_iterator()},
        {"main": model, "other": other},
    )
    assert ev.get_target("other") is other
    assert set(ev.get_all_targets()) == {"main", "other"}
    assert set(ev.get_all_iterators()) == {"main", "extra"}
    assert ev.get_iterator("extra") is not ev.get_iterator("main")
    result = ev()
    assert "main/loss" in result and "main/accuracy" in result


def test_dict_batches_are_passed_as_keywords():
    got = []

    def converter(batch, device=None):
        x, t = concat_examples(batch)
        return {"x": x, "t": t}

    def eval_func(*, x, t):
        got.append(len(x))

    extensions.Evaluator(
        _eval_iterator(6), TinyMLP(), converter=converter, eval_func=eval_func
    )()
    assert got == [4, 2]


def test_eval_func_receives_device_batches_and_finalize_closes_iterators():
    finalized = []

    class Recording(iterators.SerialIterator):
        def finalize(self):
            finalized.append(True)

    it = Recording(make_dataset(4), 2, repeat=False, shuffle=False)
    ev = extensions.Evaluator(it, TinyMLP(), device="@numpy")
    result = ev()
    assert np.isfinite(float(result["main/loss"]))
    ev.finalize()
    assert finalized == [True]


def test_reported_result_reaches_an_outer_reporter():
    ev = extensions.Evaluator(_eval_iterator(), TinyMLP())
    ev.name = "validation"
    outer = {}
    with reporter.Reporter().scope(outer):
        result = ev()
    assert set(outer) == set(result) and "validation/main/loss" in outer
    assert kusari.config.train


def test_an_iterator_without_reset_is_copied_with_a_warning():
    class OneShot:
        """Iterates once over two batches; has no reset()."""

        def __init__(self):
            self.batches = [make_dataset(4)[:2], make_dataset(4)[2:]]

        def __iter__(self):
            return iter(self.batches)

        def finalize(self):
            pass

    it = OneShot()
    ev = extensions.Evaluator(it, TinyMLP())
    with pytest.warns(DeprecationWarning, match="reset"):
        result = ev()
    assert np.isfinite(float(result["main/loss"]))
