import functools
import pickle

import numpy
import pytest
from _link_test_helpers import Affine, DictDeserializer, DictSerializer

from kusari.link import ChainList
from kusari.sequential import Sequential


def relu(x):
    return numpy.maximum(x, 0)


def split(x):
    return x, x


def add(a, b):
    return a + b


def make():
    return Sequential(Affine(3, 4), relu, Affine(4, 2))


def test_forward_chains_layers():
    model = make()
    x = numpy.ones((5, 3), dtype=numpy.float32)
    expected = model[2](relu(model[0](x)))
    numpy.testing.assert_allclose(model(x), expected)


def test_tuple_outputs_spread_as_arguments():
    model = Sequential(split, add)
    assert model(3) == 6
    assert Sequential(add)(1, 2) == 3


def test_forward_without_layers():
    with pytest.raises(RuntimeError, match="Sequential does not have any layer"):
        Sequential()(1)


def test_links_are_children_numbered_in_link_order():
    model = make()
    assert len(model) == 3
    assert [c.name for c in model.children()] == ["0", "1"]
    assert [n for n, _ in model.namedparams()] == ["/0/W", "/0/b", "/1/W", "/1/b"]


def _shapes(model):
    return [(n, p.shape) for n, p in model.namedparams()]


def test_children_numbered_as_chainer_beyond_two_links():
    # Chainer 7 numbers the children of a Sequential oddly from the third
    # link on; npz files saved by Chainer carry those names. The expected
    # lists below were printed by Chainer 7.8.1 for the same models.
    model = Sequential(Affine(2, 3), Affine(3, 4), Affine(4, 5), Affine(5, 6))
    assert _shapes(model) == [
        ("/0/W", (3, 2)),
        ("/0/b", (3,)),
        ("/1/W", (6, 5)),
        ("/1/b", (6,)),
        ("/2/W", (5, 4)),
        ("/2/b", (5,)),
        ("/3/W", (4, 3)),
        ("/3/b", (4,)),
    ]
    model = Sequential(
        relu, Affine(2, 3), relu, Affine(3, 4), Affine(4, 5), Affine(5, 6)
    )
    assert [s for n, s in _shapes(model) if n.endswith("W")] == [
        (3, 2),
        (4, 3),
        (6, 5),
        (5, 4),
    ]
    x = numpy.ones((1, 2), numpy.float32)
    assert model(x).shape == (1, 6)  # the calling order is the layer order
    model = Sequential(Affine(2, 3), Affine(3, 4), Affine(4, 5))
    model[1] = Affine(7, 7)
    assert [s for n, s in _shapes(model) if n.endswith("W")] == [
        (3, 2),
        (7, 7),
        (5, 4),
    ]
    model = Sequential(Affine(2, 3), relu, Affine(3, 4))
    model.insert(1, Affine(9, 9))
    assert [s for n, s in _shapes(model) if n.endswith("W")] == [
        (3, 2),
        (9, 9),
        (4, 3),
    ]
    del model[0]
    assert [s for n, s in _shapes(model) if n.endswith("W")] == [(9, 9), (4, 3)]
    with pytest.raises(IndexError, match="out of range"):
        model.insert(10, relu)


def test_non_callable_rejected():
    with pytest.raises(ValueError, match="should be callable. But given 3"):
        Sequential(3)


def test_insert_pop_remove_keep_children_consistent():
    model = make()
    extra = Affine(3, 3)
    model.insert(0, extra)
    assert [c.name for c in model.children()] == ["0", "1", "2"]
    assert next(model.children()) is extra
    assert model.pop(0) is extra
    assert [c.name for c in model.children()] == ["0", "1"]
    last = model[2]
    model.remove(last)
    assert list(model.children()) == [model[0]]
    assert model.pop() is relu
    with pytest.raises(ValueError, match="There is no layer object"):
        model.remove(relu)


def test_insert_negative_and_middle():
    model = Sequential(relu, relu)
    a = Affine(1, 1)
    model.insert(-1, a)
    assert model[1] is a
    b = Affine(1, 1)
    model.insert(0, b)
    assert list(model.children()) == [b, a] and a.name == "1"


