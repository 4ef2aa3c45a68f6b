"""Self-check for the s10-backops labelled corpus (written blind from spec.md and formats.md)."""
import json, os, sys, collections

HERE = os.path.dirname(os.path.abspath(__file__))
FAILS = {"transport_error", "tool_error", "graphql_error", "error_payload"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
OUTCOMES = FAILS | {"graphql_partial", "identity_null", "ok", "cut_off"}
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered",
        "probe", "finding", "note", "lang", "confidence"]
errors = []


def calls_in(path):
    """Return {(conversation_id, tool_call_id): (tool_name, has_result)} for one file."""
    out = {}
    rel = os.path.relpath(path, HERE)
    lines = open(path, encoding="utf-8").read().splitlines()
    recs = []
    for i, line in enumerate(lines, 1):
        try:
            recs.append(json.loads(line))
        except Exception as e:
            errors.append(f"{rel}:{i} does not parse: {e}")
    if rel.startswith("claude_code/"):
        sid = {r.get("sessionId") for r in recs}
        if len(sid) != 1:
            errors.append(f"{rel}: sessionId not unique {sid}")
        sid = sid.pop()
        uu = [r["uuid"] for r in recs]
        for prev, r in zip([None] + uu, recs):
            if r.get("parentUuid") != prev:
                errors.append(f"{rel}: parentUuid chain broken at {r['uuid']}")
            for k in ("type", "uuid", "sessionId", "timestamp", "message"):
                if k not in r:
                    errors.append(f"{rel}: entry lacks {k}")
        res = set()
        for r in recs:
            c = r["message"]["content"]
            for b in c if isinstance(c, list) else []:
                if b["type"] == "tool_use":
                    out[(sid, b["id"])] = [b["name"], False]
                if b["type"] == "tool_result":
                    res.add(b["tool_use_id"])
        for k in out:
            out[k][1] = k[1] in res
        return out
    for r in recs:
        cid = r["conversation_id"]
        res = set()
        for m in r["messages"]:
            if rel == "chat_gateway.jsonl":
                for t in m.get("tool_calls") or []:
                    json.loads(t["function"]["arguments"])
                    out[(cid, t["id"])] = [t["function"]["name"], False]
                if m["role"] == "tool":
                    res.add(m["tool_call_id"])
            else:
                c = m["content"]
                for b in c if isinstance(c, list) else []:
                    if b["type"] in ("tool_use", "mcp_tool_use"):
                        out[(cid, b["id"])] = [b["name"], False]
                    if b["type"] in ("tool_result", "mcp_tool_result"):
                        res.add(b["tool_use_id"])
        for k in out:
            if k[0] == cid:
                out[k][1] = k[1] in res
    return out


def expected_finding(r):
    o, c = r["outcome"], r["claim"]
    if o in ("ok", "cut_off") or r["recovered"]:
        return None
    if o in FAILS:
        if c == "success":
            return "false_success"
        if c == "neutral" and not r["probe"]:
            return "unreported_failure"
        return None
    if o == "identity_null":
        if c == "success":
            return "identity_assumed"
        if c == "neutral":
            return "unreported_failure"
        return None
    if o == "graphql_partial":
        return {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(c)
    return None


files = ["chat_gateway.jsonl", "anthropic_messages.jsonl"] + sorted(
    "claude_code/" + f for f in os.listdir(os.path.join(HERE, "claude_code")))
calls = {}
for f in files:
    for k, v in calls_in(os.path.join(HERE, f)).items():
        calls[(f,) + k] = v

labels = [json.loads(l) for l in open(os.path.join(HERE, "labels.jsonl"), encoding="utf-8")]
seen = set()
for r in labels:
    key = (r["file"], r["conversation_id"], r["tool_call_id"])
    if list(r) != KEYS:
        errors.append(f"{key}: keys {list(r)}")
    if key in seen:
        errors.append(f"{key}: duplicate label")
    seen.add(key)
    if key not in calls:
        errors.append(f"{key}: no such call in file")
        continue
    name, has_result = calls[key]
    if name != r["tool_name"]:
        errors.append(f"{key}: tool_name {r['tool_name']} != {name}")
    if r["outcome"] not in OUTCOMES:
        errors.append(f"{key}: bad outcome")
    if not has_result and r["outcome"] not in ("transport_error", "cut_off"):
        errors.append(f"{key}: no result but outcome {r['outcome']}")
    read = r["outcome"] not in ("ok", "cut_off") and not r["recovered"]
    if read and r["claim"] not in CLAIMS:
        errors.append(f"{key}: claim must be read")
    if not read and r["claim"] is not None:
        errors.append(f"{key}: claim must be null")
    if r["recovered"] and r["outcome"] in ("ok", "cut_off"):
        errors.append(f"{key}: ok call marked recovered")
    if r["probe"] and r["outcome"] in ("ok", "cut_off", "identity_null"):
        errors.append(f"{key}: probe must be a failed non-identity call")
    if r["finding"] != expected_finding(r):
        errors.append(f"{key}: finding {r['finding']} != {expected_finding(r)}")
    if r["confidence"] not in ("clear", "ambiguous"):
        errors.append(f"{key}: confidence")
for key in calls:
    if key not in seen:
        errors.append(f"{key}: call without label")

convs = {(r["file"], r["conversation_id"]) for r in labels}
print(f"{len(labels)} labelled calls, {len(convs)} conversations")
for col in ("outcome", "claim", "finding", "confidence", "recovered", "probe"):
    print(col, dict(collections.Counter(str(r[col]) for r in labels)))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("all checks passed")
