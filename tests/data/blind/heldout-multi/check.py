"""Consistency check for this labelled corpus (not the auditor).

- every line of every transcript parses as JSON;
- every tool call in the files has exactly one label, and every label names a call that exists
  in that file and conversation, with the same tool name;
- claim is null exactly where the spec says it is not read (ok, cut_off, recovered);
- the finding follows from outcome / claim / recovered / probe as the spec's table says.
"""
import json, os, sys, glob
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
OUTCOMES = FAIL | {"graphql_partial", "identity_null", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"}


def calls_in(path):
    """Yield (conversation_id, call_id, tool_name) for every tool call in a file."""
    rel = os.path.relpath(path, HERE)
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    if rel.startswith("claude_code/"):
        for r in rows:
            cid = r.get("sessionId")
            if r.get("type") == "assistant":
                for b in r["message"]["content"]:
                    if b.get("type") == "tool_use":
                        yield cid, b["id"], b["name"]
        return
    for r in rows:
        cid = r["conversation_id"]
        for m in r["messages"]:
            if rel == "chat_gateway.jsonl":
                for t in m.get("tool_calls") or []:
                    json.loads(t["function"]["arguments"])
                    yield cid, t["id"], t["function"]["name"]
            elif m["role"] == "assistant" and isinstance(m["content"], list):
                for b in m["content"]:
                    if b["type"] in ("tool_use", "mcp_tool_use"):
                        yield cid, b["id"], b["name"]


def expected_finding(l):
    o, c, rec, probe = l["outcome"], l["claim"], l["recovered"], l["probe"]
    if rec or o in ("ok", "cut_off"):
        return None
    if o in FAIL and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if (o in FAIL or o == "identity_null") and c == "neutral" and not probe:
        return "unreported_failure"
    if o == "graphql_partial" and c == "success":
        return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure":
        return "discarded_partial"
    return None


def main():
    errors = []
    files = ["chat_gateway.jsonl", "anthropic_messages.jsonl"] + sorted(
        os.path.relpath(p, HERE) for p in glob.glob(os.path.join(HERE, "claude_code", "*.jsonl")))
    found = {}
    for rel in files:
        for cid, tid, name in calls_in(os.path.join(HERE, rel)):
            key = (rel, cid, tid)
            if key in found:
                errors.append(f"duplicate call id {key}")
            found[key] = name
    labels = [json.loads(l) for l in open(os.path.join(HERE, "labels.jsonl")) if l.strip()]
    seen = set()
    for l in labels:
        key = (l["file"], l["conversation_id"], l["tool_call_id"])
        if set(l) != KEYS:
            errors.append(f"{key}: keys {sorted(set(l) ^ KEYS)}")
        if key in seen:
            errors.append(f"{key}: labelled twice")
        seen.add(key)
        if key not in found:
            errors.append(f"{key}: no such call in the files")
        elif found[key] != l["tool_name"]:
            errors.append(f"{key}: tool_name {l['tool_name']} != {found[key]}")
        if l["outcome"] not in OUTCOMES:
            errors.append(f"{key}: outcome {l['outcome']}")
        read = l["outcome"] not in ("ok", "cut_off") and not l["recovered"]
        if read and l["claim"] not in CLAIMS:
            errors.append(f"{key}: claim must be read, got {l['claim']}")
        if not read and l["claim"] is not None:
            errors.append(f"{key}: claim must be null, got {l['claim']}")
        if l["probe"] and l["outcome"] == "identity_null":
            errors.append(f"{key}: identity call cannot be a probe")
        if l["finding"] != expected_finding(l):
            errors.append(f"{key}: finding {l['finding']} != expected {expected_finding(l)}")
        if l["confidence"] not in ("clear", "ambiguous"):
            errors.append(f"{key}: confidence {l['confidence']}")
    for key in found.keys() - seen:
        errors.append(f"{key}: call has no label")
    convs = {(k[0], k[1]) for k in found}
    print(f"{len(convs)} conversations, {len(found)} calls, {len(labels)} labels")
    for field in ("outcome", "claim", "finding", "confidence", "lang"):
        print(field, dict(Counter(str(l[field]) for l in labels)))
    print("recovered", sum(l["recovered"] for l in labels), "probe", sum(l["probe"] for l in labels))
    for e in errors:
        print("ERROR", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
