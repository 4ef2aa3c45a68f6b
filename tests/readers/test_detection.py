"""Readers in general: every module is a ``Reader``, detection picks the right one and leaves
other formats alone, and hostile input (compressed, cut off, nested too deeply, a reader that
fails) costs a reject, never the scan."""

import gzip
import json
import random
from pathlib import Path

import pytest
import zstandard
from builders import (
    anthropic,
    assistant,
    call,
    chat,
    tool,
    tool_result,
    tool_use,
    user,
    write_jsonl,
)

from auditor import scan
from auditor.readers import MODULES, READERS, Reader, detect

HERE = Path(__file__).parent


# ----------------------------------------------------------------------------- the Reader protocol
def test_every_reader_module_is_a_reader_with_a_way_to_detect_its_format():
    for module in MODULES:
        assert isinstance(module, Reader), module.__name__
        assert module.sniff is not None or module.looks_like is not None, module.NAME
        assert isinstance(module.READS_SPANS, bool), module.NAME
    assert [name for name, module in READERS.items() if module.READS_SPANS] == [
        "openhands",
        "openhands_sdk",
        "openai_chat",
        "anthropic_messages",
    ]


@pytest.mark.parametrize("name", list(READERS))
def test_each_format_folder_holds_samples_its_reader_claims(name: str):
    samples = [p for p in (HERE / name).iterdir() if p.is_file() and p.suffix != ".py"]
    assert samples, f"no sample files in tests/readers/{name}"
    for sample in samples:
        found = detect(sample)
        assert found is not None and name == found.NAME, sample.name


# ----------------------------------------------------------------------------- detection
def test_chat_and_anthropic_files_are_detected_without_flags(tmp_path: Path):
    chat_file = write_jsonl(tmp_path / "a.jsonl", [chat(user("hi"), assistant("hello"))])
    anthropic_file = write_jsonl(
        tmp_path / "b.jsonl",
        [
            anthropic(
                {"role": "user", "content": "x"},
                {"role": "assistant", "content": [tool_use("t", "search", q="x")]},
            )
        ],
    )
    assert detect(chat_file).NAME == "openai_chat"
    assert detect(anthropic_file).NAME == "anthropic_messages"


def test_a_file_in_no_known_format_is_reported(tmp_path: Path):
    (tmp_path / "notes.jsonl").write_text('{"hello": "world"}\n', encoding="utf-8")
    result = scan([tmp_path / "notes.jsonl"])
    assert result.rejects.row(0, named=True)["reason"] == "no known transcript format"


def test_chat_files_are_not_taken_for_benchmarks(tmp_path: Path, write_json):
    record = chat(user("hi"), assistant(None, call("c", "ping")), tool("c", "pong"))
    assert detect(write_jsonl(tmp_path / "a.jsonl", [record])).NAME == "openai_chat"
    assert (
        detect(write_json(tmp_path / "b.json", {"conversations": [record]})).NAME == "openai_chat"
    )


def test_claude_code_detection_does_not_claim_chat_lines(tmp_path: Path):
    path = write_jsonl(
        tmp_path / "chat.jsonl", [chat(user("hi"), {"role": "assistant", "content": "yo"})]
    )
    assert detect(path).NAME == "openai_chat"


def test_json_rpc_log_lines_are_not_claimed_by_the_log_reader(tmp_path: Path, write_lines):
    desktop = [
        '2025-03-28T04:47:13.385Z [greeter] [info] Message from client: {"method":"tools/call",'
        '"params":{"name":"greet"},"jsonrpc":"2.0","id":7}',
        '2025-03-28T04:47:13.390Z [greeter] [info] Message from server: {"jsonrpc":"2.0",'
        '"id":7,"result":{"content":[{"type":"text","text":"hi"}],"isError":false}}',
    ]
    log = write_lines(tmp_path / "mcp-server-greeter.log", desktop)
    module = detect(log)
    assert module is None or module.NAME != "log_lines"


@pytest.mark.parametrize(
    "records",
    [
        [chat(user("hi"), assistant(None, call("c1", "ping")), tool("c1", "pong"))],
        [
            {
                "messages": [
                    {"role": "assistant", "content": [tool_use("t", "s")]},
                    {"role": "user", "content": [tool_result("t", "x")]},
                ]
            }
        ],
        [{"type": "user", "sessionId": "s", "uuid": "u", "message": {"role": "user"}}],
        [{"session_id": "s", "steps": [{"step_id": 1, "output": "done"}]}],
        [
            {
                "file": "a.jsonl",
                "conversation_id": "c",
                "tool_call_id": "x",
                "outcome": "ok",
                "claim": "none",
            }
        ],
    ],
)
def test_other_formats_are_not_claimed(tmp_path: Path, records: list):
    path = write_jsonl(tmp_path / "other.jsonl", records)
    found = detect(path)
    assert found is None or found.NAME not in ("mcp_wire", "openai_responses", "otel_genai")


