"""``match`` statements (``uncompile.structure.matches``): one snippet per pattern kind, 3.10+.

A match whose only refutable case tests a literal compiles exactly like an ``if``: the
snippets have two cases or more so that the match is visible in the bytecode."""

from __future__ import annotations

import sys

import pytest
from snippets import round_trip

pytestmark = pytest.mark.skipif(sys.version_info < (3, 10), reason="match statements are 3.10+")

SNIPPETS = {
    # in a loop, no case goes on: the statements after the match start where the last test fails
    "cases_leave_in_a_loop": """\
def cases_leave_in_a_loop(items, out):
    while items:
        item = items.pop()
        match item:
            case 1:
                return out
            case [first]:
                raise KeyError(first)
        out.append(item)
    for item in out:
        match item:
            case 'a':
                raise ValueError(item)
            case 'b':
                continue
        items.append(item)
    return items
""",
    "cases_before_others_raise": """\
def cases_before_others_raise(on_error, warn):
    match on_error:
        case 'fail':
            raise
        case 'strict':
            raise ValueError(on_error)
        case 'warn':
            warn()
        case 'ignore':
            pass
""",
    "dotted_and_signed_values": """\
def dotted_and_signed_values(value, C):
    match value:
        case -3 - 4j:
            return 1
        case C.A.B:
            return 2
        case b'x' | -2.5 | C.D:
            return 3
        case found if found > 3:
            return found
    return None
""",
    "literals": """\
def literals(value):
    match value:
        case 1:
            kind = 'one'
        case 'two':
            kind = 2
        case b'three':
            kind = 3.0
        case -4:
            kind = 'minus'
        case 1 + 5j:
            kind = 'complex'
        case _:
            kind = None
    return kind
""",
    "singletons": """\
def singletons(value):
    match value:
        case None:
            return 0
        case True:
            return 1
        case False:
            return 2
""",
    "capture_and_wildcard": """\
def capture_and_wildcard(value):
    match value:
        case 0:
            print('zero')
        case other:
            print('other', other)
""",
    "value_patterns": """\
def value_patterns(value):
    match value:
        case Shade.DARK:
            return 'dark'
        case palette.colours.LIGHT:
            return 'light'
""",
    "sequences": """\
def sequences(value):
    match value:
        case []:
            return 0
        case [only]:
            return only
        case (left, right):
            return left + right
        case [_, _, _]:
            return 3
        case [head, *tail]:
            return head, tail
""",
    "star_patterns": """\
def star_patterns(value):
    match value:
        case [first, *middle, last]:
            return first, middle, last
        case [first, *_, last]:
            return first, last
        case [*_]:
            return None
""",
    "mappings": """\
def mappings(value):
    match value:
        case {'name': name, 'size': 2}:
            return name
        case {Key.ID: ident, **extra}:
            return ident, extra
        case {**everything}:
            return everything
""",
    "classes": """\
def classes(value):
    match value:
        case Vector(0, 0):
            return 'origin'
        case Vector(x=0, y=height):
            return height
        case Vector(across, y=down):
            return across, down
        case shapes.Circle():
            return 'circle'
        case int(number):
            return number
""",
    "or_patterns": """\
def or_patterns(value):
    match value:
        case 0 | 1 | 2:
            return 'small'
        case str() | bytes():
            return 'text'
        case [1, _] | (2, _):
            return 'pair'
""",
    "as_patterns": """\
def as_patterns(value):
    match value:
        case [1, 2] as pair:
            return pair
        case (3 | 4) as digit:
            return digit
        case Vector(x=0) as on_axis:
            return on_axis
""",
    "guards": """\
def guards(value):
    match value:
        case int(number) if number > 0:
            print('positive')
        case [left, right] if left < right and right:
            print('rising')
        case str(text) if not text or text.isdigit():
            print('digits')
        case whole if whole:
            print('truthy')
    print('done')
""",
    "default_with_guard": """\
def default_with_guard(value, flag):
    match value:
        case 1:
            print('one')
        case 2:
            print('two')
        case _ if flag:
            print('flagged')
""",
    "nested": """\
def nested(value):
    match value:
        case [Vector(x=across), {'z': [depth, *_]}]:
            return across, depth
        case {'inner': {'deeper': [None, True]}}:
            return 'deep'
""",
    "only_case": """\
def only_case(value):
    match value:
        case Vector(across, down):
            print(across, down)
""",
    "in_loop": """\
def in_loop(values):
    total = 0
    for value in values:
        match value:
            case 0:
                continue
            case [x, y]:
                total += x
            case _:
                total -= 1
        print(total)
    return total
""",
    "nested_match": """\
def nested_match(first, second):
    match first:
        case 1:
            match second:
                case [2]:
                    return 3
                case _:
                    return 4
        case 2:
            return 6
        case _:
            return 5
""",
    "copied_failure_exit": """\
def copied_failure_exit(value):
    match value:
        case (1, Token(text='import') | Token(text='from')):
            return True
        case _:
            return False
""",
    "or_captures": """\
def or_captures(value):
    match value:
        case [item] | (item, 0):
            return item
        case {'k': first, 'j': second} | Pair(x=second, y=first):
            return first, second
""",
    # the or-pattern's alternatives meet at the subject's POP_TOP, which the raising default
    # case leaves the only follow: the case's body starts inside that block
    "or_pattern_body_holds_a_loop": """\
def or_pattern_body_holds_a_loop(kind, names, table):
    match kind:
        case 1 | 2:
            found = {}
            for name in names:
                try:
                    found[name] = table[name]
                except KeyError:
                    pass
            return found
        case _:
            raise ValueError(kind)
""",
    "or_pattern_body_ends_in_a_loop": """\
def or_pattern_body_ends_in_a_loop(kind, names):
    match kind:
        case 'a' | 'b':
            for name in names:
                print(name)
        case _:
            raise ValueError(kind)
""",
    # 3.12+: the last case's test in a loop jumps to its body, past the jump back that fails
    "last_case_in_a_loop_jumps_to_its_body": """\
def last_case_in_a_loop_jumps_to_its_body(xs, K, h):
    for x in xs:
        match x:
            case K.B:
                pass
            case K.C:
                h(3)
""",
    # a case body that starts with a store and ends in a test is no guard (nothing of it is
    # written before the match)
    "case_body_ending_in_an_assert": """\
def case_body_ending_in_an_assert(x, K):
    match x.kind:
        case K.A:
            found = True
        case K.C:
            v = x.v
            assert v
""",
    "both_in_a_loop": """\
def both_in_a_loop(xs, K):
    found = False
    sel = 8
    for x in xs:
        match x.kind:
            case K.A:
                found = True
            case K.B:
                pass
            case K.C:
                v = x.v
                assert v is not None
                sel = min(sel, v)
                found = True
    return sel if found else 1
""",
}

XFAIL = {
    "leaves_loop": (
        {(3, 10)},
        "3.10: a break whose loop exit (a return) the compiler copied to it is written as that return "
        "inside the loop (as for an if's break)",
    ),
}

SNIPPETS_XFAIL = {
    "leaves_loop": """\
def leaves_loop(values):
    for value in values:
        match value:
            case 0:
                continue
            case {'stop': True}:
                break
            case _:
                print(value)
    return values
""",
}


@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_match_round_trip(name):
    result = round_trip(SNIPPETS[name], name)
    assert result.source is not None and "match " in result.source


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            marks=pytest.mark.xfail(
                sys.version_info[:2] in XFAIL[name][0], reason=XFAIL[name][1], strict=True
            ),
        )
        for name in sorted(SNIPPETS_XFAIL)
    ],
)
def test_match_not_yet(name):
    result = round_trip(SNIPPETS_XFAIL[name], name)
    assert "match " in (result.source or "")
