"""Property-based checks: whatever JSON or damaged lines come in, the scan never raises and
every line is accounted for (a conversation audited, or a reject)."""

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from auditor.run.local import scan

SAMPLES = Path(__file__).resolve().parents[1] / "sample_transcripts"
SAMPLE_LINES = [
    line
    for name in ("chat.jsonl", "anthropic.jsonl")
    for line in (SAMPLES / name).read_text(encoding="utf-8").splitlines()
    if line.strip()
]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "messages",
                    "role",
                    "content",
                    "tool_calls",
                    "id",
                    "function",
                    "name",
                    "arguments",
                    "tool_call_id",
                    "isError",
                    "error",
                    "type",
                    "text",
                    "conversation_id",
                ]
            )
            | st.text(max_size=8),
            children,
            max_size=5,
        )
    ),
    max_leaves=30,
)


def accounted(path: Path, input_format: str) -> None:
    result = scan([path], input_format=input_format)
    lines = [n for n, line in enumerate(path.read_bytes().split(b"\n"), 1) if line.strip()]
    rejected = set(result.rejects["line"].to_list())
    assert result.conversations + len(rejected & set(lines)) >= len(lines)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(records=st.lists(json_values, min_size=1, max_size=6))
def test_random_json_lines_never_raise_and_are_accounted_for(tmp_path: Path, records):
    path = tmp_path / "random.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    for reader in ("openai_chat", "anthropic_messages"):
        accounted(path, reader)
    scan([path])  # detection too


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    line=st.sampled_from(SAMPLE_LINES),
    cut=st.integers(min_value=0, max_value=4000),
    flips=st.lists(
        st.tuples(st.integers(min_value=0, max_value=4000), st.characters()), max_size=5
    ),
)
def test_mutated_sample_lines_never_raise_and_are_accounted_for(tmp_path: Path, line, cut, flips):
    mutated = list(line[: max(1, cut)] if cut < len(line) else line)
    for position, character in flips:
        if mutated and character not in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
            mutated[position % len(mutated)] = character
    path = tmp_path / "mutated.jsonl"
    # a lone surrogate becomes bytes that are not UTF-8: one more kind of damage to survive
    path.write_bytes(("".join(mutated) + "\n" + line + "\n").encode("utf-8", "surrogatepass"))
    accounted(path, "openai_chat" if '"tool_calls"' in line else "anthropic_messages")
    scan([path])
