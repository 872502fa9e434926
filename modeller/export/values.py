"""Realistic sample values: Faker chosen by field name, entity and type, deterministic per seed.

Faker is seeded locally (``seed_instance``) and every choice goes through a
local ``random.Random``: no global state, so two exports with the same seed are
byte-identical and do not disturb anyone else's randomness. Faker calls cost up
to 0.1 ms each, so each provider fills a small pool once per export and
documents pick from it (unique fields call Faker directly).
"""

from __future__ import annotations

import datetime as dt
import functools
import operator
import random
import re
import threading
import uuid
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from bson import Binary, Decimal128, Int64, ObjectId
from faker import Faker

from modeller.export.meanings import TEMPLATES, meaning_provider, template_call
from modeller.model.fakers import FAKER_PROVIDERS

#: Sample dates fall in this window (fixed: "now" would break determinism).
DATE_START = dt.datetime(2023, 1, 1, tzinfo=dt.UTC)
DATE_SPAN_S = 2 * 365 * 24 * 3600

_POOL_SIZE = 24
_WORD = re.compile(r"[^a-z0-9]+")

#: normalized field name -> Faker provider (string fields).
_STRING_BY_NAME: dict[str, str] = {
    "email": "email",
    "mail": "email",
    "e_mail": "email",
    "email_address": "email",
    "first_name": "first_name",
    "firstname": "first_name",
    "given_name": "first_name",
    "last_name": "last_name",
    "lastname": "last_name",
    "surname": "last_name",
    "family_name": "last_name",
    "name": "name",
    "full_name": "name",
    "fullname": "name",
    "display_name": "name",
    "author": "name",
    "owner": "name",
    "customer": "name",
    "contact": "name",
    "author_name": "name",
    "customer_name": "name",
    "holder": "name",
    "user": "user_name",
    "username": "user_name",
    "user_name": "user_name",
    "login": "user_name",
    "handle": "user_name",
    "nickname": "user_name",
    "city": "city",
    "town": "city",
    "location": "city",
    "country": "country",
    "state": "state",
    "region": "state",
    "province": "state",
    "street": "street_address",
    "address": "street_address",
    "address_line": "street_address",
    "street_address": "street_address",
    "zip": "postcode",
    "zipcode": "postcode",
    "zip_code": "postcode",
    "postcode": "postcode",
    "postal_code": "postcode",
    "phone": "phone_number",
    "phone_number": "phone_number",
    "mobile": "phone_number",
    "tel": "phone_number",
    "telephone": "phone_number",
    "cell": "phone_number",
    "fax": "phone_number",
    "company": "company",
    "organisation": "company",
    "organization": "company",
    "employer": "company",
    "publisher": "company",
    "manufacturer": "company",
    "brand": "brand",
    "vendor": "company",
    "url": "url",
    "website": "url",
    "homepage": "url",
    "link": "url",
    "image": "url",
    "image_url": "url",
    "avatar": "url",
    "photo": "url",
    "picture": "url",
    "profile_pic": "url",
    "uri": "uri",
    "domain": "domain_name",
    "hostname": "hostname",
    "host": "hostname",
    "host_name": "hostname",
    "ip": "ipv4",
    "ipaddr": "ipv4",
    "ip_address": "ipv4",
    "ipv4": "ipv4",
    "ipv6": "ipv6",
    "mac": "mac_address",
    "mac_address": "mac_address",
    "title": "title",
    "headline": "headline",
    "subject": "headline",
    "label": "tag",
    "description": "sentence",
    "body": "paragraph",
    "text": "sentence",
    "content": "paragraph",
    "message": "sentence",
    "msg": "sentence",
    "comment": "sentence",
    "summary": "sentence",
    "bio": "sentence",
    "note": "sentence",
    "notes": "sentence",
    "review": "sentence",
    "details": "sentence",
    "color": "color_name",
    "colour": "color_name",
    "currency": "currency_code",
    "language": "language_code",
    "lang": "language_code",
    "locale": "locale",
    "timezone": "timezone",
    "job": "job",
    "occupation": "job",
    "job_title": "job",
    "isbn": "isbn13",
    "ssn": "ssn",
    "iban": "iban",
    "license_plate": "license_plate",
    "file_name": "file_name",
    "filename": "file_name",
    "path": "file_path",
    "mime_type": "mime_type",
    "password": "sha256",
    "hash": "sha256",
    "token": "sha256",
    "slug": "slug",
    "word": "word",
    "tag": "tag",
    "tags": "tag",
    "keyword": "tag",
    "keywords": "tag",
    "category": "category",
    "categories": "category",
    "genre": "genre",
    "genres": "genre",
    "type": "word",
    "kind": "word",
    "status": "status",
    "action": "action",
    "level": "word",
    "sku": "sku",
    "number": "sku",
    "reference": "sku",
    "code": "ean8",
    "barcode": "ean13",
    "ean": "ean13",
    "model": "word",
    "product": "product_name",
    "product_name": "product_name",
    "item": "product_name",
    "item_name": "product_name",
    "device": "device_name",
    "sensor": "device_name",
    "department": "word",
    "school": "company",
    "team": "company",
    "room": "building_number",
    "building": "building_number",
    "latitude_text": "latitude",
    "card_number": "credit_card_number",
}

