"""How the command line talks: exit codes, one-line messages, and nothing raw from the user.

Everything the CLI prints goes through :func:`say`, :func:`fail` or
:func:`write_json`, which pass user text (file names, entity names, problems)
through :func:`modeller.model.text.neutralize`: an ESC sequence in a file name
must not retitle or clear the terminal, a bidi override must not reorder it.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from modeller.model.text import BIDI_CONTROLS, neutralize

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3

# what JSON (ensure_ascii=False) leaves raw but a terminal would act on: DEL, C1 controls, bidi, separators
_JSON_UNSAFE = str.maketrans(
    {c: f"\\u{ord(c):04x}" for c in "\x7f" + "".join(map(chr, range(0x80, 0xA0))) + "\u2028\u2029" + BIDI_CONTROLS}
)


def say(message: str, stream: TextIO | None = None, multiline: bool = False) -> None:
    """Print ``message`` to stdout or ``stream``, neutralized and on one line (``multiline``: lines kept)."""
    print(neutralize(message, keep_newlines=multiline), file=sys.stdout if stream is None else stream)


def fail(message: str, code: int = EXIT_BAD_INPUT, multiline: bool = False) -> int:
    """Print ``modeller: error: MESSAGE`` to stderr and return ``code``."""
    say(f"modeller: error: {message}", sys.stderr, multiline)
    return code


def write_json(data: Any) -> None:
    """``data`` as indented JSON on stdout; characters a terminal would act on are ``\\uXXXX`` escapes."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    # outside strings JSON is plain ASCII, so every such character is inside a string: escaping keeps the value
    sys.stdout.write(text.translate(_JSON_UNSAFE) + "\n")


#: ``--color`` choices; every command takes the option (added in ``cli.main.build_parser``)
COLOR_MODES = ("auto", "always", "never")


def use_colour(mode: str = "auto", stream: object = None, environ: Mapping[str, str] = os.environ) -> bool:
    """``--color``: ``always``/``never`` decide; ``auto`` colours only a terminal, and not with ``NO_COLOR`` set.

    ``NO_COLOR`` (https://no-color.org) is any non-empty value; an explicit ``--color always`` wins over it.
    """
    if mode != "auto":
        return mode == "always"
    if environ.get("NO_COLOR") or environ.get("TERM") == "dumb":
        return False
    target = sys.stdout if stream is None else stream
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())
