"""Sanity checks for this labelled corpus (no auditor code used)."""
import json, os, glob, collections
D = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
calls = {}  # (file, conv, id) -> name
def add(f, c, i, n):
    assert (f, c, i) not in calls, ("dup", f, c, i); calls[(f, c, i)] = n
for fn in ("chat_gateway.jsonl", "anthropic_messages.jsonl"):
    for ln, line in enumerate(open(os.path.join(D, fn)), 1):
        o = json.loads(line); cid = o["conversation_id"]
        for m in o["messages"]:
            for t in m.get("tool_calls") or []:
                add(fn, cid, t["id"], t["function"]["name"]); json.loads(t["function"]["arguments"])
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use"):
                        add(fn, cid, b["id"], b["name"])
for p in glob.glob(os.path.join(D, "claude_code", "*.jsonl")):
    fn = os.path.relpath(p, D); prev = None; uuids = set()
    for line in open(p):
        o = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            assert k in o, (fn, k)
        assert o["parentUuid"] == prev or o["parentUuid"] in uuids; uuids.add(o["uuid"]); prev = o["uuid"]
        c = o["message"].get("content")
        if isinstance(c, list):
            for b in c:
                if b.get("type") == "tool_use":
                    add(fn, o["sessionId"], b["id"], b["name"])
labels = [json.loads(l) for l in open(os.path.join(D, "labels.jsonl"))]
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding", "note", "lang", "confidence"}
seen = set()
for r in labels:
    assert set(r) == KEYS, r
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    assert k in calls, ("label without call", k); assert calls[k] == r["tool_name"], k
    assert k not in seen; seen.add(k)
    o, c, rec = r["outcome"], r["claim"], r["recovered"]
    read = o not in ("ok", "cut_off") and not rec
    assert (c is not None) == read, ("claim read?", k)
    if rec or not read: exp = None
    elif o in FAIL: exp = {"success": "false_success", "neutral": None if r["probe"] else "unreported_failure"}.get(c)
    elif o == "identity_null": exp = {"success": "identity_assumed", "neutral": "unreported_failure"}.get(c)
    elif o == "graphql_partial": exp = {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    else: exp = None
    if o == "graphql_partial" and not rec:
        pass
    assert r["finding"] == exp, ("finding", k, r["finding"], exp)
    assert not (r["probe"] and o in ("ok", "cut_off", "identity_null")), k
missing = set(calls) - seen
assert not missing, ("unlabelled calls", missing)
print(len(calls), "calls,", len({(f, c) for f, c, _ in calls}), "conversations: OK")
for key in ("outcome", "claim", "finding", "lang"):
    print(key, dict(collections.Counter(r[key] for r in labels)))
