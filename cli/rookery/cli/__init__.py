"""The `rookery` command line: one entry point, one module per command group."""
