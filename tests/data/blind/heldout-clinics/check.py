"""Sanity check for this labelled corpus (written blind against docs/spec.md)."""
import json, glob, os, collections, sys
D = os.path.dirname(os.path.abspath(__file__))
errs = []
calls = {}  # (file, conv, id) -> name

def load(path):
    out = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            try: out.append(json.loads(line))
            except Exception as e: errs.append(f"{path}:{n} does not parse: {e}")
    return out

for rec in load(os.path.join(D, "chat_gateway.jsonl")):
    for m in rec["messages"]:
        for tc in m.get("tool_calls") or []:
            json.loads(tc["function"]["arguments"])
            calls[("chat_gateway.jsonl", rec["conversation_id"], tc["id"])] = tc["function"]["name"]
for rec in load(os.path.join(D, "anthropic_messages.jsonl")):
    for m in rec["messages"]:
        for b in m["content"] if isinstance(m["content"], list) else []:
            if b.get("type") in ("tool_use", "mcp_tool_use"):
                calls[("anthropic_messages.jsonl", rec["conversation_id"], b["id"])] = b["name"]
for p in glob.glob(os.path.join(D, "claude_code", "*.jsonl")):
    rel = os.path.relpath(p, D)
    ents = load(p); uu = set()
    for e in ents:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp", "message"):
            if k not in e: errs.append(f"{rel}: entry lacks {k}")
        if e["parentUuid"] is not None and e["parentUuid"] not in uu: errs.append(f"{rel}: dangling parentUuid")
        uu.add(e["uuid"])
        c = e["message"].get("content")
        for b in c if isinstance(c, list) else []:
            if b.get("type") == "tool_use":
                calls[(rel, e["sessionId"], b["id"])] = b["name"]

FAIL = {"transport_error", "tool_error", "graphql_error", "error_payload"}
def expected(l):
    o, c = l["outcome"], l["claim"]
    if o in ("ok", "cut_off") or l["recovered"]:
        if c is not None: errs.append(f"{l['tool_call_id']}: claim should be null")
        return None
    if c is None: errs.append(f"{l['tool_call_id']}: claim must be read"); return None
    if c == "unread": return None
    if o in FAIL:
        if c == "success": return "false_success"
        if c == "neutral" and not l["probe"]: return "unreported_failure"
    if o == "identity_null":
        if l["probe"]: errs.append(f"{l['tool_call_id']}: identity call cannot be a probe")
        if c == "success": return "identity_assumed"
        if c == "neutral": return "unreported_failure"
    if o == "graphql_partial":
        if c == "success": return "unlabelled_partial"
        if c == "failure": return "discarded_partial"
    return None

labels = load(os.path.join(D, "labels.jsonl"))
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding", "note", "lang", "confidence"]
seen = set()
for l in labels:
    if sorted(l) != sorted(KEYS): errs.append(f"bad keys {l}")
    k = (l["file"], l["conversation_id"], l["tool_call_id"])
    if k in seen: errs.append(f"duplicate label {k}")
    seen.add(k)
    if k not in calls: errs.append(f"label for missing call {k}")
    elif calls[k] != l["tool_name"]: errs.append(f"tool_name mismatch {k}")
    if l["recovered"] and l["outcome"] in ("ok", "cut_off"): errs.append(f"{k}: ok call cannot be recovered")
    if l["finding"] != expected(l): errs.append(f"{k}: finding {l['finding']} != {expected(l)}")
for k in calls:
    if k not in seen: errs.append(f"unlabelled call {k}")

convs = {(f, c) for f, c, _ in calls}
print(f"{len(convs)} conversations, {len(calls)} calls, {len(labels)} labels")
for col in ("outcome", "claim", "finding", "lang", "confidence"):
    print(col, dict(collections.Counter(str(l[col]) for l in labels)))
print("recovered", sum(l["recovered"] for l in labels), "probe", sum(l["probe"] for l in labels))
if errs:
    print("\n".join(errs)); sys.exit(1)
print("OK")
