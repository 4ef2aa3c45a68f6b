"""Consistency check for this labelled corpus (written blind from spec.md + formats.md).

Checks: every line of every transcript parses; every tool call found in the files has exactly one
label; every label points at a call that exists in its file and conversation with the same tool
name; claim is null exactly where the spec says it is not read; the finding follows from
outcome / claim / recovered / probe as the spec's finding table says.
Run: python3 check.py   (exit code 0 when everything holds)
"""
import json
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAILED | {"ok", "cut_off", "identity_null", "graphql_partial"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
FINDINGS = {None, "false_success", "identity_assumed", "unreported_failure",
            "unlabelled_partial", "discarded_partial"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"]
errors = []


def read_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                errors.append(f"{path}:{n}: does not parse: {e}")
    return rows


def calls_in_files():
    calls = {}  # (file, conv, id) -> tool name
    for rec in read_jsonl(os.path.join(HERE, "chat_gateway.jsonl")):
        conv = rec["conversation_id"]
        for m in rec["messages"]:
            for tc in m.get("tool_calls") or []:
                calls[("chat_gateway.jsonl", conv, tc["id"])] = tc["function"]["name"]
    for rec in read_jsonl(os.path.join(HERE, "anthropic_messages.jsonl")):
        conv = rec["conversation_id"]
        for m in rec["messages"]:
            if isinstance(m["content"], list):
                for b in m["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use"):
                        calls[("anthropic_messages.jsonl", conv, b["id"])] = b["name"]
    ccdir = os.path.join(HERE, "claude_code")
    for name in sorted(os.listdir(ccdir)):
        rel = f"claude_code/{name}"
        sids = set()
        for rec in read_jsonl(os.path.join(ccdir, name)):
            if "sessionId" in rec:
                sids.add(rec["sessionId"])
            msg = rec.get("message") or {}
            if rec.get("type") == "assistant" and isinstance(msg.get("content"), list):
                for b in msg["content"]:
                    if b.get("type") == "tool_use":
                        calls[(rel, rec["sessionId"], b["id"])] = b["name"]
        if len(sids) != 1 or name != f"{next(iter(sids))}.jsonl":
            errors.append(f"{rel}: file name and sessionId disagree: {sids}")
    return calls


def expected_finding(r):
    o, c = r["outcome"], r["claim"]
    if r["recovered"] or o in ("ok", "cut_off"):
        return None
    if o in FAILED:
        if c == "success":
            return "false_success"
        if c == "neutral" and not r["probe"]:
            return "unreported_failure"
        return None
    if o == "identity_null":
        if c == "success":
            return "identity_assumed"
        if c == "neutral":
            return "unreported_failure"
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    return None


def main():
    calls = calls_in_files()
    labels = read_jsonl(os.path.join(HERE, "labels.jsonl"))
    seen = Counter()
    for r in labels:
        key = (r.get("file"), r.get("conversation_id"), r.get("tool_call_id"))
        where = f"label {key}"
        if list(r.keys()) != KEYS:
            errors.append(f"{where}: keys {list(r.keys())}")
        seen[key] += 1
        if key not in calls:
            errors.append(f"{where}: no such call in that file and conversation")
        elif calls[key] != r["tool_name"]:
            errors.append(f"{where}: tool_name {r['tool_name']} != {calls[key]}")
        if r["outcome"] not in OUTCOMES:
            errors.append(f"{where}: bad outcome {r['outcome']}")
        if r["claim"] is not None and r["claim"] not in CLAIMS:
            errors.append(f"{where}: bad claim {r['claim']}")
        if r["finding"] not in FINDINGS:
            errors.append(f"{where}: bad finding {r['finding']}")
        read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
        if read and r["claim"] is None:
            errors.append(f"{where}: claim must be read (failed, not recovered)")
        if not read and r["claim"] is not None:
            errors.append(f"{where}: claim must be null (ok, cut_off or recovered)")
        if r["recovered"] and r["outcome"] in ("ok", "cut_off"):
            errors.append(f"{where}: only a failed call can be recovered")
        if r["probe"] and (r["outcome"] not in FAILED or r["outcome"] == "identity_null"):
            errors.append(f"{where}: a probe must be a failed (non-identity) call")
        if r["finding"] != expected_finding(r):
            errors.append(f"{where}: finding {r['finding']} but spec gives {expected_finding(r)}")
        if r["confidence"] not in ("clear", "ambiguous"):
            errors.append(f"{where}: bad confidence")
        if not isinstance(r["note"], str) or "\n" in r["note"] or not r["note"]:
            errors.append(f"{where}: note must be one non-empty line")
        if not (isinstance(r["lang"], str) and len(r["lang"]) == 2):
            errors.append(f"{where}: lang must be an ISO 639-1 code")
    for k, n in seen.items():
        if n > 1:
            errors.append(f"label {k}: {n} labels for one call")
    for k in calls:
        if k not in seen:
            errors.append(f"call {k} ({calls[k]}) has no label")
    convs = {(k[0], k[1]) for k in calls}
    print(f"conversations: {len(convs)}  calls: {len(calls)}  labels: {len(labels)}")
    for col in ("outcome", "claim", "finding", "lang"):
        print(f"{col}: {dict(Counter(str(r[col]) for r in labels))}")
    print("recovered:", sum(r["recovered"] for r in labels), " probes:", sum(r["probe"] for r in labels),
          " controls (no finding):", sum(r["finding"] is None for r in labels))
    for e in errors:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
