"""Print a graph as it was at a structured-trace event, later: when the dump is written.

PyTorch reports a captured graph (``dynamo_output_graph``, ``aot_inference_graph``) with a
payload that prints the live GraphModule (``lambda: gm.print_readable(...)``; see
:func:`._torch_private_trace.printed_graph_modules`). Printing is FX code generation, a large share
of what the dump costs while ``torch.compile`` runs; yet the module cannot simply be printed
at exit, because the backend may change it in place after the event (Inductor's pre-grad
passes do). :func:`deferred_payload` therefore copies, at the event, what the printout is
made of (:class:`GraphSnapshot`: each node's kind, name, target, arguments, type and a copy
of its metadata dict, the attributes the graph reads, the child modules, recursively), which
costs a few percent of printing; when the dump is written it rebuilds a GraphModule from the
copy and runs PyTorch's own payload function on it, which gives the text of the event.
The copy keeps the graph's nodes (and what their metadata refers to, such as fake tensors)
alive until the dump is written.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _torch_private_trace

#: One node: (the node, op, name, target, args, kwargs, type, a copy of its meta).
_Node = Tuple[Any, str, str, Any, Any, Any, Any, Dict[str, Any]]


@dataclass
class GraphSnapshot:
    """What printing a GraphModule reads, copied (shallowly) when it was taken."""

    class_name: str
    codegen: Any
    nodes: List[_Node]
    #: Targets of ``get_attr``/``call_module`` nodes -> what they named.
    attributes: Dict[str, Any]
    #: The module's children in order: a snapshot for each child GraphModule.
    children: List[Tuple[str, Any]]

    @classmethod
    def take(cls, module: Any) -> "GraphSnapshot":
        """The snapshot of GraphModule *module* now."""
        from torch.fx import GraphModule

        nodes = [
            (node, node.op, node.name, node.target, node.args, node.kwargs, node.type, dict(node.meta))
            for node in module.graph.nodes
        ]
        attributes: Dict[str, Any] = {}
        for _, op, _, target, _, _, _, _ in nodes:
            if op in ("get_attr", "call_module") and isinstance(target, str):
                value = module
                for part in target.split("."):
                    value = getattr(value, part)
                attributes[target] = value
        children = [
            (name, cls.take(child) if isinstance(child, GraphModule) else child)
            for name, child in module.named_children()
        ]
        return cls(
            module._get_name(), _torch_private_trace.graph_codegen(module.graph), nodes, attributes, children
        )

    def rebuild(self) -> Any:
        """A new GraphModule that prints as the module did when the snapshot was taken."""
        from torch.fx import Graph, GraphModule, map_arg

        graph = Graph()
        graph.set_codegen(self.codegen)
        new_nodes: Dict[Any, Any] = {}
        for node, op, name, target, args, kwargs, type_expr, meta in self.nodes:
            new = graph.create_node(
                op,
                target,
                map_arg(args, new_nodes.__getitem__),
                map_arg(kwargs, new_nodes.__getitem__),
                name,
                type_expr,
            )
            new.meta = meta
            new_nodes[node] = new
        children = {
            name: child.rebuild() if isinstance(child, GraphSnapshot) else child
            for name, child in self.children
        }
        root = {target: children.get(target, value) for target, value in self.attributes.items()}
        module = GraphModule(root, graph, self.class_name)
        for name, child in children.items():  # every child, in the original order (they print in it)
            module._modules.pop(name, None)
            module._modules[name] = child
        return module


def deferred_payload(payload_fn: Callable[[], Any]) -> Optional[Callable[[], Any]]:
    """For a payload that prints graph modules: a function that builds, later, the text the
    payload would give now (see the module docstring). None for any other payload, and when
    the graph cannot be copied (the caller builds the payload at once then)."""
    found = _torch_private_trace.printed_graph_modules(payload_fn)
    if found is None:
        return None
    function, values = found
    from torch.fx import GraphModule

    try:
        snapshots = [
            GraphSnapshot.take(value) if isinstance(value, GraphModule) else None for value in values
        ]
    except Exception:  # noqa: BLE001 - an unusual module: printed now, as PyTorch would
        return None

    def build() -> Any:
        cells = tuple(
            types.CellType(snapshot.rebuild()) if snapshot is not None else cell
            for snapshot, cell in zip(snapshots, function.__closure__)
        )
        again = types.FunctionType(
            function.__code__, function.__globals__, function.__name__, function.__defaults__, cells
        )
        return again()

    return build
