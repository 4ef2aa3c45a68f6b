"""Consistency check for this labelled corpus (written blind; does not use the auditor)."""
import json, glob, os, collections, sys
D = os.path.dirname(os.path.abspath(__file__))
calls = {}  # (file, conv, id) -> name
def add(f, c, i, n):
    assert (f, c, i) not in calls, ("duplicate call id", f, c, i); calls[(f, c, i)] = n
for ln in open(f"{D}/chat_gateway.jsonl"):
    o = json.loads(ln)
    for m in o["messages"]:
        for tc in m.get("tool_calls") or []: add("chat_gateway.jsonl", o["conversation_id"], tc["id"], tc["function"]["name"])
for ln in open(f"{D}/anthropic_messages.jsonl"):
    o = json.loads(ln)
    for m in o["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"): add("anthropic_messages.jsonl", o["conversation_id"], b["id"], b["name"])
for p in sorted(glob.glob(f"{D}/claude_code/*.jsonl")):
    f = os.path.relpath(p, D); uuids = set()
    for ln in open(p):
        e = json.loads(ln)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, (p, k)
        assert e["parentUuid"] is None or e["parentUuid"] in uuids, ("broken parent chain", p)
        uuids.add(e["uuid"])
        c = e["message"]["content"]
        if e["type"] == "assistant":
            for b in c:
                if b["type"] == "tool_use": add(f, e["sessionId"], b["id"], b["name"])
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
def expect(r):
    o, cl, rec, pr = r["outcome"], r["claim"], r["recovered"], r["probe"]
    if o in ("ok", "cut_off"): return None
    if rec: return None
    if cl == "unread": return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(cl)
    if o == "identity_null":
        if cl == "success": return "identity_assumed"
        return "unreported_failure" if cl == "neutral" else None
    if o in FAIL:
        if cl == "success": return "false_success"
        if cl == "neutral" and not pr: return "unreported_failure"
    return None
keys = ["file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"]
seen = set(); errs = 0
for ln in open(f"{D}/labels.jsonl"):
    r = json.loads(ln); assert sorted(r) == sorted(keys), r
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if k not in calls: print("label without call", k); errs += 1; continue
    if calls[k] != r["tool_name"]: print("name mismatch", k); errs += 1
    seen.add(k)
    needs_claim = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if needs_claim != (r["claim"] is not None): print("claim read rule", k); errs += 1
    if r["finding"] != expect(r): print("finding mismatch", k, r["finding"], expect(r)); errs += 1
    if r["outcome"] == "identity_null" and r["probe"]: print("identity call marked probe", k); errs += 1
    if r["confidence"] not in ("clear", "ambiguous"): errs += 1
for k in calls:
    if k not in seen: print("call without label", k); errs += 1
print(len(calls), "calls,", len(seen), "labelled,", errs, "errors")
rows = [json.loads(l) for l in open(f"{D}/labels.jsonl")]
for col in ("outcome", "claim", "finding"):
    print(col, dict(collections.Counter(str(r[col]) for r in rows)))
print("recovered", sum(r["recovered"] for r in rows), "probes", sum(r["probe"] for r in rows),
      "conversations", len({r["conversation_id"] for r in rows}))
sys.exit(1 if errs else 0)
