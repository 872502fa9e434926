"""Project files: load and save ``*.modeller.json``, format versions, migrations, errors.

The GUI and the CLI use only these names. Nothing here prints; every failure
is a :class:`ProjectFileError` whose ``str()`` names the file, the place and
the problem.
"""

from modeller.persistence.canonical import dumps_project, project_to_data
from modeller.persistence.errors import (
    FileProblem,
    FileTooLargeError,
    ProjectFileError,
    ProjectSaveError,
    UnsupportedVersionError,
)
from modeller.persistence.load import MAX_DEPTH, MAX_FILE_BYTES, check_loaded, load_project, loads_project
from modeller.persistence.migrations import MIGRATIONS, MigrationError, MigrationRegistry, migrator
from modeller.persistence.save import backup_path, save_project

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MIGRATIONS",
    "FileProblem",
    "FileTooLargeError",
    "MigrationError",
    "MigrationRegistry",
    "ProjectFileError",
    "ProjectSaveError",
    "UnsupportedVersionError",
    "backup_path",
    "check_loaded",
    "dumps_project",
    "load_project",
    "loads_project",
    "migrator",
    "project_to_data",
    "save_project",
]
