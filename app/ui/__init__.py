"""The Textual app: a thin layer over app.session."""
