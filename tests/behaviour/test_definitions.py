"""Behaviour: nested functions, closures, defaults, annotations, decorators, classes, super().

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import functools

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()

#: Cases that cannot pass yet, with the versions where they fail (see conftest.py).
EXPECTED_FAILURES: dict = {}


def twice(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs) * 2

    return wrapper


@cases(
    (3,),
)
def nested_functions_and_closures(n):
    def add(x, y=n, *, z=1):
        return x + y + z

    def make(k):
        def inner():
            return k + n

        return inner

    return add(1), add(1, 2, z=3), make(10)(), [make(i)() for i in range(2)]


@cases(
    (2,),
)
def decorated_definitions(n):
    @twice
    def value():
        return n

    @functools.lru_cache(maxsize=None)
    def cached(x):
        return x * n

    return value(), cached(4), cached(4)


@cases(
    (1,),
)
def annotations_and_defaults(n):
    def annotated(a: int, b: "str" = "x", *args: int, c: float = 1.5, **kwargs: dict) -> list:
        return [a, b, c]

    return annotated(n), sorted(annotated.__annotations__)


@cases(
    (5,),
)
def classes_with_bases_and_super(n):
    class Base:
        def __init__(self, value):
            self.value = value

        def describe(self):
            return "base %d" % self.value

    class Child(Base):
        """A child class."""

        limit = n

        def __init__(self, value):
            super().__init__(value * 2)

        def describe(self):
            return "child+" + super().describe()

        @property
        def double(self):
            return self.value * 2

        @classmethod
        def make(cls):
            return cls(cls.limit)

        @staticmethod
        def static(x):
            return -x

    child = Child.make()
    return child.describe(), child.double, Child.static(n), Child.__doc__, Child.__qualname__.split(".")[-1]


@cases(
    (3,),
)
def class_keywords_and_metaclass(n):
    class Meta(type):
        def __new__(mcs, name, bases, namespace, **kwargs):
            namespace["extra"] = kwargs.get("extra")
            return super().__new__(mcs, name, bases, namespace)

    class Thing(object, metaclass=Meta, extra=n):  # noqa: UP004 - a base given as written
        pass

    return Thing.extra, type(Thing).__name__


@cases(
    (4,),
)
def class_cell_in_nested_method(n):
    class Node:
        def name(self):
            return __class__.__name__

        def nested(self):
            def helper():
                return super(Node, self).__repr__()[:5]

            return helper()

    return Node().name(), Node().nested(), n


cases.from_source(
    (3, 12),
    "def generic_function(n):\n"
    "    def first[T](items: list[T]) -> T:\n"
    "        return items[0]\n"
    "    class Stack[T]:\n"
    "        def __init__(self):\n"
    "            self.items: list[T] = []\n"
    "    type Pair[K] = tuple[K, K]\n"
    "    return first([n]), type(Stack()).__name__, Pair.__name__\n",
    "generic_function",
    (7,),
)


cases.from_source(
    (3, 12),
    "def generic_class(n):\n"
    "    class Base:\n"
    "        pass\n"
    "    class Box[T: (int, str), *Ts, **P](Base):\n"
    "        def __init__(self, item: T):\n"
    "            self.item = item\n"
    "        def get(self) -> T:\n"
    "            return self.item\n"
    "    params = [p.__name__ for p in Box.__type_params__]\n"
    "    return Box(n).get(), params, Box.__type_params__[0].__constraints__, Box.__mro__[1].__name__\n",
    "generic_class",
    (7,),
)


cases.from_source(
    (3, 12),
    "def generic_type_alias(n):\n"
    "    type Pair[K: int] = tuple[K, K]\n"
    "    def twice[T](x: T, count=2, *, sep=n) -> list[T]:\n"
    "        return [x] * count\n"
    "    bound = Pair.__type_params__[0].__bound__\n"
    "    return str(Pair.__value__), bound, twice(n), str(twice.__type_params__)\n",
    "generic_type_alias",
    (7,),
)


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_definition(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)


CLASS_MODULE = '''
"""A module."""


class Counter:
    """Counts."""

    start = 0

    def __init__(self, step=1):
        self.step = step

    def advance(self, value):
        return value + self.step


def use():
    return Counter(2).advance(Counter.start)


RESULT = use()
'''


def test_module_with_class(module_behaves_the_same):
    module_behaves_the_same(CLASS_MODULE)
