"""The redactor on its own: every kind of secret masked wherever it stands, the names of keys
kept readable, and what is not a secret left alone. Every output is covered in
test_redact_outputs.py."""

import json

import pytest
from builders import one_call, text_block
from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
from detect_secrets.plugins.base import RegexBasedDetector
from fake_secrets import ALL_KINDS, Secret, chars

from auditor.audit.payload import clip
from auditor.redact import (
    ASSIGNMENT_CLUES,
    KEYWORDS,
    MASK,
    NAME_CLUES,
    SECRET_PATTERNS,
    Redactor,
    shorten,
)

CONTEXTS = {
    "prose": "error: {} was rejected",
    "json": None,  # a JSON string value, as in a tool's arguments or result
    "compact": '{{"config":"{}"}}',
}


def in_context(secret: Secret, context: str) -> str:
    if CONTEXTS[context] is None:
        return json.dumps({"value": secret.text})
    return CONTEXTS[context].format(secret.text)


@pytest.mark.parametrize("context", CONTEXTS)
@pytest.mark.parametrize("secret", ALL_KINDS, ids=str)
def test_every_kind_of_secret_is_masked(secret: Secret, context: str):
    masked = Redactor().apply(in_context(secret, context))
    assert secret.telltale not in masked
    assert MASK in masked


def test_every_pattern_plugin_of_detect_secrets_is_used_but_public_ips():
    plugins = get_mapping_from_secret_type_to_class().values()
    expected = {p.__name__ for p in plugins if issubclass(p, RegexBasedDetector)}
    used = {pattern.name for pattern in SECRET_PATTERNS}
    assert expected - {"IPPublicDetector"} <= used
    assert "IPPublicDetector" not in used


def test_public_ip_addresses_are_left_as_they_are():
    text = "POST 203.0.113.7:443 with Bearer " + chars("ip", 32) + " refused"
    assert Redactor().apply(text) == "POST 203.0.113.7:443 with Bearer [redacted] refused"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("Authorization: Basic " + chars("a", 24), "Authorization: [redacted]"),
        (
            "postgres://app:" + chars("b", 14) + "@db.internal/prod",
            "postgres://app:[redacted]@db.internal/prod",
        ),
        ('{"client_secret": "' + chars("c", 20) + '"}', '{"client_secret": "[redacted]"}'),
        ("DB_PASSWORD=" + chars("d", 12) + " ./migrate", "DB_PASSWORD=[redacted] ./migrate"),
    ],
)
def test_the_name_of_a_key_stays_readable(text: str, masked: str):
    assert Redactor().apply(text) == masked


def test_a_private_key_block_is_masked_whole_across_its_lines():
    pem = ALL_KINDS[3]
    assert Redactor().apply(f"wrote id_rsa:\n{pem.text}\ndone") == "wrote id_rsa:\n[redacted]\ndone"


def test_a_private_key_cut_short_in_an_excerpt_is_masked_to_its_end():
    pem = ALL_KINDS[3]
    evidence = clip(f"permission denied reading {pem.text}", 160)  # one line of its body kept
    assert Redactor().apply(evidence) == "permission denied reading [redacted]…"


def test_a_key_longer_than_its_pattern_is_masked_to_its_end():
    tail = chars("tail", 75)
    masked = Redactor().apply("charge failed for sk_" + "live_" + chars("head", 24) + tail)
    assert masked == "charge failed for [redacted]"


def test_a_key_prefix_inside_another_word_is_no_key():
    text = "the task-scheduler-worker-pool-size setting and AKIAnalytics-exporter-service"
    assert Redactor().apply(text) == text


def test_the_shell_working_directory_is_no_password():
    text = "PWD=/home/runner/work/service DB_PASSWORD=" + chars("env", 12)
    assert Redactor().apply(text) == "PWD=/home/runner/work/service DB_PASSWORD=[redacted]"


@pytest.mark.parametrize(
    "text",
    [
        "let secret_key = generate_secret_key();",
        "headers = {'api_key': request.headers['x-api-key']}",
        "api_key: <API_KEY>",
        "PGPASSWORD=$DB_PASSWORD psql -h db",
        'password: "********"',
    ],
)
def test_a_key_name_whose_value_only_refers_to_a_secret_is_left_as_it_is(text: str):
    assert Redactor().apply(text) == text


def test_key_names_are_found_in_any_case():
    assert Redactor().apply("AUTHORIZATION: BASIC " + chars("e", 24)) == "AUTHORIZATION: [redacted]"


def test_a_text_whose_lower_case_is_longer_is_masked_all_the_same():
    # "İ" lowers to two characters, so the lower-case text no longer lines up with the text.
    text = "İstanbul office: password=" + chars("f", 12) + " (rotated)"
    assert Redactor().apply(text) == "İstanbul office: password=[redacted] (rotated)"


def test_every_key_name_has_a_clue_so_the_quick_look_lets_it_through():
    clues = NAME_CLUES + ASSIGNMENT_CLUES
    missing = [name for name in KEYWORDS if not any(clue in name for clue in clues)]
    assert not missing


def test_emails_are_masked_only_when_asked():
    text = "sent the report to ops@acme.io"
    assert Redactor().apply(text) == text
    assert Redactor(emails=True).apply(text) == "sent the report to [redacted]"


GIT_SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"
RANDOM_TOKEN = chars("entropy", 40)  # random keys this long are over the limit


def test_random_looking_words_are_left_as_they_are_by_default():
    text = f"commit {GIT_SHA} pushed with session {RANDOM_TOKEN}"
    assert Redactor().apply(text) == text


def test_random_looking_words_are_masked_when_asked():
    masked = Redactor(entropy=True).apply(f"commit {GIT_SHA} pushed with session {RANDOM_TOKEN}")
    assert masked == "commit [redacted] pushed with session [redacted]"


def test_long_ordinary_words_are_not_random():
    text = "internationalization_configuration_loader failed"
    assert Redactor(entropy=True).apply(text) == text


def test_no_redact_leaves_the_text_as_it_is():
    text = "error: sk_" + "live_" + chars("g", 24)
    assert Redactor(enabled=False).apply(text) == text


# ----------------------------------------------------------------------------- cutting short
def test_a_cut_leaves_out_the_start_of_a_key_rather_than_write_it():
    key = chars("cut", 24)
    text = "x" * 100 + " rejected sk_" + "live_" + key + " for charge"
    short = shorten(text, 120)
    assert short == "x" * 100 + " rejected…"


def test_a_cut_inside_compact_json_leaves_out_the_start_of_the_key():
    text = '{"note":"' + "y" * 90 + '","key":"sk_' + "live_" + chars("json", 24) + '"}'
    assert shorten(text, 120).endswith('","key":"…')


def test_a_key_at_the_edge_of_the_evidence_limit_is_not_half_written():
    key = chars("edge", 24)
    message = "Payment declined. " + "The card issuer refused the charge. " * 4
    message += "Try another card or key: sk_" + "live_" + key
    assert message.index(key) == 195  # the evidence keeps 199 characters and an ellipsis
    row = one_call("Charged ✅", {"content": text_block(message), "isError": True}, "charge_card")
    assert row["evidence"].endswith("another card or key:…")
