"""Schema review: what changes between two versions of a project, and the migration script that applies it.

Sits above ``export`` (it quotes names with the exporters' literals) and below the CLI and the GUI.
"""

from modeller.review.changes import Change, ChangeKind
from modeller.review.diff import SchemaDiff, diff_analyses, diff_projects

__all__ = ["Change", "ChangeKind", "SchemaDiff", "diff_analyses", "diff_projects"]
