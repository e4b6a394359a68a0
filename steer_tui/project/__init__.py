"""The project around the open file: its root, its files, finding them, and what they define."""
