"""The domain model: pydantic models of a project, no Qt and no I/O."""

from modeller.model.checks import Problem, check_project
from modeller.model.project import (
    Aggregate,
    Archive,
    ArrayItems,
    Decision,
    Denormalization,
    Entity,
    Field,
    Index,
    Override,
    Position,
    Project,
    Query,
    Relationship,
    Subject,
    Subtypes,
    TimeSeries,
)
from modeller.model.vocabulary import FORMAT_NAME, FORMAT_VERSION

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Aggregate",
    "Archive",
    "ArrayItems",
    "Decision",
    "Denormalization",
    "Entity",
    "Field",
    "Index",
    "Override",
    "Position",
    "Problem",
    "Project",
    "Query",
    "Relationship",
    "Subject",
    "Subtypes",
    "TimeSeries",
    "check_project",
]
