"""Link.param_set_version: moves on every change of a parameter set, and
only then (so that a caller may keep a walk of namedparams between steps)."""

import copy
import pickle

import numpy
import pytest

import kusari
import kusari.links as L
from kusari.variable import Parameter


def _paths(link):
    return [(name, id(p)) for name, p in link.namedparams()]


def _moved(link, change):
    before = link.param_set_version
    paths = _paths(link)
    change()
    moved = link.param_set_version != before
    # the contract: the same number means namedparams did not change
    assert moved or _paths(link) == paths
    return moved


class Net(kusari.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.fc = L.Linear(3, 2)
            self.layers = kusari.ChainList(L.Linear(2, 2), L.Linear(2, 2))
            self.seq = kusari.Sequential(L.Linear(2, 2), kusari.functions.relu)


def _register(link, name, value):
    def change():
        with link.init_scope():
            setattr(link, name, value)

    return change


def test_unchanged_model_keeps_its_version():
    net = Net()
    with net.init_scope():
        net.bn = L.BatchNormalization(2)
    x = numpy.ones((4, 3), numpy.float32)
    version = net.param_set_version
    net.cleargrads()
    # a training step: running statistics and gradients are set
    kusari.functions.sum(net.bn(net.fc(x))).backward()
    for p in net.params():
        p.array *= 2  # in place: the same arrays
    net.fc.W.grad = None
    net.fc.foo = 3  # a plain attribute
    assert net.param_set_version == version


@pytest.mark.parametrize(
    "change",
    [
        "param_registered",
        "param_deleted",
        "param_replaced_outside_scope",
        "child_registered",
        "child_deleted",
        "deep_child_param_registered",
        "chainlist_append",
        "chainlist_setitem",
        "chainlist_delete_last",
        "sequential_append",
        "sequential_insert",
        "sequential_pop",
        "sequential_delete_last",
        "sequential_clear",
        "register_persistent_of_param",
        "add_param",
    ],
)
def test_every_change_of_a_parameter_set_moves_it(change):
    net = Net()
    changes = {
        "param_registered": _register(net, "extra", Parameter(numpy.zeros(2, "f"))),
        "param_deleted": lambda: delattr(net.fc, "b"),
        "param_replaced_outside_scope": lambda: setattr(
            net.fc, "W", Parameter(numpy.zeros((2, 3), "f"))
        ),
        "child_registered": _register(net, "more", L.Linear(2, 2)),
        "child_deleted": lambda: delattr(net, "fc"),
        "deep_child_param_registered": _register(
            net.layers[1], "c", Parameter(numpy.zeros(2, "f"))
        ),
        "chainlist_append": lambda: net.layers.append(L.Linear(2, 2)),
        "chainlist_setitem": lambda: net.layers.__setitem__(0, L.Linear(2, 2)),
        "chainlist_delete_last": lambda: net.layers.__delitem__(-1),
        "sequential_append": lambda: net.seq.append(L.Linear(2, 2)),
        "sequential_insert": lambda: net.seq.insert(0, L.Linear(2, 2)),
        "sequential_pop": lambda: net.seq.pop(0),
        "sequential_delete_last": lambda: net.seq.__delitem__(0),
        "sequential_clear": net.seq.clear,
        "register_persistent_of_param": lambda: net.fc.register_persistent("b"),
        "add_param": lambda: _add_param(net.fc),
    }
    assert _moved(net, changes[change])


def _add_param(link):
    with pytest.warns(DeprecationWarning):
        link.add_param("extra", (2,))


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy_share", "copy_copy"])
def test_copies_track_their_children(how):
    net = Net()
    if how == "pickle":
        other = pickle.loads(pickle.dumps(net))
    elif how == "deepcopy":
        other = copy.deepcopy(net)
    elif how == "copy_share":
        other = net.copy("share")
    else:
        other = net.copy("copy")
    assert _moved(other, lambda: other.layers.__delitem__(-1))
    assert _moved(other, lambda: other.seq.pop(0))


def test_list_of_children_from_an_older_pickle_is_tracked():
    layers = kusari.ChainList(L.Linear(2, 2), L.Linear(2, 2))
    state = dict(layers.__dict__, _children=list(layers._children))
    restored = kusari.ChainList.__new__(kusari.ChainList)
    restored.__setstate__(state)
    assert _moved(restored, lambda: restored.__delitem__(-1))
    assert len(restored) == 1


def test_lazy_initialization_is_not_a_parameter_set_change():
    # documented: array changes are for the caller to compare by identity
    link = L.Linear(None, 2)
    version = link.param_set_version
    assert link.W.array is None
    link(numpy.ones((1, 3), numpy.float32))
    assert link.W.array is not None
    assert link.param_set_version == version
