"""The bundled example for the main job: a small model trained for a few steps under torch.compile.

It has what makes torch.compile worth looking at: a module with a Python loop over layers,
a data-dependent branch (a graph break, so Dynamo writes a resume function), and a
backward pass (AOTAutograd's forward and backward graphs).
"""

from __future__ import annotations

import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self, width: int = 16, depth: int = 3) -> None:
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


def train_step(model: nn.Module, optimizer: torch.optim.Optimizer, x: torch.Tensor) -> torch.Tensor:
    out = model(x)
    if out.sum() > 0:  # data-dependent: Dynamo breaks the graph here
        loss = (out**2).mean()
    else:
        loss = out.abs().mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.detach()


def run(steps: int = 3) -> list:
    torch.manual_seed(0)
    model = Stack()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    step = torch.compile(train_step, backend="aot_eager")
    return [float(step(model, optimizer, torch.randn(8, 16))) for _ in range(steps)]
