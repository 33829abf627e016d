"""A small inventory module: the bundled example that `make demo` decompiles."""

from dataclasses import dataclass, field
from typing import Dict, Iterator, List


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0
    tags: List[str] = field(default_factory=list)

    @property
    def value(self) -> float:
        return self.price * self.quantity


class Inventory:
    def __init__(self) -> None:
        self.items: Dict[str, Item] = {}

    def add(self, item: Item) -> None:
        if item.name in self.items:
            self.items[item.name].quantity += item.quantity
        else:
            self.items[item.name] = item

    def remove(self, name: str, quantity: int = 1) -> bool:
        try:
            item = self.items[name]
        except KeyError:
            return False
        if item.quantity < quantity:
            raise ValueError(f"only {item.quantity} of {name!r} left")
        item.quantity -= quantity
        return True

    def tagged(self, tag: str) -> Iterator[Item]:
        for item in self.items.values():
            if tag in item.tags:
                yield item

    def total(self) -> float:
        return sum(item.value for item in self.items.values())

    def report(self) -> str:
        lines = [f"{item.name:<10} {item.quantity:>4} x {item.price:8.2f}" for item in self.items.values()]
        cheap = sorted(name for name, item in self.items.items() if item.price < 1.0)
        lines.append("total: %.2f; cheap: %s" % (self.total(), ", ".join(cheap) or "none"))
        return "\n".join(lines)


def restock(inventory: Inventory, wanted: Dict[str, int]) -> List[str]:
    ordered = []
    for name, target in wanted.items():
        item = inventory.items.get(name)
        have = item.quantity if item is not None else 0
        while have < target:
            have += 10
            ordered.append(name)
    return ordered
