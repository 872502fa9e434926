"""The rule catalog: one module per rule family; importing a family registers its rules."""


def load_rules() -> None:
    """Import the rule families so their classes register themselves."""
    # order of import = order of registration = order of `modeller rules` and docs/rules.md
    from modeller.rules.catalog import shape  # noqa: F401, I001
    from modeller.rules.catalog import denormalization  # noqa: F401
    from modeller.rules.catalog import patterns  # noqa: F401
    from modeller.rules.catalog import indexes  # noqa: F401
    from modeller.rules.catalog import antipatterns  # noqa: F401
