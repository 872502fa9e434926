"""English for counts and articles in text a user reads: "1 finding", "2 findings", "an email", "a User".

The CLI, the exporters, the engine's reasons and the GUI all say numbers and
names; they share these two helpers so none of them prints "1 findings" or
"a email".
"""

from __future__ import annotations

import re

#: words that begin with a vowel letter but sound like a consonant ("a user", "a one-off", "a European")
_VOWEL_LETTER_CONSONANT_SOUND = re.compile(r"^(?:u[bcdfgjklmnpqrstvz][aeiouy]|uu|url|eu|ewe|one\b|once)", re.I)
#: words that begin with a consonant letter but sound like a vowel ("an hour", "an honest")
_SILENT_H = re.compile(r"^(?:hour|honest|honou?r|heir)", re.I)
#: letters whose English name begins with a vowel sound: "an SKU", "an ID", "an HTML page", "an X axis"
_VOWEL_SOUND_LETTERS = set("AEFHILMNORSX")
#: u-words of that shape that still sound like a vowel: "an unusual", "an unable", "an upon"
_U_EXCEPTIONS = re.compile(r"^(?:un[aeou]|up[aeiou])", re.I)


def counted(n: int, one: str, many: str | None = None) -> str:
    """``counted(1, "finding")`` -> ``"1 finding"``, ``counted(3, "entity", "entities")`` -> ``"3 entities"``."""
    word = one if n == 1 else (many if many is not None else one + "s")
    return f"{n:,} {word}"


def article(word: str) -> str:
    """``"a"`` or ``"an"`` for ``word``, by how it sounds, not how it is spelled."""
    text = word.lstrip(" \"'`(_$")
    if not text:
        return "a"
    head = re.split(r"[\s._\-/]", text, maxsplit=1)[0]
    if head[:1].isdigit():
        digits = re.match(r"\d+", head)
        number = digits.group() if digits else ""
        return "an" if number.startswith("8") or (len(number) in (2, 5) and number.startswith(("11", "18"))) else "a"
    if len(head) > 1 and head.isupper() and head.isalpha():  # an acronym is read letter by letter
        return "an" if head[0] in _VOWEL_SOUND_LETTERS else "a"
    if _SILENT_H.match(head):
        return "an"
    first = head[:1].lower()
    if first in "aeio":
        return "a" if _VOWEL_LETTER_CONSONANT_SOUND.match(head) else "an"
    if first == "u":
        return "an" if _U_EXCEPTIONS.match(head) or not _VOWEL_LETTER_CONSONANT_SOUND.match(head) else "a"
    return "a"


def with_article(word: str) -> str:
    """``"an email"``, ``"a User"``: ``word`` after the article its sound takes."""
    return f"{article(word)} {word}"


#: the units a duration is said in, largest first
_DURATION_UNITS = ((86_400, "day"), (3_600, "hour"), (60, "minute"))


def duration(seconds: float) -> str:
    """``7776000`` -> ``"90 days"``, ``600`` -> ``"10 minutes"``: a period in the largest unit it fills
    (settings and the server take seconds; people read days)."""
    size, unit = next(((size, unit) for size, unit in _DURATION_UNITS if abs(seconds) >= size), (1, "second"))
    count = seconds / size
    return counted(int(count), unit) if float(count).is_integer() else f"{count:,.3g} {unit}s"
