import copy
import pickle

import numpy
import pytest
from _link_test_helpers import Affine, DictDeserializer, DictSerializer, FakeRule

import kusari
from kusari import initializers
from kusari.link import Link
from kusari.sequential import Sequential
from kusari.variable import Parameter


def make_link():
    link = Link()
    with link.init_scope():
        link.x = Parameter(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
        link.y = Parameter(initializers.Zero())  # uninitialized
    link.add_persistent("p", numpy.ones(2, dtype=numpy.float32))
    link.add_persistent("count", 3)
    return link


# -- registration ------------------------------------------------------------


def test_init_scope_registers_and_names_parameters():
    link = make_link()
    assert link._params == {"x", "y"}
    assert link.x.name == "x" and link.y.name == "y"
    assert not link.within_init_scope


def test_within_init_scope_flag_nests():
    link = Link()
    with link.init_scope():
        assert link.within_init_scope
        with link.init_scope():
            assert link.within_init_scope
        assert link.within_init_scope
    assert not link.within_init_scope


def test_init_scope_restored_after_exception():
    link = Link()
    with pytest.raises(RuntimeError), link.init_scope():
        raise RuntimeError
    assert not link.within_init_scope


def test_parameter_outside_init_scope_is_plain_attribute():
    link = Link()
    link.w = Parameter(numpy.zeros(2, dtype=numpy.float32))
    assert list(link.params()) == []
    assert link.w.name is None


def test_delattr_unregisters():
    link = make_link()
    del link.x
    del link.p
    assert link._params == {"y"}
    assert "p" not in link._persistent
    assert not hasattr(link, "x")


def test_persistent_reassigned_as_parameter():
    link = make_link()
    with link.init_scope():
        link.p = Parameter(numpy.zeros(1, dtype=numpy.float32))
    # A persistent turned into a parameter is no longer persistent.
    assert "p" in link._params and "p" not in link._persistent


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_add_param_default_nan(dtype):
    link = Link()
    with pytest.warns(DeprecationWarning, match="Link.add_param is deprecated"):
        link.add_param("w", (2, 3), dtype=dtype)
    assert link.w.shape == (2, 3) and link.w.dtype == dtype
    assert numpy.isnan(link.w.array).all()
    assert link.w.name == "w"


def test_add_param_with_initializer_and_lazy_shape():
    link = Link()
    with pytest.warns(DeprecationWarning):
        link.add_param("w", initializer=initializers.One())
    assert link.w.array is None
    link.w.initialize((2,))
    numpy.testing.assert_array_equal(link.w.array, [1, 1])


def test_add_param_existing_name():
    link = make_link()
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(AttributeError, match="cannot register a new parameter 'x'"),
    ):
        link.add_param("x", (1,))
    link.plain = 1
    with (
        pytest.warns(DeprecationWarning),
        pytest.raises(AttributeError, match="'plain': attribute exists"),
    ):
        link.add_param("plain", (1,))


def test_legacy_constructor_params():
    # Deprecated in Chainer 7 (it warns there too), still working.
    with pytest.warns(DeprecationWarning, match="Link.__init__"):
        link = Link(w=(2, 3), v=((4,), numpy.float64))
    assert link.w.shape == (2, 3) and link.w.dtype == numpy.float32
    assert link.v.shape == (4,) and link.v.dtype == numpy.float64


def test_add_persistent_and_errors():
    link = make_link()
    assert link.count == 3
    assert link._persistent == {"p", "count"}
    with pytest.raises(AttributeError, match="new persistent value 'x'"):
        link.add_persistent("x", 0)


def test_register_persistent():
    link = Link()
    link.step = 5
    link.register_persistent("step")
    assert link._persistent == {"step"}
    with pytest.raises(AttributeError, match="non-existent attribute 'nope'"):
        link.register_persistent("nope")


# -- traversal ----------------------------------------------------------------


def test_params_and_namedparams():
    link = make_link()
    assert [p.name for p in link.params()] == ["x", "y"]
    assert [p.name for p in link.params(include_uninit=False)] == ["x"]
    assert [n for n, _ in link.namedparams()] == ["/x", "/y"]
    assert [n for n, _ in link.namedparams(include_uninit=False)] == ["/x"]


