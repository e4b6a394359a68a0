"""The edit engine: streaming parser, tolerant locator, all-or-nothing applier, live diff model."""
