"""A folder of everything that goes wrong in real logs, scanned end to end: nothing raises,
every line is audited or listed in rejects, nothing hostile reaches the terminal, no token is
written out unredacted."""

import gzip
import json
import signal
from pathlib import Path

import polars as pl
from builders import assistant, call, chat, text_block, tool, user
from typer.testing import CliRunner

from auditor.cli import app
from auditor.run.local import scan

TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


def conversation(conversation_id: str, reply: str = "Done ✅") -> dict:
    return chat(
        user("update it"),
        assistant(None, call("c1", "update_ticket", key="OPS-1")),
        tool("c1", text_block(f"403 Forbidden for token {TOKEN}"), isError=True),
        assistant(reply),
        conversation_id=conversation_id,
    )


def line(record: dict) -> str:
    return json.dumps(record) + "\n"


def hostile_folder(root: Path) -> Path:
    root.mkdir()
    (root / "malformed.jsonl").write_text(
        line(conversation("m-1")) + '{"messages": [oops\n' + line(conversation("m-3")), "utf-8"
    )
    (root / "still-being-written.jsonl").write_text(
        line(conversation("w-1")) + line(conversation("w-2"))[:60], "utf-8"
    )
    (root / "bad-utf8.jsonl").write_bytes(
        line(conversation("u-1")).encode() + b'{"conversation_id": "\xff\xfe", "messages": []}\n'
    )
    (root / "bom-crlf.jsonl").write_bytes(
        b"\xef\xbb\xbf" + line(conversation("b-1")).replace("\n", "\r\n").encode()
    )
    (root / "empty.jsonl").write_text("", "utf-8")
    (root / "binary.jsonl").write_bytes(bytes(range(256)) * 40)
    packed = gzip.compress("".join(line(conversation(f"g-{i}")) for i in range(300)).encode())
    (root / "cut.jsonl.gz").write_bytes(packed[: len(packed) * 2 // 3])
    (root / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000 + "\n", "utf-8")
    wrong = [
        {"conversation_id": "t-1", "messages": [{"role": "user", "content": 42}]},
        {"conversation_id": "t-2", "messages": [{"role": "assistant", "tool_calls": "not a list"}]},
        {
            "conversation_id": "t-3",
            "messages": [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "x", "function": {"name": "f", "arguments": "{not json"}}
                    ],
                }
            ],
        },
        {
            "conversation_id": "t-4",
            "messages": [{"role": "tool", "tool_call_id": "nobody", "content": "orphan"}],
        },
        {
            "conversation_id": "t-5",
            "messages": [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "dup",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        },
                        {
                            "id": "dup",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        },
                    ],
                },
                {"role": "tool", "tool_call_id": "dup", "content": "ok"},
            ],
        },
        {
            "conversation_id": "t-6",
            "messages": [
                {"role": "assistant", "tool_calls": [{"function": {"name": "no_id"}}]},
                {"role": "tool", "content": "a result naming no call"},
            ],
        },
        "a string, not a conversation",
    ]
    (root / "wrong-types.jsonl").write_text("".join(json.dumps(r) + "\n" for r in wrong), "utf-8")
    hostile = "Done \x1b]8;;http://evil\x1b\\\\x1b[2J [bold red]owned[/bold red] ✅"
    (root / "a-escapes.jsonl").write_text(line(conversation("e-1", hostile)), "utf-8")
    (root / "notes.jsonl").write_text('{"hello": "world"}\n', "utf-8")
    (root / "huge-line.jsonl").write_text(line(huge_line_conversation()), "utf-8")
    (root / "crafted.jsonl").write_text(line(crafted_conversation()), "utf-8")
    return root


