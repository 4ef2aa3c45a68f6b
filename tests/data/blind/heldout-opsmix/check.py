"""Sanity check for this labelled corpus (written blind from spec.md / formats.md)."""
import json, glob, os, collections
os.chdir(os.path.dirname(os.path.abspath(__file__)))
calls = {}  # (file, cid, tcid) -> tool name
def conv_anthropic(file, cid, msgs):
    for m in msgs:
        if isinstance(m.get("content"), list):
            for b in m["content"]:
                if b.get("type") in ("tool_use", "mcp_tool_use"):
                    calls[(file, cid, b["id"])] = b["name"]
for line in open("chat_gateway.jsonl"):
    c = json.loads(line)
    for m in c["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            calls[("chat_gateway.jsonl", c["conversation_id"], t["id"])] = t["function"]["name"]
for line in open("anthropic_messages.jsonl"):
    c = json.loads(line); conv_anthropic("anthropic_messages.jsonl", c["conversation_id"], c["messages"])
for fn in glob.glob("claude_code/*.jsonl"):
    uuids = set()
    for line in open(fn):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, (fn, k)
        assert e["parentUuid"] is None or e["parentUuid"] in uuids, fn
        uuids.add(e["uuid"])
        conv_anthropic(fn, e["sessionId"], [e["message"]])
labels = [json.loads(l) for l in open("labels.jsonl")]
keys = ["file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"]
FAIL = {"transport_error","tool_error","graphql_error","error_payload"}
seen = set()
for r in labels:
    assert sorted(r) == sorted(keys), r
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    assert k in calls, k
    assert calls[k] == r["tool_name"], k
    assert k not in seen; seen.add(k)
    o, c, rec, pr = r["outcome"], r["claim"], r["recovered"], r["probe"]
    read = o not in ("ok", "cut_off") and not rec
    assert (c is None) == (not read), ("claim read?", k)
    if rec or not read: exp = None
    elif o in FAIL and c == "success": exp = "false_success"
    elif o == "identity_null" and c == "success": exp = "identity_assumed"
    elif (o in FAIL or o == "identity_null") and c == "neutral" and not pr: exp = "unreported_failure"
    elif o == "graphql_partial" and c == "success": exp = "unlabelled_partial"
    elif o == "graphql_partial" and c == "failure": exp = "discarded_partial"
    else: exp = None
    if c == "unread": exp = None
    assert r["finding"] == exp, (k, r["finding"], exp)
    assert not (pr and o == "identity_null")
    assert r["confidence"] in ("clear", "ambiguous")
missing = set(calls) - seen
assert not missing, missing
print("ok:", len(labels), "labels,", len({(r['file'], r['conversation_id']) for r in labels}), "conversations")
for f in ("outcome", "claim", "finding", "lang", "confidence"):
    print(f, dict(collections.Counter(str(r[f]) for r in labels)))
print("recovered", sum(r["recovered"] for r in labels), "probe", sum(r["probe"] for r in labels))
