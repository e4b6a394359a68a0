"""steer: a real-time pair programmer for the terminal."""

__version__ = "0.1.0"
