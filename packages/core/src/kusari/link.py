"""Links: the building blocks of models, holding parameters and sub-links.

A :class:`Link` owns :class:`~kusari.Parameter` objects; a :class:`Chain`
also owns named child links and a :class:`ChainList` numbered ones. Both are
registered by assigning them inside ``with self.init_scope():``; assignment
outside that block makes a plain attribute, exactly as in Chainer.

Example:
    >>> import numpy, kusari
    >>> class Affine(kusari.Link):
    ...     def __init__(self, n):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.W = kusari.Parameter(numpy.eye(n, dtype='f'))
    ...     def forward(self, x):
    ...         return x @ self.W.array
    >>> class Model(kusari.Chain):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.fc = Affine(2)
    >>> [path for path, _ in Model().namedparams()]
    ['/fc/W']
"""

from __future__ import annotations

import contextlib
import copy
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from kusari import _link_impl, backend, device_resident
from kusari._link_calling import _LinkCalling
from kusari._link_registration import _NamedRegistration
from kusari._link_version import (
    _bump_param_set_version,
    _ChildList,
    _param_set_version,
)
from kusari.parameter import Parameter

if TYPE_CHECKING:
    from kusari.chain import Chain
    from kusari.chain_list import ChainList
    from kusari.sequential import Sequential

_L = TypeVar("_L", bound="Link")


