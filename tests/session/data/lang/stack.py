import math


@cache
def area(r):
    """Area of a circle."""
    return math.pi * r * r


class Stack:
    def push(self, x):
        self.items.append(x)

    def pop(self):
        return self.items.pop()