def huge_line_conversation() -> dict:
    """One line of more than 100 MB: a tool that returned a whole log."""
    log = ("GET /health 200 " * 8 + "\n") * (100_000_000 // 129)
    return chat(
        user("show me the log"),
        assistant(None, call("c1", "read_log", path="/var/log/app.log")),
        tool("c1", text_block(log)),
        assistant("Here is the end of the log: " + log[-2_000:]),
        conversation_id="huge-1",
    )


def crafted_conversation() -> dict:
    """Text built to make patterns backtrack, in every place a pattern reads."""
    crafted = "couldn't " * 40_000 + "a" * 300_000 + " (" * 100_000 + "!" * 100_000
    return chat(
        user("update A-1 " * 50_000),
        assistant(None, call("c1", "update_ticket", key="A-1" * 10_000)),
        tool("c1", text_block("error: " + crafted), isError=True),
        assistant(crafted + "?" + "I've updated A-1. " * 20_000),
        conversation_id="crafted-1",
    )


def test_a_hostile_folder_is_scanned_without_loss_or_leak(tmp_path: Path):
    folder = hostile_folder(tmp_path / "in")
    result = CliRunner().invoke(app, ["scan", str(folder), "--out", str(tmp_path / "out")])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1  # critical findings exist; rejects are counted in the summary
    out = tmp_path / "out"
    calls = pl.read_parquet(out / "calls.parquet")
    rejects = pl.read_ndjson(out / "rejects.jsonl")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["rejects"] == rejects.height > 0

    audited = set(zip(calls["source"], calls["conversation_id"], strict=True))
    for name, expected in {
        "malformed.jsonl": {"m-1", "m-3"},
        "still-being-written.jsonl": {"w-1"},
        "bad-utf8.jsonl": {"u-1"},
        "bom-crlf.jsonl": {"b-1"},
        "a-escapes.jsonl": {"e-1"},
        "huge-line.jsonl": {"huge-1"},
        "crafted.jsonl": {"crafted-1"},
    }.items():
        assert {c for s, c in audited if s.endswith(name)} == expected, name
    assert any(s.endswith("cut.jsonl.gz") for s, _ in audited)

    rejected = {
        (Path(s).name, line) for s, line in zip(rejects["source"], rejects["line"], strict=True)
    }
    for name in ("malformed.jsonl", "still-being-written.jsonl", "bad-utf8.jsonl"):
        assert (name, 2) in rejected, name
    malformed = rejects.filter(pl.col("source").str.ends_with("malformed.jsonl"))
    first_line = len((folder / "malformed.jsonl").read_bytes().split(b"\n")[0]) + 1
    assert malformed["offset"].to_list() == [first_line]  # the byte where the bad line starts
    for name in ("empty.jsonl", "binary.jsonl", "deep.jsonl", "notes.jsonl", "cut.jsonl.gz"):
        assert any(n == name for n, _ in rejected), name
    assert any(reason.startswith("tool result for unknown call id") for reason in rejects["reason"])

    everything = (
        result.output
        + "".join(
            p.read_text(errors="replace") for p in out.iterdir() if p.suffix in (".jsonl", ".json")
        )
        + calls.write_csv()
    )
    assert "\x1b" not in result.output
    assert "owned[/bold red]" in result.output  # shown as text, never as style
    assert TOKEN not in everything


def test_a_crafted_line_cannot_stall_the_scan(tmp_path: Path):
    """Inputs built to make patterns backtrack: each cue runs on bounded sentences, so the
    scan ends (the alarm is a budget far above the real cost, not a timing)."""
    path = tmp_path / "crafted.jsonl"
    path.write_text(line(crafted_conversation()), "utf-8")
    signal.signal(signal.SIGALRM, _too_slow)
    signal.alarm(120)
    try:
        result = scan([path])
    finally:
        signal.alarm(0)
    assert result.calls["outcome"].to_list() == ["tool_error"]


def _too_slow(*_):
    raise TimeoutError("the scan of one crafted line ran past its budget")


def test_a_file_that_mixes_chat_formats_loses_no_call(tmp_path: Path):
    """One JSONL file with an OpenAI chat, an Anthropic conversation and a Claude Code event:
    each chat is read in its own shape, and the line that is no conversation is a reject."""
    openai_line = chat(
        user("close OPS-1"),
        assistant(None, call("c1", "close_issue", key="OPS-1")),
        tool("c1", "closed"),
        assistant("Closed."),
        conversation_id="oa-1",
    )
    anthropic_line = {
        "conversation_id": "an-1",
        "messages": [
            {"role": "user", "content": "close OPS-2"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "close_issue",
                        "input": {"key": "OPS-2"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "403", "is_error": True}
                ],
            },
            {"role": "assistant", "content": "Closed OPS-2."},
        ],
    }
    claude_code_line = {
        "type": "user",
        "sessionId": "s",
        "message": {"role": "user", "content": "hi"},
    }
    path = tmp_path / "mixed.jsonl"
    lines = [
        openai_line,
        anthropic_line,
        claude_code_line,
        anthropic_line | {"conversation_id": "an-2"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    result = scan([path])

    assert sorted(result.calls["conversation_id"].to_list()) == ["an-1", "an-2", "oa-1"]
    assert result.calls.filter(pl.col("conversation_id") == "an-1")["finding"].to_list() == [
        "false_success"
    ]
    assert result.rejects.select("line", "reason").rows() == [(3, "no messages list")]
