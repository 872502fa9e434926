"""User text made safe to echo: no control or bidi character survives, and long text is cut.

Names, descriptions and file names come from users and reach terminals, dialogs,
reports and comments in generated code. An ESC sequence can retitle or clear a
terminal, a newline can end a ``//`` comment, a bidi override can make text read
differently from what it is (Trojan Source). Every place that echoes user text
goes through :func:`neutralize`; every message that quotes it goes through
:func:`shorten` (a 10 MB key must not become a 10 MB message). Both live in the
lowest layer so the CLI, the exporters and the GUI share them.
"""

from __future__ import annotations

import re

#: bidi embeddings, overrides, isolates and marks: they reorder how text is shown
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
#: C0 and C1 controls (ESC, CR, NUL, CSI ...), DEL, the Unicode line and paragraph
#: separators (line terminators in JavaScript), the bidi controls, and lone surrogates
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029" + BIDI_CONTROLS + "\ud800-\udfff]")
_UNSAFE_KEEP_NEWLINES = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029" + BIDI_CONTROLS + "\ud800-\udfff]")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

#: how many characters of user text a message quotes before cutting it
MESSAGE_LIMIT = 200

#: URI options that carry a secret: ``password=``, ``tlsCertificateKeyFilePassword=``, any ``...secret...``/``...token...``
#: option, and ``authMechanismProperties=`` (it can hold ``AWS_SESSION_TOKEN:...``); the value ends at the next option
SECRET_OPTION = re.compile(
    r"(?i)(?P<head>[?&;](?:[a-z_]*(?:password|secret|token)[a-z_]*|authMechanismProperties)=)"
    r"(?P<value>[^&;\s'\"<>]*)"
)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def neutralize(text: object, keep_newlines: bool = False) -> str:
    """``text`` with every control, line-separator and bidi character shown as an escape (``\\x1b``, ``\\u202e``).

    The result is one line unless ``keep_newlines`` (then only ``\\n`` passes,
    for multi-line messages whose lines were neutralized the same way).
    Everything printable, including non-Latin scripts and emoji, stays as typed.
    """
    value = "" if text is None else str(text)
    pattern = _UNSAFE_KEEP_NEWLINES if keep_newlines else _UNSAFE
    if pattern.search(value) is None:  # the usual case: one scan, no copy
        return value
    return pattern.sub(_escape, value)


def is_neutral(text: str, keep_newlines: bool = False) -> bool:
    """True when ``text`` holds nothing :func:`neutralize` would escape."""
    return (_UNSAFE_KEEP_NEWLINES if keep_newlines else _UNSAFE).search(text) is None


def shorten(text: object, limit: int = MESSAGE_LIMIT) -> str:
    """At most ``limit`` characters of ``text``, saying how many were left out."""
    value = "" if text is None else str(text)
    if len(value) <= limit:
        return value
    return f"{value[:limit]}... ({len(value) - limit:,} more characters)"


def hide_secret_options(text: str) -> str:
    """``text`` with the value of every secret-bearing URI option (``?password=...``) replaced by ``***``.

    The crash report and the live-database messages share it: a connection string
    quoted in an exception must not leak its password into a file or a terminal.
    """
    return SECRET_OPTION.sub(r"\g<head>***", text)


def shown(text: object, limit: int = MESSAGE_LIMIT) -> str:
    """User text as a message quotes it: cut to ``limit``, then on one line with nothing that drives a terminal."""
    return neutralize(shorten(text, limit))
