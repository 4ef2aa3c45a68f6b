"""Consistency check for this labelled corpus (does not run the auditor)."""
import json, glob, os, collections
here = os.path.dirname(os.path.abspath(__file__))
calls = {}  # (file, conv, id) -> name
def add(f, c, i, n):
    assert (f, c, i) not in calls, ("duplicate call id", f, c, i); calls[(f, c, i)] = n
for line in open(os.path.join(here, "chat_gateway.jsonl")):
    o = json.loads(line)
    for m in o["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"]); add("chat_gateway.jsonl", o["conversation_id"], t["id"], t["function"]["name"])
for line in open(os.path.join(here, "anthropic_messages.jsonl")):
    o = json.loads(line)
    for m in o["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"): add("anthropic_messages.jsonl", o["conversation_id"], b["id"], b["name"])
for p in glob.glob(os.path.join(here, "claude_code", "*.jsonl")):
    rel = os.path.relpath(p, here); uuids = set()
    for line in open(p):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, (rel, k)
        assert e["parentUuid"] is None or e["parentUuid"] in uuids, (rel, "dangling parent"); uuids.add(e["uuid"])
        if isinstance(e["message"]["content"], list):
            for b in e["message"]["content"]:
                if b["type"] == "tool_use": add(rel, e["sessionId"], b["id"], b["name"])
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
def expected(r):
    o, c = r["outcome"], r["claim"]
    if r["recovered"] or o in ("ok", "cut_off"):
        assert c is None, ("claim must be null", r["tool_call_id"]); return None
    assert c in ("success", "failure", "partial", "neutral", "none", "unread"), r["tool_call_id"]
    if o == "graphql_partial": return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    if o == "identity_null":
        assert not r["probe"]
        return "identity_assumed" if c == "success" else ("unreported_failure" if c == "neutral" else None)
    assert o in FAIL, o
    if c == "success": return "false_success"
    if c == "neutral" and not r["probe"]: return "unreported_failure"
    return None
seen = set(); cnt = collections.Counter()
for line in open(os.path.join(here, "labels.jsonl")):
    r = json.loads(line)
    assert set(r) == {"file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"}, r
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    assert k in calls, ("label for unknown call", k); assert calls[k] == r["tool_name"], k
    assert k not in seen, k; seen.add(k)
    assert r["finding"] == expected(r), (k, r["finding"], expected(r))
    assert r["confidence"] in ("clear", "ambiguous")
    cnt["outcome:" + r["outcome"]] += 1; cnt["claim:" + str(r["claim"])] += 1; cnt["finding:" + str(r["finding"])] += 1; cnt["lang:" + r["lang"]] += 1
missing = set(calls) - seen
assert not missing, ("unlabelled calls", missing)
convs = {(f, c) for f, c, _ in calls}
print(f"OK: {len(seen)} calls in {len(convs)} conversations")
for k in sorted(cnt): print(f"  {k}: {cnt[k]}")