def test_setitem_and_delitem():
    model = make()
    new = Affine(3, 4)
    model[0] = new
    assert model[0] is new and next(model.children()) is new
    model[-2] = split
    assert model[1] is split and len(model) == 3
    del model[0]
    assert [c.name for c in model.children()] == ["0"]
    with pytest.raises(IndexError, match="out of range"):
        model[5] = relu
    with pytest.raises(ValueError, match="should be callable"):
        model[0] = 1


def test_list_helpers():
    model = Sequential(relu, add, relu)
    assert model.index(relu) == 0 and model.index(relu, 1) == 2
    assert model.count(relu) == 2 and model.count(split) == 0
    assert relu in model and split not in model
    assert list(reversed(model)) == [relu, add, relu]
    assert model.count_by_layer_type("relu") == 2
    model.remove_by_layer_type("relu")
    assert list(model) == [add]
    with pytest.raises(ValueError, match="is not in Sequential"):
        model.index(relu)
    model.append(Affine(1, 1))
    model.clear()
    assert len(model) == 0 and list(model.children()) == []


def test_count_by_layer_type_for_links():
    assert make().count_by_layer_type("Affine") == 2


def test_add_and_iadd():
    a, b = Sequential(relu), Sequential(add)
    c = a + b
    assert list(c) == [relu, add] and len(a) == 1
    a += b
    assert list(a) == [relu, add]
    with pytest.raises(ValueError, match="supports only objects of Sequential"):
        a + [relu]
    with pytest.raises(ValueError, match="supports only objects of Sequential"):
        a += [relu]


def test_extend_and_flatten():
    inner = Sequential(Affine(2, 2), relu)
    outer = Sequential(inner, Sequential(relu, Sequential(add)))
    flat = outer.flatten()
    assert len(flat) == 4 and flat[1] is relu and flat[3] is add
    seq = Sequential()
    seq.extend([relu, add])
    assert list(seq) == [relu, add]


def test_mul_repeats():
    model = Sequential(Affine(2, 2), relu)
    repeated = model * 2
    assert len(repeated) == 2
    assert all(isinstance(layer, Sequential) for layer in repeated)
    assert repeated[0][0] is not model[0]
    assert len(3 * model) == 3


@pytest.mark.parametrize("mode", ["share", "copy", "init"])
def test_copy(mode):
    model = make()
    copied = model.copy(mode)
    assert len(copied) == 3 and copied[1] is relu
    assert copied[0] is not model[0]
    assert (copied[0].W.array is model[0].W.array) == (mode == "share")
    with pytest.raises(ValueError, match="But 'x' was given"):
        model.copy("x")


def test_copyparams():
    a, b = make(), make()
    a.copyparams(b)
    numpy.testing.assert_array_equal(a[2].W.array, b[2].W.array)
    with pytest.raises(ValueError, match="Objects other than Sequential"):
        a.copyparams(ChainList())


def test_serialize_roundtrip():
    src, dst = make(), make()
    saver = DictSerializer()
    src.serialize(saver)
    assert set(saver.store) == {"0/W", "0/b", "1/W", "1/b"}
    dst.serialize(DictDeserializer(saver.store))
    numpy.testing.assert_array_equal(dst[2].W.array, src[2].W.array)


def test_pickle():
    model = Sequential(
        Affine(2, 2), relu, functools.partial(numpy.clip, a_min=0, a_max=1)
    )
    clone = pickle.loads(pickle.dumps(model))
    numpy.testing.assert_array_equal(clone[0].W.array, model[0].W.array)
    with pytest.raises(ValueError, match="lambda"):
        pickle.dumps(Sequential(lambda x: x))


def test_repr():
    model = Sequential(Affine(3, 4), relu)
    assert repr(model) == (
        f"Sequential(\n  (0): Affine(in_size=3, out_size=4),\n  (1): {relu},\n)"
    )


def test_str_shows_lambda_source_and_str_of_other_callables():
    clip = functools.partial(numpy.clip, a_min=0, a_max=1)
    model = Sequential(
        lambda x: x * 2,
        clip,
    )
    assert str(model) == (f"Sequential(\n  (0): lambda x: x * 2,\n  (1): {clip},\n)")
    assert str(Sequential()) == "Sequential()"
