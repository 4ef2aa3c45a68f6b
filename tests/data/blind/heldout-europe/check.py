"""Consistency check for the dec-d labelled corpus (spec rev. 2026-12-01)."""
import json, os, sys
from collections import Counter
D = os.path.dirname(os.path.abspath(__file__))
OUT = {"transport_error", "graphql_partial", "graphql_error", "tool_error", "identity_null", "error_payload", "ok", "cut_off"}
CLAIM = {None, "success", "failure", "partial", "neutral", "none", "unread"}
FIND = {None, "false_success", "identity_assumed", "unreported_failure", "unlabelled_partial", "discarded_partial"}
FAILED = {"transport_error", "tool_error", "graphql_error", "error_payload"}
KEYS = {"file", "conversation_id", "tool_call_id", "tool_name", "outcome", "claim", "recovered", "probe", "finding", "note", "lang", "confidence"}
errs = []

def load(fn):
    rows = []
    with open(os.path.join(D, fn), encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            try: rows.append(json.loads(line))
            except Exception as e: errs.append(f"{fn}:{i} does not parse: {e}")
    return rows

calls = {}    # (file, conv, id) -> dict(name, has_result, flagged, text)
for fn in ("chat_gateway.jsonl", "anthropic_messages.jsonl"):
    convs = set()
    for rec in load(fn):
        conv = rec["conversation_id"]
        if conv in convs: errs.append(f"{fn}: duplicate conversation {conv}")
        convs.add(conv)
        for m in rec["messages"]:
            if fn.startswith("chat"):
                for tc in m.get("tool_calls") or []:
                    json.loads(tc["function"]["arguments"])
                    calls[(fn, conv, tc["id"])] = dict(name=tc["function"]["name"], has_result=False, flagged=False, text="")
                if m["role"] == "tool":
                    k = (fn, conv, m["tool_call_id"])
                    if k not in calls: errs.append(f"orphan tool result {k}"); continue
                    calls[k].update(has_result=True, text=m["content"] if isinstance(m["content"], str) else json.dumps(m["content"]))
                    try: calls[k]["flagged"] = json.loads(m["content"]).get("isError") is True
                    except Exception: pass
            else:
                if isinstance(m["content"], str): continue
                for b in m["content"]:
                    if b["type"] in ("tool_use", "mcp_tool_use"):
                        calls[(fn, conv, b["id"])] = dict(name=b["name"], has_result=False, flagged=False, text="")
                    elif b["type"] in ("tool_result", "mcp_tool_result"):
                        k = (fn, conv, b["tool_use_id"])
                        if k not in calls: errs.append(f"orphan tool result {k}"); continue
                        c = b.get("content")
                        calls[k].update(has_result=True, flagged=b.get("is_error") is True,
                                        text=c if isinstance(c, str) else " ".join(x.get("text", "") for x in c))

labels = load("labels.jsonl")
seen = set()
for i, L in enumerate(labels, 1):
    where = f"labels.jsonl:{i}"
    if set(L) != KEYS: errs.append(f"{where}: keys {sorted(set(L) ^ KEYS)}")
    k = (L["file"], L["conversation_id"], L["tool_call_id"])
    if k in seen: errs.append(f"{where}: duplicate label")
    seen.add(k)
    c = calls.get(k)
    if c is None: errs.append(f"{where}: call not found in file/conversation"); continue
    if c["name"] != L["tool_name"]: errs.append(f"{where}: tool_name {L['tool_name']} != {c['name']}")
    o, cl, rec, pr, fi = L["outcome"], L["claim"], L["recovered"], L["probe"], L["finding"]
    if o not in OUT or cl not in CLAIM or fi not in FIND: errs.append(f"{where}: vocabulary")
    if not isinstance(rec, bool) or not isinstance(pr, bool): errs.append(f"{where}: recovered/probe must be bool")
    if L["confidence"] not in ("clear", "ambiguous"): errs.append(f"{where}: confidence")
    if L["confidence"] == "ambiguous" and "other reading" not in L["note"].lower(): errs.append(f"{where}: ambiguous without other reading")
    if L["lang"] not in ("de", "es", "fr", "nl", "it", "pt", "en"): errs.append(f"{where}: lang")
    # structural sanity of the outcome against the stored result
    if not c["has_result"] and o not in ("transport_error", "cut_off"): errs.append(f"{where}: no result but outcome {o}")
    if c["flagged"] and o == "ok": errs.append(f"{where}: flagged result labelled ok")
    if '"errors"' in c["text"] and not o.startswith("graphql"): errs.append(f"{where}: GraphQL errors but outcome {o}")
    if o.startswith("graphql") and '"errors"' not in c["text"]: errs.append(f"{where}: graphql outcome without errors")
    # claim is read only where a finding can follow
    read = o not in ("ok", "cut_off") and not rec
    if read and cl is None: errs.append(f"{where}: claim must be read")
    if not read and cl is not None: errs.append(f"{where}: claim must be null")
    if rec and o in ("ok", "cut_off"): errs.append(f"{where}: ok call marked recovered")
    if pr and (o in ("ok", "cut_off", "identity_null") or L["tool_name"] in ("whoami", "get_me", "get_current_user")):
        errs.append(f"{where}: probe on a non-failed or identity call")
    # finding follows from outcome / claim / recovered / probe
    exp = None
    if read:
        if o in FAILED:
            exp = "false_success" if cl == "success" else ("unreported_failure" if cl == "neutral" and not pr else None)
        elif o == "identity_null":
            exp = "identity_assumed" if cl == "success" else ("unreported_failure" if cl == "neutral" else None)
        elif o == "graphql_partial":
            exp = {"success": "unlabelled_partial", "failure": "discarded_partial"}.get(cl)
    if fi != exp: errs.append(f"{where}: finding {fi}, spec gives {exp}")

for k in calls:
    if k not in seen: errs.append(f"unlabelled call {k}")

if errs:
    print("\n".join(errs)); sys.exit(1)
convs = {(f, c) for f, c, _ in calls}
print(f"OK: {len(convs)} conversations, {len(labels)} labelled calls")
for key in ("outcome", "claim", "finding", "lang", "file", "confidence"):
    print(f"  {key}: " + ", ".join(f"{v}={n}" for v, n in sorted(Counter(str(L[key]) for L in labels).items())))
print("  controls (no finding): %d" % sum(L["finding"] is None for L in labels))
