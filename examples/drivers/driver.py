#!/usr/bin/env python3
"""A complete minimal toolwire driver: the driver contract over raw HTTP (stdlib
only), for all four dialects, without streaming. Run it with
`toolwire conform --driver "python3 examples/drivers/driver.py" --features core`.

A real driver wraps *your* library: replace the four `run_*` loops with calls into it,
keep the result picking and the final JSON line."""
import json
import os
import sys
import urllib.error
import urllib.request

TASK = json.load(open(os.environ["TOOLWIRE_TASK"]))
DIALECT = os.environ["TOOLWIRE_DIALECT"]


def post(url, body, headers):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:  # the mock explains a broken rule in the body
        sys.exit(f"{e.code} {e.read().decode()}")


def call_tool(name, args):
    """Pick the first canned result whose `when` is a subset of the arguments."""
    tool = next((t for t in TASK["tools"] if t["name"] == name), None)
    if tool is None:
        return {"content": [{"type": "text", "text": f"Error: unknown tool {name}"}], "isError": True}
    if not isinstance(args, dict):
        return {"content": [{"type": "text", "text": "Error: arguments are not a JSON object"}], "isError": True}
    for r in tool.get("results", []):
        if all(args.get(k) == v for k, v in (r.get("when") or {}).items()):
            return r["result"]
    return {"content": [{"type": "text", "text": f"Error: no result for {name}"}], "isError": True}


def text_of(result):
    parts = [c["text"] for c in result.get("content", []) if c.get("type") == "text"]
    if not parts and "structuredContent" in result:
        parts = [json.dumps(result["structuredContent"])]
    text = "\n".join(parts)
    if result.get("isError") and not text.startswith("Error"):
        text = "Error: " + text
    return text


def parse_args(raw):
    try:
        return json.loads(raw or "{}")
    except ValueError:
        return None


def tool_decls():
    return [(t["name"], t.get("description", ""), t.get("parameters") or {"type": "object", "properties": {}})
            for t in TASK["tools"]]


def strict(name):
    return any(t["name"] == name and t.get("strict") for t in TASK["tools"])


def first_choice(turn, forms):
    """The task's tool_choice in the dialect's form, on the first request only:
    a loop that kept forcing a tool would never end (the model calls again)."""
    choice = TASK.get("tool_choice") or ""
    if turn > 0 or not choice:
        return None
    return forms[choice] if choice in ("auto", "none", "required") else forms["name"](choice)


def run_openai_chat():
    base, key = os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"]
    messages = ([{"role": "system", "content": TASK["system"]}] if TASK.get("system") else [])
    messages.append({"role": "user", "content": TASK["prompt"]})
    tools = [{"type": "function", "function": {"name": n, "description": d, "parameters": p, **({"strict": True} if strict(n) else {})}}
             for n, d, p in tool_decls()]
    forms = {"auto": "auto", "none": "none", "required": "required", "name": lambda n: {"type": "function", "function": {"name": n}}}
    for turn in range(TASK.get("max_turns", 8)):
        body = {"model": TASK["model"], "messages": messages, "tools": tools}
        if (choice := first_choice(turn, forms)) is not None:
            body["tool_choice"] = choice
        if out := TASK.get("output"):  # the final answer in the task's schema
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": out["name"], "schema": out["schema"], "strict": True}}
        msg = post(base + "/chat/completions", body, {"Authorization": "Bearer " + key})["choices"][0]["message"]
        if not msg.get("tool_calls"):
            return msg.get("content") or ""
        messages.append({"role": "assistant", "content": msg.get("content"), "tool_calls": msg["tool_calls"]})
        for tc in msg["tool_calls"]:
            result = call_tool(tc["function"]["name"], parse_args(tc["function"]["arguments"]))
            messages.append({"role": "tool", "tool_call_id": tc["id"], "content": text_of(result)})
    sys.exit("no final answer within max_turns")


def run_openai_responses():
    base, key = os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"]
    items = [{"role": "user", "content": TASK["prompt"]}]
    tools = [{"type": "function", "name": n, "description": d, "parameters": p, **({"strict": True} if strict(n) else {})}
             for n, d, p in tool_decls()]
    forms = {"auto": "auto", "none": "none", "required": "required", "name": lambda n: {"type": "function", "name": n}}
    for turn in range(TASK.get("max_turns", 8)):
        body = {"model": TASK["model"], "input": items, "tools": tools}
        if (choice := first_choice(turn, forms)) is not None:
            body["tool_choice"] = choice
        if TASK.get("system"):
            body["instructions"] = TASK["system"]
        if out := TASK.get("output"):
            body["text"] = {"format": {"type": "json_schema", "name": out["name"], "schema": out["schema"], "strict": True}}
        out = post(base + "/responses", body, {"Authorization": "Bearer " + key})["output"]
        calls = [i for i in out if i["type"] == "function_call"]
        if not calls:
            return "".join(c.get("text", "") for i in out if i["type"] == "message" for c in i["content"])
        items += out  # every output item goes back, reasoning included
        for c in calls:
            result = call_tool(c["name"], parse_args(c["arguments"]))
            items.append({"type": "function_call_output", "call_id": c["call_id"], "output": text_of(result)})
    sys.exit("no final answer within max_turns")


