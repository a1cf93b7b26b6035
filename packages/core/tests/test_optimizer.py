"""Optimizer / GradientMethod / UpdateRule / Hyperparameter semantics."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import optimizer as optimizer_module
from kusari import optimizer_hooks, optimizers
from kusari.optimizer import Hyperparameter, HyperparameterProxy, UpdateRule
from kusari.serializers import DictionarySerializer, NpzDeserializer


class Tiny(kusari.Chain):
    def __init__(self) -> None:
        super().__init__()
        with self.init_scope():
            self.W = kusari.Parameter(np.array([[1.0, 2.0]], dtype=np.float32))
            self.b = kusari.Parameter(np.zeros(1, dtype=np.float32))

    def forward(self, x):
        return F.linear(x, self.W, self.b)


def loss_of(model):
    x = np.array([[1.0, -1.0]], dtype=np.float32)
    return lambda: F.sum(model(x) * model(x))


def test_hyperparameter_parent_chain_and_repr():
    root = Hyperparameter()
    root.lr = 0.1
    root.momentum = 0.9
    child = Hyperparameter(root)
    assert child.lr == 0.1 and child.parent is root
    child.lr = 0.5
    assert root.lr == 0.1
    assert child.get_dict() == {"lr": 0.5, "momentum": 0.9}
    assert repr(child) == "Hyperparameter(lr=0.5, momentum=0.9)"
    with pytest.raises(AttributeError):
        _ = child.missing
    clone = pickle.loads(pickle.dumps(child))
    assert clone.lr == 0.5 and clone.momentum == 0.9


def test_hyperparameter_proxy():
    class Holder:
        lr = HyperparameterProxy("lr")

        def __init__(self):
            self.hyperparam = Hyperparameter()

    h = Holder()
    h.lr = 3
    assert h.hyperparam.lr == 3 and h.lr == 3
    assert isinstance(Holder.lr, HyperparameterProxy)


def test_update_clears_grads_backprops_and_updates():
    model = Tiny()
    opt = optimizers.SGD(lr=0.1).setup(model)
    model.W.grad = np.full((1, 2), 100.0, dtype=np.float32)  # stale: cleared
    opt.update(loss_of(model))
    # loss = (w1 - w2 + b)^2 = 1, d/dW = 2 * (-1) * [1, -1]
    np.testing.assert_allclose(model.W.array, [[1.2, 1.8]], rtol=1e-6)
    np.testing.assert_allclose(model.b.array, [0.2], rtol=1e-6)
    assert opt.t == 1 and model.W.update_rule.t == 1


def test_setup_requires_link():
    with pytest.raises(
        TypeError, match=r"optimization target must be a link \(got builtins.object"
    ):
        optimizers.SGD().setup(object())


def test_disabled_rule_and_update_enabled():
    model = Tiny()
    opt = optimizers.SGD(lr=0.1).setup(model)
    model.b.update_rule.enabled = False
    opt.update(loss_of(model))
    np.testing.assert_array_equal(model.b.array, [0.0])
    assert model.b.update_rule.t == 0


def test_hook_order_and_timing():
    calls = []

    class Hook:
        call_for_each_param = False

        def __init__(self, name, timing):
            self.name = name
            self.timing = timing

        def __call__(self, opt):
            calls.append((self.name, opt.t))

    model = Tiny()
    opt = optimizers.SGD().setup(model)
    opt.add_hook(Hook("a", "pre"))
    opt.add_hook(Hook("p", "post"))
    opt.add_hook(Hook("b", "pre"))
    opt.add_hook(lambda o: calls.append(("c", o.t)), name="c", timing="post")
    opt.update(loss_of(model))
    assert calls == [("a", 0), ("b", 0), ("p", 1), ("c", 1)]
    with pytest.raises(KeyError, match="already exists"):
        opt.add_hook(Hook("a", "pre"))
    with pytest.raises(ValueError, match="timing"):
        opt.add_hook(Hook("z", "pre"), timing="later")
    opt.remove_hook("a")
    opt.remove_hook("c")
    calls.clear()
    opt.update(loss_of(model))
    assert [c[0] for c in calls] == ["b", "p"]


def test_add_hook_before_setup_raises():
    with pytest.raises(RuntimeError, match="setup"):
        optimizers.SGD().add_hook(optimizer_hooks.WeightDecay(0.1))


def test_update_rule_hooks_see_param():
    seen = []
    model = Tiny()
    opt = optimizers.SGD(lr=0.0).setup(model)
    model.W.update_rule.add_hook(
        lambda rule, p: seen.append(("pre", p.name)), name="pre"
    )
    model.W.update_rule.add_hook(
        lambda rule, p: seen.append(("post", p.name)), name="post", timing="post"
    )
    opt.update(loss_of(model))
    assert seen == [("pre", "W"), ("post", "W")]
    model.W.update_rule.remove_hook("pre")
    with pytest.raises(TypeError):
        model.W.update_rule.add_hook(3)


def test_new_epoch_and_auto_mode():
    opt = optimizers.SGD().setup(Tiny())
    opt.new_epoch()
    assert opt.epoch == 1
    with pytest.raises(RuntimeError, match="auto"):
        opt.new_epoch(auto=True)
    opt.use_auto_new_epoch = True
    opt.new_epoch(auto=True)
    assert opt.epoch == 2
    with pytest.raises(RuntimeError):
        opt.new_epoch()


def test_serialize_round_trip_with_param_paths():
    model = Tiny()
    opt = optimizers.MomentumSGD().setup(model)
    opt.update(loss_of(model))
    opt.new_epoch()
    s = DictionarySerializer()
    opt.serialize(s)
    assert {"t", "epoch", "W/t", "W/v", "b/t", "b/v"} <= set(s.target)
    fresh_model = Tiny()
    fresh = optimizers.MomentumSGD().setup(fresh_model)
    fresh.serialize(NpzDeserializer(s.target))
    assert (fresh.t, fresh.epoch) == (1, 1)
    np.testing.assert_array_equal(
        fresh_model.W.update_rule.state["v"], model.W.update_rule.state["v"]
    )


def test_loading_missing_state_of_disabled_rule_is_tolerated():
    model = Tiny()
    opt = optimizers.MomentumSGD().setup(model)
    s = DictionarySerializer()
    opt.serialize(s)  # no state yet: only t's
    fresh_model = Tiny()
    fresh = optimizers.MomentumSGD().setup(fresh_model)
    fresh_model.W.update_rule.enabled = False
    fresh_model.b.update_rule.enabled = False
    fresh.serialize(NpzDeserializer(s.target))
    assert fresh_model.W.update_rule.state is None


def test_static_loss_scale_divides_grads():
    model = Tiny()
    opt = optimizers.SGD(lr=0.1).setup(model)
    opt.set_loss_scale(128.0)
    opt.update(loss_of(model))
    np.testing.assert_allclose(model.W.array, [[1.2, 1.8]], rtol=1e-6)


def test_dynamic_loss_scaling_skips_inf_updates_and_adapts():
    model = Tiny()
    opt = optimizers.SGD(lr=0.1).setup(model)
    opt.loss_scaling(interval=2)
    assert opt._loss_scale == 1.0
    opt.update(loss_of(model))
    assert opt._loss_scale == 2.0  # doubled while nothing overflowed
    before = model.W.array.copy()
    model.W.grad = np.array([[np.inf, 0.0]], dtype=np.float32)
    model.b.grad = np.zeros(1, dtype=np.float32)
    opt.update()
    np.testing.assert_array_equal(model.W.array, before)  # skipped
    assert opt._loss_scale == 1.0
    with pytest.raises(ValueError):
        opt.loss_scaling(scale=-1)


def test_use_cleargrads_is_deprecated():
    opt = optimizers.SGD().setup(Tiny())
    with pytest.warns(DeprecationWarning):
        opt.use_cleargrads(False)


def test_fp32_update_for_float16():
    model = kusari.Link()
    with model.init_scope():
        model.w = kusari.Parameter(np.array([1.0], dtype=np.float16))
    opt = optimizers.SGD(lr=1e-4).setup(model)
    opt.use_fp32_update()
    for _ in range(10):
        model.w.grad = np.ones(1, dtype=np.float16)
        opt.update()
    # float16 alone cannot represent 1 - 1e-4 steps; the master copy can.
    assert model.w.update_rule._fp32_param.array[0] == pytest.approx(0.999, abs=1e-6)
    assert model.w.array.dtype == np.float16


@pytest.mark.parametrize(
    "name",
    [
        "WeightDecay",
        "Lasso",
        "GradientClipping",
        "GradientNoise",
        "GradientHardClipping",
    ],
)
def test_deprecated_aliases_warn_and_subclass(name):
    args = {"GradientHardClipping": (-1, 1)}.get(name, (0.1,))
    with pytest.warns(DeprecationWarning, match=name):
        hook = getattr(optimizer_module, name)(*args)
    assert isinstance(hook, getattr(optimizer_hooks, name))
    assert name in optimizer_module.make_deprecation_message(name)


def test_update_rule_base_raises_not_implemented():
    rule = UpdateRule()
    p = kusari.Parameter(np.zeros(1, dtype=np.float32))
    p.grad = np.zeros(1, dtype=np.float32)
    with pytest.raises(NotImplementedError):
        rule.update(p)


def test_dynamic_loss_scale_is_serialized():
    model = Tiny()
    opt = optimizers.SGD(lr=0.1).setup(model)
    opt.loss_scaling(interval=2)
    opt.update(loss_of(model))
    opt.update(loss_of(model))
    s = DictionarySerializer()
    opt.serialize(s)
    fresh = optimizers.SGD(lr=0.1).setup(Tiny())
    fresh.loss_scaling(interval=2)
    fresh.serialize(NpzDeserializer(s.target))
    assert fresh._loss_scale == opt._loss_scale == 4.0
    plain = optimizers.SGD().setup(Tiny())
    plain.loss_scaling()
    plain.serialize(NpzDeserializer({"t": 0, "epoch": 0, "W/t": 0, "b/t": 0}))
    assert plain._loss_scale == 1.0


def test_module_split_keeps_public_api_and_file_size():
    # UpdateRule and Hyperparameter live in kusari._optimizer_rule to keep
    # optimizer.py under the ~500-line guideline; kusari.optimizer still
    # exposes (and names, for repr and pickle) every public class.
    import inspect

    public = [
        "Hyperparameter",
        "HyperparameterProxy",
        "UpdateRule",
        "Optimizer",
        "GradientMethod",
        "make_deprecation_message",
        "WeightDecay",
        "Lasso",
        "GradientClipping",
        "GradientNoise",
        "GradientHardClipping",
    ]
    for name in public:
        assert hasattr(optimizer_module, name), name
    for cls in (
        Hyperparameter,
        HyperparameterProxy,
        UpdateRule,
        optimizer_module.Optimizer,
        optimizer_module.GradientMethod,
    ):
        assert cls.__module__ == "kusari.optimizer"
        assert getattr(optimizer_module, cls.__qualname__) is cls
    rule = pickle.loads(pickle.dumps(optimizers.SGD(lr=0.5).create_update_rule()))
    assert rule.hyperparam.lr == 0.5
    source = inspect.getsource(optimizer_module)
    assert len(source.splitlines()) <= 500


def test_update_before_setup_says_to_call_setup():
    with pytest.raises(RuntimeError, match=r"Adam.update: .*call optimizer.setup"):
        kusari.optimizers.Adam().update()


def test_link_without_params_is_fine():
    opt = optimizers.SGD().setup(kusari.Chain())
    opt.update()
    assert opt.t == 1


def test_hook_with_odd_timing_is_kept_with_a_warning():
    # Chainer v7 accepts a hook whose ``timing`` attribute is neither 'pre'
    # nor 'post': an optimizer calls it before the update, an update rule after.
    calls = []

    class Odd:
        name = "odd"
        timing = "sometime"
        call_for_each_param = False

        def __call__(self, *args):
            calls.append(len(args))

    model = Tiny()
    opt = optimizers.SGD().setup(model)
    with pytest.warns(UserWarning, match="called at 'pre'"):
        opt.add_hook(Odd())
    rule = model.W.update_rule
    with pytest.warns(UserWarning, match="called at 'post'"):
        rule.add_hook(Odd())
    assert "odd" in rule._post_update_hooks
    opt.update(loss_of(model))
    assert calls == [1, 2]  # hook(opt) first, then hook(rule, param)


def test_update_core_chainerx_runs_the_arrays_own_backend():
    calls = []

    class Rule(UpdateRule):
        def update_core_cpu(self, param):
            calls.append("cpu")
            param.array -= param.grad

    p = kusari.Parameter(np.ones(2, dtype=np.float32))
    p.grad = np.ones(2, dtype=np.float32)
    Rule().update_core_chainerx(p)
    assert calls == ["cpu"]
    np.testing.assert_array_equal(p.array, 0)


def test_loading_state_whose_init_fills_it_through_the_rule():
    # An init_state that writes through a reference to the rule itself (not
    # to the throw-away copy used to learn the keys) loads as in Chainer.
    rule = UpdateRule()

    def init_state(param):
        rule.state["m"] = np.zeros(3, dtype=np.float32)

    rule.init_state = init_state
    s = DictionarySerializer()
    s("t", 7)
    s("m", np.arange(3, dtype=np.float32))
    rule.serialize(NpzDeserializer(s.target))
    assert rule.t == 7
    np.testing.assert_array_equal(rule.state["m"], [0, 1, 2])
    missing = UpdateRule()
    missing.init_state = lambda param: missing.state.update(m=0)
    only_t = DictionarySerializer()
    only_t("t", 1)
    with pytest.raises(KeyError):
        missing.serialize(NpzDeserializer(only_t.target))
    assert missing.state is None


def test_update_walks_the_parameters_once_without_hooks(monkeypatch):
    model = Tiny()
    opt = optimizers.SGD(0.1).setup(model)
    walks = []
    real = type(model).params
    monkeypatch.setattr(
        type(model), "params", lambda self, *a: walks.append(1) or real(self, *a)
    )
    model.W.grad = np.ones((1, 2), np.float32)
    opt.update()  # b has no gradient: it gets zeros, as before
    assert len(walks) == 1
    np.testing.assert_allclose(model.W.array, [[0.9, 1.9]])
    np.testing.assert_array_equal(model.b.grad, 0)


def test_update_keeps_an_overridden_reallocate_and_hooks_own_walks():
    calls = []

    class Counting(optimizers.SGD):
        def reallocate_cleared_grads(self):
            calls.append(1)
            super().reallocate_cleared_grads()

    model = Tiny()
    opt = Counting(0.1).setup(model)
    model.cleargrads()
    opt.update()
    assert len(calls) == 2  # before and after the rules, as Chainer calls it
    np.testing.assert_array_equal(model.W.grad, 0)

    # A pre hook that adds a parameter: the update sees it.
    model2 = Tiny()
    opt2 = optimizers.SGD(0.5).setup(model2)

    def add_param(opt):
        if not hasattr(model2, "c"):
            with model2.init_scope():
                model2.c = kusari.Parameter(np.ones(3, np.float32))
            model2.c.update_rule = opt.create_update_rule()
            model2.c.update_rule.hyperparam = opt.hyperparam
            model2.c.grad = np.ones(3, np.float32)

    opt2.add_hook(add_param, name="add_param")
    model2.cleargrads()
    opt2.update()
    np.testing.assert_allclose(model2.c.array, 0.5)
