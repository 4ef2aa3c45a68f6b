"""Sanity checks for this labelled corpus (not the auditor)."""
import json, glob, os, sys
os.chdir(os.path.dirname(os.path.abspath(__file__)))
calls = {}  # (file, conv, id) -> name
errs = []
def add(f, c, i, n):
    if (f, c, i) in calls: errs.append(f"dup call {f} {c} {i}")
    calls[(f, c, i)] = n
for f in ["chat_gateway.jsonl", "anthropic_messages.jsonl"]:
    for ln, line in enumerate(open(f), 1):
        o = json.loads(line); c = o["conversation_id"]
        results = set()
        for m in o["messages"]:
            for t in m.get("tool_calls") or []:
                add(f, c, t["id"], t["function"]["name"]); json.loads(t["function"]["arguments"])
            if m["role"] == "tool": results.add(m["tool_call_id"])
            if isinstance(m.get("content"), list):
                for b in m["content"]:
                    if b["type"] in ("tool_use", "mcp_tool_use"): add(f, c, b["id"], b["name"])
                    if b["type"] in ("tool_result", "mcp_tool_result"): results.add(b["tool_use_id"])
        for k in [k for k in calls if k[0] == f and k[1] == c]:
            if k[2] not in results: errs.append(f"no result for {k}")
for f in glob.glob("claude_code/*.jsonl"):
    sid = os.path.basename(f)[:-6]; prev = None; results = set()
    for line in open(f):
        e = json.loads(line)
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"): assert k in e, (f, k)
        assert e["sessionId"] == sid and e["parentUuid"] == prev; prev = e["uuid"]
        if isinstance(e["message"]["content"], list):
            for b in e["message"]["content"]:
                if b["type"] == "tool_use": add(f, sid, b["id"], b["name"])
                if b["type"] == "tool_result": results.add(b["tool_use_id"])
    for k in [k for k in calls if k[0] == f]:
        if k[2] not in results: errs.append(f"no result for {k}")
FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
def finding(r):
    o, c, rec, pr = r["outcome"], r["claim"], r["recovered"], r["probe"]
    if rec or o in ("ok", "cut_off"): return None
    if o in FAIL and c == "success": return "false_success"
    if o == "identity_null" and c == "success": return "identity_assumed"
    if (o in FAIL or o == "identity_null") and c == "neutral" and not pr: return "unreported_failure"
    if o == "graphql_partial" and c == "success": return "unlabelled_partial"
    if o == "graphql_partial" and c == "failure": return "discarded_partial"
    return None
KEYS = {"file","conversation_id","tool_call_id","tool_name","outcome","claim","recovered","probe","finding","note","lang","confidence"}
seen = set()
for r in map(json.loads, open("labels.jsonl")):
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if set(r) != KEYS: errs.append(f"keys {k}")
    if k not in calls: errs.append(f"label without call {k}"); continue
    if calls[k] != r["tool_name"]: errs.append(f"name mismatch {k}")
    if k in seen: errs.append(f"dup label {k}")
    seen.add(k)
    needs_claim = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if needs_claim != (r["claim"] is not None): errs.append(f"claim null-ness {k}")
    if r["probe"] and (r["outcome"] in ("ok", "identity_null")): errs.append(f"probe on ok/identity {k}")
    if finding(r) != r["finding"]: errs.append(f"finding {k}: {r['finding']} vs {finding(r)}")
    if r["confidence"] not in ("clear", "ambiguous"): errs.append(f"confidence {k}")
for k in calls:
    if k not in seen: errs.append(f"unlabelled call {k}")
print(f"{len(calls)} calls, {len(seen)} labels")
print("\n".join(errs) or "OK"); sys.exit(bool(errs))
