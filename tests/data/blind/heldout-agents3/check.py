"""Consistency check for this labelled corpus (run: python3 check.py)."""
import json, os, sys, glob, collections

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = ["file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe",
        "finding", "note", "lang", "confidence"]
OUTCOMES = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null",
            "error_payload", "ok", "cut_off"}
CLAIMS = {"success", "failure", "partial", "neutral", "none", "unread"}
FAILS = {"transport_error", "tool_error", "graphql_error", "error_payload"}
errors = []


def err(msg):
    errors.append(msg)


def load(path):
    out = []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            try:
                out.append(json.loads(line))
            except Exception as e:
                err(f"{path}:{i} does not parse: {e}")
    return out


# calls[(file, conv)] = {tool_call_id: {"name":..., "has_result": bool, "last": bool}}
calls = collections.defaultdict(dict)

p = os.path.join(HERE, "chat_gateway.jsonl")
for rec in load(p):
    conv = rec["conversation_id"]
    msgs = rec["messages"]
    results = {m["tool_call_id"] for m in msgs if m.get("role") == "tool"}
    for m in msgs:
        for tc in m.get("tool_calls") or []:
            json.loads(tc["function"]["arguments"])
            calls[("chat_gateway.jsonl", conv)][tc["id"]] = {"name": tc["function"]["name"],
                                                            "has_result": tc["id"] in results}

p = os.path.join(HERE, "anthropic_messages.jsonl")
for rec in load(p):
    conv = rec["conversation_id"]
    results = set()
    uses = []
    for m in rec["messages"]:
        if isinstance(m["content"], list):
            for b in m["content"]:
                if b["type"] in ("tool_use", "mcp_tool_use"):
                    uses.append(b)
                elif b["type"] in ("tool_result", "mcp_tool_result"):
                    results.add(b["tool_use_id"])
    for b in uses:
        calls[("anthropic_messages.jsonl", conv)][b["id"]] = {"name": b["name"], "has_result": b["id"] in results}

for path in sorted(glob.glob(os.path.join(HERE, "claude_code", "*.jsonl"))):
    rel = os.path.relpath(path, HERE)
    recs = load(path)
    sids = {r.get("sessionId") for r in recs}
    if len(sids) != 1:
        err(f"{rel}: sessionIds {sids}")
    sid = sids.pop()
    if os.path.basename(path) != f"{sid}.jsonl":
        err(f"{rel}: file name is not the sessionId")
    prev = None
    uuids = set()
    results = set()
    uses = []
    for r in recs:
        for k in ("type", "uuid", "parentUuid", "sessionId", "timestamp"):
            if k not in r:
                err(f"{rel}: entry without {k}")
        if r["parentUuid"] != prev:
            err(f"{rel}: parentUuid chain broken at {r['uuid']}")
        prev = r["uuid"]
        uuids.add(r["uuid"])
        content = (r.get("message") or {}).get("content")
        if isinstance(content, list):
            for b in content:
                if b["type"] == "tool_use":
                    uses.append((b, len(uses)))
                elif b["type"] == "tool_result":
                    results.add(b["tool_use_id"])
    for b, _ in uses:
        calls[(rel, sid)][b["id"]] = {"name": b["name"], "has_result": b["id"] in results}
    # a call on the very last line with no result is a cut_off candidate
    last = recs[-1]
    lc = (last.get("message") or {}).get("content")
    if isinstance(lc, list) and lc and lc[-1]["type"] == "tool_use":
        calls[(rel, sid)][lc[-1]["id"]]["last"] = True

labels = load(os.path.join(HERE, "labels.jsonl"))
seen = set()
for l in labels:
    if list(l.keys()) != KEYS:
        err(f"label keys {list(l.keys())}")
    key = (l["file"], l["conversation_id"])
    c = calls.get(key, {}).get(l["tool_call_id"])
    tag = f"{l['conversation_id']}/{l['tool_call_id']}"
    if c is None:
        err(f"{tag}: not found in {l['file']}")
        continue
    seen.add((key, l["tool_call_id"]))
    if c["name"] != l["tool_name"]:
        err(f"{tag}: tool_name {l['tool_name']} != {c['name']}")
    o, cl, rec, pr, fi = l["outcome"], l["claim"], l["recovered"], l["probe"], l["finding"]
    if o not in OUTCOMES or (cl is not None and cl not in CLAIMS):
        err(f"{tag}: bad vocabulary")
    if l["confidence"] not in ("clear", "ambiguous") or not l["note"] or l["lang"] != "en":
        err(f"{tag}: confidence/note/lang")
    # result presence
    if o == "cut_off" and (c["has_result"] or not c.get("last")):
        err(f"{tag}: cut_off but has a result or is not the last line")
    if not c["has_result"] and o not in ("cut_off", "transport_error"):
        err(f"{tag}: no result but outcome {o}")
    # claim read only for failed, unrecovered calls
    read = o not in ("ok", "cut_off") and not rec
    if read and cl is None:
        err(f"{tag}: claim should be read")
    if not read and cl is not None:
        err(f"{tag}: claim should be null")
    if rec and o in ("ok", "cut_off"):
        err(f"{tag}: recovered on a non-failure")
    if pr and (o in ("ok", "cut_off", "identity_null", "graphql_partial")):
        err(f"{tag}: probe on {o}")
    # derive finding
    exp = None
    if not rec:
        if o in FAILS and cl == "success":
            exp = "false_success"
        elif o == "identity_null" and cl == "success":
            exp = "identity_assumed"
        elif (o in FAILS or o == "identity_null") and cl == "neutral" and not pr:
            exp = "unreported_failure"
        elif o == "graphql_partial" and cl == "success":
            exp = "unlabelled_partial"
        elif o == "graphql_partial" and cl == "failure":
            exp = "discarded_partial"
    if fi != exp:
        err(f"{tag}: finding {fi} but spec gives {exp}")

for key, d in calls.items():
    for tid in d:
        if (key, tid) not in seen:
            err(f"{key[1]}/{tid}: call without a label")

if errors:
    print("\n".join(errors))
    sys.exit(1)
cnt = lambda k: dict(collections.Counter(str(l[k]) for l in labels))
print(f"OK: {len(labels)} labelled calls in {len(calls)} conversations")
for k in ("outcome", "claim", "finding", "recovered", "probe", "confidence"):
    print(f"  {k}: {cnt(k)}")
