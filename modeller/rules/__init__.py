"""The recommendation engine: ``analyse(project) -> Analysis`` (findings + resolved design)."""

from modeller.rules.design import Analysis, Design
from modeller.rules.engine import Analyser, analyse, load_rules
from modeller.rules.findings import Finding
from modeller.rules.settings import DEFAULT_SETTINGS, Settings

__all__ = ["DEFAULT_SETTINGS", "Analyser", "Analysis", "Design", "Finding", "Settings", "analyse", "load_rules"]
