"""Every way a project file can be wrong gives one ProjectFileError naming the file, the place and the problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from persistence_fixtures import TINY, pretty

from modeller.persistence import (
    MAX_DEPTH,
    FileTooLargeError,
    ProjectFileError,
    UnsupportedVersionError,
    check_loaded,
    dumps_project,
    load_project,
    loads_project,
)
from modeller.persistence import load as load_module


def error_of(text: str | bytes, source: str = "plan.modeller.json") -> ProjectFileError:
    with pytest.raises(ProjectFileError) as info:
        loads_project(text, source)
    return info.value


def test_valid_tiny_project_loads(tiny: dict[str, Any]) -> None:
    project = loads_project(pretty(tiny))
    assert [e.id for e in project.entities] == ["person", "task"]
    assert project.relationships[0].max == 500


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.modeller.json"
    with pytest.raises(ProjectFileError) as info:
        load_project(path)
    assert info.value.file == str(path)
    assert str(info.value) == f"{path}: no such file"


def test_folder(tmp_path: Path) -> None:
    with pytest.raises(ProjectFileError, match="is a folder, not a project file"):
        load_project(tmp_path)


def test_unreadable_reported_when_open_fails(
    tmp_path: Path, tiny: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open is made to fail the way chmod 000 would (chmod means nothing to root, which CI may be)."""
    path = tmp_path / "locked.modeller.json"
    path.write_text(pretty(tiny))

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(load_module, "open", refuse, raising=False)
    with pytest.raises(ProjectFileError) as info:
        load_project(path)
    assert str(info.value) == f"{path}: permission denied: cannot read this file"


def test_device_is_refused_without_reading() -> None:
    with pytest.raises(ProjectFileError, match="not a regular file"):
        load_project("/dev/zero")


def test_not_utf8_reports_line_and_column() -> None:
    err = error_of(b'{\n  "name": "caf\xe9"\n}')
    assert (err.line, err.column) == (2, 15)
    assert "not UTF-8" in err.problem and "0xe9" in err.problem


def test_utf8_bom_is_accepted(tiny: dict[str, Any]) -> None:
    project = loads_project(b"\xef\xbb\xbf" + pretty(tiny).encode())
    assert project.name == "Task tracker"


def test_invalid_json_reports_line_and_column() -> None:
    err = error_of('{\n  "format": "mongo-schema-modeller",\n  "name": "x",,\n}')
    assert (err.line, err.column) == (3, 15)
    assert str(err).startswith("plan.modeller.json:3:15: invalid JSON: expecting property name")


def test_truncated_json() -> None:
    err = error_of('{\n  "format": "mongo-schema-modeller",\n  "entities": [')
    assert err.line == 3
    assert "invalid JSON" in err.problem


@pytest.mark.parametrize("text", ["", "   \n"])
def test_empty_file(text: str) -> None:
    assert "the file is empty" in error_of(text).problem


def test_top_level_not_an_object() -> None:
    err = error_of("[1, 2]")
    assert err.location == "$"
    assert err.problem.startswith("expected a JSON object at the top level, got a list")


def test_not_a_modeller_file() -> None:
    err = error_of('{"name": "left-pad", "version": "1.0.0"}')
    assert "not a Modeller project file" in err.problem
    assert "missing key 'format'" in err.problem


def test_wrong_format_name(tiny: dict[str, Any]) -> None:
    tiny["format"] = "something-else"
    err = error_of(pretty(tiny))
    assert err.location == "$.format"
    assert err.line == 2
    assert "expected 'mongo-schema-modeller', got 'something-else'" in err.problem


@pytest.mark.parametrize(("token", "shown"), [("NaN", "NaN"), ("Infinity", "Infinity"), ("-Infinity", "-Infinity")])
def test_nan_and_infinity_refused(tiny: dict[str, Any], token: str, shown: str) -> None:
    text = pretty(tiny).replace('"count": 10000', f'"count": {token}')
    err = error_of(text)
    assert shown in err.problem and "JSON has no NaN or Infinity" in err.problem
    assert err.line == text[: text.index(token)].count("\n") + 1


