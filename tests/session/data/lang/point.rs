use std::fmt;

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
