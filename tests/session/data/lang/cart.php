<?php

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