def test_float_overflow_refused(tiny: dict[str, Any]) -> None:
    text = pretty(tiny).replace('"count": 10000', '"count": 1e999')
    err = error_of(text)
    assert err.problem == "number 1e999 is too large"
    assert err.line is not None


def test_integer_with_thousands_of_digits_refused(tiny: dict[str, Any]) -> None:
    text = pretty(tiny).replace('"count": 10000', '"count": ' + "9" * 5000)
    err = error_of(text)
    assert err.problem == "a number is too long"
    assert err.line == text[: text.index("9999")].count("\n") + 1


def test_huge_number_in_range_check(tiny: dict[str, Any]) -> None:
    tiny["entities"][0]["count"] = 10**30
    err = error_of(pretty(tiny))
    assert err.location == "$.entities[0].count"
    assert "must be at most" in err.problem


def test_huge_string_refused_by_length(tiny: dict[str, Any]) -> None:
    tiny["entities"][0]["name"] = "x" * 100_000
    err = error_of(pretty(tiny))
    assert err.location == "$.entities[0].name"
    assert err.problem == "is too long: 100000 characters, at most 200 allowed"


def test_duplicate_json_key(tiny: dict[str, Any]) -> None:
    text = pretty(tiny).replace('"id": "task",', '"id": "task", "id": "job",')
    err = error_of(text)
    assert err.location == "$.entities[1].id"
    assert err.problem == "key 'id' appears twice in the same object; keep one"
    assert err.line == text[: text.index('"id": "job"')].count("\n") + 1


def test_deep_nesting_refused_before_parsing() -> None:
    depth = MAX_DEPTH + 50
    text = (
        '{"format": "mongo-schema-modeller", "format_version": 1, "name": "x", "description": '
        + "[" * depth
        + "]" * depth
        + "}"
    )
    err = error_of(text)
    assert err.problem == f"the file is nested more than {MAX_DEPTH} levels deep"
    assert err.line == 1 and err.column == text.index("[") + MAX_DEPTH


def test_deepest_loadable_file_can_be_saved_again() -> None:
    # the outer levels: project, entities, entity, fields, field; the rest is the field's example
    example: Any = 1
    for _ in range(MAX_DEPTH - 5):
        example = [example]
    doc = {
        "format": "mongo-schema-modeller",
        "format_version": 1,
        "name": "x",
        "entities": [{"id": "a", "name": "A", "fields": [{"name": "f", "type": "array", "example": example}]}],
    }
    project = loads_project(json.dumps(doc))
    assert loads_project(dumps_project(project)) == project


def test_extreme_nesting_does_not_crash() -> None:
    err = error_of("[" * 200_000)
    assert "nested more than" in err.problem


def test_brackets_inside_strings_do_not_count_as_nesting(tiny: dict[str, Any]) -> None:
    tiny["entities"][0]["description"] = "[" * 1000 + '\\" {{'
    assert loads_project(json.dumps(tiny)).entities[0].description == tiny["entities"][0]["description"]


def test_lone_surrogate_refused(tiny: dict[str, Any]) -> None:
    text = pretty(tiny).replace('"Person"', '"Per\\ud800son"')
    err = error_of(text)
    assert err.location == "$.entities[0].name"
    assert "surrogate" in err.problem


def test_surrogate_pair_escape_is_fine(tiny: dict[str, Any]) -> None:
    text = pretty(tiny).replace('"Person"', '"Person \\ud83d\\ude00"')
    assert loads_project(text).entities[0].name == "Person 😀"


def test_too_large_file_refused_without_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.modeller.json"
    with open(path, "wb") as handle:
        handle.truncate(60 * 1024 * 1024)  # sparse: no disk used, never read
    with pytest.raises(FileTooLargeError) as info:
        load_project(path)
    assert str(info.value) == f"{path}: the file is 60.0 MB; project files above 50 MB are refused"


def test_too_large_text_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(load_module, "MAX_FILE_BYTES", 100)
    with pytest.raises(FileTooLargeError):
        loads_project(b" " * 101)
    with pytest.raises(FileTooLargeError):
        loads_project(" " * 101)


