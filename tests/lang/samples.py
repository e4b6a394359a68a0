"""A small real file a language, with what the layer must find in it and edits that break it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sample:
    path: str  # the name the language is told by
    text: str
    defs: tuple[tuple[str, str], ...]  # (qualified name, kind) that must be among the definitions
    at: tuple[int, str]  # (0-based line, qualified name of the innermost definition there)
    breaks: tuple[str, str]  # replace this with that: a syntax error
    good: tuple[str, str]  # replace this with that: still parses (elsewhere than `breaks`)


SAMPLES = [
    Sample("stack.py", '''import math


@cache
def area(r):
    """Area of a circle."""
    return math.pi * r * r


class Stack:
    def push(self, x):
        self.items.append(x)

    def pop(self):
        return self.items.pop()
''', (("area", "function"), ("Stack", "class"), ("Stack.push", "method")), (11, "Stack.push"),
        ("def pop(self):", "def pop(self)"), ("r * r", "r ** 2")),
    Sample("cart.js", '''// A shopping cart.
export class Cart {
  constructor() {
    this.items = [];
  }

  /** The sum of the prices. */
  total() {
    return this.items.reduce((sum, item) => sum + item.price, 0);
  }
}

export function label(cart) {
  return `${cart.items.length} items`;
}

const double = (x) => x * 2;
''', (("Cart", "class"), ("Cart.total", "method"), ("label", "function"), ("double", "function")), (8, "Cart.total"),
        ("return `${cart.items.length} items`;", "return `${cart.items.length} items;"),
        ("x * 2", "x * 3")),
    Sample("shapes.ts", '''interface Shape {
  area(): number;
}

export class Circle implements Shape {
  constructor(private r: number) {}

  area(): number {
    return Math.PI * this.r ** 2;
  }
}

enum Color { Red, Green }

export function describe(s: Shape): string {
  if (s.area() > 10) {
    return "big";
  }
  return "small";
}
''', (("Shape", "interface"), ("Circle", "class"), ("Circle.area", "method"), ("Color", "enum"),
      ("describe", "function")), (8, "Circle.area"),
        ('    return "big";\n  }\n', '    return "big";\n'), ('"small"', '"tiny"')),
    Sample("view.tsx", '''import React from "react";

type Props = { name: string };

export function Hello({ name }: Props) {
  return <div className="hello">Hello {name}</div>;
}

export const Bye = ({ name }: Props) => <span>Bye {name}</span>;
''', (("Props", "type"), ("Hello", "function"), ("Bye", "function")), (5, "Hello"),
        ('<div className="hello">Hello {name}</div>', '<div className="hello">Hello {name</div>'),
        ("Bye {name}", "Goodbye {name}")),
    Sample("queue.go", '''package queue

// Queue is a FIFO.
type Queue struct {
	items []int
}

// Push adds x at the back.
func (q *Queue) Push(x int) {
	q.items = append(q.items, x)
}

func Max(a, b int) int {
	if a > b {
		return a
	}
	return b
}
''', (("Queue", "type"), ("Push", "method"), ("Max", "function")), (9, "Push"),
        ("\t\treturn a\n\t}\n", "\t\treturn a\n"), ("return b", "return b + 0")),
    Sample("point.rs", '''use std::fmt;

/// A point on the plane.
#[derive(Debug, Clone)]
pub struct Point {
    x: f64,
    y: f64,
}

impl Point {
    pub fn norm(&self) -> f64 {
        (self.x * self.x + self.y * self.y).sqrt()
    }
}

trait Shape {
    fn area(&self) -> f64;
}

fn main() {
    let p = Point { x: 1.0, y: 2.0 };
    println!("{}", p.norm());
}
''', (("Point", "struct"), ("Point.norm", "method"), ("Shape", "trait"), ("main", "function")), (11, "Point.norm"),
        ('println!("{}", p.norm());', 'println!("{}, p.norm());'), ("x: 1.0", "x: 3.0")),
    Sample("Account.java", '''package bank;

/** A bank account. */
public class Account {
    private long balance;

    public Account(long opening) {
        this.balance = opening;
    }

    @Override
    public String toString() {
        return "Account(" + balance + ")";
    }

    interface Listener {
        void changed(long balance);
    }
}
''', (("Account", "class"), ("Account.Account", "constructor"), ("Account.toString", "method"),
      ("Account.Listener", "interface")), (12, "Account.toString"),
        ("this.balance = opening;", "this.balance = opening"), ('"Account("', '"Acct("')),
    Sample("list.c", '''#include <stdlib.h>

/* A singly linked list. */
struct node {
    int value;
    struct node *next;
};

static int length(const struct node *head) {
    int n = 0;
    while (head) {
        n++;
        head = head->next;
    }
    return n;
}
''', (("node", "struct"), ("length", "function")), (12, "length"),
        ("        head = head->next;\n    }\n", "        head = head->next;\n"), ("int n = 0;", "int n = 0, m = 0;")),
    Sample("vec.cpp", '''#include <vector>

namespace geo {

class Vec {
public:
    double dot(const Vec &o) const {
        return x * o.x + y * o.y;
    }
    double x, y;
};

template <typename T>
T twice(T a) {
    return a + a;
}

}  // namespace geo
''', (("geo", "namespace"), ("geo.Vec", "class"), ("geo.Vec.dot", "method"), ("geo.twice", "function")),
        (7, "geo.Vec.dot"), ("return a + a;", "return a + a"), ("x * o.x", "o.x * x")),
    Sample("Greeter.cs", '''using System;

namespace App
{
    /// <summary>Says hello.</summary>
    public class Greeter
    {
        public string Name { get; set; }

        public string Greet(string who)
        {
            return $"Hello {who}, I am {Name}";
        }
    }
}
''', (("App", "namespace"), ("App.Greeter", "class"), ("App.Greeter.Greet", "method")), (11, "App.Greeter.Greet"),
        ('return $"Hello {who}, I am {Name}";', 'return $"Hello {who}, I am {Name};'), ("Hello", "Hi")),
    Sample("stack.rb", '''# A stack of items.
module Collections
  class Stack
    def initialize
      @items = []
    end

    def push(x)
      @items.push(x)
      self
    end

    def empty?
      @items.empty?
    end
  end
end
''', (("Collections", "module"), ("Collections.Stack", "class"), ("Collections.Stack.push", "method")),
        (8, "Collections.Stack.push"), ("      self\n    end\n", "      self\n"), ("@items = []", "@items = Array.new")),
    Sample("cart.php", '''<?php

namespace Shop;

/** A cart. */
class Cart
{
    private array $items = [];

    public function add(string $name): void
    {
        $this->items[] = $name;
    }
}

function total(array $prices): float
{
    return array_sum($prices);
}
''', (("Cart", "class"), ("Cart.add", "method"), ("total", "function")), (11, "Cart.add"),
        ("$this->items[] = $name;", "$this->items[] = $name"), ("array_sum($prices)", "array_sum($prices) + 0")),
    Sample("deploy.sh", '''#!/usr/bin/env bash
set -euo pipefail

# Build the site.
build() {
    if [ -d dist ]; then
        rm -rf dist
    fi
    make all
}

deploy() {
    build
    rsync -a dist/ "$HOST:/srv"
}
''', (("build", "function"), ("deploy", "function")), (6, "build"),
        ("        rm -rf dist\n    fi\n", "        rm -rf dist\n"), ("make all", "make site")),
]


def by_suffix(suffix: str) -> Sample:
    return next(s for s in SAMPLES if s.path.endswith(suffix))
