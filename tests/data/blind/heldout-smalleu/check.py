"""Consistency check for this labelled corpus (written blind from spec.md)."""
import json, glob, os, sys, collections
os.chdir(os.path.dirname(os.path.abspath(__file__)))
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
calls = {}  # (file, cid, tid) -> name
def add(f, cid, tid, name):
    assert (f, cid, tid) not in calls, ("dup", f, cid, tid); calls[(f, cid, tid)] = name
for f in ["chat_gateway.jsonl"]:
    for ln in open(f):
        c = json.loads(ln); res = set()
        for m in c["messages"]:
            for t in m.get("tool_calls") or []:
                json.loads(t["function"]["arguments"]); add(f, c["conversation_id"], t["id"], t["function"]["name"])
            if m["role"] == "tool": res.add(m["tool_call_id"])
        assert all(k[2] in res for k in calls if k[1] == c["conversation_id"]), c["conversation_id"]
for f in ["anthropic_messages.jsonl"]:
    for ln in open(f):
        c = json.loads(ln); res = set()
        for m in c["messages"]:
            if isinstance(m["content"], str): continue
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"): add(f, c["conversation_id"], b["id"], b["name"])
                if b["type"] in ("tool_result", "mcp_tool_result"): res.add(b["tool_use_id"])
        assert all(k[2] in res for k in calls if k[1] == c["conversation_id"]), c["conversation_id"]
for f in glob.glob("claude_code/*.jsonl"):
    uuids = set()
    for ln in open(f):
        e = json.loads(ln)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e
        assert e["parentUuid"] is None or e["parentUuid"] in uuids; uuids.add(e["uuid"])
        c = e["message"]["content"]
        if isinstance(c, list):
            for b in c:
                if b["type"] == "tool_use": add(f, e["sessionId"], b["id"], b["name"])
labels = [json.loads(l) for l in open("labels.jsonl")]
keys = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding", "note", "lang", "confidence"}
seen = set()
for l in labels:
    assert set(l) == keys, l
    k = (l["file"], l["conversation_id"], l["tool_call_id"]); assert k in calls, k; assert k not in seen; seen.add(k)
    assert calls[k] == l["tool_name"], k
    o, c, r, p = l["outcome"], l["claim"], l["recovered"], l["probe"]
    read = o not in ("ok", "cut_off") and not r
    assert (c is None) != read, ("claim read?", k)
    exp = None
    if read and c != "unread":
        if o in FAILED and c == "success": exp = "false_success"
        elif o == "identity_null" and c == "success": exp = "identity_assumed"
        elif (o in FAILED or o == "identity_null") and c == "neutral" and not p: exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success": exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure": exp = "discarded_partial"
    assert l["finding"] == exp, (k, l["finding"], exp)
    if p: assert o in FAILED and o != "identity_null"
    assert l["confidence"] in ("clear", "ambiguous")
assert seen == set(calls), set(calls) - seen
print(len(labels), "labels OK;", len({(k[0], k[1]) for k in calls}), "conversations")
for fld in ("outcome", "claim", "finding", "lang"):
    print(fld, dict(collections.Counter(str(l[fld]) for l in labels)))
