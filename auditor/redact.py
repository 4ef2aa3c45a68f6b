"""Redacting secrets from the excerpts the auditor writes (evidence, reply sentences).

Transcripts carry whatever tools and people wrote, tokens included. Every excerpt in every
output goes through ``Redactor.apply`` unless the user turns it off (``--no-redact``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SECRET_PATTERNS: tuple[tuple[str, str], ...] = (
    ("authorization-header", r"(?i)\b(authorization|proxy-authorization)(\s*[:=]\s*)[^\r\n,;]+"),
    ("bearer-token", r"(?i)\b(bearer|token)(\s+)[A-Za-z0-9\-._~+/]{12,}=*"),
    ("jwt", r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    ("openai-key", r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"),
    ("github-token", r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    ("aws-access-key", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    (
        "api-key-assignment",
        r"(?i)\b(api[_-]?key|secret|password|passwd|access[_-]?token)"
        r"(\s*[\"']?\s*[:=]\s*[\"']?)[^\s\"',;]{6,}",
    ),
)
EMAIL_PATTERN = r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"
MASK = "[redacted]"


@dataclass(frozen=True)
class Redactor:
    """Replaces secrets (and, when asked, email addresses) with ``[redacted]``."""

    enabled: bool = True
    emails: bool = False

    def apply(self, text: str | None) -> str | None:
        if not text or not self.enabled:
            return text
        for regex in _compiled(self.emails):
            text = regex.sub(_keep_label, text)
        return text


def _keep_label(match: re.Match[str]) -> str:
    """Keep the name of a header or key ("Authorization: ") and mask its value."""
    if match.re.groups >= 2 and match.group(2) is not None:
        return match.group(1) + match.group(2) + MASK
    return MASK


_CACHE: dict[bool, list[re.Pattern[str]]] = {}


def _compiled(emails: bool) -> list[re.Pattern[str]]:
    if emails not in _CACHE:
        patterns = [p for _, p in SECRET_PATTERNS] + ([EMAIL_PATTERN] if emails else [])
        _CACHE[emails] = [re.compile(p) for p in patterns]
    return _CACHE[emails]