def run_anthropic():
    base, key = os.environ["ANTHROPIC_BASE_URL"], os.environ["ANTHROPIC_API_KEY"]
    messages = [{"role": "user", "content": TASK["prompt"]}]
    tools = [{"name": n, "description": d, "input_schema": p, **({"strict": True} if strict(n) else {})} for n, d, p in tool_decls()]
    forms = {"auto": {"type": "auto"}, "none": {"type": "none"}, "required": {"type": "any"}, "name": lambda n: {"type": "tool", "name": n}}
    for turn in range(TASK.get("max_turns", 8)):
        body = {"model": TASK["model"], "max_tokens": 1024, "messages": messages, "tools": tools}
        if (choice := first_choice(turn, forms)) is not None:
            body["tool_choice"] = choice
        if TASK.get("system"):
            body["system"] = TASK["system"]
        if out := TASK.get("output"):
            body["output_config"] = {"format": {"type": "json_schema", "schema": out["schema"]}}
        msg = post(base + "/v1/messages", body, {"x-api-key": key, "anthropic-version": "2023-06-01"})
        uses = [b for b in msg["content"] if b["type"] == "tool_use"]
        if not uses:
            return "".join(b.get("text", "") for b in msg["content"] if b["type"] == "text")
        messages.append({"role": "assistant", "content": msg["content"]})
        results = []
        for u in uses:  # tool_result blocks first, one per tool_use, ids echoed
            result = call_tool(u["name"], u["input"])
            block = {"type": "tool_result", "tool_use_id": u["id"], "content": text_of(result)}
            if result.get("isError"):
                block["is_error"] = True
            results.append(block)
        messages.append({"role": "user", "content": results})
    sys.exit("no final answer within max_turns")


def run_gemini():
    base, key = os.environ["GOOGLE_GEMINI_BASE_URL"], os.environ["GEMINI_API_KEY"]
    contents = [{"role": "user", "parts": [{"text": TASK["prompt"]}]}]
    tools = [{"functionDeclarations": [{"name": n, "description": d, "parametersJsonSchema": p} for n, d, p in tool_decls()]}]
    url = f"{base}/v1beta/models/{TASK['model']}:generateContent"
    forms = {"auto": {"mode": "AUTO"}, "none": {"mode": "NONE"}, "required": {"mode": "ANY"},
             "name": lambda n: {"mode": "ANY", "allowedFunctionNames": [n]}}
    for turn in range(TASK.get("max_turns", 8)):
        body = {"contents": contents, "tools": tools}
        if (choice := first_choice(turn, forms)) is not None:
            body["toolConfig"] = {"functionCallingConfig": choice}
        if TASK.get("system"):
            body["systemInstruction"] = {"parts": [{"text": TASK["system"]}]}
        if out := TASK.get("output"):
            body["generationConfig"] = {"responseMimeType": "application/json", "responseJsonSchema": out["schema"]}
        content = post(url, body, {"x-goog-api-key": key})["candidates"][0]["content"]
        calls = [p["functionCall"] for p in content["parts"] if "functionCall" in p]
        if not calls:
            return "".join(p.get("text", "") for p in content["parts"])
        contents.append(content)  # as sent: thought signatures stay on their parts
        parts = []
        for c in calls:  # one response per call, in call order, response always an object
            result = call_tool(c["name"], c.get("args", {}))
            if result.get("isError"):
                response = {"error": text_of(result)}
            elif isinstance(result.get("structuredContent"), dict):
                response = result["structuredContent"]
            else:
                response = {"output": text_of(result)}
            fr = {"name": c["name"], "response": response}
            if c.get("id"):
                fr["id"] = c["id"]
            parts.append({"functionResponse": fr})
        contents.append({"role": "user", "parts": parts})
    sys.exit("no final answer within max_turns")


if os.environ.get("TOOLWIRE_STREAM") == "1":
    sys.exit("this minimal driver does not stream; run the suite without the streaming feature")
RUN = {"openai-chat": run_openai_chat, "openai-responses": run_openai_responses,
       "anthropic": run_anthropic, "gemini": run_gemini}[DIALECT]
print(json.dumps({"final_text": RUN()}))