#: normalized name fragment -> provider, tried when no exact name matches (suffixes first).
_STRING_BY_SUFFIX: tuple[tuple[str, str], ...] = (
    ("_email", "email"),
    ("_name", "name"),
    ("_city", "city"),
    ("_country", "country"),
    ("_phone", "phone_number"),
    ("_address", "street_address"),
    ("_url", "url"),
    ("_ip", "ipv4"),
    ("_title", "title"),
    ("_description", "sentence"),
    ("_text", "sentence"),
    ("_code", "ean8"),
    ("_status", "status"),
    ("_sku", "sku"),
    ("_type", "word"),
    ("email", "email"),
    ("phone", "phone_number"),
)

#: normalized name -> (low, high) for integer-like fields.
_INT_RANGES: dict[str, tuple[int, int]] = {
    "age": (18, 90),
    "year": (1990, 2025),
    "month": (1, 12),
    "day": (1, 28),
    "hour": (0, 23),
    "minute": (0, 59),
    "second": (0, 59),
    "rating": (1, 5),
    "stars": (1, 5),
    "score": (0, 100),
    "percent": (0, 100),
    "percentage": (0, 100),
    "port": (1024, 65535),
    "floor": (0, 40),
    "quantity": (1, 20),
    "qty": (1, 20),
    "count": (0, 500),
    "stock": (0, 500),
    "available": (0, 50),
    "copies": (1, 20),
    "pages": (40, 900),
    "priority": (1, 5),
    "version": (1, 5),
    "revision": (1, 20),
    "duration": (1, 600),
    "views": (0, 100000),
    "likes": (0, 5000),
    "capacity": (1, 500),
    "ram": (4, 64),
    "storage": (64, 2048),
}

#: normalized name -> (low, high) for floating fields.
_FLOAT_RANGES: dict[str, tuple[float, float]] = {
    "price": (1, 500),
    "amount": (1, 2000),
    "cost": (1, 500),
    "total": (1, 5000),
    "balance": (0, 10000),
    "salary": (20000, 150000),
    "rating": (1, 5),
    "score": (0, 100),
    "temperature": (-10, 40),
    "temp": (-10, 40),
    "humidity": (10, 95),
    "pressure": (950, 1050),
    "value": (0, 100),
    "reading": (0, 100),
    "weight": (0.1, 100),
    "height": (0.1, 3),
    "width": (0.1, 3),
    "length": (0.1, 10),
    "speed": (0, 130),
    "latitude": (-90, 90),
    "lat": (-90, 90),
    "longitude": (-180, 180),
    "lng": (-180, 180),
    "lon": (-180, 180),
    "discount": (0, 50),
    "tax": (0, 25),
    "percent": (0, 100),
    "hours": (0.5, 40),
    "distance": (0.1, 500),
    "voltage": (200, 250),
    "cpu": (0, 100),
    "memory": (0, 100),
    "screen_size": (5, 17),
    "screen": (5, 17),
}


