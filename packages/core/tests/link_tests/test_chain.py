import numpy
import pytest
from _link_test_helpers import (
    MLP,
    Affine,
    Classifier,
    DictDeserializer,
    DictSerializer,
    FakeRule,
)

import kusari
from kusari.link import Chain
from kusari.variable import Parameter


def test_children_registered_and_named():
    mlp = MLP()
    assert mlp._children == {"l1", "l2"}
    assert mlp.l1.name == "l1"
    assert list(mlp.children()) == [mlp.l1, mlp.l2]
    assert mlp["l2"] is mlp.l2


def test_link_outside_init_scope_is_plain_attribute():
    chain = Chain()
    chain.helper = Affine(1, 1)
    assert list(chain.children()) == []
    assert list(chain.params()) == []


def test_reassign_link_in_init_scope_raises():
    mlp = MLP()
    with pytest.raises(AttributeError, match="cannot register a new link 'l1'"):
        with mlp.init_scope():
            mlp.l1 = Affine(1, 1)


def test_delattr_removes_child():
    mlp = MLP()
    del mlp.l1
    assert [n for n, _ in mlp.namedparams()] == ["/l2/W", "/l2/b"]


def test_constructor_kwargs_and_add_link():
    a, b = Affine(1, 2), Affine(2, 3)
    chain = Chain(first=a)
    chain.add_link("second", b)
    assert chain._children == {"first", "second"}
    assert b.name == "second"
    with pytest.raises(AttributeError, match="cannot register a new link 'first'"):
        chain.add_link("first", Affine(1, 1))
    with pytest.raises(TypeError, match="'third' is a int"):
        chain.add_link("third", 3)


def test_namedparams_paths():
    model = Classifier(MLP())
    names = [n for n, _ in model.namedparams()]
    assert names == [
        "/predictor/l1/W",
        "/predictor/l1/b",
        "/predictor/l2/W",
        "/predictor/l2/b",
    ]
    assert len(list(model.params())) == 4


def test_params_include_uninit():
    chain = Chain(lazy=Affine(None, 2))
    assert [n for n, _ in chain.namedparams(include_uninit=False)] == ["/lazy/b"]
    assert len(list(chain.params())) == 2


def test_own_params_come_before_children():
    chain = Chain(child=Affine(1, 1))
    with chain.init_scope():
        chain.own = Parameter(numpy.zeros(1, dtype=numpy.float32))
    assert [n for n, _ in chain.namedparams()] == ["/own", "/child/W", "/child/b"]


def test_links_and_namedlinks():
    model = Classifier(MLP())
    mlp = model.predictor
    assert list(model.links()) == [model, mlp, mlp.l1, mlp.l2]
    assert list(model.links(skipself=True)) == [mlp, mlp.l1, mlp.l2]
    assert [n for n, _ in model.namedlinks()] == [
        "/",
        "/predictor",
        "/predictor/l1",
        "/predictor/l2",
    ]
    assert [n for n, _ in model.namedlinks(skipself=True)][0] == "/predictor"
    assert list(model.children()) == [mlp]


def test_count_params():
    assert MLP().count_params() == 3 * 4 + 4 + 4 * 2 + 2


def test_cleargrads_addgrads_recursive():
    a, b = MLP(), MLP()
    for param in b.params():
        param.grad = numpy.ones_like(param.array)
    a.cleargrads()
    assert all(p.grad is None for p in a.params())
    a.addgrads(b)
    assert all((p.grad == 1).all() for p in a.params())


def test_copyparams_recursive():
    a, b = MLP(), MLP()
    a.copyparams(b)
    for (_, pa), (_, pb) in zip(a.namedparams(), b.namedparams(), strict=True):
        numpy.testing.assert_array_equal(pa.array, pb.array)


@pytest.mark.parametrize("mode", ["share", "copy", "init"])
def test_copy_modes(mode):
    model = Classifier(MLP())
    copied = model.copy(mode)
    assert copied is not model and copied.predictor is not model.predictor
    assert copied.predictor.name == "predictor"
    assert copied.predictor.l1.name == "l1"
    w0, w1 = model.predictor.l1.W, copied.predictor.l1.W
    assert w1 is not w0
    if mode == "share":
        assert w1.array is w0.array
    elif mode == "copy":
        assert w1.array is not w0.array
        numpy.testing.assert_array_equal(w1.array, w0.array)
    else:
        assert not numpy.allclose(w1.array, w0.array)
    # The copy's structure is independent of the original's.
    del copied.predictor
    assert [n for n, _ in model.namedparams()][0] == "/predictor/l1/W"


def test_enable_disable_update_recursive():
    model = MLP()
    for param in model.params():
        param.update_rule = FakeRule()
    model.l1.disable_update()
    assert not model.l1.update_enabled
    assert model.update_enabled
    model.disable_update()
    assert not model.update_enabled
    model.enable_update()
    assert all(p.update_rule.enabled for p in model.params())


def test_serialize_uses_child_serializers():
    src, dst = MLP(), MLP()
    saver = DictSerializer()
    src.serialize(saver)
    assert set(saver.store) == {"l1/W", "l1/b", "l2/W", "l2/b"}
    dst.serialize(DictDeserializer(saver.store))
    for (_, ps), (_, pd) in zip(src.namedparams(), dst.namedparams(), strict=True):
        numpy.testing.assert_array_equal(ps.array, pd.array)


def test_serialize_initializes_lazy_param():
    src = Chain(fc=Affine(3, 2))
    dst = Chain(fc=Affine(None, 2))
    saver = DictSerializer()
    src.serialize(saver)
    dst.serialize(DictDeserializer(saver.store))
    assert dst.fc.W.shape == (2, 3)
    numpy.testing.assert_array_equal(dst.fc.W.array, src.fc.W.array)


def test_forward_and_lazy_init():
    chain = Chain(fc=Affine(None, 2))
    out = chain.fc(numpy.ones((4, 5), dtype=numpy.float32))
    assert out.shape == (4, 2) and chain.fc.W.shape == (2, 5)


def test_repr_tree():
    model = Classifier(MLP())
    assert repr(model) == (
        "Classifier(\n"
        "  (predictor): MLP(\n"
        "    (l1): Affine(in_size=3, out_size=4),\n"
        "    (l2): Affine(in_size=4, out_size=2),\n"
        "  ),\n"
        ")"
    )
    assert repr(Chain()) == "Chain()"
    assert str(model) == repr(model)


def test_to_device_recursive_cpu():
    model = MLP()
    assert model.to_device("@numpy") is model
    assert all(isinstance(p.array, numpy.ndarray) for p in model.params())
    assert model.l1.device == kusari.get_device("@numpy")


def test_assignment_before_init_is_reported():
    # Chainer raises RuntimeError from init_scope when super().__init__()
    # was forgotten, before any assignment happens.
    class Broken(Chain):
        def __init__(self):
            with self.init_scope():
                self.fc = Affine(1, 1)

    with pytest.raises(RuntimeError, match=r"Link.__init__\(\) has not been called"):
        Broken()


def test_parameter_before_init_is_reported():
    class Broken(Chain):
        def __init__(self):
            with self.init_scope():
                self.w = Parameter(numpy.zeros(1, dtype=numpy.float32))

    match = r"super\(\).__init__\(\) at the start of Broken"
    with pytest.raises(RuntimeError, match=match):
        Broken()


def test_calling_a_link_without_init_is_reported():
    class NoInit(Chain):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    link = NoInit()
    with pytest.raises(RuntimeError, match=r"Link.__init__\(\) has not been called"):
        link(numpy.zeros(1, dtype=numpy.float32))
