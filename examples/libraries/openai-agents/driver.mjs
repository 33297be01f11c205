#!/usr/bin/env node
// toolwire driver on the OpenAI Agents SDK for JS: an Agent with function
// tools, run by a Runner whose model provider points at the mock (Chat
// Completions or Responses); the SDK runs the loop and resets a forced
// tool choice itself (resetToolChoice).
//   toolwire conform --driver "node examples/libraries/openai-agents/driver.mjs" --dialects openai-chat,openai-responses
import { Agent, Runner, OpenAIProvider, tool } from "@openai/agents";
import { env, task, dialect, stream, maxTurns, callTool, textOf, mediaOf, parameters, finish } from "../contract.mjs";

// An MCP result as the SDK's tool output: text, images and files as its
// output content; an MCP error is thrown (the SDK's error function turns
// it into the call's output).
const tools = task.tools.map((t) => tool({
  name: t.name,
  description: t.description ?? "",
  parameters: parameters(t),
  strict: !!t.strict,
  execute: async (args) => {
    const result = callTool(t.name, args);
    if (result.isError) throw new Error(textOf(result));
    const media = mediaOf(result);
    if (!media.length) return textOf(result);
    return [
      ...(textOf(result) ? [{ type: "text", text: textOf(result) }] : []),
      ...media.map((m) => m.mediaType?.startsWith("image/")
        ? { type: "image", image: { data: m.data, mediaType: m.mediaType } }
        : { type: "file", file: { data: m.data, mediaType: m.mediaType, filename: (m.uri ?? "file").split("/").pop() } }),
    ];
  },
}));

async function main() {
  if (dialect !== "openai-chat" && dialect !== "openai-responses") throw new Error(`dialect ${dialect}: the OpenAI Agents SDK speaks the OpenAI APIs only`);
  const provider = new OpenAIProvider({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, useResponses: dialect === "openai-responses" });
  const runner = new Runner({ modelProvider: provider, tracingDisabled: true });
  const agent = new Agent({
    name: "toolwire",
    instructions: task.system || undefined,
    model: task.model,
    tools,
    modelSettings: {
      ...(task.tool_choice ? { toolChoice: task.tool_choice } : {}),
      ...(task.max_output_tokens ? { maxTokens: task.max_output_tokens } : {}),
    },
  });
  if (!stream) return (await runner.run(agent, task.prompt, { maxTurns })).finalOutput;
  const result = await runner.run(agent, task.prompt, { maxTurns, stream: true });
  for await (const _ of result) { /* drain the events */ }
  await result.completed;
  if (result.error) throw result.error;
  return result.finalOutput;
}

finish(main());
