#!/usr/bin/env node
// toolwire driver on the Vercel AI SDK: generateText / streamText with
// tools, the SDK running the loop (stopWhen), one provider per dialect; a
// task's structured output goes as the SDK's own output: Output.object,
// which each provider sends as its API's native demand.
//   toolwire conform --driver "node examples/libraries/ai-sdk/driver.mjs"
import { generateText, streamText, tool, jsonSchema, stepCountIs, Output } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { env, task, dialect, stream, maxTurns, retryOutputTokens, callTool, textOf, mediaOf, parameters, finish } from "../contract.mjs";

function model() {
  switch (dialect) {
    case "openai-chat":
      return createOpenAI({ baseURL: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY }).chat(task.model);
    case "openai-responses":
      return createOpenAI({ baseURL: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY }).responses(task.model);
    case "anthropic":
      // the SDK's base URL includes the API version (https://api.anthropic.com/v1)
      return createAnthropic({ baseURL: `${env.ANTHROPIC_BASE_URL}/v1`, apiKey: env.ANTHROPIC_API_KEY })(task.model);
    case "gemini":
      return createGoogleGenerativeAI({ baseURL: `${env.GOOGLE_GEMINI_BASE_URL}/v1beta`, apiKey: env.GEMINI_API_KEY })(task.model);
  }
  throw new Error(`unknown dialect ${dialect}`);
}

// An MCP result as the SDK's tool output: an MCP error is thrown (the SDK
// sends it as the call's error), structured content goes as a JSON output,
// media as content parts.
const tools = Object.fromEntries(task.tools.map((t) => [t.name, tool({
  description: t.description,
  inputSchema: jsonSchema(parameters(t)),
  ...(t.strict ? { strict: true } : {}),
  execute: async (args) => {
    const result = callTool(t.name, args);
    if (result.isError) throw new Error(textOf(result));
    return result;
  },
  toModelOutput: ({ output }) => {
    const media = mediaOf(output);
    if (!media.length && output.structuredContent !== undefined) return { type: "json", value: output.structuredContent };
    if (!media.length) return { type: "text", value: textOf(output) };
    return { type: "content", value: [
      ...(textOf(output) ? [{ type: "text", text: textOf(output) }] : []),
      ...media.map((m) => m.mediaType?.startsWith("image/")
        ? { type: "image-data", data: m.data, mediaType: m.mediaType }
        : { type: "file-data", data: m.data, mediaType: m.mediaType }),
    ] };
  },
})]));

function toolChoice() {
  const c = task.tool_choice;
  if (!c) return undefined;
  return ["auto", "none", "required"].includes(c) ? c : { type: "tool", toolName: c };
}

function providerOptions() {
  if (dialect === "anthropic" && task.thinking)
    return { anthropic: { thinking: { type: "enabled", budgetTokens: task.thinking.budget_tokens } } };
  if (dialect === "openai-responses" && task.item_references) return { openai: { store: true } };
  return undefined;
}

// The task's structured final answer as the SDK's output specification;
// the SDK validates the final text against the schema (a mismatch throws
// NoObjectGeneratedError, reported as the driver's failure).
const output = task.output
  ? Output.object({ schema: jsonSchema(task.output.schema), ...(task.output.name ? { name: task.output.name } : {}) })
  : undefined;

async function run(maxOutputTokens) {
  const choice = toolChoice();
  const options = {
    model: model(),
    ...(task.system ? { system: task.system } : {}),
    prompt: task.prompt,
    tools,
    ...(choice ? { toolChoice: choice } : {}),
    // A forced tool only on the first step, as the SDK's docs show with
    // prepareStep: forcing every step never ends the loop.
    ...(choice && choice !== "auto" ? { prepareStep: ({ stepNumber }) => (stepNumber > 0 ? { toolChoice: "auto" } : undefined) } : {}),
    ...(maxOutputTokens ? { maxOutputTokens } : {}),
    ...(providerOptions() ? { providerOptions: providerOptions() } : {}),
    ...(output ? { output } : {}),
    stopWhen: stepCountIs(maxTurns),
    maxRetries: 0,
  };
  if (!stream) {
    const r = await generateText(options);
    return { text: r.text, finishReason: r.finishReason };
  }
  let failure;
  const r = streamText({ ...options, onError: ({ error }) => { failure ??= error; } });
  const text = await r.text;
  const finishReason = await r.finishReason;
  if (failure) throw failure;
  // streamText parses the output only when asked: ask, so that a final
  // text the schema refuses fails here as it does in generateText.
  if (output) await r.output;
  return { text, finishReason };
}

async function main() {
  let r = await run(task.max_output_tokens);
  // A turn cut by the output limit is asked again with a larger one.
  if (r.finishReason === "length" && task.max_output_tokens) r = await run(retryOutputTokens);
  return r.text;
}

finish(main());
