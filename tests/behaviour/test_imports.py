"""Behaviour: import, from-import with aliases, relative and star imports (module level).

PYTEST_DONT_REWRITE: pytest must not rewrite the asserts of these cases (their bytecode is the input).
"""

from __future__ import annotations

import pytest

from uncompile.verification.behaviour import Cases

cases = Cases()


@cases(
    (4,),
)
def imports_in_a_function(n):
    import collections.abc as abc
    import os.path
    import xml.etree.ElementTree as ET
    from json import (
        dumps,
    )
    from math import floor as round_down
    from math import sqrt

    tag = ET.Element("e").tag
    return os.path.basename("a/b"), round_down(sqrt(n)), dumps([n]), isinstance([], abc.Sequence), tag


@pytest.mark.parametrize("name,function,calls", cases.items, ids=cases.ids())
def test_import(name, function, calls, behaves_the_same):
    behaves_the_same(function, calls)


MODULE = """
from __future__ import annotations
import os
import os.path as osp
import xml.etree.ElementTree
import xml.dom.minidom as minidom
from collections import OrderedDict as OD, deque
from string import *

try:
    import not_a_real_module_name
except ImportError:
    not_a_real_module_name = None

__all__ = ["joined"]
joined = osp.join("a", "b")
queue = deque([1])
ordered = OD(a=1)
letters = ascii_lowercase[:3]
tree = xml.etree.ElementTree.Element("x").tag
document = minidom.Document().nodeName
"""


def test_module_level_imports(module_behaves_the_same):
    module_behaves_the_same(MODULE)
