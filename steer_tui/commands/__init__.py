"""Sub-commands of the `steer` CLI, one module each (add_arguments + run)."""
