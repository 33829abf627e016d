"""Small ``torch.compile`` workloads whose transformed bytecode the decompiler must handle.

Each workload is a function ``run(compile) -> outputs``: *compile* is
``functools.partial(torch.compile, backend=...)``-like; the workload builds its model and
inputs deterministically (fixed seeds), compiles what it wants, calls it and returns the
outputs (tensors, numbers, tuples of them). Running a workload twice gives bit-identical
outputs, so a run whose Dynamo code was replaced by recompiled code can be compared with
a run that used Dynamo's own code.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import torch
from torch import nn

Compile = Callable[..., Any]


def _inputs(*shape: int, seed: int = 0) -> torch.Tensor:
    generator = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=generator)


# -- graph breaks -------------------------------------------------------------------------


def data_dependent_branch(x: torch.Tensor) -> torch.Tensor:
    y = x.sin()
    if y.sum() > 0:
        z = y * 2
    else:
        z = y - 1
    return z.cos() + y


def print_break(x: torch.Tensor, scale: float) -> torch.Tensor:
    a = x * scale
    print("uncompile-workload", end="\r")
    b = a.relu() + x
    return b * a


def item_break(x: torch.Tensor) -> Tuple[torch.Tensor, float]:
    total = x.sum()
    value = total.item()
    shifted = x - value
    return shifted.exp(), value


def locals_survive(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    first = x @ w
    second = first.tanh()
    names = ["p", "q"]
    torch._dynamo.graph_break()
    third = second + first
    return third * len(names)


def break_inside_with(x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        y = x * 2
        print("uncompile-workload", end="\r")
        z = y + 1
    return z * x


def _breaking_helper(t: torch.Tensor) -> torch.Tensor:
    u = t.cos()
    torch._dynamo.graph_break()
    return u + 1


def nested_break(x: torch.Tensor) -> torch.Tensor:
    a = x.sin()
    b = _breaking_helper(a)
    return a * b


def run_graph_breaks(compile: Compile) -> List[Any]:
    x = _inputs(4, 4)
    outputs: List[Any] = []
    outputs.append(compile(data_dependent_branch)(x))
    outputs.append(compile(data_dependent_branch)(-x.abs()))
    outputs.append(compile(print_break)(x, 0.5))
    outputs.append(compile(item_break)(x))
    outputs.append(compile(locals_survive)(x, _inputs(4, 4, seed=1)))
    outputs.append(compile(break_inside_with)(x))
    outputs.append(compile(nested_break)(x))
    return outputs


# -- modules ------------------------------------------------------------------------------


class Stack(nn.Module):
    def __init__(self, width: int, depth: int) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.norm = nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i % 2 == 0:
                x = torch.relu(x)
        return self.norm(x)


class Base(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x).sigmoid()


class Derived(Base):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        base = super().forward(x)
        return base * x + super().forward(base)


def run_modules(compile: Compile) -> List[Any]:
    torch.manual_seed(0)
    stack = Stack(4, 3)
    derived = Derived()
    x = _inputs(2, 4)
    return [compile(stack)(x), compile(derived)(x)]


def run_training_step(compile: Compile) -> List[Any]:
    torch.manual_seed(0)
    model = Stack(4, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, target = _inputs(3, 4), _inputs(3, 4, seed=2)

    def step(x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(x), target)
        loss.backward()
        optimizer.step()
        return loss.detach()

    compiled = compile(step)
    losses = [compiled(x, target) for _ in range(2)]
    return losses + [p.detach().clone() for p in model.parameters()]


# -- closures, arguments, dynamic shapes --------------------------------------------------


def make_counter() -> Callable[[torch.Tensor], torch.Tensor]:
    count = 0
    offset = torch.ones(1)

    def bump(x: torch.Tensor) -> torch.Tensor:
        nonlocal count
        count += 1
        return x * count + offset

    return bump


def closure_user(x: torch.Tensor) -> torch.Tensor:
    factor = x.mean()

    def inner(y: torch.Tensor) -> torch.Tensor:
        return y * factor

    return inner(x) + inner(x.t())


def varargs(*tensors: torch.Tensor, scale: float = 1.0, **extra: torch.Tensor) -> torch.Tensor:
    total: torch.Tensor = sum(tensors) * scale  # type: ignore[assignment]
    for name in sorted(extra):
        total = total + extra[name]
    return total


def dynamic(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    return x.reshape(n, -1).sum(dim=1) / n


def run_closures_and_args(compile: Compile) -> List[Any]:
    x = _inputs(3, 3)
    counter = compile(make_counter())
    outputs: List[Any] = [counter(x), counter(x)]
    outputs.append(compile(closure_user)(x))
    fn = compile(varargs)
    outputs.append(fn(x, x * 2, scale=0.5, b=x, a=x + 1))
    dyn = compile(dynamic, dynamic=True)
    for n in (2, 3, 5):
        outputs.append(dyn(_inputs(n, 4, seed=n)))
    return outputs


def run_recompiles(compile: Compile) -> List[Any]:
    fn = compile(data_dependent_branch)
    return [fn(_inputs(2, 3)), fn(_inputs(2, 3).double()), fn(_inputs(5, 2))]


# -- values kept on the stack and side effects across a graph break ----------------------


class Holder:
    def __init__(self) -> None:
        self.count = 0
        self.items: List[int] = []


def side_effects(x: torch.Tensor, holder: Holder, log: List[torch.Tensor]) -> torch.Tensor:
    y = x.cos()
    holder.count += 1
    log.append(y.sum())
    print("uncompile-workload", end="\r")
    holder.items.append(len(log))
    return y * holder.count


def break_mid_expression(x: torch.Tensor) -> torch.Tensor:
    return x.sin() * (print("uncompile-workload", end="\r") is None)


def containers_across_break(x: torch.Tensor) -> torch.Tensor:
    d = {"a": x.sin(), "b": (x.cos(), 2)}
    torch._dynamo.graph_break()
    return d["a"] + d["b"][0] * d["b"][1]


def many_live_values(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    a, b = x.sin(), x.cos()
    c = a + b
    torch._dynamo.graph_break()
    return a, b, c


def branch_with_two_live_values(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = x @ w
    if y.sum() > 0:
        z = y * w
    else:
        z = y - w
    return z.relu()


def cond_branches(x: torch.Tensor) -> torch.Tensor:
    # the transformed code unpacks the graph's one output and keeps it on the stack
    return torch.cond(x.sum() > 0, lambda t: t.sin(), lambda t: t.cos(), (x,))


def run_stack_values(compile: Compile) -> List[Any]:
    x = _inputs(3, 3)
    holder: Holder = Holder()
    log: List[torch.Tensor] = []
    outputs: List[Any] = [compile(side_effects)(x, holder, log), holder.count, list(holder.items), list(log)]
    outputs.append(compile(break_mid_expression)(x))
    outputs.append(compile(containers_across_break)(x))
    outputs.append(compile(many_live_values)(x))
    branch = compile(branch_with_two_live_values)
    outputs += [branch(x, x.abs()), branch(x, -x.abs())]  # both ways of the branch
    cond = compile(cond_branches)
    outputs += [cond(x.abs()), cond(-x.abs())]
    return outputs


WORKLOADS: Dict[str, Callable[[Compile], List[Any]]] = {
    "graph_breaks": run_graph_breaks,
    "modules": run_modules,
    "training_step": run_training_step,
    "closures_and_args": run_closures_and_args,
    "recompiles": run_recompiles,
    "stack_values": run_stack_values,
}
