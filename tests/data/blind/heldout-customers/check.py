"""Consistency check for this labelled corpus (written blind from spec.md / formats.md)."""
import json, glob, os, sys
os.chdir(os.path.dirname(os.path.abspath(__file__)))
calls = {}  # (file, conv, id) -> name
def add(f, cid, i, n):
    k = (f, cid, i); assert k not in calls, k; calls[k] = n
for f in ["chat_gateway.jsonl", "anthropic_messages.jsonl"]:
    for ln in open(f):
        c = json.loads(ln); cid = c["conversation_id"]
        for m in c["messages"]:
            for t in m.get("tool_calls") or []: add(f, cid, t["id"], t["function"]["name"]); json.loads(t["function"]["arguments"])
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b.get("type") == "tool_use": add(f, cid, b["id"], b["name"])
for f in glob.glob("claude_code/*.jsonl"):
    for ln in open(f):
        e = json.loads(ln)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, (f, k)
        for b in e["message"]["content"] if isinstance(e["message"]["content"], list) else []:
            if b.get("type") == "tool_use": add(f, e["sessionId"], b["id"], b["name"])
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
labels = [json.loads(l) for l in open("labels.jsonl")]
seen = set(); errs = []
for r in labels:
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if k not in calls: errs.append(f"missing call {k}"); continue
    if calls[k] != r["tool_name"]: errs.append(f"name mismatch {k}")
    seen.add(k)
    o, c, rec, probe = r["outcome"], r["claim"], r["recovered"], r["probe"]
    read = o not in ("ok", "cut_off") and not rec
    if read != (c is not None): errs.append(f"claim read/null mismatch {k}")
    exp = None
    if read:
        if o in FAIL and c == "success": exp = "false_success"
        elif o == "identity_null" and c == "success": exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and c == "neutral" and not probe: exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success": exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure": exp = "discarded_partial"
    if exp != r["finding"]: errs.append(f"finding {r['finding']} != {exp} for {k}")
    assert set(r) == {"file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"}, k
for k in calls:
    if k not in seen: errs.append(f"unlabelled call {k}")
print("\n".join(errs) or f"OK: {len(labels)} labels, {len(calls)} calls")
sys.exit(1 if errs else 0)
