import numpy
import numpy as np
import pytest
from _link_test_helpers import MLP, Affine, DictDeserializer, DictSerializer

import kusari
import kusari.links as L
from kusari import testing
from kusari.link import ChainList
from kusari.variable import Parameter


def make():
    return ChainList(Affine(2, 3), MLP())


def test_indexing_and_names():
    cl = make()
    assert len(cl) == 2
    assert [c.name for c in cl] == ["0", "1"]
    assert isinstance(cl[1], MLP)
    assert cl[-1] is cl[1]
    assert cl[:1] == [cl[0]]


def test_append_and_add_link():
    cl = ChainList()
    a, b = Affine(1, 1), Affine(1, 1)
    cl.append(a)
    cl.add_link(b)
    assert list(cl) == [a, b] and b.name == "1"
    with pytest.raises(TypeError, match="got int"):
        cl.append(1)


def test_init_scope_rejects_links():
    cl = ChainList()
    with pytest.raises(TypeError, match="chainlist.init_scope"):
        with cl.init_scope():
            cl.child = Affine(1, 1)


def test_init_scope_accepts_params():
    cl = ChainList(Affine(1, 1))
    with cl.init_scope():
        cl.scale = Parameter(numpy.ones(1, dtype=numpy.float32))
    assert [n for n, _ in cl.namedparams()] == ["/scale", "/0/W", "/0/b"]


def test_namedparams_and_namedlinks():
    cl = make()
    assert [n for n, _ in cl.namedparams()] == [
        "/0/W",
        "/0/b",
        "/1/l1/W",
        "/1/l1/b",
        "/1/l2/W",
        "/1/l2/b",
    ]
    assert [n for n, _ in cl.namedlinks()] == ["/", "/0", "/1", "/1/l1", "/1/l2"]
    assert list(cl.children()) == [cl[0], cl[1]]
    assert list(cl.links(skipself=True))[0] is cl[0]


@pytest.mark.parametrize("mode", ["share", "copy", "init"])
def test_copy(mode):
    cl = make()
    copied = cl.copy(mode)
    assert len(copied) == 2
    assert copied[0] is not cl[0] and copied[1].name == "1"
    same = copied[0].W.array is cl[0].W.array
    assert same == (mode == "share")
    copied.append(Affine(1, 1))
    assert len(cl) == 2


def test_copyparams_addgrads():
    a, b = make(), make()
    a.copyparams(b)
    numpy.testing.assert_array_equal(a[1].l2.W.array, b[1].l2.W.array)
    for p in b.params():
        p.grad = numpy.ones_like(p.array)
    a.cleargrads()
    a.addgrads(b)
    assert all((p.grad == 1).all() for p in a.params())


def test_serialize_names_children_by_index():
    src, dst = make(), make()
    saver = DictSerializer()
    src.serialize(saver)
    assert set(saver.store) == {"0/W", "0/b", "1/l1/W", "1/l1/b", "1/l2/W", "1/l2/b"}
    dst.serialize(DictDeserializer(saver.store))
    numpy.testing.assert_array_equal(dst[0].W.array, src[0].W.array)


def test_repr():
    cl = ChainList(Affine(2, 3))
    assert repr(cl) == "ChainList(\n  (0): Affine(in_size=2, out_size=3),\n)"


def _names(chain):
    return [name for name, _ in chain.namedparams()]


def test_setitem_replaces_a_child_with_its_name():
    c = kusari.ChainList(L.Linear(2, 3), L.Linear(3, 4))
    new = L.Linear(2, 5)
    c[0] = new
    assert c[0] is new and new.name == "0"
    assert sorted(_names(c)) == ["/0/W", "/0/b", "/1/W", "/1/b"]
    assert c[0].W.shape == (5, 2)
    with pytest.raises(IndexError):
        c[5] = L.Linear(1, 1)
    with pytest.raises(TypeError, match="non-link"):
        c[0] = np.zeros(3)


def test_delitem_renumbers_and_serializes_consistently():
    a, b, d = L.Linear(1, 2), L.Linear(2, 3), L.Linear(3, 4)
    c = kusari.ChainList(a, b, d)
    del c[0]
    assert list(c) == [b, d] and [b.name, d.name] == ["0", "1"]
    assert sorted(_names(c)) == ["/0/W", "/0/b", "/1/W", "/1/b"]
    target = kusari.ChainList(L.Linear(2, 3), L.Linear(3, 4))
    testing.save_and_load_npz(c, target)
    np.testing.assert_array_equal(target[1].W.array, d.W.array)


def test_iadd_appends_links_from_a_list_or_a_chainlist():
    c = kusari.ChainList(L.Linear(1, 2))
    c += [L.Linear(2, 3)]
    c += kusari.ChainList(L.Linear(3, 4))
    assert len(c) == 3 and [l.name for l in c] == ["0", "1", "2"]
    with pytest.raises(TypeError):
        c += 3
