"""A read-only, monospaced, highlighted text view for generated code (mongosh, JSON)."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QPlainTextEdit

from modeller.ui.widgets.highlighter import CodeHighlighter, Language


def code_view(language: Language) -> QPlainTextEdit:
    """The view the preview's tabs show code in; it keeps its highlighter alive as an attribute."""
    view = QPlainTextEdit()
    view.setReadOnly(True)
    view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setStyleHint(QFont.StyleHint.Monospace)
    view.setFont(font)
    view.highlighter = CodeHighlighter(view.document(), language)  # type: ignore[attr-defined]
    return view
