"""Model objects of the same given keys share one set of them (memory, issue 16), and stay independent."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from modeller.model import Field, Project


def test_objects_with_the_same_keys_share_one_set_of_them() -> None:
    one = Field.model_validate({"name": "a", "type": "string", "required": True})
    two = Field.model_validate({"name": "b", "type": "int", "required": False})
    other = Field.model_validate({"name": "c", "type": "int"})
    assert one.model_fields_set == {"name", "type", "required"}
    assert one.__pydantic_fields_set__ is two.__pydantic_fields_set__
    assert other.model_fields_set == {"name", "type"}
    assert other.__pydantic_fields_set__ is not one.__pydantic_fields_set__


def test_a_copy_with_changes_leaves_the_shared_set_alone() -> None:
    one = Field.model_validate({"name": "a", "type": "string"})
    two = Field.model_validate({"name": "b", "type": "string"})
    changed = one.model_copy(update={"description": "why"})
    assert changed.model_fields_set == {"name", "type", "description"}
    assert one.model_fields_set == two.model_fields_set == {"name", "type"}
    with pytest.raises(ValidationError):
        one.required = True  # type: ignore[misc]
    assert two.model_fields_set == {"name", "type"}


def test_a_loaded_project_shares_the_sets_of_its_fields() -> None:
    entity = {"id": "e", "name": "E", "fields": [{"name": f"f{i}", "type": "string"} for i in range(50)]}
    project = Project.model_validate({"format": "modeller", "format_version": 2, "name": "p", "entities": [entity]})
    fields = project.entities[0].fields
    assert len({id(f.__pydantic_fields_set__) for f in fields}) == 1
    assert project.model_dump(exclude_unset=True)["entities"][0]["fields"][3] == {"name": "f3", "type": "string"}