def test_links_of_single_link():
    link = Link()
    assert list(link.links()) == [link]
    assert list(link.links(skipself=True)) == []
    assert list(link.namedlinks()) == [("/", link)]
    assert list(link.children()) == []


def test_count_params_warns_for_uninitialized():
    link = make_link()
    with pytest.warns(UserWarning, match="Parameter '/y' has not been initialized"):
        assert link.count_params() == 6
    link.y.initialize((4,))
    assert link.count_params() == 10


# -- gradients ----------------------------------------------------------------


def test_cleargrads():
    link = make_link()
    link.x.grad = numpy.ones((2, 3), dtype=numpy.float32)
    link.cleargrads()
    assert link.x.grad is None


def test_zerograds_is_deprecated():
    link = make_link()
    with pytest.warns(DeprecationWarning, match="Use Link.cleargrads"):
        link.zerograds()
    numpy.testing.assert_array_equal(link.x.grad, numpy.zeros((2, 3)))


def test_addgrads():
    a, b = make_link(), make_link()
    a.x.grad = numpy.ones((2, 3), dtype=numpy.float32)
    b.x.grad = numpy.full((2, 3), 2, dtype=numpy.float32)
    a.addgrads(b)
    numpy.testing.assert_array_equal(a.x.grad, numpy.full((2, 3), 3))


def test_copyparams():
    a, b = make_link(), make_link()
    b.x.array[...] = 7
    b.p[...] = 5
    b.count = 9
    b.y.initialize((2,))
    a.copyparams(b)
    numpy.testing.assert_array_equal(a.x.array, numpy.full((2, 3), 7))
    numpy.testing.assert_array_equal(a.y.array, [0, 0])  # initialized from b
    numpy.testing.assert_array_equal(a.p, [5, 5])
    assert a.count == 9
    assert a.x.array is not b.x.array


def test_copyparams_without_persistent():
    a, b = make_link(), make_link()
    b.count = 9
    a.copyparams(b, copy_persistent=False)
    assert a.count == 3


# -- copy -----------------------------------------------------------------------


def test_copy_share():
    link = make_link()
    link.name = "orig"
    link.x.grad = numpy.ones((2, 3), dtype=numpy.float32)
    shared = link.copy()
    assert shared.name is None
    assert shared.x is not link.x
    assert shared.x.array is link.x.array
    assert shared.x.grad is None and link.x.grad is not None
    assert shared.p is link.p
    shared.add_persistent("extra", 1)
    assert "extra" not in link._persistent


def test_copy_copy_is_deep():
    link = make_link()
    copied = link.copy(mode="copy")
    assert copied.x.array is not link.x.array
    numpy.testing.assert_array_equal(copied.x.array, link.x.array)
    assert copied.p is not link.p
    assert copied.y.array is None


def test_copy_init_reinitializes():
    link = Link()
    with link.init_scope():
        link.w = Parameter(initializers.Normal(1.0), (50,))
    copied = link.copy(mode="init")
    assert copied.w.shape == (50,)
    assert not numpy.allclose(copied.w.array, link.w.array)


def test_copy_bad_mode():
    with pytest.raises(ValueError, match="'init', 'copy', or 'share'. But 'deep'"):
        Link().copy(mode="deep")


def test_deepcopy_and_pickle_roundtrip():
    link = make_link()
    for clone in (copy.deepcopy(link), pickle.loads(pickle.dumps(link))):
        numpy.testing.assert_array_equal(clone.x.array, link.x.array)
        assert clone._params == {"x", "y"}
        assert clone.count == 3


# -- update switches ----------------------------------------------------------


def test_update_enabled_and_switches():
    link = make_link()
    assert not link.update_enabled  # no update rules yet
    link.x.update_rule = FakeRule()
    assert link.update_enabled
    link.disable_update()
    assert not link.x.update_rule.enabled and not link.update_enabled
    assert link.y.update_rule is None
    link.enable_update()
    assert link.x.update_rule.enabled and link.update_enabled


