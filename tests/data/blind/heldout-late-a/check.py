"""Sanity checks for this labelled corpus (run from anywhere)."""
import json, os, glob
D = os.path.dirname(os.path.abspath(__file__))
calls = {}  # (file, conv, id) -> name
def add(f, c, i, n):
    assert (f, c, i) not in calls, ("duplicate call", f, c, i); calls[(f, c, i)] = n
for fn in ("chat_gateway.jsonl", "anthropic_messages.jsonl"):
    for ln, line in enumerate(open(os.path.join(D, fn)), 1):
        rec = json.loads(line); c = rec["conversation_id"]
        for m in rec["messages"]:
            for t in m.get("tool_calls") or []:
                json.loads(t["function"]["arguments"]); add(fn, c, t["id"], t["function"]["name"])
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use") and m["role"] == "assistant":
                        add(fn, c, b["id"], b["name"])
for p in sorted(glob.glob(os.path.join(D, "claude_code", "*.jsonl"))):
    fn = os.path.relpath(p, D); prev = None
    for line in open(p):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, k
        assert e["parentUuid"] == prev; prev = e["uuid"]
        if e["type"] == "assistant":
            for b in e["message"]["content"]:
                if b["type"] == "tool_use": add(fn, e["sessionId"], b["id"], b["name"])
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
def expect(l):
    o, c, r = l["outcome"], l["claim"], l["recovered"]
    if r or o in ("ok", "cut_off"): return None
    if o in FAIL and c == "success": return "false_success"
    if o == "identity_null" and c == "success": return "identity_assumed"
    if (o in FAIL or o == "identity_null") and c == "neutral" and not (l["probe"] and o != "identity_null"): return "unreported_failure"
    if o == "graphql_partial" and c == "success": return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure": return "discarded_partial"
    return None
keys = ["file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"]
seen = set(); errs = 0
for l in map(json.loads, open(os.path.join(D, "labels.jsonl"))):
    assert list(l) == keys, l
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if k not in calls: print("label without call", k); errs += 1; continue
    if calls[k] != l["tool_name"]: print("name mismatch", k); errs += 1
    seen.add(k)
    read = not l["recovered"] and l["outcome"] not in ("ok", "cut_off")
    if read != (l["claim"] is not None): print("claim read/null mismatch", k); errs += 1
    if l["finding"] != expect(l): print("finding mismatch", k, l["finding"], expect(l)); errs += 1
    if l["outcome"] == "identity_null" and l["probe"]: print("identity probe", k); errs += 1
for k in set(calls) - seen: print("unlabelled call", k); errs += 1
print(f"{len(calls)} calls, {len(seen)} labelled, {errs} problems")
