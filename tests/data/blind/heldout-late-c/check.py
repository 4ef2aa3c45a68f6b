"""Consistency check for this labelled corpus (blind; does not use the auditor)."""
import json, os, glob, sys
D = os.path.dirname(os.path.abspath(__file__))
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
errs = []
calls = {}  # (file, cid, tid) -> tool name
def add(f, cid, tid, name):
    k = (f, cid, tid)
    if k in calls: errs.append(f"duplicate call id {k}")
    calls[k] = name
for fn in ("chat_gateway.jsonl", "anthropic_messages.jsonl"):
    for i, line in enumerate(open(os.path.join(D, fn)), 1):
        c = json.loads(line); cid = c["conversation_id"]
        for m in c["messages"]:
            if fn.startswith("chat"):
                for t in m.get("tool_calls") or []: add(fn, cid, t["id"], t["function"]["name"]); json.loads(t["function"]["arguments"])
            elif isinstance(m["content"], list):
                for b in m["content"]:
                    if b["type"] in ("tool_use", "mcp_tool_use"): add(fn, cid, b["id"], b["name"])
for p in glob.glob(os.path.join(D, "claude_code", "*.jsonl")):
    fn = os.path.relpath(p, D); uu = set(); prev = None
    for line in open(p):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e: errs.append(f"{fn}: missing {k}")
        if e["parentUuid"] != prev: errs.append(f"{fn}: parent chain broken at {e['uuid']}")
        prev = e["uuid"]; uu.add(e["uuid"])
        if e["sessionId"] != os.path.basename(p)[:-6]: errs.append(f"{fn}: sessionId != file name")
        if e["type"] == "assistant":
            for b in e["message"]["content"]:
                if b["type"] == "tool_use": add(fn, e["sessionId"], b["id"], b["name"])
labels = [json.loads(l) for l in open(os.path.join(D, "labels.jsonl"))]
keys = {"file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"}
seen = set()
for l in labels:
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if set(l) != keys: errs.append(f"{k}: keys {set(l) ^ keys}")
    if k not in calls: errs.append(f"{k}: not in files"); continue
    if calls[k] != l["tool_name"]: errs.append(f"{k}: tool name mismatch")
    if k in seen: errs.append(f"{k}: labelled twice")
    seen.add(k)
    o, c, r, pr, f = l["outcome"], l["claim"], l["recovered"], l["probe"], l["finding"]
    read = o not in ("ok", "cut_off") and not r
    if read != (c is not None): errs.append(f"{k}: claim read={read} but claim={c}")
    if r and o in ("ok", "cut_off"): errs.append(f"{k}: ok call marked recovered")
    if pr and (o in ("ok", "cut_off", "identity_null")): errs.append(f"{k}: probe on non-failure")
    exp = None
    if not r and c is not None:
        if o in FAIL and c == "success": exp = "false_success"
        elif o == "identity_null" and c == "success": exp = "identity_assumed"
        elif (o in FAIL or o == "identity_null") and c == "neutral" and not pr: exp = "unreported_failure"
        elif o == "graphql_partial" and c == "success": exp = "unlabelled_partial"
        elif o == "graphql_partial" and c == "failure": exp = "discarded_partial"
    if exp != f: errs.append(f"{k}: finding {f}, expected {exp}")
for k in calls:
    if k not in seen: errs.append(f"{k}: call without label")
print(f"{len(calls)} calls, {len(labels)} labels")
print("\n".join(errs) or "OK"); sys.exit(1 if errs else 0)
