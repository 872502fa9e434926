"""A crash report never carries a secret a connection string held: user:password, password options, auth properties."""

from __future__ import annotations

import pytest

from modeller.persistence.crash import mask_secrets, report_text


@pytest.mark.parametrize(
    ("raw", "masked"),
    [
        ("mongodb://ann:hunter2@db.example/x", "mongodb://***@db.example/x"),
        ("mongodb://db.example/x?password=hunter2", "mongodb://db.example/x?password=***"),
        ("mongodb://db/x?authSource=admin&password=hunter2&w=1", "mongodb://db/x?authSource=admin&password=***&w=1"),
        ("mongodb://db/x?PASSWORD=hunter2", "mongodb://db/x?PASSWORD=***"),
        ("mongodb://db/?tlsCertificateKeyFilePassword=hunter2", "mongodb://db/?tlsCertificateKeyFilePassword=***"),
        ("mongodb://db/?sslPEMKeyPassword=hunter2;w=1", "mongodb://db/?sslPEMKeyPassword=***;w=1"),
        (
            "mongodb://db/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:hunter2",
            "mongodb://db/?authMechanism=MONGODB-AWS&authMechanismProperties=***",
        ),
        (
            "'mongodb+srv://u:p@c/?password=hunter2' refused",
            "'mongodb+srv://***@c/?password=***' refused",
        ),
    ],
)
def test_every_secret_part_of_a_uri_is_masked(raw: str, masked: str) -> None:
    assert mask_secrets(raw) == masked


def test_harmless_options_and_text_stay_as_they_are() -> None:
    text = "mongodb://db/x?authSource=admin&w=majority&appname=passwords-app; the password field is required"
    assert mask_secrets(text) == text


def test_the_report_masks_option_secrets_in_the_message_and_the_command_line() -> None:
    uri = "mongodb://db.example/prod?authSource=admin&password=hunter2&authMechanismProperties=AWS_SESSION_TOKEN:tok9"
    try:
        raise ConnectionError(f"cannot reach {uri}")
    except ConnectionError as exc:
        text = report_text(exc, "modeller infer", argv=["modeller", "infer", uri])
    assert "hunter2" not in text and "tok9" not in text
    assert text.count("password=***") == 2 and text.count("authMechanismProperties=***") == 2
