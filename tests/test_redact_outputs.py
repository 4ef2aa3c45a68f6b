"""Secrets stay out of every output. A conversation carries a secret in the person's request, the
call's arguments, the tool's error and the reply that claims success, and a broken line beside
it carries it too; then every output a user reads is checked: the tables of a default scan in
each format, the rejects, the summary, what the scan prints, ``show``, ``incident`` (terminal
and JSON), the HTML and Markdown reports and a notebook's timeline. None holds the secret, each
holds the mask."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from builders import assistant, call, chat, text_block, tool, user
from fake_secrets import ISSUE_KINDS, LIBRARY_KINDS, OWN_KINDS, Secret
from typer.testing import CliRunner

from auditor.cli import app
from auditor.notebook import load, timeline
from auditor.readers import openai_chat
from auditor.redact import MASK

# The issue's five kinds, a sample of detect-secrets' and of the auditor's own.
KINDS = (
    ISSUE_KINDS
    + tuple(s for s in LIBRARY_KINDS if s.kind in ("aws-access-key", "github-token", "jwt"))
    + tuple(s for s in LIBRARY_KINDS if s.kind in ("twilio-key", "sendgrid-key", "npm-token"))
    + tuple(s for s in OWN_KINDS if s.kind in ("authorization-header", "anthropic-key"))
)
FORMATS = ("parquet", "jsonl", "csv")
OUTPUTS = (
    *(f"{table}.{fmt}" for fmt in FORMATS for table in ("calls", "findings")),
    "rejects.jsonl",
    "summary.json",
    "scan terminal",
    "show",
    "incident",
    "incident --json",
    "report.html",
    "report.md",
    "notebook timeline",
)
runner = CliRunner()


def invoke(*args: object):
    # Wide, so that no line of a secret is folded in two and missed.
    result = runner.invoke(app, [str(a) for a in args], env={"COLUMNS": "500"})
    assert result.exit_code in (0, 1, 3), result.output
    return result


def leaky(secret: Secret) -> dict:
    return chat(
        user(f"Deploy the service with {secret.text} please."),
        assistant(None, call("c1", "deploy", credential=secret.text)),
        tool(
            "c1", text_block(f"401 Unauthorized: credential {secret.text} rejected"), isError=True
        ),
        assistant(f"Deployed with {secret.text} ✅"),
        conversation_id=f"leak-{secret.kind}",
    )


def broken_line(secret: Secret) -> str:
    """A line cut off by the writer: a reject whose excerpt quotes it."""
    return '{"note": ' + json.dumps(secret.text)


def table_text(path: Path) -> str:
    if path.suffix == ".parquet":
        return pl.read_parquet(path).write_csv()
    return path.read_text(encoding="utf-8")


def everything_written(folder: Path, secret: Secret) -> dict[str, str]:
    """Every output of a scan of the leaky conversation, by name."""
    logs = folder / "logs.jsonl"
    logs.write_text(json.dumps(leaky(secret)) + "\n" + broken_line(secret) + "\n", encoding="utf-8")
    written: dict[str, str] = {}
    for fmt in FORMATS:
        result = invoke("scan", logs, "--out", folder / fmt, "--format", fmt)
        for table in ("calls", "findings"):
            written[f"{table}.{fmt}"] = table_text(folder / fmt / f"{table}.{fmt}")
    out = folder / "parquet"  # the default scan
    written["scan terminal"] = invoke("scan", logs, "--out", out).output
    written["rejects.jsonl"] = (out / "rejects.jsonl").read_text(encoding="utf-8")
    written["summary.json"] = (out / "summary.json").read_text(encoding="utf-8")
    written["show"] = invoke("show", f"leak-{secret.kind}", "--out", out).output
    written["incident"] = invoke("incident", "--out", out).output
    written["incident --json"] = invoke("incident", "--out", out, "--json").output
    html, markdown = folder / "report.html", folder / "report.md"
    invoke("report", out, "--html", html, "--markdown", markdown)
    written["report.html"] = html.read_text(encoding="utf-8")
    written["report.md"] = markdown.read_text(encoding="utf-8")
    written["notebook timeline"] = timeline(load(out), f"leak-{secret.kind}")._repr_html_()
    assert result.output  # every scan ran
    return written


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Secret], dict[str, str]]:
    """The outputs of one kind, made once for all the outputs checked."""
    made: dict[str, dict[str, str]] = {}

    def of(secret: Secret) -> dict[str, str]:
        if secret.kind not in made:
            made[secret.kind] = everything_written(tmp_path_factory.mktemp(secret.kind), secret)
        return made[secret.kind]

    return of


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("secret", KINDS, ids=str)
def test_no_output_carries_the_secret(outputs, secret: Secret, output: str):
    text = outputs(secret)[output]
    assert secret.telltale not in text
    assert MASK in text


STRIPE = ISSUE_KINDS[0]


def test_incident_and_report_mask_a_table_written_without_redaction(tmp_path: Path):
    # As a table written by an auditor that did not know the kind, or with --no-redact.
    (tmp_path / "logs.jsonl").write_text(json.dumps(leaky(STRIPE)) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    invoke("scan", tmp_path / "logs.jsonl", "--out", out, "--no-redact")
    assert STRIPE.telltale in table_text(out / "calls.parquet")
    invoke("report", out, "--html", tmp_path / "report.html")
    shown = (
        invoke("incident", "--out", out).output + invoke("incident", "--out", out, "--json").output
    )
    shown += (tmp_path / "report.html").read_text(encoding="utf-8")
    assert STRIPE.telltale not in shown
    assert MASK in shown


def test_a_reader_failure_that_quotes_a_secret_is_masked(tmp_path: Path, monkeypatch):
    def failing(path: Path, source: str, span=None):
        raise ValueError(f"unexpected field value {STRIPE.text}")

    monkeypatch.setattr(openai_chat, "read", failing)
    (tmp_path / "logs.jsonl").write_text(json.dumps(leaky(STRIPE)) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    printed = invoke("scan", tmp_path / "logs.jsonl", "--out", out).output
    written = printed + table_text(out / "rejects.jsonl") + table_text(out / "summary.json")
    assert "reader failed: ValueError" in written
    assert STRIPE.telltale not in written
    assert MASK in written


GIT_SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"


def checksum_mismatch() -> dict:
    return chat(
        user("Publish the build."),
        assistant(None, call("c1", "publish", artifact="app.tar.gz")),
        tool("c1", text_block(f"checksum mismatch: expected {GIT_SHA}"), isError=True),
        assistant("Published ✅"),
        conversation_id="checksum",
    )


@pytest.mark.parametrize(("options", "masked"), [((), False), (("--redact-entropy",), True)])
def test_scan_masks_random_looking_words_only_when_asked(tmp_path: Path, options, masked):
    (tmp_path / "logs.jsonl").write_text(json.dumps(checksum_mismatch()) + "\n", encoding="utf-8")
    invoke("scan", tmp_path / "logs.jsonl", "--out", tmp_path / "out", *options)
    evidence = pl.read_parquet(tmp_path / "out" / "calls.parquet")["evidence"][0]
    assert (evidence == "checksum mismatch: expected [redacted]") is masked


def test_incident_no_redact_shows_the_table_as_written(tmp_path: Path):
    (tmp_path / "logs.jsonl").write_text(json.dumps(leaky(STRIPE)) + "\n", encoding="utf-8")
    invoke("scan", tmp_path / "logs.jsonl", "--out", tmp_path / "out", "--no-redact")
    shown = invoke("incident", "--out", tmp_path / "out", "--json", "--no-redact").output
    assert STRIPE.telltale in shown


def test_the_redaction_settings_apply_to_show(tmp_path: Path, monkeypatch):
    reply = "Deployed ✅ I told ops@acme.io."
    record = chat(
        user("Deploy it."),
        assistant(None, call("c1", "deploy")),
        tool("c1", text_block("503 Service Unavailable"), isError=True),
        assistant(reply),
    )
    (tmp_path / "logs.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (tmp_path / "auditor.toml").write_text("redact-emails = true\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    invoke("scan", "logs.jsonl", "--out", "out")
    shown = invoke("show", "c-1", "--out", "out").output
    assert "ops@acme.io" not in shown
    assert "I told [redacted]." in shown
