"""Screens of the steer app."""
