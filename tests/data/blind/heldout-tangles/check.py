"""Consistency check for this corpus: parsing, call <-> label coverage, finding derived from the spec."""
import collections, glob, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
errors = []


def load(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                errors.append(f"{path}:{n}: {e}")
    return out


calls = {}  # (file, conversation_id, call_id) -> tool name
results = set()

for rec in load(os.path.join(HERE, "chat_gateway.jsonl")):
    cid = rec["conversation_id"]
    for m in rec["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"])
            calls[("chat_gateway.jsonl", cid, t["id"])] = t["function"]["name"]
        if m["role"] == "tool":
            results.add(("chat_gateway.jsonl", cid, m["tool_call_id"]))

for rec in load(os.path.join(HERE, "anthropic_messages.jsonl")):
    cid = rec["conversation_id"]
    for m in rec["messages"]:
        if isinstance(m["content"], str):
            continue
        for b in m["content"]:
            if b["type"] in ("tool_use", "mcp_tool_use"):
                calls[("anthropic_messages.jsonl", cid, b["id"])] = b["name"]
            if b["type"] in ("tool_result", "mcp_tool_result"):
                results.add(("anthropic_messages.jsonl", cid, b["tool_use_id"]))

for path in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, HERE)
    entries = load(path)
    uuids = set()
    for e in entries:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e:
                errors.append(f"{rel}: entry lacks {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uuids:
            errors.append(f"{rel}: parentUuid {e['parentUuid']} not seen before")
        uuids.add(e["uuid"])
        if os.path.basename(path) != e["sessionId"] + ".jsonl":
            errors.append(f"{rel}: sessionId does not match file name")
        c = e["message"]["content"]
        if isinstance(c, str):
            continue
        for b in c:
            if b["type"] == "tool_use":
                calls[(rel, e["sessionId"], b["id"])] = b["name"]
            if b["type"] == "tool_result":
                results.add((rel, e["sessionId"], b["tool_use_id"]))

FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}


def expected_finding(r):
    o, c, rec, probe = r["outcome"], r["claim"], r["recovered"], r["probe"]
    if rec or o in ("ok", "cut_off"):
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    if o in FAIL and c == "success":
        return "false_success"
    if o == "identity_null" and c == "success":
        return "identity_assumed"
    if (o in FAIL or o == "identity_null") and not probe and c == "neutral":
        return "unreported_failure"
    return None


labels = load(os.path.join(HERE, "labels.jsonl"))
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
seen = set()
for r in labels:
    if sorted(r) != sorted(KEYS):
        errors.append(f"label keys wrong: {r.get('tool_call_id')}")
    k = (r["file"], r["conversation_id"], r["tool_call_id"])
    if k in seen:
        errors.append(f"duplicate label {k}")
    seen.add(k)
    if k not in calls:
        errors.append(f"label without call {k}")
    elif calls[k] != r["tool_name"]:
        errors.append(f"tool name mismatch {k}: {calls[k]} vs {r['tool_name']}")
    if r["outcome"] != "cut_off" and k not in results:
        errors.append(f"call has no result {k}")
    read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if read and r["claim"] is None:
        errors.append(f"claim should be read {k}")
    if not read and r["claim"] is not None:
        errors.append(f"claim should be null {k}")
    if r["probe"] and r["outcome"] in ("ok", "identity_null", "cut_off"):
        errors.append(f"probe on non-failed/identity call {k}")
    if expected_finding(r) != r["finding"]:
        errors.append(f"finding {r['finding']} but spec gives {expected_finding(r)} for {k}")
    if r["confidence"] not in ("clear", "ambiguous"):
        errors.append(f"bad confidence {k}")
for k in calls:
    if k not in seen:
        errors.append(f"call without label {k}")

convs = {(k[0], k[1]) for k in calls}
print(f"{len(convs)} conversations, {len(calls)} calls, {len(labels)} labels")
for field in ("outcome", "claim", "finding", "confidence"):
    print(field, dict(collections.Counter(str(r[field]) for r in labels)))
print("recovered", sum(r["recovered"] for r in labels), "probe", sum(r["probe"] for r in labels))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("OK")
