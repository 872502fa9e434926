"""What a connection dialog lists before sampling: the databases a server holds and their collections."""

from __future__ import annotations

from modeller.live.source import Source

#: databases every server has that hold no application data
SYSTEM_DATABASES = frozenset({"admin", "config", "local"})


def database_names(source: Source) -> list[str]:
    """The server's databases, application ones first (a :class:`LiveError` line when it cannot list them)."""
    source.ping()
    with source._errors("listing the databases"):
        names = source.client.list_database_names()
    return sorted(names, key=lambda n: (n in SYSTEM_DATABASES, n))


def collection_names(source: Source, database: str) -> list[str]:
    """The collections (and time series) ``Source.sample_database`` can sample, sorted."""
    return sorted(c["name"] for c in source.collections(database))
