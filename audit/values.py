"""Value classes for the modules a one-log ``tarneeb verify`` loads: what
``@dataclass(slots=True)`` gives them, made in a fraction of the time.

A verifier is often run once per log, so its start-up counts as much as its replay.
``import dataclasses`` loads :mod:`inspect` (and with it :mod:`ast`, :mod:`dis` and
:mod:`tokenize`), and ``@dataclass(frozen=True, slots=True)`` compiles six methods for
each class, then builds the class twice: 7 ms and 0.6 ms a class, which for the 23
classes on a verifier's path was a fifth of a one-log verify's CPU time. A value class
compiles only its ``__init__`` (so that it keeps its signature and a dataclass's speed);
its ``__repr__``, ``__eq__``, ``__hash__`` and, when frozen, ``__setattr__`` are shared
functions over the class's fields.

What it gives, as a dataclass with ``slots=True`` does: fields from the class's
annotations in order (``ClassVar`` ones are not fields), defaults and default factories
(:func:`field`), ``__post_init__``, ``__slots__``, ``__match_args__``, a repr of the
fields, equality field by field with a value of the same class, and for a frozen class a
hash of the fields and no assignment (:class:`FrozenError`). Without them: inheritance
of fields, ``InitVar``, ``kw_only``, ordering; the rest of the package keeps
:mod:`dataclasses`.

>>> @valueclass(frozen=True)
... class Point:
...     x: int
...     y: int = 0
>>> p = Point(1)
>>> p, p == Point(1, 0), hash(p) == hash(Point(1))
(Point(x=1, y=0), True, True)
>>> @valueclass
... class Bag:
...     items: list[int] = field(default_factory=list)
>>> Bag().items is Bag().items, Bag() == Bag()
(False, True)
>>> replace(p, y=2)
Point(x=1, y=2)
>>> p.x = 5
Traceback (most recent call last):
...
tarneeb.audit.values.FrozenError: cannot assign to field 'x' of a frozen Point
>>> [f.name for f in fields(Point)]
['x', 'y']
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

__all__ = ["Field", "FrozenError", "field", "fields", "replace", "valueclass"]

T = TypeVar("T", bound=type)


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class FrozenError(AttributeError):
    """An assignment to (or deletion of) a field of a frozen value."""


class Field:
    """One field of a value class: its name, its default or default factory, and whether
    the repr shows it."""

    __slots__ = ("default", "factory", "name", "repr")

    def __init__(self, default: Any = MISSING, factory: Callable[[], Any] | None = None,
                 repr: bool = True) -> None:
        if default is not MISSING and factory is not None:
            raise ValueError("a field cannot have both a default and a default factory")
        self.name = ""
        self.default = default
        self.factory = factory
        self.repr = repr

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, factory={self.factory!r})"


def field(*, default: Any = MISSING, default_factory: Callable[[], Any] | None = None,
          repr: bool = True) -> Any:
    """A field's default (or ``default_factory``, called for each new value) and whether
    the repr shows it, as :func:`dataclasses.field` takes them."""
    return Field(default, default_factory, repr)


@overload
def valueclass(cls: T, /) -> T: ...
@overload
def valueclass(*, frozen: bool = False) -> Callable[[T], T]: ...


@dataclass_transform(field_specifiers=(field, Field))
def valueclass(cls: T | None = None, /, *, frozen: bool = False) -> T | Callable[[T], T]:
    """Make ``cls`` a value class (see the module): ``@valueclass`` or
    ``@valueclass(frozen=True)``."""
    if cls is None:
        return lambda c: _build(c, frozen)
    return _build(cls, frozen)


def fields(value: Any) -> tuple[Field, ...]:
    """The fields of a value class, or of one of its values, in order."""
    try:
        return value.__value_fields__  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError(f"{value!r} is not a value class or a value of one") from None


def replace(value: T, /, **changes: Any) -> T:
    """A copy of ``value`` with some fields changed, made by the class's ``__init__`` (so
    ``__post_init__`` checks it), as :func:`dataclasses.replace` does (and does for a
    dataclass's value, so that one call serves both)."""
    if "__value_fields__" not in type(value).__dict__:
        import dataclasses

        return dataclasses.replace(value, **changes)  # type: ignore[type-var]
    names = value.__match_args__
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{type(value).__qualname__} has no field(s) "
                        f"{', '.join(sorted(unknown))}")
    kwargs = {name: getattr(value, name) for name in names}
    kwargs.update(changes)
    return type(value)(**kwargs)  # type: ignore[no-any-return]


