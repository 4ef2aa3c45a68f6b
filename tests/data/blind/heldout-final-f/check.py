"""Consistency check for this labelled corpus (spec: /work/main/docs/spec.md)."""
import json, glob, os, sys
D = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
calls = {}  # (file, conv, id) -> name
def add(f, c, i, n):
    k = (f, c, i); assert k not in calls, k; calls[k] = n
for f in ("chat_gateway.jsonl", "anthropic_messages.jsonl"):
    for ln in open(os.path.join(D, f)):
        r = json.loads(ln); c = r["conversation_id"]
        for m in r["messages"]:
            for t in m.get("tool_calls") or []: add(f, c, t["id"], t["function"]["name"]); json.loads(t["function"]["arguments"])
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") in ("tool_use", "mcp_tool_use"): add(f, c, b["id"], b["name"])
for p in glob.glob(os.path.join(D, "claude_code", "*.jsonl")):
    f = "claude_code/" + os.path.basename(p); prev = None
    for ln in open(p):
        e = json.loads(ln)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, (f, k)
        assert e["parentUuid"] == prev, f; prev = e["uuid"]
        assert f == "claude_code/" + e["sessionId"] + ".jsonl"
        cont = e["message"]["content"]
        if isinstance(cont, list):
            for b in cont:
                if b.get("type") == "tool_use": add(f, e["sessionId"], b["id"], b["name"])
labels = [json.loads(l) for l in open(os.path.join(D, "labels.jsonl"))]
keys = {"file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"}
seen = set(); errs = []
for l in labels:
    assert set(l) == keys, l
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if k not in calls: errs.append(("unknown call", k)); continue
    if calls[k] != l["tool_name"]: errs.append(("name", k))
    seen.add(k)
    o, cl, rec, pr = l["outcome"], l["claim"], l["recovered"], l["probe"]
    read = o not in ("ok", "cut_off") and not rec
    if read != (cl is not None): errs.append(("claim read?", k))
    exp = None
    if not rec:
        if o in FAIL and cl == "success": exp = "false_success"
        elif o == "identity_null" and cl == "success": exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and cl == "neutral" and not pr: exp = "unreported_failure"
        elif o == "graphql_partial" and cl == "success": exp = "unlabelled_partial"
        elif o == "graphql_partial" and cl == "failure": exp = "discarded_partial"
    if exp != l["finding"]: errs.append(("finding", k, exp, l["finding"]))
    if l["confidence"] not in ("clear", "ambiguous"): errs.append(("conf", k))
missing = set(calls) - seen
if missing: errs.append(("unlabelled", missing))
from collections import Counter
print(len(labels), "labels,", len({(l['file'], l['conversation_id']) for l in labels}), "conversations")
for fld in ("outcome", "claim", "finding", "recovered", "probe", "confidence"):
    print(fld, dict(Counter(str(l[fld]) for l in labels)))
print("ERRORS:", errs) if errs else print("OK")
sys.exit(1 if errs else 0)
