"""Turn a cache entry's guards into a Python function that really evaluates them.

Each leaf guard of Dynamo's guard tree comes with "verbose code parts": expressions over
``L`` (locals) and ``G`` (globals), followed by ``# user source`` comments. A part that
parses as a Python expression and uses only names that :mod:`.guard_runtime` provides becomes
an ``if not (...): return False`` line; any other part (for example
``... top_saved_tensors_hooks ids == None``, which is not Python) becomes a comment, and the
function's docstring and its ``unchecked_guards`` attribute say that it cannot check it.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from .guard_runtime import PROVIDED_NAMES

_ALLOWED_NAMES = frozenset({"L", "G"}) | PROVIDED_NAMES | frozenset(dir(builtins))
_GLOBAL_STATE = "___check_global_state()"
_NO_SAVED_TENSORS_HOOKS = "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None"
_MODE_STACK = "___check_torch_function_mode_stack()"


@dataclass
class GuardCheck:
    """One guard expression and whether the dumped guard function evaluates it."""

    kind: str
    source: str
    text: str
    comment: str
    expression: Optional[str]
    why_unchecked: Optional[str] = None

    @property
    def checkable(self) -> bool:
        """True when the guard function evaluates this guard."""
        return self.expression is not None

    def as_dict(self) -> Dict[str, Any]:
        """JSON form for the index."""
        return {
            "kind": self.kind,
            "source": self.source,
            "text": self.text,
            "checked": self.checkable,
            "why_unchecked": self.why_unchecked,
        }


class _DispatchKeysAsStrings(ast.NodeTransformer):
    """``check_tensor(v, Tensor, DispatchKeySet(CPU, ...), ...)`` -> names become strings."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name == "DispatchKeySet":
            node.args = [ast.Constant(arg.id) if isinstance(arg, ast.Name) else arg for arg in node.args]
        elif name == "check_tensor" and len(node.args) > 1 and isinstance(node.args[1], ast.Name):
            node.args[1] = ast.Constant(node.args[1].id)
        return node


def _parsed(text: str) -> Optional[ast.Expression]:
    try:
        return ast.parse(text, mode="eval")
    except SyntaxError:
        return None


def _split_comment(part: str) -> Tuple[str, str, Optional[ast.Expression]]:
    """The expression, the trailing note of a verbose code part and the expression parsed
    (None when it is no Python expression).

    Notes are ``# ...`` comments and, for ID/TYPE guards, a ``, type=<class ...>`` suffix.
    """
    for marker in ("#", ", type="):
        position = part.find(marker)
        while position != -1:
            head = part[:position].rstrip()
            tree = _parsed(head)
            if tree is not None:
                return head, part[position:].strip(" #,"), tree
            position = part.find(marker, position + 1)
    text = part.strip()
    return text, "", _parsed(text)


def _global_state_expression(text: str) -> Optional[str]:
    if not text.startswith(_GLOBAL_STATE + " against "):
        return None
    state = text[len(_GLOBAL_STATE + " against ") :].split("  #")[0].strip()
    return "___check_global_state(%r)" % state


def _special_expression(kind: str, part: str, mode_types: Optional[List[str]]) -> Optional[str]:
    """Python for the guards Dynamo prints in a form that is not Python (or needs data)."""
    text = part.split("  #")[0].strip()
    if kind == "GLOBAL_STATE":
        return _global_state_expression(part)
    if text == _NO_SAVED_TENSORS_HOOKS:
        return "___saved_tensors_hooks_are_none()"
    if text == _MODE_STACK and mode_types is not None:
        return "___check_torch_function_mode_stack(%r)" % (tuple(mode_types),)
    return None


def to_check(kind: str, source: str, part: str, mode_types: Optional[List[str]] = None) -> GuardCheck:
    """Classify one verbose code part of a leaf guard.

    *mode_types*: for a TORCH_FUNCTION_MODE_STACK guard, the mode types it expects.
    """
    special = _special_expression(kind, part, mode_types)
    if special is not None:
        return GuardCheck(kind, source, part.split("  #")[0].strip(), "", special)
    if part.strip() == _MODE_STACK:
        return GuardCheck(kind, source, _MODE_STACK, "", None, "the expected mode types were not available")
    text, comment, tree = _split_comment(part)
    if tree is None:
        return GuardCheck(kind, source, text, comment, None, "not a Python expression")
    unknown = sorted(
        {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id not in _ALLOWED_NAMES}
    )
    if kind == "TENSOR_MATCH":
        known = _dispatch_and_type_names(tree)
        tree = ast.fix_missing_locations(_DispatchKeysAsStrings().visit(tree))
        unknown = [name for name in unknown if name not in known]
    if unknown:
        reason = "uses %s, which only exists inside Dynamo's guard" % ", ".join(unknown)
        return GuardCheck(kind, source, text, comment, None, reason)
    return GuardCheck(kind, source, text, comment, ast.unparse(tree))


def _dispatch_and_type_names(tree: ast.Expression) -> List[str]:
    names: List[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id == "DispatchKeySet":
                names.extend(arg.id for arg in node.args if isinstance(arg, ast.Name))
            elif node.func.id == "check_tensor" and len(node.args) > 1 and isinstance(node.args[1], ast.Name):
                names.append(node.args[1].id)
    return names


def checks_from_tree(leaves: List[Dict[str, Any]]) -> List[GuardCheck]:
    """Every leaf guard (from :func:`._torch_private.guard_tree`) as a :class:`GuardCheck`."""
    checks: List[GuardCheck] = []
    for leaf in leaves:
        for part in leaf["parts"]:
            checks.append(to_check(str(leaf["kind"]), str(leaf["source"]), str(part), leaf.get("mode_types")))
    return checks


def _comment_lines(text: str, indent: str) -> List[str]:
    return [indent + "#   " + line for line in text.splitlines()] or [indent + "#"]


def render_guard_function(name: str, checks: List[GuardCheck], title: str, known: bool = True) -> str:
    """Source of ``def name(L, G, **___kwargs_ignored)`` evaluating *checks*.

    With *known* False (guards only available as text), the function says it checks nothing.
    """
    unchecked = [check for check in checks if not check.checkable]
    lines = ["def %s(L, G, **___kwargs_ignored):" % name]
    doc = [
        '    """%s' % title,
        "",
        "    Returns True when every guard below that has a Python form passes: L maps the",
        "    frame's local names to values, G is the function's globals (module dict).",
    ]
    if not known:
        doc.append("    Dynamo's guard tree was not available: this function cannot check any guard.")
    elif unchecked:
        doc.append(
            "    It cannot check %d guard(s) that have no Python form (shown as comments); its"
            % len(unchecked)
        )
        doc.append("    answer ignores them. They are listed in %s.unchecked_guards." % name)
    else:
        doc.append("    Every guard of this cache entry is checked.")
    lines.extend(doc + ['    """'])
    for check in checks:
        where = "  # %s" % check.comment if check.comment else ""
        if check.checkable:
            lines.append("    # %s on %s%s" % (check.kind, check.source, where))
            lines.append("    if not (%s):" % check.expression)
            lines.append("        return False")
        else:
            lines.append(
                "    # %s on %s: CANNOT CHECK (%s):" % (check.kind, check.source, check.why_unchecked)
            )
            lines.extend(_comment_lines(check.text, "    "))
    lines.append("    return True")
    lines.append("")
    lines.append(
        "%s.unchecked_guards = %r" % (name, tuple("%s: %s" % (check.kind, check.text) for check in unchecked))
    )
    return "\n".join(lines) + "\n"
