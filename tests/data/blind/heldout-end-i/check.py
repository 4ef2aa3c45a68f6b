"""Consistency check for this labelled corpus (not the auditor)."""
import json, glob, os, collections, sys
here=os.path.dirname(os.path.abspath(__file__)); os.chdir(here)
calls={}  # (file,conv,id) -> name
def add(f,c,i,n):
    k=(f,c,i); assert k not in calls, k; calls[k]=n
for ln in open("chat_gateway.jsonl"):
    o=json.loads(ln)
    for m in o["messages"]:
        for t in m.get("tool_calls") or []:
            json.loads(t["function"]["arguments"]); add("chat_gateway.jsonl",o["conversation_id"],t["id"],t["function"]["name"])
for ln in open("anthropic_messages.jsonl"):
    o=json.loads(ln)
    for m in o["messages"]:
        if isinstance(m["content"],list):
            for b in m["content"]:
                if b["type"] in("tool_use","mcp_tool_use"): add("anthropic_messages.jsonl",o["conversation_id"],b["id"],b["name"])
for p in sorted(glob.glob("claude_code/*.jsonl")):
    for ln in open(p):
        o=json.loads(ln)
        for k in("type","uuid","parentUuid","sessionId","timestamp","message"): assert k in o,(p,k)
        c=o["message"]["content"]
        if isinstance(c,list):
            for b in c:
                if b["type"]=="tool_use": add(p,o["sessionId"],b["id"],b["name"])
FAIL={"transport_error","tool_error","graphql_error","error_payload"}
def expected(l):
    o,c,r,p=l["outcome"],l["claim"],l["recovered"],l["probe"]
    if o in("ok","cut_off") or r: return None
    if o in FAIL and c=="success": return "false_success"
    if o=="identity_null" and c=="success": return "identity_assumed"
    if (o in FAIL or o=="identity_null") and c=="neutral" and not p: return "unreported_failure"
    if o=="graphql_partial" and c=="success": return "unlabelled_partial"
    if o=="graphql_partial" and c=="failure": return "discarded_partial"
    return None
err=0; seen=set(); cnt=collections.Counter()
for ln in open("labels.jsonl"):
    l=json.loads(ln); k=(l["file"],l["conversation_id"],l["tool_call_id"])
    if k not in calls: print("missing call",k); err+=1; continue
    if calls[k]!=l["tool_name"]: print("name mismatch",k); err+=1
    if k in seen: print("dup",k); err+=1
    seen.add(k)
    readable = l["outcome"] not in("ok","cut_off") and not l["recovered"]
    if readable != (l["claim"] is not None): print("claim read/null mismatch",k); err+=1
    if expected(l)!=l["finding"]: print("finding mismatch",k,expected(l),l["finding"]); err+=1
    if l["confidence"] not in("clear","ambiguous"): err+=1
    cnt["outcome:"+l["outcome"]]+=1; cnt["claim:"+str(l["claim"])]+=1; cnt["finding:"+str(l["finding"])]+=1; cnt["lang:"+l["lang"]]+=1
for k in calls:
    if k not in seen: print("unlabelled call",k); err+=1
print(len(calls),"calls,",len({(f,c) for f,c,_ in calls}),"conversations")
for k in sorted(cnt): print(" ",k,cnt[k])
print("errors:",err); sys.exit(1 if err else 0)
