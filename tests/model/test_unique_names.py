"""Entity and query names are unique, ignoring case; names that derive one collection are refused too.

The tryout's repro: renaming Post to "Author" next to an Author was valid, and the engine merged both into one
collection told apart by generated ids. Now the loader, ``modeller validate`` and the GUI refuse it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from modeller.cli.main import main
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project, check_project
from modeller.model.unique_names import name_key, name_refused
from modeller.persistence import ProjectFileError, loads_project


def project(entities: list[dict[str, Any]], queries: list[dict[str, Any]] = ()) -> dict[str, Any]:
    return {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "name": "names",
        "entities": [{"fields": [{"name": "title", "type": "string"}], **e} for e in entities],
        "queries": list(queries),
    }


def problems(data: dict[str, Any]) -> list[str]:
    return [str(p) for p in check_project(Project.model_validate(data))]


def test_name_key_ignores_case_and_spacing() -> None:
    assert name_key("  Log   Message ") == name_key("log message") == "log message"
    assert name_key("Author") != name_key("Authors")


@pytest.mark.parametrize("second", ["Author", "author", " AUTHOR "])
def test_two_entities_with_one_name_are_refused_naming_both_places(second: str) -> None:
    found = problems(project([{"id": "a", "name": "Author"}, {"id": "b", "name": second}]))
    assert found == [
        f"$.entities[1].name: two entities are called {second!r} (the other: $.entities[0].name); entity names "
        "must be unique, ignoring case: rename one of them"
    ]


def test_names_that_derive_one_collection_are_refused_unless_both_name_their_collection() -> None:
    found = problems(project([{"id": "a", "name": "Log Message"}, {"id": "b", "name": "LogMessage"}]))
    assert len(found) == 1 and found[0].startswith("$.entities[1].name: 'LogMessage' and 'Log Message' would both")
    assert "collection 'log_message'" in found[0] and "(the other: $.entities[0].name)" in found[0]
    # an explicit collection collides only with a name that derives the same collection
    assert (
        problems(project([{"id": "a", "name": "Host", "collection": "log_message"}, {"id": "b", "name": "Log"}])) == []
    )
    one_side = problems(project([{"id": "a", "name": "Host", "collection": "log"}, {"id": "b", "name": "Log"}]))
    assert len(one_side) == 1 and "would both be stored in collection 'log'" in one_side[0]
    # both name the collection: sharing it is deliberate (the polymorphic pattern)
    shared = [
        {"id": "a", "name": "Phone", "collection": "products"},
        {"id": "b", "name": "Laptop", "collection": "products"},
    ]
    assert problems(project(shared)) == []


def test_query_names_are_unique_when_given() -> None:
    entities = [{"id": "post", "name": "Post"}]
    queries = [
        {"id": "q1", "entity": "post", "name": "Post page"},
        {"id": "q2", "entity": "post"},
        {"id": "q3", "entity": "post"},
        {"id": "q4", "entity": "post", "name": "post PAGE"},
    ]
    assert problems(project(entities, queries)) == [
        "$.queries[3].name: two queries are called 'post PAGE' (the other: $.queries[0].name); query names must be "
        "unique, ignoring case: rename one of them"
    ]


def test_name_refused_answers_the_gui_with_the_reason() -> None:
    p = Project.model_validate(project([{"id": "a", "name": "Author"}, {"id": "b", "name": "Post"}]))
    post = p.entities[1]
    assert name_refused(p, post.model_copy(update={"name": "AUTHOR"})) == (
        "another entity is already called 'Author'; entity names must be unique (ignoring case)"
    )
    assert name_refused(p, post.model_copy(update={"name": "Writer"})) is None
    assert name_refused(p, p.entities[0].model_copy(update={"name": "author"})) is None  # its own name, recased


def test_the_loader_names_both_places_with_line_and_column() -> None:
    text = json.dumps(project([{"id": "a", "name": "Author"}, {"id": "b", "name": "Author"}]), indent=2)
    with pytest.raises(ProjectFileError) as err:
        loads_project(text, "blog.modeller.json")
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines, 1) if '"Author"' in line)
    second = next(i for i, line in enumerate(lines, 1) if '"Author"' in line and i > first)
    assert str(err.value) == (
        f"blog.modeller.json:{second}:7: $.entities[1].name: two entities are called 'Author' "
        f"(the other: $.entities[0].name at line {first}:7); entity names must be unique, ignoring case: "
        "rename one of them"
    )


def test_validate_refuses_the_tryout_repro(tmp_path: Path, capsys) -> None:
    data = project([{"id": "entity", "name": "Author"}, {"id": "entity_2", "name": "Post"}])
    data["entities"][1]["name"] = "Author"  # the rename the GUI used to accept
    path = tmp_path / "blog-dup.modeller.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "two entities are called 'Author'" in err and "Traceback" not in err


def test_two_relationships_of_one_entity_may_not_take_one_role() -> None:
    data = project([{"id": "a", "name": "Author"}, {"id": "b", "name": "Post"}, {"id": "c", "name": "Note"}])
    data["relationships"] = [
        {"id": "r1", "one": "a", "many": "b", "name": "items", "inverse": "author", "cardinality": "one-to-few"},
        {"id": "r2", "one": "a", "many": "c", "name": "items", "inverse": "author", "cardinality": "one-to-few"},
        {"id": "r3", "one": "b", "many": "c", "name": "items", "inverse": "post", "cardinality": "one-to-few"},
    ]
    assert problems(data) == [
        "$.relationships[1].name: two relationships of 'Author' are called 'items' on its one side (the other: "
        "$.relationships[0].name); both would store their links in one field 'items' of 'Author': rename one of them"
    ]
    p = Project.model_validate({**data, "relationships": data["relationships"][:1] + data["relationships"][2:]})
    r3 = p.relationships[1]
    assert name_refused(p, r3.model_copy(update={"one": "a"})) == (
        "another relationship of 'Author' is already called 'items'; both would store their links in one field of "
        "'Author'"
    )
    assert name_refused(p, r3.model_copy(update={"name": "notes"})) is None


def test_a_role_named_like_a_field_of_its_entity_is_refused() -> None:
    """A role is a field of the entity it ends at: named like a field there, the entity would hold two fields of
    one name (``title`` of the One as the role ``name``, ``author`` of the N as the ``inverse``)."""
    data = project([{"id": "a", "name": "Author"}, {"id": "b", "name": "Post"}])
    data["entities"][1]["fields"].append({"name": "author", "type": "string"})
    data["relationships"] = [
        {"id": "r1", "one": "a", "many": "b", "name": "title", "inverse": "author", "cardinality": "one-to-many"}
    ]
    assert problems(data) == [
        "$.relationships[0].name: 'Author' already has a field 'title'; the relationship would store its links in "
        "a second field of that name: choose another role name (or rename the field) (the field: "
        "$.entities[0].fields[0].name)",
        "$.relationships[0].inverse: 'Post' already has a field 'author'; the relationship would store its links in "
        "a second field of that name: choose another inverse name (or rename the field) (the field: "
        "$.entities[1].fields[1].name)",
    ]
    text = json.dumps(data, indent=2)
    with pytest.raises(ProjectFileError) as err:
        loads_project(text, "blog.modeller.json")
    line = max(i for i, row in enumerate(text.splitlines(), 1) if '"name": "title",' in row)  # the role's
    assert str(err.value).startswith(f"blog.modeller.json:{line}:")
    # the GUI asks the same module: renaming the role, or a field to the role's name, is refused with the reason
    data["relationships"][0].update(name="posts", inverse="writer")
    p = Project.model_validate(data)
    assert problems(data) == []
    rel, author = p.relationships[0], p.entities[0]
    assert name_refused(p, rel.model_copy(update={"inverse": "author"})) == (
        "'Post' already has a field 'author'; the relationship would store its links in a second field of that "
        "name: choose another inverse name (or rename the field)"
    )
    renamed = author.fields[0].model_copy(update={"name": "posts"})
    assert name_refused(p, author.model_copy(update={"fields": (renamed,)})) == (
        "the relationship with 'Post' stores its links in field 'posts' of 'Author'; a field of that name would be "
        "a second one: choose another field name (or rename the relationship's role)"
    )
    assert name_refused(p, rel.model_copy(update={"name": "articles"})) is None
