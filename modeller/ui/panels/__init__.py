"""Docked panels: palette, properties, queries."""
