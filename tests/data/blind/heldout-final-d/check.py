"""Consistency check for this labelled corpus (written blind from spec.md / formats.md)."""
import json, os, glob, collections
D = os.path.dirname(os.path.abspath(__file__))
calls = {}  # (file, cid, tid) -> name
def add(f, cid, tid, name):
    k = (f, cid, tid); assert k not in calls, k; calls[k] = name
for line in open(os.path.join(D, "chat_gateway.jsonl")):
    c = json.loads(line)
    for m in c["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"]); add("chat_gateway.jsonl", c["conversation_id"], t["id"], t["function"]["name"])
for line in open(os.path.join(D, "anthropic_messages.jsonl")):
    c = json.loads(line)
    for m in c["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"): add("anthropic_messages.jsonl", c["conversation_id"], b["id"], b["name"])
for p in glob.glob(os.path.join(D, "claude_code", "*.jsonl")):
    rel = os.path.relpath(p, D); prev = None
    for line in open(p):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, (p, k)
        assert e["parentUuid"] == prev, p; prev = e["uuid"]
        for b in e["message"]["content"] if isinstance(e["message"]["content"], list) else []:
            if b["type"] == "tool_use": add(rel, e["sessionId"], b["id"], b["name"])
labels = [json.loads(l) for l in open(os.path.join(D, "labels.jsonl"))]
keys = "file conversation_id tool_call_id tool_name outcome claim recovered probe finding note lang confidence".split()
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
seen = set()
for r in labels:
    assert list(r) == keys, r
    k = (r["file"], r["conversation_id"], r["tool_call_id"]); assert k in calls, k; assert k not in seen, k; seen.add(k)
    assert calls[k] == r["tool_name"], k
    o, c, rec, pr = r["outcome"], r["claim"], r["recovered"], r["probe"]
    read = o not in ("ok", "cut_off") and not rec
    assert (c is not None) == read, ("claim read?", k)
    if pr: assert o in FAIL, k
    f = None
    if read:
        if o in FAIL and c == "success": f = "false_success"
        elif o == "identity_null" and c == "success": f = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and c == "neutral" and not pr: f = "unreported_failure"
        elif o == "graphql_partial" and c == "success": f = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure": f = "discarded_partial"
    assert f == r["finding"], (k, f, r["finding"])
    assert r["confidence"] in ("clear", "ambiguous")
missing = set(calls) - seen; assert not missing, missing
print(len(labels), "labels,", len({(r['file'], r['conversation_id']) for r in labels}), "conversations")
for col in ("outcome", "claim", "finding", "lang"):
    print(col, dict(collections.Counter(str(r[col]) for r in labels)))
