"""The desktop app: the only package that imports PySide6.

Flow (STYLE.md): user action -> ``QUndoCommand`` (``commands/``) ->
``ProjectDocument`` (``document.py``, sole mutator of the model) -> document
signals -> canvas and panels redraw.
"""
