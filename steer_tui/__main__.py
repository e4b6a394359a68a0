"""Lets `python -m steer_tui` behave like the `steer` command."""

from steer_tui.cli import main

raise SystemExit(main())
