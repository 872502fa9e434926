"""Syntax highlighting for the generated mongosh scripts and JSON documents.

A small regex highlighter is enough: the text is ours (generated), so it only
has to make keys, strings, numbers, keywords and comments easy to tell apart,
in the light and the dark palette alike.
"""

from __future__ import annotations

import re
from typing import Literal

from PySide6.QtGui import QColor, QFont, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument
from PySide6.QtWidgets import QApplication

Language = Literal["js", "json"]

_JS_KEYWORDS = (
    "const|let|var|function|return|if|else|for|of|in|new|true|false|null|undefined|try|catch|throw|"
    "typeof|instanceof|await|async|use|strict"
)
_RULES: dict[str, list[tuple[str, str]]] = {
    "js": [
        (r"\b(?:" + _JS_KEYWORDS + r")\b", "keyword"),
        (r"\b(?:db|target|sh|ObjectId|ISODate|NumberLong|NumberDecimal|NumberInt|UUID|BinData|print)\b", "builtin"),
        (r"\b-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b", "number"),
        (r'"(?:[^"\\\n]|\\.)*"' + r"|'(?:[^'\\\n]|\\.)*'", "string"),
        (r"//[^\n]*", "comment"),
    ],
    "json": [
        (r"\b(?:true|false|null)\b", "keyword"),
        (r"-?\b\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\b", "number"),
        (r'"(?:[^"\\\n]|\\.)*"', "string"),
        (r'"(?:[^"\\\n]|\\.)*"(?=\s*:)', "key"),
    ],
}


def _palette_is_dark() -> bool:
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        return False
    return app.palette().color(QPalette.ColorRole.Base).lightness() < 128


def _formats(dark: bool) -> dict[str, QTextCharFormat]:
    colors = (
        {
            "keyword": "#c792ea",
            "builtin": "#82aaff",
            "number": "#f78c6c",
            "string": "#c3e88d",
            "comment": "#8a94a6",
            "key": "#89ddff",
        }
        if dark
        else {
            "keyword": "#7a1fa2",
            "builtin": "#1f5fbf",
            "number": "#b35900",
            "string": "#237a2e",
            "comment": "#6f7782",
            "key": "#0b4f8a",
        }
    )
    out: dict[str, QTextCharFormat] = {}
    for name, value in colors.items():
        fmt = QTextCharFormat()
        fmt.setForeground(QColor(value))
        if name in ("keyword", "key"):
            fmt.setFontWeight(QFont.Weight.DemiBold)
        if name == "comment":
            fmt.setFontItalic(True)
        out[name] = fmt
    return out


class CodeHighlighter(QSyntaxHighlighter):
    """Highlights JavaScript (mongosh) or JSON; block comments span lines in JS."""

    IN_COMMENT = 1

    def __init__(self, document: QTextDocument, language: Language) -> None:
        super().__init__(document)
        self.language = language
        self._rules = [(re.compile(pattern), kind) for pattern, kind in _RULES[language]]
        self._formats = _formats(_palette_is_dark())

    def refresh_palette(self) -> None:
        """Take the current palette's colours (the formats are computed once, not per block)."""
        self._formats = _formats(_palette_is_dark())
        self.rehighlight()

    def highlightBlock(self, text: str) -> None:
        for pattern, kind in self._rules:
            fmt = self._formats[kind]
            for match in pattern.finditer(text):
                self.setFormat(match.start(), match.end() - match.start(), fmt)
        if self.language == "js":
            self._block_comments(text)

    def _block_comments(self, text: str) -> None:
        self.setCurrentBlockState(0)
        comment = self._formats["comment"]
        start = 0 if self.previousBlockState() == self.IN_COMMENT else text.find("/*")
        while start >= 0:
            end = text.find("*/", start + (0 if self.previousBlockState() == self.IN_COMMENT and start == 0 else 2))
            if end < 0:
                self.setCurrentBlockState(self.IN_COMMENT)
                self.setFormat(start, len(text) - start, comment)
                return
            self.setFormat(start, end + 2 - start, comment)
            start = text.find("/*", end + 2)
