"""Consistency check for this labelled corpus (no auditor code used)."""
import json, glob, os, sys
os.chdir(os.path.dirname(os.path.abspath(__file__)))
calls = {}  # (file, conv, id) -> name
def add(f, c, i, n):
    assert (f, c, i) not in calls, ("duplicate id", f, c, i); calls[(f, c, i)] = n
for f in ["chat_gateway.jsonl", "anthropic_messages.jsonl"]:
    for ln, line in enumerate(open(f), 1):
        o = json.loads(line); c = o["conversation_id"]
        for m in o["messages"]:
            for t in m.get("tool_calls") or []:
                json.loads(t["function"]["arguments"]); add(f, c, t["id"], t["function"]["name"])
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use"): add(f, c, b["id"], b["name"])
for f in glob.glob("claude_code/*.jsonl"):
    uu = set()
    for line in open(f):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, (f, k)
        assert e["parentUuid"] is None or e["parentUuid"] in uu, "parent chain"; uu.add(e["uuid"])
        if isinstance(e["message"].get("content"), list):
            for b in e["message"]["content"]:
                if b.get("type") == "tool_use": add(f, e["sessionId"], b["id"], b["name"])
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
labels = [json.loads(l) for l in open("labels.jsonl")]
keys = {"file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"}
seen = set(); errs = []
for r in labels:
    assert set(r) == keys, r
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if k not in calls: errs.append(("label without call", k)); continue
    if calls[k] != r["tool_name"]: errs.append(("name", k))
    seen.add(k)
    o, cl, rec, pr = r["outcome"], r["claim"], r["recovered"], r["probe"]
    read = o not in ("ok", "cut_off") and not rec
    if read != (cl is not None): errs.append(("claim read/null", k))
    if o in ("ok", "cut_off") and rec: errs.append(("ok recovered", k))
    exp = None
    if read:
        if o in FAIL and cl == "success": exp = "false_success"
        elif o == "identity_null" and cl == "success": exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and cl == "neutral" and not pr: exp = "unreported_failure"
        elif o == "graphql_partial" and cl == "success": exp = "unlabelled_partial"
        elif o == "graphql_partial" and cl == "failure": exp = "discarded_partial"
    if exp != r["finding"]: errs.append(("finding", k, exp, r["finding"]))
    if r["confidence"] not in ("clear", "ambiguous"): errs.append(("conf", k))
for k in calls:
    if k not in seen: errs.append(("call without label", k))
print(len(calls), "calls,", len(labels), "labels,", len({(r['file'], r['conversation_id']) for r in labels}), "conversations")
print("errors:", errs or "none"); sys.exit(1 if errs else 0)
