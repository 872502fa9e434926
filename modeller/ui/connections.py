"""Connection strings in the GUI: the password lives in a masked field only, recent connections without secrets.

A pasted ``mongodb://ann:pw@host`` is split into ``mongodb://ann@host`` (shown
and remembered) and the password (kept in a password field for this session,
never stored). Secret query options (``password=``,
``tlsCertificateKeyFilePassword=``) are shown as ``***`` and put back only
when connecting.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from PySide6.QtCore import QSettings

from modeller.live.source import redact
from modeller.model.text import SECRET_OPTION

RECENT_KEY = "connections/recent"
MAX_RECENT = 8

#: ``scheme://user:password@`` (the user and the password of the userinfo part)
_USERINFO = re.compile(r"^(?P<head>[a-z][a-z0-9+.-]*://)(?P<user>[^:/@?#]*):(?P<password>[^@/?#]*)@", re.IGNORECASE)
_USER_ONLY = re.compile(r"^(?P<head>[a-z][a-z0-9+.-]*://)(?P<user>[^:/@?#]+)@", re.IGNORECASE)


def split_password(uri: str) -> tuple[str, str | None]:
    """``mongodb://ann:p%40ss@host`` -> (``mongodb://ann@host``, ``p@ss``); no password -> (uri, None)."""
    match = _USERINFO.match(uri)
    if match is None:
        return uri, None
    rest = uri[match.end() :]
    return f"{match['head']}{match['user']}@{rest}", unquote(match["password"])


def with_password(uri: str, password: str) -> str:
    """Put ``password`` (percent-encoded) into the user part of ``uri``; without a user name it is left out."""
    if not password:
        return uri
    match = _USER_ONLY.match(uri)
    if match is None:
        return uri
    return f"{match['head']}{match['user']}:{quote(password, safe='')}@{uri[match.end() :]}"


def hide_options(uri: str) -> tuple[str, dict[str, str]]:
    """Secret query options as ``***`` and their real values, keyed by option (``password=``)."""
    secrets: dict[str, str] = {}

    def keep(match: re.Match[str]) -> str:
        if match["value"] != "***":
            secrets[match["head"][1:].lower()] = match["value"]
        return f"{match['head']}***"

    return SECRET_OPTION.sub(keep, uri), secrets


def restore_options(uri: str, secrets: dict[str, str]) -> str:
    """The hidden values back in place of their ``***`` (an option the user retyped keeps the new value)."""

    def put(match: re.Match[str]) -> str:
        value = match["value"]
        if value == "***":
            value = secrets.get(match["head"][1:].lower(), "")
        return f"{match['head']}{value}"

    return SECRET_OPTION.sub(put, uri)


def strip_options(uri: str) -> str:
    """``uri`` without its secret query options (what may be remembered)."""
    stripped = SECRET_OPTION.sub(lambda m: m["head"][0], uri)
    stripped = re.sub(r"([?&])&+", r"\1", stripped)
    return re.sub(r"[?&]+(?=#|$)", "", stripped)


def recent_connections(settings: QSettings) -> list[str]:
    """Remembered connection strings, newest first (stored without any secret)."""
    value = settings.value(RECENT_KEY, [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in value or [] if str(v).strip()]


def remember_connection(settings: QSettings, uri: str) -> str:
    """Store ``uri`` with its password and secret options removed; returns what was stored."""
    bare, _password = split_password(uri)
    safe = redact(strip_options(bare))
    entries = [safe] + [u for u in recent_connections(settings) if u != safe]
    settings.setValue(RECENT_KEY, entries[:MAX_RECENT])
    settings.sync()
    return safe
