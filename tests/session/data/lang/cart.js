// A shopping cart.
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
