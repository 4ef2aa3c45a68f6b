"""Consistency check for this labelled corpus (not the auditor)."""
import json, os, glob, sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
FAILS = {"transport_error", "tool_error", "graphql_error", "error_payload"}
calls = {}  # (file, conv, id) -> name
bad = []


def load(path):
    out = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            try:
                out.append(json.loads(line))
            except Exception as e:
                bad.append("%s:%d does not parse: %s" % (path, i, e))
    return out


for rec in load(os.path.join(HERE, "chat_gateway.jsonl")):
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            calls[("chat_gateway.jsonl", rec["conversation_id"], t["id"])] = t["function"]["name"]
for rec in load(os.path.join(HERE, "anthropic_messages.jsonl")):
    for m in rec["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b.get("type") in ("tool_use", "mcp_tool_use"):
                    calls[("anthropic_messages.jsonl", rec["conversation_id"], b["id"])] = b["name"]
for p in glob.glob(os.path.join(HERE, "claude_code", "*.jsonl")):
    rel = os.path.relpath(p, HERE)
    for e in load(p):
        c = e.get("message", {}).get("content")
        if e.get("type") == "assistant" and isinstance(c, list):
            for b in c:
                if b.get("type") == "tool_use":
                    calls[(rel, e["sessionId"], b["id"])] = b["name"]


def expected(l):
    o, c, r, p = l["outcome"], l["claim"], l["recovered"], l["probe"]
    if r or o in ("ok", "cut_off"):
        return None
    if o in FAILS and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if (o in FAILS or o == "identity_null") and c == "neutral" and not p:
        return "unreported_failure"
    if o == "graphql_partial" and c == "success":
        return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure":
        return "discarded_partial"
    return None


labels = load(os.path.join(HERE, "labels.jsonl"))
seen = set()
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding",
        "note", "lang", "confidence"}
for l in labels:
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if set(l) != KEYS:
        bad.append("keys %s" % (k,))
    if k in seen:
        bad.append("duplicate label %s" % (k,))
    seen.add(k)
    if k not in calls:
        bad.append("label without call %s" % (k,))
    elif calls[k] != l["tool_name"]:
        bad.append("tool_name mismatch %s" % (k,))
    read = not l["recovered"] and l["outcome"] not in ("ok", "cut_off")
    if read and l["claim"] is None:
        bad.append("claim missing %s" % (k,))
    if not read and l["claim"] is not None:
        bad.append("claim should be null %s" % (k,))
    if l["finding"] != expected(l):
        bad.append("finding %s != %s for %s" % (l["finding"], expected(l), k))
    if l["confidence"] not in ("clear", "ambiguous"):
        bad.append("confidence %s" % (k,))
for k in calls:
    if k not in seen:
        bad.append("call without label %s" % (k,))

print("conversations:", len({(k[0], k[1]) for k in calls}), "calls:", len(calls))
for key in ("outcome", "claim", "finding", "lang"):
    print(key, dict(Counter(str(l[key]) for l in labels)))
if bad:
    print("\n".join(bad))
    sys.exit(1)
print("OK")