class Link(_NamedRegistration, _LinkCalling, device_resident.DeviceResident):
    """A model component owning parameters and persistent values.

    Parameters are :class:`~kusari.Parameter` objects assigned as attributes
    inside :meth:`init_scope` (or made by :meth:`add_param`); persistent
    values are other state saved by :meth:`serialize` (e.g. running means).
    Calling a link runs its ``forward`` method between the link hooks.

    Args:
        params: Legacy shortcut: ``name=shape`` or ``name=(shape, dtype)``
            registers an uninitialized (NaN-filled) parameter per entry.
            Deprecated, as in Chainer 7: it warns like :meth:`add_param`.

    Example:
        >>> import kusari
        >>> class Scale(kusari.Link):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.a = kusari.Parameter(2.0, shape=(1,))
        ...     def forward(self, x):
        ...         return x * self.a.array
        >>> Scale()(3.0).tolist()
        [6.0]
    """

    name: str | None
    _within_init_scope: bool

    def __init__(self, **params: Any) -> None:
        super().__init__()
        self._params = set()
        self._persistent = set()
        self._within_init_scope = False
        self._local_link_hooks = None
        self.name = None
        for name, value in params.items():
            shape, dtype = _link_impl.ensure_shape_dtype(value)
            self.add_param(name, shape, dtype=dtype)

    # -- registration (add_param and co. are _NamedRegistration's) ----------

    @property
    def within_init_scope(self) -> bool:
        """True inside ``with self.init_scope():``."""
        return self.__dict__.get("_within_init_scope", False)

    @contextlib.contextmanager
    def init_scope(self) -> Iterator[None]:
        """Makes parameter (and link) assignments register them.

        Example:
            >>> import kusari
            >>> link = kusari.Link()
            >>> with link.init_scope():
            ...     link.w = kusari.Parameter()
            >>> [name for name, _ in link.namedparams()]
            ['/w']
        """
        self._check_init_done()
        previous = self.within_init_scope
        self._within_init_scope = True
        try:
            yield
        finally:
            self._within_init_scope = previous

    def _check_init_done(self) -> None:
        # Chainer's words first: user code and tests match on them.
        if "_params" not in self.__dict__:
            raise RuntimeError(
                "Link.__init__() has not been called. Call super().__init__() "
                f"at the start of {type(self).__name__}.__init__."
            )

    def __setattr__(self, name: str, value: Any) -> None:
        # Whatever adds, drops or replaces a parameter or a child link moves
        # the version (see param_set_version); other attributes (running
        # statistics, recurrent states) are set every step and cost one
        # dict lookup here.
        if name == "_children":
            _bump_param_set_version()
            if type(value) is list:
                value = _ChildList(value)
        elif isinstance(value, _STRUCTURAL) or isinstance(
            self.__dict__.get(name), _STRUCTURAL
        ):
            _bump_param_set_version()
        if self.within_init_scope and isinstance(value, Parameter):
            if "_params" not in self.__dict__:
                raise AttributeError(
                    f"cannot assign parameter {name!r} before Link.__init__() call"
                )
            value.name = name
            if not isinstance(self._device, backend.CpuDevice):
                # A lazily initialized parameter must later be made here too.
                value.to_device(self._device)
            self._params.add(name)
            self._persistent.discard(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._params or isinstance(self.__dict__.get(name), _STRUCTURAL):
            _bump_param_set_version()
        self._params.discard(name)
        self._persistent.discard(name)
        super().__delattr__(name)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Unpickling and copy.copy/deepcopy fill __dict__ without
        # __setattr__: a list of children from an older pickle is made a
        # tracked one here.
        children = state.get("_children")
        if type(children) is list:
            state = dict(state, _children=_ChildList(children))
        self.__dict__.update(state)
        _bump_param_set_version()

    @property
    def param_set_version(self) -> int:
        """A number that changes whenever the parameter set may have changed.

        It moves whenever a link (this one or any other) gains, loses or
        replaces a parameter or a child link: registration in
        :meth:`init_scope`, :meth:`add_param`, ``del``, assigning over a
        registered name, :meth:`register_persistent` of a parameter's name,
        and every change of a :class:`~kusari.Chain`'s, a
        :class:`~kusari.ChainList`'s or a :class:`~kusari.Sequential`'s
        children. Equal numbers from two reads therefore mean that
        :meth:`namedparams` yields the same parameter objects under the same
        names, so a caller can keep that list instead of walking the tree
        again (as ``kusari_mn`` does every training step). It does not
        follow a parameter's array: a lazily initialized parameter getting
        its array, or an array replaced by another, leaves it alone (compare
        ``param.array`` by identity for that).

        It is one counter for the whole process (a link does not know its
        parents, and a change deep in a model must show at its root without
        a walk); reading it costs an attribute lookup.

        Example:
            >>> import kusari
            >>> model = kusari.Chain()
            >>> before = model.param_set_version
            >>> with model.init_scope():
            ...     model.fc = kusari.links.Linear(3, 2)
            >>> model.param_set_version != before
            True
        """
        return _param_set_version[0]

    # -- traversal ----------------------------------------------------------

    def _child_items(self) -> Iterator[tuple[str, Link]]:
        """(name, child) pairs; containers override this one method."""
        return iter(())

    def _get_child(self, name: str) -> Link:
        raise KeyError(f"{type(self).__name__} has no child link {name!r}")

    def params(self, include_uninit: bool = True) -> Iterator[Any]:
        """Yields every parameter of this link and its descendants.

        Args:
            include_uninit: Also yield parameters whose array is None.
        """
        for _, param in self.namedparams(include_uninit):
            yield param

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Any]]:
        """Yields ``(path, parameter)`` pairs, paths like ``'/l1/W'``.

        Args:
            include_uninit: Also yield parameters whose array is None.
        """
        d = self.__dict__
        for name in sorted(self._params):
            if include_uninit or d[name].array is not None:
                yield "/" + name, d[name]
        for child_name, child in self._child_items():
            for path, param in child.namedparams(include_uninit):
                yield "/" + child_name + path, param

    def links(self, skipself: bool = False) -> Iterator[Link]:
        """Yields this link (unless ``skipself``) and all its descendants."""
        for _, link in self.namedlinks(skipself):
            yield link

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, Link]]:
        """Yields ``(path, link)`` pairs; this link is ``'/'``."""
        if not skipself:
            yield "/", self
        for child_name, child in self._child_items():
            prefix = "/" + child_name
            yield prefix, child
            for path, link in child.namedlinks(skipself=True):
                yield prefix + path, link

    def children(self) -> Iterator[Link]:
        """Yields the direct child links."""
        for _, child in self._child_items():
            yield child

    def count_params(self) -> int:
        """Total number of parameter elements (uninitialized ones warn).

        Example:
            >>> import kusari
            >>> link = kusari.Link()
            >>> with link.init_scope():
            ...     link.w = kusari.Parameter(0.0, (2, 3))
            >>> link.count_params()
            6
        """
        total = 0
        for path, param in self.namedparams():
            if param.array is None:
                warnings.warn(
                    f"Parameter {path!r} has not been initialized, so the resulting "
                    "count will not include the number of parameters in it."
                )
                continue
            total += param.array.size
        return total

    # -- gradients, copies and updates --------------------------------------

    def cleargrads(self) -> None:
        """Sets the gradient of every parameter to None."""
        for param in self.params():
            param.cleargrad()

    def zerograds(self) -> None:
        """Deprecated: fills gradients with zeros; use :meth:`cleargrads`."""
        warnings.warn(
            "Link.zerograds is deprecated. Use Link.cleargrads instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        # One warning for the link, not one more per parameter.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            for param in self.params():
                param.zerograd()

    def addgrads(self, link: Link) -> None:
        """Adds the gradients of ``link`` (same structure) to this one's."""
        src = link.__dict__
        d = self.__dict__
        for name in self._params:
            d[name].addgrad(src[name])
        for child_name, child in self._child_items():
            child.addgrads(link._get_child(child_name))

    def copyparams(self, link: Link, copy_persistent: bool = True) -> None:
        """Copies parameter values (and persistents) from ``link``.

        Args:
            link: A link with the same structure.
            copy_persistent: Also copy persistent values.
        """
        src = link.__dict__
        d = self.__dict__
        for name in self._params:
            _link_impl.copy_param_data(d[name], src[name])
        if copy_persistent:
            for name in self._persistent:
                if _link_impl.is_array(d[name]) and _link_impl.is_array(src[name]):
                    backend.copyto(d[name], src[name])
                else:
                    d[name] = copy.deepcopy(src[name])
        for child_name, child in self._child_items():
            child.copyparams(link._get_child(child_name), copy_persistent)

    def copy(self: _L, mode: str = "share") -> _L:
        """Copies the link and its descendants.

        Args:
            mode: ``'share'`` makes new parameter objects sharing the arrays
                (gradients cleared), ``'copy'`` deep-copies everything and
                ``'init'`` deep-copies then re-initializes every initialized
                parameter with its initializer.

        Raises:
            ValueError: For any other mode.
        """
        _link_impl.check_copy_mode(mode)
        if mode == "share":
            return self._share()
        ret = copy.deepcopy(self)
        if mode == "init":
            for param in ret.params(include_uninit=False):
                param.initialize(param.shape)
        return ret

    def _share(self: _L) -> _L:
        ret = copy.copy(self)
        ret._params = set(self._params)
        ret._persistent = set(self._persistent)
        if self._local_link_hooks is not None:
            ret._local_link_hooks = OrderedDict(self._local_link_hooks)
        ret.name = None
        d = ret.__dict__
        for name in ret._params:
            d[name] = copy.copy(d[name])
            d[name].grad = None
        return ret

    def repeat(self, n_repeat: int, mode: str = "init") -> Sequential:
        """A :class:`~kusari.Sequential` of ``n_repeat`` copies of this link.

        Args:
            n_repeat: Number of copies; ``<= 0`` gives an empty Sequential.
            mode: Copy mode, as in :meth:`copy`.
        """
        from kusari.sequential import Sequential  # sequential imports link

        ret = Sequential()
        if n_repeat <= 0:
            return ret
        _link_impl.check_copy_mode(mode)
        for _ in range(n_repeat):
            ret.append(self.copy(mode))
        return ret

    @property
    def update_enabled(self) -> bool:
        """True if any parameter has an enabled update rule."""
        for param in self.params():
            rule = param.update_rule
            if rule is not None and rule.enabled:
                return True
        return False

    def enable_update(self) -> None:
        """Enables the update rule of every parameter that has one."""
        self._set_update_enabled(True)

    def disable_update(self) -> None:
        """Disables the update rule of every parameter (freezes the link)."""
        self._set_update_enabled(False)

    def _set_update_enabled(self, enabled: bool) -> None:
        for param in self.params():
            if param.update_rule is not None:
                param.update_rule.enabled = enabled

    # -- devices and serialization ------------------------------------------

    def device_resident_accept(
        self, visitor: device_resident.DeviceResidentsVisitor
    ) -> None:
        super().device_resident_accept(visitor)
        d = self.__dict__
        for name in sorted(self._params):
            visitor.visit_variable(d[name])
        for name in sorted(self._persistent):
            if _link_impl.is_array(d[name]):
                d[name] = visitor.visit_array(d[name])
        for _, child in self._child_items():
            child.device_resident_accept(visitor)

    def serialize(self, serializer: Any) -> None:
        """Saves or loads parameters, persistents and children.

        Calls ``serializer(name, array)`` per parameter and
        ``serializer(name, value)`` per persistent value, then
        ``child.serialize(serializer[child_name])``. An uninitialized
        parameter is initialized from the array a deserializer returns.
        """
        d = self.__dict__
        for name in sorted(self._params):
            param = d[name]
            data = serializer(name, param.array)
            if param.array is None and data is not None:
                param.initialize(data.shape)
                backend.copyto(param.array, data)
        for name in sorted(self._persistent):
            d[name] = serializer(name, d[name])
        for child_name, child in self._child_items():
            child.serialize(serializer[child_name])

    # -- calling (hooks and __call__ are _LinkCalling's) ---------------------

    @classmethod
    def from_params(cls, *args: Any, **kwargs: Any) -> Link:
        """Builds a link from existing parameters; concrete links override it."""
        raise NotImplementedError(f"{cls.__name__} does not implement from_params")

    # -- printing -----------------------------------------------------------

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        """``(name, value)`` pairs shown in the repr; links override it."""
        return iter(())

    def __repr__(self) -> str:
        specs = ", ".join(f"{key}={value}" for key, value in self.printable_specs)
        children = [(name, repr(child)) for name, child in self._child_items()]
        return _link_impl.format_tree(type(self).__name__, specs, children)

    __str__ = __repr__


# Values whose assignment to (or removal from) a link's attribute may change
# a parameter set.
_STRUCTURAL = (Parameter, Link)


def __getattr__(name: str) -> Any:
    # Chain and ChainList have modules of their own (they build on Link);
    # Chainer code imports them from here (chainer.link.Chain), and pickles
    # made before the split name kusari.link.Chain.
    if name == "Chain":
        from kusari.chain import Chain

        return Chain
    if name == "ChainList":
        from kusari.chain_list import ChainList

        return ChainList
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Chain", "ChainList", "Link"]