def test_plain_log_lines_are_not_claimed(tmp_path: Path, write_lines):
    path = write_lines(
        tmp_path / "solve.log",
        [
            "[2025-11-03T01:56:31.243Z] [INFO] 📁 Log file: /home/hive/solve.log",
            "[2025-11-03T01:56:32.390Z] [INFO] 🚀 solve v0.28.0",
            '2025-11-03T01:56:33.000Z [worker] [info] {"event": "start"}',
        ],
    )
    found = detect(path)
    assert found is None or found.NAME not in ("mcp_wire", "openai_responses", "otel_genai")


# ----------------------------------------------------------------------------- hostile input
def test_gzip_and_zstd_files_are_read_through(tmp_path: Path, slack_false_success):
    def line(conversation_id: str) -> bytes:
        return (json.dumps(slack_false_success(conversation_id)) + "\n").encode()

    (tmp_path / "a.jsonl.gz").write_bytes(gzip.compress(line("gz")))
    (tmp_path / "b.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(line("zst")))
    result = scan([tmp_path])
    assert sorted(result.calls["conversation_id"]) == ["gz", "zst"]
    assert result.rejects.height == 0


def test_a_call_already_read_from_another_file_is_counted_once(tmp_path: Path, slack_false_success):
    write_jsonl(tmp_path / "day1.jsonl", [slack_false_success("c-1")])
    write_jsonl(tmp_path / "day1-copy.jsonl", [slack_false_success("c-1")])
    result = scan([tmp_path])
    assert result.calls.height == 1
    assert sum(result.summary()["passed_over_by_reason"].values()) == 1


def test_a_truncated_gzip_file_is_reported_not_raised(tmp_path: Path, slack_false_success):
    noise = random.Random(7)
    records = [slack_false_success(f"c{i}-{noise.getrandbits(128):032x}") for i in range(2000)]
    packed = gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode())
    (tmp_path / "cut.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    result = scan([tmp_path / "cut.jsonl.gz"])
    assert result.calls.height > 0
    assert "compressed" in result.rejects.row(-1, named=True)["reason"]


def test_json_nested_too_deeply_is_a_reject_not_a_crash(tmp_path: Path, slack_false_success):
    deep = "[" * 100_000 + "]" * 100_000
    good = json.dumps(slack_false_success("ok-1"))
    (tmp_path / "deep.jsonl").write_text(deep + "\n" + good + "\n", encoding="utf-8")
    result = scan([tmp_path / "deep.jsonl"])
    assert result.calls["conversation_id"].to_list() == ["ok-1"]
    assert result.rejects.row(0, named=True)["line"] == 1


def test_a_one_megabyte_run_on_reply_is_read(tmp_path: Path, slack_false_success):
    crafted = "could not " * 50_000 + "a" * 500_000
    record = slack_false_success("long")
    record["messages"][-1]["content"] = crafted
    write_jsonl(tmp_path / "long.jsonl", [record])
    result = scan([tmp_path / "long.jsonl"])
    assert result.calls.row(0, named=True)["claim"] == "failure"


def test_a_reader_that_fails_on_a_file_costs_one_reject_not_the_scan(
    tmp_path: Path, monkeypatch, slack_false_success
):
    from auditor.readers import openai_chat

    def broken(path, source):
        raise RuntimeError("reader bug")

    monkeypatch.setattr(openai_chat, "read", broken)
    write_jsonl(tmp_path / "a.jsonl", [slack_false_success("a")])
    result = scan([tmp_path / "a.jsonl"])
    assert "reader failed: RuntimeError" in result.rejects.row(0, named=True)["reason"]


def _odd_types(record: object) -> object:
    """The record with every ``type`` and ``role`` field, at any depth, turned into a list."""
    if isinstance(record, dict):
        return {
            key: [value] if key in ("type", "role") else _odd_types(value)
            for key, value in record.items()
        }
    if isinstance(record, list):
        return [_odd_types(item) for item in record]
    return record


@pytest.mark.parametrize("name", list(READERS))
def test_records_whose_type_is_a_list_cost_those_records_not_the_file(tmp_path: Path, name: str):
    for sample in (HERE / name).iterdir():
        if sample.suffix == ".py":
            continue
        lines = sample.read_bytes().splitlines()
        for index, line in enumerate(lines):
            try:
                lines[index] = json.dumps(_odd_types(json.loads(line))).encode()
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue  # not a JSON line: left as it is
        broken = tmp_path / sample.name
        broken.write_bytes(b"\n".join(lines) + b"\n")
        result = scan([broken], input_format=name)
        reasons = result.rejects["reason"].to_list()
        assert not [r for r in reasons if r.startswith("reader failed")], (sample.name, reasons)
