"""Subcommands of the ``bgnet`` command line, each with ``register(subparsers)``."""
