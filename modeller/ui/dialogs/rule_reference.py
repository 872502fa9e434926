"""Help → Rule reference: every rule of the engine with its documentation, searchable.

The text comes from the rules themselves (their docstrings, trade-off and
sources, sqlfluff style), so the reference can never drift from what the
engine does. A finding's "Read the rule's documentation…" link opens it here.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

import modeller.rules  # noqa: F401 - importing the engine registers every rule
from modeller.rules.framework.references import plain
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import SECTIONS, Rule
from modeller.ui.panels.finding_item import RULE_SCHEME, reference_html

RULE_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True, slots=True)
class RuleDoc:
    """What the reference shows of one rule."""

    id: str
    code: str
    family: str
    severities: tuple[str, ...]
    summary: str
    sections: tuple[tuple[str, str], ...]
    tradeoff: str
    reference: str
    text: str  # the whole docstring, for searching

    def matches(self, query: str) -> bool:
        """Every word of ``query`` occurs somewhere in the rule (case-insensitive)."""
        haystack = " ".join((self.id, self.code, self.family, self.text, self.tradeoff, self.reference)).lower()
        return all(word in haystack for word in query.lower().split())


def rule_doc(rule: type[Rule]) -> RuleDoc:
    return RuleDoc(
        id=rule.id,
        code=rule.code,
        family=rule.family,
        severities=tuple(rule.severities),
        summary=plain(rule.summary()),
        sections=tuple((name, plain(rule.section(name))) for name in SECTIONS if rule.section(name)),
        tradeoff=plain(rule.tradeoff),
        reference=rule.reference(),
        text=rule.doc(),
    )


def all_rule_docs(rules: Iterable[type[Rule]] | None = None) -> list[RuleDoc]:
    """The registered rules' documentation, in registry order."""
    return [rule_doc(rule) for rule in (REGISTRY if rules is None else rules)]


_CODE = re.compile(r"``(.+?)``|`([^`]+)`")


def _inline(text: str) -> str:
    """Escaped text with its reST ````code```` and Markdown `code` spans in a fixed-width font (no raw backticks)."""
    return _CODE.sub(lambda m: f"<code>{m.group(1) or m.group(2)}</code>", html.escape(text))


def _paragraphs(text: str) -> str:
    blocks = [b.strip() for b in text.split("\n\n") if b.strip()]
    out = []
    for block in blocks:
        lines = block.splitlines()
        if all(line.lstrip().startswith(("- ", "* ")) for line in lines):
            items = "".join(f"<li>{_inline(line.lstrip()[2:])}</li>" for line in lines)
            out.append(f"<ul>{items}</ul>")
        elif block.startswith(("    ", "```")):
            out.append(f"<pre>{html.escape(block.strip('`'))}</pre>")
        else:
            out.append(f"<p>{_inline(' '.join(line.strip() for line in lines))}</p>")
    return "".join(out)


def rule_html(doc: RuleDoc) -> str:
    """The documentation page of one rule (escaped; source links clickable)."""
    esc = html.escape
    parts = [
        f"<h2>{_inline(doc.summary or doc.id)}</h2>",
        f"<p style='color:gray'><code>{esc(doc.id)}</code> · {esc(doc.code)} · family {esc(doc.family)}"
        f" · severity {esc(' / '.join(doc.severities) or 'n/a')}</p>",
    ]
    for name, text in doc.sections:
        parts.append(f"<h3>{esc(name)}</h3>{_paragraphs(text)}")
    if doc.tradeoff:
        parts.append(f"<h3>Trade-off</h3><p>{_inline(doc.tradeoff)}</p>")
    if doc.reference:
        parts.append(f"<h3>Sources</h3><p>{reference_html(doc.reference)}</p>")
    return "\n".join(parts)


class RuleReferenceDialog(QDialog):
    """A searchable list of rules with the selected rule's documentation (non-modal)."""

    def __init__(self, parent: QWidget | None = None, docs: list[RuleDoc] | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("RuleReferenceDialog")
        self.setWindowTitle("Rule reference")
        self.resize(900, 620)
        self.docs = docs if docs is not None else all_rule_docs()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search rules (id, code, words of the documentation)…")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._filter)
        self.count = QLabel()
        self.list = QListWidget()
        self.list.currentItemChanged.connect(self._show_current)
        self.page = QTextBrowser()
        self.page.setOpenLinks(False)
        self.page.anchorClicked.connect(self._link)
        split = QSplitter()
        split.addWidget(self.list)
        split.addWidget(self.page)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 5)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.count)
        layout.addWidget(split, 1)
        layout.addWidget(buttons)
        for doc in self.docs:
            item = QListWidgetItem(f"{doc.code}  {doc.id}")
            item.setToolTip(doc.summary)
            item.setData(RULE_ROLE, doc.id)
            self.list.addItem(item)
        self._filter("")

    def visible_ids(self) -> list[str]:
        return [self.list.item(i).data(RULE_ROLE) for i in range(self.list.count()) if not self.list.item(i).isHidden()]

    def show_rule(self, rule_id: str) -> bool:
        """Select and show one rule (by id or code); False when unknown."""
        wanted = rule_id.strip()
        for i in range(self.list.count()):
            item = self.list.item(i)
            doc = self._doc(item.data(RULE_ROLE))
            if doc is not None and wanted in (doc.id, doc.code):
                if item.isHidden():
                    self.search.clear()
                self.list.setCurrentItem(item)
                self.list.scrollToItem(item)
                return True
        self.page.setHtml(f"<p>No rule named <code>{html.escape(wanted)}</code> in this version of Modeller.</p>")
        return False

    def _doc(self, rule_id: str) -> RuleDoc | None:
        return next((d for d in self.docs if d.id == rule_id), None)

    def _filter(self, text: str) -> None:
        shown = 0
        first: QListWidgetItem | None = None
        for i in range(self.list.count()):
            item = self.list.item(i)
            doc = self._doc(item.data(RULE_ROLE))
            visible = doc is not None and doc.matches(text)
            item.setHidden(not visible)
            if visible:
                shown += 1
                first = first or item
        self.count.setText(f"{shown} of {len(self.docs)} rules")
        current = self.list.currentItem()
        if current is None or current.isHidden():
            if first is not None:
                self.list.setCurrentItem(first)
            else:
                self.page.setHtml("<p>No rule matches the search.</p>")

    def _show_current(self, item: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        doc = self._doc(item.data(RULE_ROLE)) if item is not None else None
        if doc is not None:
            self.page.setHtml(rule_html(doc))

    def _link(self, url: QUrl) -> None:
        if url.scheme() == RULE_SCHEME:
            self.show_rule(url.path())
        else:
            QDesktopServices.openUrl(url)
