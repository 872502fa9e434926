"""Read ``mongoexport`` output offline: JSON lines or one JSON array, in (canonical or relaxed) Extended JSON.

Each file is one collection, named by the file name without ``.json``/
``.jsonl``/``.ndjson``. JSON lines are read one line at a time, so a large
export costs memory for one document, not the file.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from bson import json_util
from bson.json_util import JSONOptions

from modeller.live.errors import LiveError
from modeller.live.infer import CollectionSample
from modeller.live.schema_input import SchemaCollection, find_schema
from modeller.live.stats import CollectionStats
from modeller.model.names import check_collection_name
from modeller.model.text import shown

_OPTIONS = JSONOptions(tz_aware=False)
_SUFFIXES = (".ndjson", ".jsonl", ".json")
#: what a validator file may add before ``.json``: ``orders.schema.json`` is collection ``orders``
_SCHEMA_SUFFIXES = (".schema", ".validator", ".jsonschema")
#: a validator file is small; a larger file is documents and is never read whole to find out
SCHEMA_FILE_MAX = 16 * 1024 * 1024


def collection_of(path: Path, schema: bool = False) -> str:
    """``orders.json`` -> ``orders`` (the collection mongoexport was run on); ``schema``: also ``orders.schema.json``."""
    name = path.name
    for suffix in _SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[: -len(suffix)]
            break
    for suffix in _SCHEMA_SUFFIXES if schema else ():
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def read_validator(path: Path) -> tuple[Mapping[str, Any], str | None] | None:
    """``(the $jsonSchema, the collection it names)`` when the file is one validator (see ``schema_input``)."""
    try:
        if path.stat().st_size > SCHEMA_FILE_MAX:
            return None
        with path.open("r", encoding="utf-8") as handle:
            if _first_char(handle) != "{":
                return None
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return None  # read_documents says what is wrong with the file
    try:
        data = json_util.loads(text, json_options=_OPTIONS)
    except (ValueError, TypeError):
        return None  # JSON lines (several documents) or broken: read as documents, which names the line
    return find_schema(data)


def read_documents(path: Path, limit: int | None = None) -> Iterator[Mapping[str, Any]]:
    """The documents of one export file, at most ``limit``; a :class:`LiveError` names the file and line."""
    where = shown(str(path), 300)
    try:
        handle = path.open("r", encoding="utf-8")
    except OSError as exc:
        raise LiveError(f"{where}: cannot read the file ({exc.strerror or exc}); check the path") from None
    with handle:
        try:
            first = _first_char(handle)
            if first == "[":
                yield from _array(handle, where, limit)
                return
            count = 0
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                if limit is not None and count >= limit:
                    return
                yield _document(line, where, number)
                count += 1
        except UnicodeDecodeError:
            raise LiveError(f"{where}: not UTF-8 text; export it again with mongoexport") from None


def _first_char(handle: Any) -> str:
    while True:
        char = handle.read(1)
        if not char or not char.isspace():
            handle.seek(0)
            return char


def _array(handle: Any, where: str, limit: int | None) -> Iterator[Mapping[str, Any]]:
    text = handle.read()
    try:
        data = json_util.loads(text, json_options=_OPTIONS)
    except (ValueError, TypeError) as exc:
        line = getattr(exc, "lineno", None)
        at = f":{line}" if line else ""
        raise LiveError(
            f"{where}{at}: not valid Extended JSON ({shown(exc, 120)}); fix the file or export it again"
        ) from None
    for index, document in enumerate(data if isinstance(data, list) else [data]):
        if limit is not None and index >= limit:
            return
        if not isinstance(document, Mapping):
            raise LiveError(
                f"{where}: element {index} of the array is not a document; export it again with mongoexport"
            )
        yield document


def _document(line: str, where: str, number: int) -> Mapping[str, Any]:
    try:
        document = json_util.loads(line, json_options=_OPTIONS)
    except (ValueError, TypeError) as exc:
        detail = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise LiveError(
            f"{where}:{number}: not valid Extended JSON ({shown(detail, 120)}); fix the line or export again"
        ) from None
    if not isinstance(document, Mapping):
        raise LiveError(
            f"{where}:{number}: a line holds a {type(document).__name__}, not a document; each line must be one document"
        )
    return document


def sample_files(paths: list[Path], limit: int | None = None) -> list[CollectionSample]:
    """One sample per file of documents (two files for one collection are an error: say which)."""
    return read_inputs(paths, limit)[0]


def read_inputs(paths: list[Path], limit: int | None = None) -> tuple[list[CollectionSample], list[SchemaCollection]]:
    """Each file is a collection's documents (mongoexport) or its ``$jsonSchema`` validator, told apart by shape."""
    samples: dict[str, CollectionSample] = {}
    schemas: list[SchemaCollection] = []
    for path in paths:
        validator = read_validator(path)
        name = (validator[1] if validator else None) or collection_of(path, schema=validator is not None)
        try:
            check_collection_name(name)
        except ValueError as exc:
            raise LiveError(
                f"{shown(str(path), 300)}: the file name is no collection name ({exc}); rename the file"
            ) from None
        if name in samples or any(s.name == name for s in schemas):
            raise LiveError(
                f"{shown(str(path), 300)}: a second file for collection {shown(repr(name), 100)}; pass one file per collection"
            )
        if validator is not None:
            schemas.append(SchemaCollection(name, validator[0], str(path)))
            continue
        stats = CollectionStats(name)
        for document in read_documents(path, limit):
            stats.add(document)
        samples[name] = CollectionSample(stats)
    return list(samples.values()), schemas
