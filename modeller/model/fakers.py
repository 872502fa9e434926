"""The Faker providers a ``faker`` key may name, and the field types each one can fill.

A project file is untrusted input: the ``faker`` key must never reach an
arbitrary attribute of the Faker object (``seed``, ``_factory_map``,
``__class__`` ...). This fixed list is the whole vocabulary; validation refuses
any other name (with a "did you mean" hint) and the exporter's dispatch
(:mod:`modeller.export.values`) calls only these. Every provider returns a
value BSON can hold once coerced to the field's type (docs/file-format.md).
"""

from __future__ import annotations

import difflib

#: Providers returning text: they fill ``string`` fields only.
_TEXT = (
    "name",
    "first_name",
    "last_name",
    "prefix",
    "suffix",
    "user_name",
    "email",
    "safe_email",
    "free_email",
    "company_email",
    "password",
    "phone_number",
    "msisdn",
    "address",
    "street_address",
    "street_name",
    "building_number",
    "city",
    "state",
    "state_abbr",
    "postcode",
    "zipcode",
    "country",
    "country_code",
    "company",
    "catch_phrase",
    "bs",
    "job",
    "word",
    "sentence",
    "paragraph",
    "text",
    "slug",
    "url",
    "uri",
    "domain_name",
    "hostname",
    "ipv4",
    "ipv4_private",
    "ipv6",
    "mac_address",
    "color_name",
    "hex_color",
    "currency_code",
    "language_code",
    "language_name",
    "locale",
    "timezone",
    "isbn10",
    "isbn13",
    "ean8",
    "ean13",
    "ssn",
    "iban",
    "bban",
    "swift",
    "credit_card_number",
    "license_plate",
    "file_name",
    "file_extension",
    "file_path",
    "mime_type",
    "md5",
    "sha1",
    "sha256",
    "uuid4",
)
#: Modeller's own text providers (made from word lists in modeller/export/meanings.py, not by Faker): the values
#: a field's meaning calls for where Faker has none (a product's name is not a person's).
_OWN_TEXT = (
    "product_name",
    "category",
    "tag",
    "genre",
    "title",
    "headline",
    "task",
    "status",
    "action",
    "brand",
    "sku",
    "device_name",
)
#: Small non-negative integers (at most 9999): any numeric field, or their digits as text.
_INTEGER = ("random_int", "random_digit", "pyint")
#: Floating numbers: double and decimal fields, or their text.
_FLOAT = ("pyfloat", "latitude", "longitude")
#: Dates inside the sample window (pinned, so a seed always gives the same date): date fields, or their text.
_DATE = ("date_time", "date", "date_of_birth")
#: Booleans: bool fields only.
_BOOL = ("boolean", "pybool")

#: provider name -> the field types (``FieldType`` words) whose values it can fill.
FAKER_PROVIDERS: dict[str, frozenset[str]] = {
    **{name: frozenset({"string"}) for name in (*_TEXT, *_OWN_TEXT)},
    **{name: frozenset({"int", "long", "double", "decimal", "string"}) for name in _INTEGER},
    **{name: frozenset({"double", "decimal", "string"}) for name in _FLOAT},
    **{name: frozenset({"date", "string"}) for name in _DATE},
    **{name: frozenset({"bool"}) for name in _BOOL},
}


def faker_problem(name: str, field_type: str) -> str | None:
    """Why ``name`` cannot be the ``faker`` of a ``field_type`` field, or None when it can."""
    suits = FAKER_PROVIDERS.get(name)
    if suits is None:
        close = difflib.get_close_matches(name[:80], list(FAKER_PROVIDERS), n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}?" if close else "see the list under 'faker' in docs/file-format.md"
        return f"faker {name[:80]!r} is not one of the supported Faker providers; {hint}"
    if field_type not in suits:
        fitting = sorted(p for p, types in FAKER_PROVIDERS.items() if field_type in types)
        instead = f"use one of {', '.join(fitting[:8])}" if fitting else "remove 'faker'"
        if len(fitting) > 8:
            instead += ", ..."
        return f"faker {name!r} makes {'/'.join(sorted(suits))} values, not {field_type!r} ones; {instead}"
    return None
