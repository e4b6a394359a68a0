"""Widgets of the steer app."""
