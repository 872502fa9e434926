"""The recommendation engine: ``analyse(project) -> Analysis`` (findings + resolved design)."""

from modeller.rules.engine import Analyser, analyse, load_rules
from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import Design
from modeller.rules.settings import DEFAULT_SETTINGS, Settings

__all__ = ["DEFAULT_SETTINGS", "Analyser", "Analysis", "Design", "Finding", "Settings", "analyse", "load_rules"]