def test_newer_version_refused_with_named_error(tiny: dict[str, Any]) -> None:
    tiny["format_version"] = 3
    with pytest.raises(UnsupportedVersionError) as info:
        loads_project(pretty(tiny), "p.json")
    err = info.value
    assert err.location == "$.format_version" and err.line == 3
    assert "format_version 3 is newer than this Modeller supports (2)" in err.problem


def test_unknown_older_version_refused(tiny: dict[str, Any]) -> None:
    tiny["format_version"] = 0
    with pytest.raises(UnsupportedVersionError, match="format_version 0 cannot be upgraded"):
        loads_project(pretty(tiny))


@pytest.mark.parametrize("value", ["1", True, 1.0, None])
def test_version_must_be_an_integer(tiny: dict[str, Any], value: Any) -> None:
    tiny["format_version"] = value
    err = error_of(pretty(tiny))
    assert err.location == "$.format_version"
    assert err.problem.startswith("expected an integer")


def test_missing_version(tiny: dict[str, Any]) -> None:
    del tiny["format_version"]
    assert error_of(pretty(tiny)).problem == "missing required key 'format_version'"


def test_wrong_type_names_expected_and_got(tiny: dict[str, Any]) -> None:
    tiny["entities"][0]["fields"][0]["required"] = "yes"
    tiny["entities"][1]["count"] = "many"
    tiny["name"] = 5
    err = error_of(pretty(tiny))
    found = {p.location: p.problem for p in err.problems}
    assert found == {
        "$.name": "expected a string, got 5",
        "$.entities[0].fields[0].required": "expected true or false, got 'yes'",
        "$.entities[1].count": "expected an integer, got 'many'",
    }
    # sorted by position in the file
    assert [p.line for p in err.problems] == sorted(p.line for p in err.problems if p.line is not None)


def test_missing_required_key(tiny: dict[str, Any]) -> None:
    del tiny["relationships"][0]["cardinality"]
    err = error_of(pretty(tiny))
    assert err.location == "$.relationships[0]"
    assert err.problem == "missing required key 'cardinality'"
    assert err.line is not None


def test_bad_vocabulary_word_lists_choices_and_suggests(tiny: dict[str, Any]) -> None:
    tiny["relationships"][0]["cardinality"] = "one-to-lots"
    err = error_of(pretty(tiny))
    assert err.location == "$.relationships[0].cardinality"
    assert err.problem.startswith(
        "expected one of 'one-to-one', 'one-to-few', 'one-to-many', 'one-to-squillions', 'many-to-many', got 'one-to-lots'"
    )
    assert "Input should" not in str(err) and "pydantic" not in str(err)


def test_unknown_key_located_at_the_key_with_hint(tiny: dict[str, Any]) -> None:
    tiny["relationships"][0]["cardinalty"] = "one-to-many"
    del tiny["relationships"][0]["cardinality"]
    text = pretty(tiny)
    err = error_of(text)
    assert err.location == "$.relationships[0].cardinalty"
    assert err.problem == "unknown key 'cardinalty'; did you mean 'cardinality'?"
    assert err.line == text[: text.index('"cardinalty"')].count("\n") + 1
    assert err.column == 7


def test_union_value_gets_one_message(tiny: dict[str, Any]) -> None:
    tiny["entities"][0]["fields"][0]["enum"] = ["a", {"x": 1}]
    err = error_of(pretty(tiny))
    assert len(err.problems) == 1
    assert err.location == "$.entities[0].fields[0].enum[1]"
    assert err.problem == "expected true or false, an integer, a number or a string, got an object"


def test_bad_dict_key_is_located_at_the_key(tiny: dict[str, Any]) -> None:
    tiny["queries"][0]["filter"] = {"": "eq"}
    err = error_of(pretty(tiny))
    assert err.location == "$.queries[0].filter['']"
    assert err.problem == "key '': must not be empty"


def test_sort_pair_shapes(tiny: dict[str, Any]) -> None:
    tiny["queries"][0]["sort"] = [["due_date", 2], ["due_date"], "due_date"]
    found = {p.location: p.problem for p in error_of(pretty(tiny)).problems}
    assert found == {
        "$.queries[0].sort[0][1]": "expected 1 or -1, got 2",
        "$.queries[0].sort[1]": "missing item 1: expected a list of two items",
        "$.queries[0].sort[2]": "expected a list of two items, got 'due_date'",
    }


