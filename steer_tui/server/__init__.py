"""The `steer serve` gateway and its engines."""
