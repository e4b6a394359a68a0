interface Shape {
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
