"""Modeller: a desktop MongoDB schema modeller with live, explained design advice."""

__version__ = "0.1.0"
