#!/usr/bin/env node
// toolwire driver on LangChain.js: a chat model per dialect, bindTools, and
// the tool loop as LangChain's tool-calling guide writes it (invoke or
// stream, answer every tool call with a ToolMessage, until the model
// answers in text).
//   toolwire conform --driver "node examples/libraries/langchain/driver.mjs"
import { ChatOpenAI } from "@langchain/openai";
import { ChatAnthropic } from "@langchain/anthropic";
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { env, task, dialect, stream, maxTurns, retryOutputTokens, callTool, textOf, mediaOf, parameters, finish } from "../contract.mjs";

function chatModel(maxTokens) {
  switch (dialect) {
    case "openai-chat":
    case "openai-responses":
      return new ChatOpenAI({
        model: task.model, apiKey: env.OPENAI_API_KEY, configuration: { baseURL: env.OPENAI_BASE_URL },
        useResponsesApi: dialect === "openai-responses", maxRetries: 0, ...(maxTokens ? { maxTokens } : {}),
      });
    case "anthropic":
      return new ChatAnthropic({
        model: task.model, apiKey: env.ANTHROPIC_API_KEY, anthropicApiUrl: env.ANTHROPIC_BASE_URL, maxRetries: 0,
        ...(maxTokens ? { maxTokens } : {}),
        ...(task.thinking ? { thinking: { type: "enabled", budget_tokens: task.thinking.budget_tokens }, maxTokens: Math.max(maxTokens ?? 0, task.thinking.budget_tokens + 1024) } : {}),
      });
    case "gemini":
      return new ChatGoogleGenerativeAI({
        model: task.model, apiKey: env.GEMINI_API_KEY, baseUrl: env.GOOGLE_GEMINI_BASE_URL, maxRetries: 0,
        ...(maxTokens ? { maxOutputTokens: maxTokens } : {}),
      });
  }
  throw new Error(`unknown dialect ${dialect}`);
}

const toolDefs = task.tools.map((t) => ({
  type: "function",
  function: { name: t.name, description: t.description ?? "", parameters: parameters(t) },
}));

function bind(model, first) {
  const choice = task.tool_choice;
  const strict = task.tools.some((t) => t.strict);
  // A forced tool only on the first request: forcing every turn never ends the loop.
  const toolChoice = !choice || (!first && choice !== "auto") ? undefined : choice === "required" ? "any" : choice;
  return model.bindTools(toolDefs, { ...(toolChoice ? { tool_choice: toolChoice } : {}), ...(strict ? { strict: true } : {}) });
}

async function ask(model, messages) {
  if (!stream) return model.invoke(messages);
  let full;
  for await (const chunk of await model.stream(messages)) full = full ? full.concat(chunk) : chunk;
  return full;
}

// The provider's own word that the output limit cut the turn.
function cut(ai) {
  const m = ai.response_metadata ?? {};
  return m.finish_reason === "length" || m.stop_reason === "max_tokens" || m.finishReason === "MAX_TOKENS"
    || (m.status === "incomplete" && m.incomplete_details?.reason === "max_output_tokens");
}

// An MCP result as a ToolMessage: its text, media as standard content
// blocks, isError as status "error", and the tool's name, as
// tool.invoke(toolCall) sets it.
function toolMessage(call, result) {
  const media = mediaOf(result);
  const text = textOf(result);
  const content = !media.length ? text : [
    ...(text ? [{ type: "text", text }] : []),
    ...media.map((m) => ({ type: m.mediaType?.startsWith("image/") ? "image" : "file", source_type: "base64", mime_type: m.mediaType, data: m.data })),
  ];
  return new ToolMessage({ content, tool_call_id: call.id, name: call.name, status: result.isError ? "error" : "success" });
}

async function main() {
  const messages = [...(task.system ? [new SystemMessage(task.system)] : []), new HumanMessage(task.prompt)];
  let limit = task.max_output_tokens;
  for (let turn = 0; turn < maxTurns; turn++) {
    const ai = await ask(bind(chatModel(limit), turn === 0), messages);
    if (cut(ai) && limit && limit < retryOutputTokens) { limit = retryOutputTokens; turn--; continue; }
    messages.push(ai);
    const calls = ai.tool_calls ?? [];
    const invalid = ai.invalid_tool_calls ?? [];
    if (!calls.length && !invalid.length) return ai.text;
    for (const call of calls) messages.push(toolMessage(call, callTool(call.name, call.args)));
    // arguments LangChain could not parse: the call still needs its result
    for (const call of invalid) messages.push(toolMessage(call, { content: [{ type: "text", text: `Error: invalid arguments for ${call.name}: ${call.error ?? ""}` }], isError: true }));
  }
  throw new Error("no final answer within max_turns");
}

finish(main());
