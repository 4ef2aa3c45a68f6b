"""Sanity check for this labelled corpus (labels vs. transcript files, finding vs. spec)."""
import json, glob, os, sys
from collections import Counter
D = os.path.dirname(os.path.abspath(__file__))
calls = {}  # (file, conv, id) -> name
def add(f, conv, cid, name):
    key = (f, conv, cid); assert key not in calls, key; calls[key] = name
for f in ["chat_gateway.jsonl", "anthropic_messages.jsonl"]:
    for ln in open(os.path.join(D, f)):
        c = json.loads(ln)
        for m in c["messages"]:
            for tc in (m.get("tool_calls") or []):
                add(f, c["conversation_id"], tc["id"], tc["function"]["name"])
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use"):
                        add(f, c["conversation_id"], b["id"], b["name"])
for p in glob.glob(os.path.join(D, "claude_code", "*.jsonl")):
    f = os.path.relpath(p, D)
    for ln in open(p):
        e = json.loads(ln)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, k
        if isinstance(e["message"].get("content"), list):
            for b in e["message"]["content"]:
                if b.get("type") == "tool_use":
                    add(f, e["sessionId"], b["id"], b["name"])
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
def expected(r):
    o, c = r["outcome"], r["claim"]
    if r["recovered"]: return None
    if o in FAIL and c == "success": return "false_success"
    if o == "identity_null" and c == "success": return "identity_assumed"
    if (o in FAIL or o == "identity_null") and c == "neutral" and not r["probe"]: return "unreported_failure"
    if o == "graphql_partial" and c == "success": return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure": return "discarded_partial"
    return None
labels = [json.loads(l) for l in open(os.path.join(D, "labels.jsonl"))]
seen, err = set(), 0
for r in labels:
    key = (r["file"], r["conversation_id"], r["tool_call_id"])
    if key not in calls: print("unknown call", key); err += 1; continue
    if calls[key] != r["tool_name"]: print("name mismatch", key); err += 1
    seen.add(key)
    read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if read != (r["claim"] is not None): print("claim read mismatch", key); err += 1
    if r["probe"] and r["outcome"] == "identity_null": print("identity probe", key); err += 1
    if expected(r) != r["finding"]: print("finding mismatch", key, expected(r), r["finding"]); err += 1
    assert r["confidence"] in ("clear", "ambiguous") and r["lang"]
for k in set(calls) - seen: print("unlabelled", k); err += 1
print(len(calls), "calls,", len(labels), "labels,", len({(r['file'], r['conversation_id']) for r in labels}), "conversations")
for k in ("outcome", "claim", "finding"): print(k, dict(Counter(str(r[k]) for r in labels)))
print("recovered", sum(r["recovered"] for r in labels), "probe", sum(r["probe"] for r in labels),
      "ambiguous", sum(r["confidence"] == "ambiguous" for r in labels))
sys.exit(1 if err else 0)