# -- serialization --------------------------------------------------------------


def test_serialize_roundtrip():
    src = make_link()
    src.y.initialize((3,))
    src.y.array[...] = 4
    src.count = 11
    saver = DictSerializer()
    src.serialize(saver)
    assert set(saver.store) == {"x", "y", "p", "count"}

    dst = make_link()  # y uninitialized: gets shape and values from the store
    dst.serialize(DictDeserializer(saver.store))
    numpy.testing.assert_array_equal(dst.x.array, src.x.array)
    numpy.testing.assert_array_equal(dst.y.array, [4, 4, 4])
    assert dst.y.dtype == numpy.float32
    assert dst.count == 11


def test_serialize_uninitialized_saves_none():
    saver = DictSerializer()
    make_link().serialize(saver)
    assert saver.store["y"] is None


# -- devices --------------------------------------------------------------------


def test_device_and_xp_default_cpu():
    link = make_link()
    assert link.xp is numpy
    assert link.device == kusari.get_device("@numpy")
    with pytest.warns(DeprecationWarning, match="to_cpu is deprecated"):
        assert link.to_cpu() is link
    assert link.to_device("@numpy") is link
    assert isinstance(link.p, numpy.ndarray)


@pytest.mark.skipif(
    kusari.backends.cuda.available,
    reason="checks the CPU-only error; CuPy is installed here",
)
def test_to_gpu_without_cuda():
    with pytest.raises(RuntimeError):
        make_link().to_gpu()


@pytest.mark.gpu
@pytest.mark.skipif(
    not kusari.backends.cuda.available, reason="CuPy / a CUDA GPU is not available"
)
def test_to_gpu_moves_params_and_persistents():
    cupy = pytest.importorskip("cupy")
    with pytest.warns(DeprecationWarning, match="to_gpu is deprecated"):
        link = make_link().to_gpu()
    assert link.xp is cupy
    assert isinstance(link.x.array, cupy.ndarray)
    assert isinstance(link.p, cupy.ndarray)
    assert link.count == 3
    link.y.initialize((2,))
    assert isinstance(link.y.array, cupy.ndarray)
    link.to_device("@numpy")
    assert isinstance(link.x.array, numpy.ndarray) and isinstance(link.p, numpy.ndarray)


# -- calling and printing -------------------------------------------------------


def test_call_runs_forward():
    link = Affine(3, 2)
    x = numpy.ones((1, 3), dtype=numpy.float32)
    numpy.testing.assert_allclose(link(x), x @ link.W.array.T)


def test_call_without_forward():
    with pytest.raises(AttributeError, match="Link has no forward method"):
        Link()(1)


def test_from_params_not_implemented():
    with pytest.raises(NotImplementedError, match="Link does not implement"):
        Link.from_params()


def test_repr_uses_printable_specs():
    assert repr(Link()) == "Link()"
    assert str(Affine(3, 2)) == "Affine(in_size=3, out_size=2)"


def test_repeat():
    link = Affine(2, 2)
    seq = link.repeat(3)
    assert isinstance(seq, Sequential) and len(seq) == 3
    assert all(isinstance(layer, Affine) for layer in seq)
    assert not numpy.allclose(seq[0].W.array, link.W.array)  # re-initialized
    shared = link.repeat(2, mode="share")
    assert shared[1].W.array is link.W.array
    assert len(link.repeat(0)) == 0
    with pytest.raises(ValueError, match="But 'bad' was given"):
        link.repeat(2, mode="bad")


def test_containers_live_in_their_modules_and_keep_old_names():
    from kusari import chain, chain_list, link

    assert link.Chain is chain.Chain is kusari.Chain
    assert link.ChainList is chain_list.ChainList is kusari.ChainList
    from kusari.link import Chain, ChainList

    assert (Chain, ChainList) == (chain.Chain, chain_list.ChainList)
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        link.Nope  # noqa: B018
    restored = pickle.loads(pickle.dumps(kusari.ChainList(kusari.Link())))
    assert type(restored) is kusari.ChainList and len(restored) == 1