def _is_classvar(annotation: object) -> bool:
    if isinstance(annotation, str):  # under ``from __future__ import annotations``
        return annotation.startswith(("ClassVar", "typing.ClassVar"))
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


def _build(cls: T, frozen: bool) -> T:
    ns = dict(cls.__dict__)
    for base in cls.__mro__[1:]:
        if "__value_fields__" in base.__dict__:
            raise TypeError(f"{cls.__qualname__}: a value class cannot extend another")
    specs: list[Field] = []
    for name, annotation in ns.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        given = ns.pop(name, MISSING)
        spec = given if isinstance(given, Field) else Field(given)
        spec.name = name
        if spec.default is not MISSING and getattr(type(spec.default), "__hash__", 0) is None:
            raise ValueError(f"{cls.__qualname__}.{name}: a mutable default "
                             f"{type(spec.default).__name__} is shared; use default_factory")
        if specs and not _has_default(spec) and _has_default(specs[-1]):
            raise TypeError(f"{cls.__qualname__}: field {name!r} without a default follows "
                            "one with a default")
        specs.append(spec)
    names = tuple(s.name for s in specs)
    ns.pop("__dict__", None)
    ns.pop("__weakref__", None)
    ns["__slots__"] = names
    ns["__match_args__"] = names
    ns["__value_fields__"] = tuple(specs)
    get = attrgetter(*names) if len(names) > 1 else (lambda v: (getattr(v, names[0]),))
    shown = tuple(s.name for s in specs if s.repr)

    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in shown)
        return f"{type(self).__qualname__}({inner})"

    def __eq__(self: Any, other: object) -> bool:
        if other.__class__ is self.__class__:
            return get(self) == get(other)  # type: ignore[no-any-return]
        return NotImplemented

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        return type(self), get(self)

    ns.setdefault("__repr__", __repr__)
    ns.setdefault("__eq__", __eq__)
    ns.setdefault("__reduce__", __reduce__)
    if frozen:
        def __hash__(self: Any) -> int:
            return hash(get(self))

        def __setattr__(self: Any, name: str, value: object) -> None:
            raise FrozenError(f"cannot assign to field {name!r} of a frozen "
                              f"{type(self).__qualname__}")

        def __delattr__(self: Any, name: str) -> None:
            raise FrozenError(f"cannot delete field {name!r} of a frozen "
                              f"{type(self).__qualname__}")

        ns.setdefault("__hash__", __hash__)
        ns["__setattr__"] = __setattr__
        ns["__delattr__"] = __delattr__
    elif "__hash__" not in cls.__dict__ or cls.__dict__["__hash__"] is None:
        ns["__hash__"] = None  # mutable and compared by value: unhashable, as a dataclass
    ns["__init__"] = _init(cls.__qualname__, specs, frozen,
                           "__post_init__" in ns, ns["__annotations__"] if specs else {})
    made = type(cls)(cls.__name__, cls.__bases__, ns)
    return made  # type: ignore[no-any-return]


def _has_default(spec: Field) -> bool:
    return spec.default is not MISSING or spec.factory is not None


def _init(qualname: str, specs: list[Field], frozen: bool, post_init: bool,
          annotations: dict[str, Any]) -> Callable[..., None]:
    """The ``__init__`` of a value class, compiled once (its signature is the fields')."""
    # _FACTORY: the default of a parameter whose field has a default factory
    env: dict[str, Any] = {"_setattr": object.__setattr__, "_FACTORY": MISSING}
    params, body = ["self"], []
    for spec in specs:
        name = spec.name
        value = name
        if spec.factory is not None:
            env[f"_f_{name}"] = spec.factory
            params.append(f"{name}=_FACTORY")
            value = f"_f_{name}() if {name} is _FACTORY else {name}"
        elif spec.default is not MISSING:
            env[f"_d_{name}"] = spec.default
            params.append(f"{name}=_d_{name}")
        else:
            params.append(name)
        body.append(f"  _setattr(self, {name!r}, {value})" if frozen
                    else f"  self.{name} = {value}")
    if post_init:
        body.append("  self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n"
    exec(compile(source, f"<value class {qualname}>", "exec"), env)
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{qualname}.__init__"
    init.__annotations__ = {**{s.name: annotations[s.name] for s in specs}, "return": "None"}
    return init
