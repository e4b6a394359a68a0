"""A tiny inventory module to try steer on."""

from dataclasses import dataclass, field


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0


@dataclass
class Inventory:
    items: dict[str, Item] = field(default_factory=dict)

    def add(self, name, price, quantity=1):
        if name in self.items:
            self.items[name].quantity += quantity
        else:
            self.items[name] = Item(name, price, quantity)

    def remove(self, name, quantity=1):
        item = self.items[name]
        item.quantity -= quantity
        if item.quantity <= 0:
            del self.items[name]

    def total_value(self):
        total = 0
        for item in self.items.values():
            total = total + item.price * item.quantity
        return total

    def cheapest(self):
        return min(self.items.values(), key=lambda item: item.price)


def parse_line(line):
    name, price, quantity = line.split(",")
    return name.strip(), float(price), int(quantity)


def load(lines):
    inventory = Inventory()
    for line in lines:
        inventory.add(*parse_line(line))
    return inventory
