"""Lets `python -m app` behave like the `steer` command."""

from app.cli import main

raise SystemExit(main())
