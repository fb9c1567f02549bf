"""The estimator conventions every learner of the toolkit follows.

scikit-learn's by protocol, not by inheritance (importing ``sklearn.base`` costs every
command about 0.76 s of start-up): hyper-parameters are the keyword arguments of
``__init__`` stored under the same names (keyword-only after the first), ``fit`` returns
``self``, learned state lives in attributes ending in ``_``, set by ``fit`` only. An
estimator is fitted when it has one (scikit-learn's rule): :meth:`Estimator._check_fitted`
is the one fitted check. Every fitted estimator has ``selection_``: the record of its
held-out choice (a :class:`seqspectral.selection.SelectionResult`), ``None`` when nothing
was chosen. ``sklearn.base.clone`` works on every :class:`Estimator`.

One vocabulary across estimators: ``n_states`` the number of hidden states of a sequence or
tree model, ``n_components`` that of a mixture; ``max_iter`` caps an iterative fit (with
``tol``), ``n_iter`` is a fixed count of iterations; ``fit(..., dev=None)`` takes the
held-out data on which ``"auto"`` values are chosen; an iterative fit records ``n_iter_``
(iterations run), ``converged_`` and ``history_`` (its objective after every iteration, or
one record per epoch).

Each estimator validates its hyper-parameters from one table, ``_parameter_checks``:
parameter name → check (a function returning an error message, or ``None`` if the value
is fine); the checks below build the usual ones.
"""

from __future__ import annotations

import inspect
import numbers
from typing import Callable, ClassVar


class NotFittedError(ValueError, AttributeError):
    """An estimator used before ``fit`` (a ValueError and an AttributeError, as in scikit-learn)."""

    user_facing = True


Check = Callable[[object], "str | None"]


class _FittedDefault:
    """A fitted attribute every fitted estimator has: ``default`` unless ``fit`` set it;
    reading it before ``fit`` raises :class:`NotFittedError`."""

    def __init__(self, default):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        obj._check_fitted()
        return self.default


class Estimator:
    """``get_params``/``set_params``, parameter validation and the fitted check."""

    #: parameter name -> check; checked by :meth:`_validate_params` at the start of ``fit``
    _parameter_checks: ClassVar[dict[str, Check]] = {}
    #: the held-out choice of the last fit (``None``: nothing chosen)
    selection_ = _FittedDefault(None)

    @classmethod
    def _get_param_names(cls) -> list[str]:
        init = cls.__init__
        if init is object.__init__:
            return []
        params = inspect.signature(init).parameters.values()
        for p in params:
            if p.kind == p.VAR_POSITIONAL:
                raise TypeError(f"{cls.__name__}.__init__ must not take *args")
        return sorted(p.name for p in params if p.name != "self" and p.kind != p.VAR_KEYWORD)

    def get_params(self, deep: bool = True) -> dict:
        """The hyper-parameters; with ``deep``, nested estimators' ones as ``name__param``."""
        out = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{k}", v) for k, v in value.get_params().items())
            out[name] = value
        return out

    def set_params(self, **params):
        """Set hyper-parameters (``name__param`` reaches into nested estimators); returns self."""
        if not params:
            return self
        valid = self.get_params(deep=True)
        nested: dict[str, dict] = {}
        for key, value in params.items():
            name, _, sub = key.partition("__")
            if name not in valid:
                raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}; valid: {sorted(self._get_param_names())}")
            if sub:
                nested.setdefault(name, {})[sub] = value
            else:
                setattr(self, name, value)
                valid[name] = value
        for name, sub_params in nested.items():
            valid[name].set_params(**sub_params)
        return self

    def _validate_params(self) -> None:
        """Check every hyper-parameter against ``_parameter_checks``; one clear ValueError."""
        for name, check in self._parameter_checks.items():
            value = getattr(self, name)
            problem = check(value)
            if problem:
                raise ParameterError(f"{type(self).__name__}: {name} must be {problem}, got {value!r}")

    def __sklearn_is_fitted__(self) -> bool:
        """Whether ``fit`` has run: some public attribute ends in ``_`` (scikit-learn's rule)."""
        return any(name.endswith("_") and not name.startswith("_") for name in vars(self))

    def _check_fitted(self) -> None:
        """Raise :class:`NotFittedError` unless ``fit`` has run."""
        if not self.__sklearn_is_fitted__():
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit first")

    def json_params(self) -> dict:
        """The hyper-parameters as JSON values (anything else by its ``repr``)."""
        return {k: (v if isinstance(v, (int, float, str, bool, type(None))) else repr(v))
                for k, v in self.get_params(deep=False).items()}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params(deep=False).items())
        return f"{type(self).__name__}({args})"


class ParameterError(ValueError):
    """A hyper-parameter outside its allowed values (the command line exits with 2)."""

    user_facing = True


# -- checks for ``_parameter_checks`` -------------------------------------------------------
def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _is_real(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def integer(low: int | None = None, high: int | None = None) -> Check:
    """An integer in [low, high] (either bound optional)."""
    def check(v):
        if not _is_int(v) or (low is not None and v < low) or (high is not None and v > high):
            return "an integer" + _bounds(low, high)
        return None
    return check


def real(low: float | None = None, high: float | None = None, *, open_low: bool = False, open_high: bool = False) -> Check:
    """A real number in [low, high] ((low, high] etc. with the ``open_`` flags)."""
    def check(v):
        ok = _is_real(v) and v == v
        ok = ok and (low is None or (v > low if open_low else v >= low))
        ok = ok and (high is None or (v < high if open_high else v <= high))
        if not ok:
            lo = "" if low is None else ("(" if open_low else "[") + f"{low}, "
            hi = "" if high is None else f"{high}" + (")" if open_high else "]")
            return "a number" + (f" in {lo or '(-inf, '}{hi or 'inf)'}" if (low is not None or high is not None) else "")
        return None
    return check


def one_of(*choices) -> Check:
    """One of ``choices``."""
    def check(v):
        return None if any(v == c and type(v) is type(c) for c in choices) else f"one of {', '.join(map(repr, choices))}"
    return check


def either(*checks: Check) -> Check:
    """Passes if any of ``checks`` passes."""
    def check(v):
        problems = [c(v) for c in checks]
        return None if any(p is None for p in problems) else " or ".join(problems)
    return check


def seed(v) -> str | None:
    """A ``random_state``: None, an integer or a numpy Generator / RandomState."""
    import numpy as np

    if v is None or _is_int(v) or isinstance(v, (np.random.Generator, np.random.RandomState)):
        return None
    return "None, an integer or a numpy random generator"


def _bounds(low, high) -> str:
    if low is not None and high is not None:
        return f" in [{low}, {high}]"
    if low is not None:
        return f" >= {low}"
    if high is not None:
        return f" <= {high}"
    return ""
