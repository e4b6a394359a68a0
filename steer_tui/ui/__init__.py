"""The Textual app: a thin layer over steer_tui.session."""
