"""The value classes of a verifier's path (tarneeb.audit.values) behave as the dataclasses
they replaced: construction, defaults, repr, equality, hashing, freezing, copying,
pickling (archive workers send them between processes) and ``replace``."""

from __future__ import annotations

import copy
import inspect
import pickle
import subprocess
import sys
from collections import Counter
from typing import ClassVar

import pytest

from tarneeb.audit.values import FrozenError, field, fields, replace, valueclass
from tarneeb.replay.log.records import HandRecord, Header
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.replay.verify.findings import Finding, Verdict
from tarneeb.replay.verify.trust import NOTHING


@valueclass(frozen=True)
class Point:
    """A frozen value."""

    SCALE: ClassVar[int] = 10
    x: int
    y: int = 0
    label: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if self.x < 0:
            raise ValueError("x must not be negative")


@valueclass
class Bag:
    """A mutable value."""

    name: str
    items: list[int] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


def test_fields_defaults_and_factories() -> None:
    assert [f.name for f in fields(Point)] == ["x", "y", "label"]  # the ClassVar is not one
    assert Point.SCALE == 10 and Point(1).y == 0
    a, b = Bag("a"), Bag("b")
    a.items.append(1)
    assert b.items == [] and a.items == [1]  # a new list for each value
    assert Bag("c", [5]).items == [5]
    assert str(inspect.signature(Point)) == "(x: 'int', y: 'int' = 0, label: 'str' = '') -> 'None'"


def test_repr_equality_and_hash() -> None:
    assert repr(Point(1, 2, "hidden")) == "Point(x=1, y=2)"
    assert repr(Bag("a")) == "Bag(name='a', items=[], counts=Counter())"
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(2, 1)
    assert Point(1) != (1, 0, "")  # another class is never equal
    assert hash(Point(1, 2)) == hash(Point(1, 2))
    assert len({Point(1), Point(1), Point(2)}) == 2
    with pytest.raises(TypeError):
        hash(Bag("a"))  # mutable and compared by value: unhashable, as a dataclass is


def test_frozen_values_refuse_assignment_and_mutable_ones_allow_it() -> None:
    p = Point(1)
    with pytest.raises(FrozenError, match="cannot assign to field 'x' of a frozen Point"):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenError):
        del p.y  # type: ignore[misc]
    with pytest.raises(AttributeError):
        p.other = 1  # type: ignore[attr-defined]  # slots: no stray attributes
    bag = Bag("a")
    bag.name = "b"
    assert bag.name == "b"
    with pytest.raises(AttributeError):
        bag.other = 1  # type: ignore[attr-defined]


def test_construction_errors_are_those_of_a_function() -> None:
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="must not be negative"):
        Point(-1)  # __post_init__ runs


def test_replace_checks_what_it_makes() -> None:
    p = Point(1, 2, "a")
    assert replace(p, y=5) == Point(1, 5, "a") and p.y == 2
    with pytest.raises(ValueError, match="must not be negative"):
        replace(p, x=-1)
    with pytest.raises(TypeError, match="Point has no field"):
        replace(p, z=1)
    rules = replace(PRESETS["eram41"], target=31)
    assert rules.target == 31 and rules.name == "eram41" and PRESETS["eram41"].target != 31


def test_copies_and_pickles_give_equal_values() -> None:
    for value in (Point(1, 2, "a"), Bag("a", [1, 2]), Finding("renege", "x", hand=3),
                  PRESETS["sahrat400"], NOTHING):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value and copy.copy(value) == value
    deep = copy.deepcopy(bag := Bag("a", [1]))
    deep.items.append(2)
    assert bag.items == [1]


def test_a_value_class_refuses_what_a_dataclass_refuses() -> None:
    with pytest.raises(ValueError, match="mutable default"):
        @valueclass
        class Shared:
            items: list[int] = []  # noqa: RUF012 (the mistake checked for)
    with pytest.raises(TypeError, match="without a default follows"):
        @valueclass
        class Order:
            a: int = 0
            b: int  # type: ignore[misc]
    with pytest.raises(TypeError, match="cannot extend"):
        @valueclass
        class More(Bag):  # type: ignore[misc]
            extra: int = 0


def test_the_log_values_keep_their_behaviour() -> None:
    assert Verdict.__hash__ is None and HandRecord.__hash__ is None
    assert "history" not in repr(Verdict(path="x"))  # a field kept out of the repr
    assert Finding("renege", "m", hand=1).to_json() == {
        "kind": "renege", "message": "m", "hand": 1, "trick": None, "seat": None,
        "card": None, "offset": None}
    assert [f.name for f in fields(Header)][:2] == ["rules", "seats"]


def test_a_plain_verify_loads_no_dataclasses() -> None:
    """The point of the value classes: ``import dataclasses`` and its ``inspect`` are not
    on a verifier's path."""
    code = ("import sys, tarneeb.replay.verify.replayer, tarneeb.cli.verify_cmd; "
            "print(sorted({'dataclasses', 'inspect'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
