"""Interpreter settings every layer shares (the collector's counted pause): below the model, importing none of it."""
