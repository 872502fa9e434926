"""``modeller rules [ID]``: list the rules, or print one rule's documentation."""

from __future__ import annotations

import argparse
import sys

from modeller.cli.output import EXIT_OK, fail
from modeller.model.text import shown

HELP = "list the schema-design rules, or show one rule's documentation"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", nargs="?", metavar="ID", help="rule id (e.g. embed-one-to-few) or code (RS02)")
    parser.add_argument("--markdown", action="store_true", help="print docs/rules.md (all rules, markdown)")


def run(args: argparse.Namespace) -> int:
    from modeller.rules import load_rules
    from modeller.rules.framework.docs import render_markdown
    from modeller.rules.framework.references import cite
    from modeller.rules.framework.registry import REGISTRY

    load_rules()
    if args.markdown:
        sys.stdout.write(render_markdown())
        return EXIT_OK
    if args.rule is None:
        width = max(len(r.id) for r in REGISTRY)
        for rule in REGISTRY:
            sev = "..".join(dict.fromkeys((rule.severities[0], rule.severities[-1])))
            print(f"{rule.code}  {rule.id:<{width}}  {sev:<17}  {rule.summary()}")
        return EXIT_OK
    rule = REGISTRY.get(args.rule)
    if rule is None:
        return fail(f"no rule '{shown(args.rule)}'; run 'modeller rules' for the list")
    print(f"{rule.id} ({rule.code}, {rule.family}): {', '.join(rule.severities)}")
    print()
    print(rule.doc())
    print()
    if rule.tradeoff:
        print(f"Trade-off: {rule.tradeoff}")
        print()
    print("Sources:")
    for part in cite(*rule.sources).split("; "):
        print(f"  {part}")
    return EXIT_OK