def test_model_rule_errors_point_at_the_key(tiny: dict[str, Any]) -> None:
    tiny["relationships"][0]["typical"] = 900
    err = error_of(pretty(tiny))
    assert err.location == "$.relationships[0].max"
    assert "'max' (500) is smaller than 'typical' (900)" in err.problem


def test_dangling_reference_located(tiny: dict[str, Any]) -> None:
    tiny["relationships"][0]["many"] = "taks"
    text = pretty(tiny)
    err = error_of(text)
    assert err.location == "$.relationships[0].many"
    assert err.problem == "no entity has id 'taks'; point 'many' at an existing entity"
    assert err.line == text[: text.index('"many": "taks"')].count("\n") + 1


def test_duplicate_ids_located(tiny: dict[str, Any]) -> None:
    tiny["entities"][1]["id"] = "person"
    tiny["layout"] = {}
    tiny["relationships"] = []
    tiny["queries"] = []
    err = error_of(pretty(tiny))
    assert err.location == "$.entities[0].id"
    assert "id 'person' is used by more than one of entities" in err.problem


def test_check_problems_can_be_skipped_for_the_gui(tiny: dict[str, Any]) -> None:
    tiny["relationships"][0]["many"] = "taks"
    project = loads_project(pretty(tiny), check=False)
    assert project.relationships[0].many == "taks"


def test_many_problems_are_all_kept_and_the_message_is_capped(tiny: dict[str, Any]) -> None:
    tiny["queries"] = [{"id": f"q{i}", "entity": "ghost"} for i in range(30)]
    err = error_of(pretty(tiny))
    assert len(err.problems) == 30
    lines = str(err).splitlines()
    assert len(lines) == 21
    assert lines[-1] == "... and 10 more problems"
    assert all(line.startswith("plan.modeller.json:") for line in lines[:20])


def test_message_format_file_line_column_path_problem(tiny: dict[str, Any]) -> None:
    tiny["entities"][1]["fields"][0]["type"] = "datetime"
    text = pretty(tiny)
    err = error_of(text, "x.modeller.json")
    line = text[: text.index('"datetime"')].count("\n") + 1
    assert str(err).startswith(f"x.modeller.json:{line}:{err.column}: $.entities[1].fields[0].type: expected one of")


def test_deeply_nested_fields_are_refused_cleanly(tiny: dict[str, Any]) -> None:
    field: dict[str, Any] = {"name": "leaf", "type": "string"}
    for i in range(120):
        field = {"name": f"f{i}", "type": "object", "fields": [field]}
    tiny["entities"][1]["fields"] = [field]
    err = error_of(json.dumps(tiny))
    assert "nested" in err.problem


def test_checks_after_a_load_without_them_raise_what_the_full_load_raises(tmp_path: Path, tiny: dict[str, Any]) -> None:
    """The GUI shows a large project before its checks across the project: check_loaded words them as the loader."""
    path = tmp_path / "plan.modeller.json"
    path.write_text(pretty(tiny))
    check_loaded(load_project(path, check=False), path)  # a good project passes: nothing raised
    tiny["relationships"][0]["many"] = "ghost"  # each object valid, the reference dangles
    path.write_text(pretty(tiny))
    with pytest.raises(ProjectFileError) as full:
        load_project(path)
    unchecked = load_project(path, check=False)
    with pytest.raises(ProjectFileError) as later:
        check_loaded(unchecked, path)
    assert str(later.value) == str(full.value) and "ghost" in str(later.value)
    assert later.value.line is not None  # located in the file, like the full load
    # the file was fixed meanwhile: the problems of the project that was read are still named, without a line
    path.write_text(pretty(TINY))
    with pytest.raises(ProjectFileError) as changed:
        check_loaded(unchecked, path)
    assert changed.value.location == "$.relationships[0].many" and "ghost" in str(changed.value)
    assert changed.value.line is None and changed.value.file == str(path)
