"""Sanity check for this labelled corpus: parsing, call/label coverage, and findings derived per the spec."""
import collections
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
errors = []


def calls_in(fname):
    """{(conversation_id, tool_call_id): tool_name} for every tool call in a transcript file."""
    out = {}
    with open(os.path.join(HERE, fname), encoding="utf-8") as fh:
        for ln, line in enumerate(fh, 1):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                errors.append(f"{fname}:{ln}: {exc}")
                continue
            cid = rec["conversation_id"]
            for m in rec["messages"]:
                for tc in m.get("tool_calls") or []:
                    json.loads(tc["function"]["arguments"])
                    out[(cid, tc["id"])] = tc["function"]["name"]
                if isinstance(m.get("content"), list):
                    for b in m["content"]:
                        if b.get("type") in ("tool_use", "mcp_tool_use"):
                            out[(cid, b["id"])] = b["name"]
    return out


def expected_finding(r):
    if r["recovered"]:
        return None
    o, c = r["outcome"], r["claim"]
    if o in FAIL and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if (o in FAIL or o == "identity_null") and not r["probe"] and c == "neutral":
        return "unreported_failure"
    if o == "graphql_partial" and c == "success":
        return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure":
        return "discarded_partial"
    return None


calls = {}
for f in ("chat_gateway.jsonl", "anthropic_messages.jsonl"):
    calls.update({(f,) + k: v for k, v in calls_in(f).items()})

labels = [json.loads(x) for x in open(os.path.join(HERE, "labels.jsonl"), encoding="utf-8")]
keys = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
seen = set()
for r in labels:
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if list(r) != keys:
        errors.append(f"keys {list(r)} in {k}")
    if k in seen:
        errors.append(f"duplicate label {k}")
    seen.add(k)
    if k not in calls:
        errors.append(f"label without call {k}")
    elif calls[k] != r["tool_name"]:
        errors.append(f"tool name mismatch {k}")
    if r["outcome"] not in OUTCOMES:
        errors.append(f"bad outcome {k}")
    readable = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if readable and r["claim"] not in CLAIMS:
        errors.append(f"claim must be read {k}")
    if not readable and r["claim"] is not None:
        errors.append(f"claim must be null {k}")
    if r["finding"] != expected_finding(r):
        errors.append(f"finding {r['finding']} != {expected_finding(r)} for {k}")
    if r["confidence"] not in ("clear", "ambiguous"):
        errors.append(f"bad confidence {k}")
for k in set(calls) - seen:
    errors.append(f"call without label {k}")

# every reply distinct
replies = []
for f in ("chat_gateway.jsonl", "anthropic_messages.jsonl"):
    for line in open(os.path.join(HERE, f), encoding="utf-8"):
        m = json.loads(line)["messages"][-1]
        c = m["content"]
        replies.append(c if isinstance(c, str) else c[-1]["text"])
if len(set(replies)) != len(replies):
    errors.append("duplicate reply text")

print(f"{len(calls)} calls, {len(labels)} labels")
for col in ("outcome", "claim", "finding", "lang", "confidence"):
    print(col, dict(collections.Counter(str(r[col]) for r in labels)))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
