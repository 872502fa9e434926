"""The rule catalog: one module per rule family; importing a family registers its rules.

The families are imported here, in catalog order, whichever module is
imported first (a test importing ``catalog.patterns`` directly must not
register the patterns before the shape rules): the order of registration is
the order of ``modeller rules`` and docs/rules.md.
"""

from modeller.rules.catalog import shape  # noqa: F401, I001
from modeller.rules.catalog import denormalization  # noqa: F401
from modeller.rules.catalog import patterns  # noqa: F401
from modeller.rules.catalog import indexes  # noqa: F401
from modeller.rules.catalog import antipatterns  # noqa: F401
from modeller.rules.catalog import sharding  # noqa: F401
from modeller.rules.catalog import serving  # noqa: F401  (after the 45 catalog rules: it reads the query plans)
from modeller.rules.catalog import inferred  # noqa: F401  (after serving: it reads inferred descriptions)


def load_rules() -> None:
    """Make sure every family is registered (importing this package registers them)."""
