"""Command line entry points (no Qt here: the GUI is imported lazily by name)."""
