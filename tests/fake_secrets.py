"""Well-formed fake secrets, one per kind the redactor masks, for the redaction tests.

Each is built by concatenation from a seeded random generator, so that no key is written out in
this repository for secret scanners to flag. ``telltale`` is the part that must never be written
by the auditor: the random part of the key, not its well-known prefix.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass

ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
BASE64 = ALNUM + "+/"


@dataclass(frozen=True)
class Secret:
    kind: str
    text: str  # as it stands in a transcript
    telltale: str  # what no output may contain

    def __str__(self) -> str:
        return self.kind


def chars(seed: str, count: int, alphabet: str = ALNUM) -> str:
    """``count`` random characters of ``alphabet``, the same for the same seed."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(count))


def secret(kind: str, before: str, random_part: str, after: str = "") -> Secret:
    return Secret(kind, before + random_part + after, random_part)


def _pem() -> Secret:
    body = [chars(f"pem{i}", 64, BASE64) for i in range(3)]
    text = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + "\n".join(body)
    return Secret("pem-private-key", text + "\n-----END RSA " + "PRIVATE KEY-----", body[1])


# The five kinds the issue found written out.
ISSUE_KINDS = (
    secret("stripe-live-key", "sk_" + "live_", chars("stripe", 24)),
    secret("google-api-key", "AI" + "za", chars("google", 35, ALNUM + "-_")),
    secret(
        "slack-webhook",
        "https://hooks.slack.com/services/"
        + ("T0" + chars("team", 7, UPPER_ALNUM) + "/B0" + chars("bot", 7, UPPER_ALNUM) + "/"),
        chars("hook", 24),
    ),
    _pem(),
    secret("url-password", "postgres://app:", chars("pg", 14), "@db.internal:5432/prod"),
)

# A kind of each of detect-secrets' pattern plugins.
LIBRARY_KINDS = (
    secret("aws-access-key", "AK" + "IA", chars("aws", 16, UPPER_ALNUM)),
    secret("github-token", "gh" + "p_", chars("ghp", 36)),
    secret("gitlab-token", "gl" + "pat-", chars("glpat", 20)),
    secret(
        "jwt",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
        chars("jwt", 43, ALNUM + "-_"),
    ),
    secret("twilio-key", "S" + "K", chars("twilio", 32, HEX)),
    secret(
        "sendgrid-key", "S" + "G." + chars("sg1", 22) + ".", chars("sendgrid", 43, ALNUM + "-_")
    ),
    secret("square-oauth", "sq0" + "csp-", chars("square", 43)),
    secret("mailchimp-key", "", chars("mailchimp", 32, HEX), "-us12"),
    secret("npm-token", "//registry.npmjs.org/:_auth" + "Token=npm_", chars("npm", 36)),
    secret("pypi-token", "pypi-" + "AgEIcHlwaS5vcmc", chars("pypi", 70)),
    secret("telegram-bot-token", "123456789:", chars("telegram", 35)),
    secret(
        "discord-bot-token",
        "M" + chars("discord1", 23) + "." + chars("discord2", 6) + ".",
        chars("discord", 27),
    ),
    secret("azure-storage-key", "Account" + "Key=", chars("azure", 86, BASE64), "=="),
    secret(
        "slack-bot-token",
        "xo" + "xb-" + "123456789012-1234567890123-",
        chars("xoxb", 24, LOWER_ALNUM),
    ),
    secret("stripe-restricted-key", "rk_" + "live_", chars("rk", 24)),
    secret(
        "openai-legacy-key",
        "sk-" + chars("oa1", 20) + "T3Blbk" + "FJ",
        chars("openai", 20),
    ),
    secret("artifactory-token", "AK" + "C", chars("artifactory", 70)),
    secret("ibm-cloud-iam-key", "ibm_cloud_iam_api_" + "key = ", chars("ibm", 44, ALNUM + "_-")),
    secret("softlayer-key", "softlayer_api_" + "key = ", chars("softlayer", 64, LOWER_ALNUM)),
    secret("cloudant-url", "https://acct:", chars("cloudant", 64, HEX), "@acct.cloudant.com"),
    secret("ibm-cos-hmac", "cos_hmac_secret_access_" + "key = ", chars("cos", 48, HEX)),
)

# The auditor's own patterns, for what detect-secrets lacks.
OWN_KINDS = (
    secret("authorization-header", "Authorization: " + "Basic ", chars("basic", 24, BASE64)),
    secret("bearer-token", "Bearer ", chars("bearer", 32)),
    secret("anthropic-key", "sk-" + "ant-api03-", chars("anthropic", 40, ALNUM + "-_")),
    secret("openai-project-key", "sk-" + "proj-", chars("project", 40, ALNUM + "-_")),
    secret("github-fine-grained", "github_" + "pat_", chars("pat", 60, ALNUM + "_")),
    secret("password-assignment", "DB_PASS" + "WORD=", chars("password", 12)),
)

ALL_KINDS = ISSUE_KINDS + LIBRARY_KINDS + OWN_KINDS