@functools.lru_cache(maxsize=4096)
def normalize(name: str) -> str:
    """``"Email Address"`` -> ``"email_address"``: the key for the name tables."""
    return _WORD.sub("_", name.lower()).strip("_")


def truncate_ms(value: dt.datetime) -> dt.datetime:
    """BSON dates keep milliseconds only: drop the rest so a round trip is exact."""
    return value.replace(microsecond=value.microsecond // 1000 * 1000)


def _within(base: tuple[float, float], low: float | None, high: float | None) -> tuple[float, float]:
    """The name's usual range narrowed to the validator's bounds (the validator wins when they miss)."""
    lo, hi = base
    if low is not None:
        lo = max(lo, low)
    if high is not None:
        hi = min(hi, high)
    if lo > hi:
        lo = low if low is not None else hi
        hi = high if high is not None else lo
        hi = max(hi, lo)
    return lo, hi


@functools.lru_cache(maxsize=4096)
def _string_provider(field: str, kind: str | None) -> str:
    """The provider for a string field: by its meaning on an entity of ``kind``, its exact name, suffix, or ``word``."""
    key = normalize(field)
    meant = meaning_provider(key, kind)
    if meant is not None:
        return meant
    if key in _STRING_BY_NAME:
        return _STRING_BY_NAME[key]
    for suffix, provider in _STRING_BY_SUFFIX:
        if key.endswith(suffix):
            return provider
    return "word"


@functools.lru_cache(maxsize=4096)
def _int_range(field: str) -> tuple[int, int]:
    key = normalize(field)
    return _INT_RANGES.get(key) or _INT_RANGES.get(key.rsplit("_", 1)[-1]) or (0, 1000)


@functools.lru_cache(maxsize=4096)
def _float_range(field: str) -> tuple[float, float]:
    key = normalize(field)
    return _FLOAT_RANGES.get(key) or _FLOAT_RANGES.get(key.rsplit("_", 1)[-1]) or (0.0, 1000.0)


#: Last day of the sample window, for the date providers (pinned: Faker's defaults depend on today).
_DATE_END = DATE_START + dt.timedelta(seconds=DATE_SPAN_S)


def _faker_call(name: str) -> Callable[[Faker], Any]:
    """Call the provider ``name`` (a constant of the allow-list) with Faker's defaults."""
    return operator.methodcaller(name)


#: The only Faker calls an export makes: allow-listed name -> call (``modeller.model.fakers``).
FAKER_CALLS: dict[str, Callable[[Faker], Any]] = {
    **{name: _faker_call(name) for name in FAKER_PROVIDERS if name not in TEMPLATES},
    **{name: template_call(name) for name in TEMPLATES},
    "date_time": lambda f: f.date_time_between(DATE_START, _DATE_END),
    "date": lambda f: f.date_between(DATE_START.date(), _DATE_END.date()),
    "date_of_birth": lambda f: f.date_between(dt.date(1950, 1, 1), dt.date(2005, 12, 31)),
}

_LOCAL = threading.local()


def _thread_faker() -> Faker:
    """One ``Faker("en_US")`` per thread, reused by every export.

    Building one scans Faker's provider packages (about 0.1 s). Reuse keeps
    the output unchanged because every use starts with ``seed_instance``, and
    a thread never interleaves two uses.
    """
    faker: Faker | None = getattr(_LOCAL, "faker", None)
    if faker is None:
        faker = Faker("en_US")
        _LOCAL.faker = faker
    return faker


class ValueFactory:
    """Makes sample values for one export; pools are shared, choices use the caller's ``rng``."""

    def __init__(self, seed: int) -> None:
        self._faker = _thread_faker()
        self._seed = seed
        self._pools: dict[str, list[Any]] = {}

    def provider(self, name: str) -> Callable[[], Any] | None:
        """The allow-listed Faker provider ``name`` bound to this export's Faker, or None.

        Only names in :data:`FAKER_CALLS` are ever called: a ``faker`` key from a
        file never reaches an arbitrary attribute of the Faker object.
        """
        call = FAKER_CALLS.get(name)
        return None if call is None else functools.partial(call, self._faker)

    def pooled(self, provider: str, rng: random.Random) -> Any:
        """A value of ``provider`` from a pool filled once per export (same seed, same pool)."""
        pool = self._pools.get(provider)
        if pool is None:
            method = self.provider(provider)
            if method is None:
                raise KeyError(provider)
            self._faker.seed_instance(f"{self._seed}/{provider}")
            pool = [method() for _ in range(_POOL_SIZE)]
            self._pools[provider] = pool
        return rng.choice(pool)

    def fresh(self, provider: str, rng: random.Random) -> Any:
        """A new value straight from Faker (for unique fields), seeded from ``rng``."""
        method = self.provider(provider)
        if method is None:
            raise KeyError(provider)
        self._faker.seed_instance(rng.getrandbits(64))
        return method()

    # -- by type ---------------------------------------------------------------------------------

    @staticmethod
    def string_provider(field: str, kind: str | None = None) -> str:
        """The provider for ``field`` on an entity of ``kind`` (:func:`modeller.export.meanings.entity_kind`)."""
        return _string_provider(field, kind)

    def int_value(self, field: str, rng: random.Random, low: int | None, high: int | None) -> int:
        lo, hi = _within(_int_range(field), low, high)
        return rng.randint(int(lo), int(hi))

    def float_value(self, field: str, rng: random.Random, low: float | None, high: float | None) -> float:
        lo, hi = _within(_float_range(field), low, high)
        value = round(rng.uniform(lo, hi), 2)
        return min(max(value, lo), hi)

    def date_value(self, field: str, rng: random.Random) -> dt.datetime:
        key = normalize(field)
        if key in ("birthday", "birth_date", "date_of_birth", "dob", "born", "birthdate"):
            start = dt.datetime(1950, 1, 1, tzinfo=dt.UTC)
            return truncate_ms(start + dt.timedelta(seconds=rng.randrange(55 * 365 * 24 * 3600)))
        offset = dt.timedelta(seconds=rng.randrange(DATE_SPAN_S), milliseconds=rng.randrange(1000))
        return truncate_ms(DATE_START + offset)

    @staticmethod
    def object_id(rng: random.Random) -> ObjectId:
        """An ObjectId whose timestamp lies in the sample window (it looks like a real one)."""
        stamp = int(DATE_START.timestamp()) + rng.randrange(DATE_SPAN_S)
        return ObjectId(stamp.to_bytes(4, "big") + rng.getrandbits(64).to_bytes(8, "big"))

    @staticmethod
    def uuid_value(rng: random.Random) -> Binary:
        return Binary.from_uuid(uuid.UUID(int=rng.getrandbits(128), version=4))

    @staticmethod
    def bin_value(rng: random.Random) -> Binary:
        return Binary(rng.getrandbits(128).to_bytes(16, "big"))

    @staticmethod
    def long_value(value: int) -> Int64:
        return Int64(value)

    @staticmethod
    def decimal_value(value: float) -> Decimal128:
        return Decimal128(Decimal(f"{value:.2f}"))

    @staticmethod
    def point(rng: random.Random) -> dict[str, Any]:
        """A GeoJSON point (longitude first), as 2dsphere indexes want it."""
        return {"type": "Point", "coordinates": [round(rng.uniform(-180, 180), 6), round(rng.uniform(-90, 90), 6)]}
