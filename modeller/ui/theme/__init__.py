"""Colours, stylesheet and icons; everything follows the system palette (light or dark)."""
