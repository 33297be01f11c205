#!/usr/bin/env node
// A complete minimal toolwire driver: the driver contract over raw HTTP (fetch,
// Node 18+), for all four dialects, without streaming. Run it with
//   toolwire conform --driver "node examples/drivers/driver.mjs" --features core
// A real driver wraps *your* library: replace the four run* loops with calls into it,
// keep the result picking and the final JSON line.
import { readFileSync } from "node:fs";

const env = process.env;
const task = JSON.parse(readFileSync(env.TOOLWIRE_TASK, "utf8"));
const maxTurns = task.max_turns ?? 8;

async function post(url, body, headers) {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${r.status} ${text}`); // the mock explains a broken rule in the body
  return JSON.parse(text);
}

// Pick the first canned result whose `when` is a subset of the arguments.
function callTool(name, args) {
  const tool = task.tools.find((t) => t.name === name);
  if (!tool) return { content: [{ type: "text", text: `Error: unknown tool ${name}` }], isError: true };
  if (args === null || typeof args !== "object" || Array.isArray(args))
    return { content: [{ type: "text", text: "Error: arguments are not a JSON object" }], isError: true };
  for (const r of tool.results ?? []) {
    const when = r.when ?? {};
    if (Object.keys(when).every((k) => JSON.stringify(args[k]) === JSON.stringify(when[k]))) return r.result;
  }
  return { content: [{ type: "text", text: `Error: no result for ${name}` }], isError: true };
}

function textOf(result) {
  let parts = (result.content ?? []).filter((c) => c.type === "text").map((c) => c.text);
  if (!parts.length && result.structuredContent !== undefined) parts = [JSON.stringify(result.structuredContent)];
  let text = parts.join("\n");
  if (result.isError && !text.startsWith("Error")) text = "Error: " + text;
  return text;
}

const parseArgs = (raw) => { try { return JSON.parse(raw || "{}"); } catch { return null; } };
const decls = () => task.tools.map((t) => [t.name, t.description ?? "", t.parameters ?? { type: "object", properties: {} }]);

const strict = (name) => task.tools.some((t) => t.name === name && t.strict);
// The task's tool_choice in the dialect's form, on the first request only: a
// loop that kept forcing a tool would never end (the model calls again).
const firstChoice = (turn, forms) => {
  const choice = task.tool_choice ?? "";
  if (turn > 0 || !choice) return undefined;
  return ["auto", "none", "required"].includes(choice) ? forms[choice] : forms.name(choice);
};

async function runOpenAIChat() {
  const base = env.OPENAI_BASE_URL, auth = { authorization: `Bearer ${env.OPENAI_API_KEY}` };
  const messages = task.system ? [{ role: "system", content: task.system }] : [];
  messages.push({ role: "user", content: task.prompt });
  const tools = decls().map(([name, description, parameters]) => ({ type: "function", function: { name, description, parameters, ...(strict(name) ? { strict: true } : {}) } }));
  const forms = { auto: "auto", none: "none", required: "required", name: (n) => ({ type: "function", function: { name: n } }) };
  // the final answer in the task's schema
  const format = task.output ? { response_format: { type: "json_schema", json_schema: { name: task.output.name, schema: task.output.schema, strict: true } } } : {};
  for (let i = 0; i < maxTurns; i++) {
    const choice = firstChoice(i, forms);
    const body = { model: task.model, messages, tools, ...format, ...(choice !== undefined ? { tool_choice: choice } : {}) };
    const msg = (await post(`${base}/chat/completions`, body, auth)).choices[0].message;
    if (!msg.tool_calls?.length) return msg.content ?? "";
    messages.push({ role: "assistant", content: msg.content, tool_calls: msg.tool_calls });
    for (const tc of msg.tool_calls) {
      const result = callTool(tc.function.name, parseArgs(tc.function.arguments));
      messages.push({ role: "tool", tool_call_id: tc.id, content: textOf(result) });
    }
  }
  throw new Error("no final answer within max_turns");
}

async function runOpenAIResponses() {
  const base = env.OPENAI_BASE_URL, auth = { authorization: `Bearer ${env.OPENAI_API_KEY}` };
  const items = [{ role: "user", content: task.prompt }];
  const tools = decls().map(([name, description, parameters]) => ({ type: "function", name, description, parameters, ...(strict(name) ? { strict: true } : {}) }));
  const forms = { auto: "auto", none: "none", required: "required", name: (n) => ({ type: "function", name: n }) };
  const format = task.output ? { text: { format: { type: "json_schema", name: task.output.name, schema: task.output.schema, strict: true } } } : {};
  for (let i = 0; i < maxTurns; i++) {
    const choice = firstChoice(i, forms);
    const body = { model: task.model, input: items, tools, ...format, ...(task.system ? { instructions: task.system } : {}), ...(choice !== undefined ? { tool_choice: choice } : {}) };
    const out = (await post(`${base}/responses`, body, auth)).output;
    const calls = out.filter((o) => o.type === "function_call");
    if (!calls.length) return out.filter((o) => o.type === "message").flatMap((o) => o.content).map((c) => c.text ?? "").join("");
    items.push(...out); // every output item goes back, reasoning included
    for (const c of calls) items.push({ type: "function_call_output", call_id: c.call_id, output: textOf(callTool(c.name, parseArgs(c.arguments))) });
  }
  throw new Error("no final answer within max_turns");
}

async function runAnthropic() {
  const base = env.ANTHROPIC_BASE_URL, headers = { "x-api-key": env.ANTHROPIC_API_KEY, "anthropic-version": "2023-06-01" };
  const messages = [{ role: "user", content: task.prompt }];
  const tools = decls().map(([name, description, input_schema]) => ({ name, description, input_schema, ...(strict(name) ? { strict: true } : {}) }));
  const forms = { auto: { type: "auto" }, none: { type: "none" }, required: { type: "any" }, name: (n) => ({ type: "tool", name: n }) };
  const format = task.output ? { output_config: { format: { type: "json_schema", schema: task.output.schema } } } : {};
  for (let i = 0; i < maxTurns; i++) {
    const choice = firstChoice(i, forms);
    const body = { model: task.model, max_tokens: 1024, messages, tools, ...format, ...(task.system ? { system: task.system } : {}), ...(choice !== undefined ? { tool_choice: choice } : {}) };
    const msg = await post(`${base}/v1/messages`, body, headers);
    const uses = msg.content.filter((b) => b.type === "tool_use");
    if (!uses.length) return msg.content.filter((b) => b.type === "text").map((b) => b.text).join("");
    messages.push({ role: "assistant", content: msg.content });
    // tool_result blocks first, one per tool_use, ids echoed, errors flagged
    messages.push({ role: "user", content: uses.map((u) => {
      const result = callTool(u.name, u.input);
      return { type: "tool_result", tool_use_id: u.id, content: textOf(result), ...(result.isError ? { is_error: true } : {}) };
    }) });
  }
  throw new Error("no final answer within max_turns");
}

async function runGemini() {
  const url = `${env.GOOGLE_GEMINI_BASE_URL}/v1beta/models/${task.model}:generateContent`, headers = { "x-goog-api-key": env.GEMINI_API_KEY };
  const contents = [{ role: "user", parts: [{ text: task.prompt }] }];
  const tools = [{ functionDeclarations: decls().map(([name, description, parameters]) => ({ name, description, parametersJsonSchema: parameters })) }];
  const forms = { auto: { mode: "AUTO" }, none: { mode: "NONE" }, required: { mode: "ANY" }, name: (n) => ({ mode: "ANY", allowedFunctionNames: [n] }) };
  const format = task.output ? { generationConfig: { responseMimeType: "application/json", responseJsonSchema: task.output.schema } } : {};
  for (let i = 0; i < maxTurns; i++) {
    const choice = firstChoice(i, forms);
    const body = { contents, tools, ...format, ...(task.system ? { systemInstruction: { parts: [{ text: task.system }] } } : {}), ...(choice !== undefined ? { toolConfig: { functionCallingConfig: choice } } : {}) };
    const content = (await post(url, body, headers)).candidates[0].content;
    const calls = content.parts.filter((p) => p.functionCall).map((p) => p.functionCall);
    if (!calls.length) return content.parts.map((p) => p.text ?? "").join("");
    contents.push(content); // as sent: thought signatures stay on their parts
    // one response per call, in call order, response always an object
    contents.push({ role: "user", parts: calls.map((c) => {
      const result = callTool(c.name, c.args ?? {});
      const response = result.isError ? { error: textOf(result) }
        : (result.structuredContent && typeof result.structuredContent === "object" ? result.structuredContent : { output: textOf(result) });
      return { functionResponse: { name: c.name, response, ...(c.id ? { id: c.id } : {}) } };
    }) });
  }
  throw new Error("no final answer within max_turns");
}

if (env.TOOLWIRE_STREAM === "1") { console.error("this minimal driver does not stream; run the suite without the streaming feature"); process.exit(1); }
const run = { "openai-chat": runOpenAIChat, "openai-responses": runOpenAIResponses, anthropic: runAnthropic, gemini: runGemini }[env.TOOLWIRE_DIALECT];
run().then((text) => console.log(JSON.stringify({ final_text: text })), (e) => { console.error(e.message); process.exit(1); });
