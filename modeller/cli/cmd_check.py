"""``modeller check FILE...``: the engine's findings, for people (text), scripts (json) or review tools (sarif).

Exit 0 when no finding reaches ``--fail-on`` (default ``error``), 1 when one
does (of those ``--rule`` and ``--severity`` keep, see :mod:`check_filters`),
2 when a file cannot be loaded or a filter names no rule or severity. Overridden findings are still listed
(marked) but never fail the check: the user recorded why they keep the design.
Several files (the pre-commit hook passes every changed one) are each checked,
their text headed by the file's name; the exit code is the worst of them.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from modeller.cli.check_filters import COLOURS, RESET
from modeller.cli.check_filters import add_arguments as add_filter_arguments
from modeller.cli.output import EXIT_FINDINGS, EXIT_OK, fail, use_colour, write_json
from modeller.model.labels import Labels
from modeller.model.text import neutralize
from modeller.model.wording import counted
from modeller.rules.framework.findings import SEVERITIES

if TYPE_CHECKING:
    from modeller.cli.check_filters import Chosen
    from modeller.rules.framework.findings import Finding

HELP = "check a project against the schema-design rules"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file",
        metavar="FILE",
        nargs="+",
        help="*.modeller.json projects (text format: several), or - for standard input",
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "sarif"),
        default="text",
        help="output format (default text; sarif: SARIF 2.1.0 for code-review tools)",
    )
    parser.add_argument(
        "--fail-on",
        choices=SEVERITIES,
        default="error",
        help="exit 1 when a finding at or above this severity exists (default error; with --rule or --severity, "
        "among the findings they keep)",
    )
    add_filter_arguments(parser)


def run(args: argparse.Namespace) -> int:
    from modeller.cli.check_filters import chosen

    filters = chosen(args)
    if isinstance(filters, str):
        return fail(filters)
    args.chosen = filters
    if args.summary and args.format == "sarif":
        return fail("--summary counts the findings in the text or json format; SARIF lists each result")
    files: list[str] = args.file
    if len(files) == 1:
        return _check(args, files[0])
    if args.format != "text":
        return fail(f"--format {args.format} takes one FILE; run check once per file (or use the text format)")
    worst = EXIT_OK
    for number, file in enumerate(files):
        sys.stdout.write(("\n" if number else "") + f"{neutralize(file)}:\n")
        sys.stdout.flush()  # the header before the file's own error lines on stderr
        worst = max(worst, _check(args, file))
    return worst


def _check(args: argparse.Namespace, file: str) -> int:
    """Check one file: its findings in ``args.format``; the exit code for it alone."""
    from modeller.cli.check_filters import render_summary, shown_line, summary_json
    from modeller.cli.sources import read_file_or_stdin
    from modeller.persistence import ProjectFileError
    from modeller.rules import analyse
    from modeller.rules.framework.findings import SEVERITY_RANK

    if args.format == "sarif" and file == "-":
        return fail("--format sarif needs a FILE, not standard input: its results point at lines of that file")
    try:
        project = read_file_or_stdin(file)
    except ProjectFileError as err:
        return fail(str(err), multiline=True)  # one problem per line, each neutralized
    analysis = analyse(project)
    filters: Chosen = args.chosen
    findings = filters.kept(analysis.findings)
    if args.format == "json":
        write_json(summary_json(findings) if args.summary else {"findings": [f.to_json() for f in findings]})
    elif args.format == "sarif":
        from modeller.cli.sarif import read_text, sarif_log
        from modeller.persistence import MAX_FILE_BYTES

        kept = replace(analysis, findings=findings)
        write_json(sarif_log(file, read_text(file, MAX_FILE_BYTES), project, kept))
    else:
        colour = use_colour(args.color)
        if args.summary:
            sys.stdout.write(render_summary(findings, total_line(findings), colour))
        else:
            sys.stdout.write(render_text(findings, colour, Labels(project)))
        if filters.filtering:
            sys.stdout.write(shown_line(len(findings), len(analysis.findings), filters))
    threshold = SEVERITY_RANK[args.fail_on]
    failing = [f for f in findings if not f.overridden and SEVERITY_RANK[f.severity] >= threshold]
    return EXIT_FINDINGS if failing else EXIT_OK


def render_text(findings: list[Finding], colour: bool, labels: Labels | None = None) -> str:
    """Findings grouped by subject (in project order), severity first, reason and reference below.

    ``labels`` names each subject in the user's words (``Author → Post``, ``query 'post page'``), not by id.
    """
    if not findings:
        return "no findings\n"
    groups: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.subject.kind, f.subject.id), []).append(f)
    lines: list[str] = []
    said: dict[tuple[str, str], str] = {}  # a paragraph already printed -> where (each is printed once per check)
    for (kind, subject_id), items in groups.items():
        heading = labels.subject(kind, subject_id) if labels is not None else f"{kind} {subject_id}"
        if labels is not None and kind in ("entity", "relationship", "field"):
            heading = f"{kind} {heading}"
        lines.append(neutralize(heading))
        for f in items:
            label = f.severity.upper()
            if colour:
                label = f"{COLOURS[f.severity]}{label}{RESET}"
            mark = " (overridden" + (f": {neutralize(f.note)}" if f.note else "") + ")" if f.overridden else ""
            message = _said_once(f.message, labels.query(subject_id)) if labels and kind == "query" else f.message
            lines.append(f"  {label} {f.rule}{mark}: {neutralize(message)}")
            if f.also:
                lines.append(f"      same advice: {_same_advice(f.also)}")
            place = f"the first {f.rule} finding"
            paragraphs = [(name, text) for name, text in (("why", f.why), ("trade-off", f.tradeoff)) if text]
            paragraphs.append(("reference", f.reference))
            firsts = {said.get(p) for p in paragraphs}
            if len(firsts) == 1 and None not in firsts:  # all three said together before: one pointer
                lines.append(f"      {', '.join(name for name, _ in paragraphs)}: as for {firsts.pop()} above")
            else:
                for name, text in paragraphs:
                    lines.append(f"      {name}: {_once(said, (name, text), place, neutralize(text))}")
            if f.fix is not None:
                lines.append(f"      fix: {neutralize(f.fix.description)}")
        lines.append("")
    lines.append(total_line(findings))
    return "\n".join(lines) + "\n"


def total_line(findings: list[Finding]) -> str:
    """A check's last line: the findings counted as the GUI's Recommendations panel counts them, in plain words."""
    from modeller.rules.framework.sections import plain_summary

    return f"{counted(len(findings), 'finding')}: {plain_summary(findings)}"


def _same_advice(rule_ids: tuple[str, ...]) -> str:
    """The other rules behind one decision in words, each rule's id after it for overrides and ``--format json``:
    "Order a compound index Equality, Sort, Range (esr-compound-index)" (a bare "(also: esr-compound-index)" in the
    headline was a rule id where a reader looks for a sentence, tryout a14)."""
    from modeller.rules.framework.references import plain
    from modeller.rules.framework.registry import REGISTRY

    said = []
    for rule_id in rule_ids:
        rule = REGISTRY.get(rule_id)
        title = plain(rule.summary()).replace("``", "`").rstrip(".") if rule is not None else ""
        said.append(f"{title} ({rule_id})" if title else rule_id)
    return "; ".join(said)


def _once(said: dict[tuple[str, str], str], key: tuple[str, str], place: str, text: str) -> str:
    """``text`` the first time a check prints it; then a pointer to that first place (the same why, trade-off or
    reference under every index of one kind made a check of five collections 114 lines long)."""
    first = said.get(key)
    if first is None:
        said[key] = place
        return text
    return f"as for {first} above"


def _said_once(message: str, words: str) -> str:
    """A message of a query's group, which the heading already names: "this query" instead of its name again
    (``hot-path query 'x' (50/s) needs`` -> ``this hot-path query (50/s) needs``)."""
    pattern = re.compile(r"\b((?:hot-path|frequent) )?query " + re.escape(words) + r"(?![\w'])")
    return pattern.sub(lambda m: f"this {m[1] or ''}query", message)
