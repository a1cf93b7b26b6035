"""The gradient and array methods of :class:`~kusari.Variable` that move data.

``zerograd``, ``addgrad`` and ``copydata`` are written here, away from the
class body (:mod:`kusari.variable` binds them as methods, so calling them
costs what calling methods written there would).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, cast

from kusari import backend

if TYPE_CHECKING:
    from kusari.variable import Variable


class AddgradDtypeError(TypeError, ValueError):
    """``addgrad`` between gradients of different dtypes.

    A ``TypeError`` as Chainer 7's gradient checks raise for a wrong dtype,
    and a ``ValueError`` as its later versions (and their tests) expect.
    """


def _variable_class() -> type[Variable]:
    # kusari.variable imports this module: look the class up when called.
    from kusari.variable import Variable

    return Variable


def zerograd(self: Variable) -> None:
    """Fill the gradient with zeros (allocating it if needed).

    Deprecated (as in Chainer): use :meth:`cleargrad`.
    """
    warnings.warn(
        "Variable.zerograd is deprecated. Use Variable.cleargrad instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    if self._data is None:
        return
    gv = self._grad_var
    if gv is None:
        xp = backend.get_array_module(self._data)
        self._grad_var = _variable_class()(
            xp.zeros_like(self._data), requires_grad=False
        )
    else:
        gv.unchain()
        gv._data.fill(0)


def addgrad(self: Variable, var: Variable) -> None:
    """Add ``var``'s gradient to this one's (across devices too)."""
    src = var._grad_var
    if src is None:
        return
    if self._data is None:
        if not self._initializable:
            raise RuntimeError(
                "addgrad: the destination variable has no data; initialize it first"
            )
        # As in Chainer: an uninitialized parameter takes the source's
        # shape, then accumulates onto whatever gradient that gives it.
        cast(Any, self).initialize(var.shape)
    g = src._data
    if g.dtype != self._data.dtype:
        # Chainer refused too (its sum of the two gradients failed its type
        # check); adding would give this variable a gradient of another dtype.
        raise AddgradDtypeError(
            f"Variable.addgrad: the source's gradient is {g.dtype} but this "
            f"variable is {self._data.dtype}; cast one of them first"
        )
    if backend.get_device_from_array(g) != backend.get_device_from_array(self._data):
        g = backend.get_device_from_array(self._data).send(g)
    dst = self._grad_var
    if dst is None:
        self._grad_var = _variable_class()(g.copy(), requires_grad=False)
    else:
        self._grad_var = _variable_class()(dst._data + g, requires_grad=False)


def copydata(self: Variable, var: Variable) -> None:
    """Copy ``var``'s array into this one in place.

    An uninitialized side is handled as Chainer does: a destination without
    an array gets a copy; a source without an array is initialized with
    this variable's shape first (so both end up equal).
    """
    src = var._data
    if src is None:
        if self._data is None:
            return
        if var._initializable:
            cast(Any, var).initialize(self._data.shape)
            src = var._data
        else:
            raise RuntimeError("copydata: the source variable has no array")
    if self._data is None:
        self._set_data(backend.get_device_from_array(src).xp.array(src, copy=True))
        return
    backend.copyto(self._data, src)
