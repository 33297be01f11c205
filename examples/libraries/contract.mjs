// The driver contract shared by the Node library drivers: the task, the base
// URLs and keys the suite hands over, and the canned MCP results. What each
// driver does with a CallToolResult is the library's business: that is what
// the suite judges.
import { readFileSync } from "node:fs";

export const env = process.env;
export const task = JSON.parse(readFileSync(env.TOOLWIRE_TASK, "utf8"));
export const dialect = env.TOOLWIRE_DIALECT;
export const stream = env.TOOLWIRE_STREAM === "1";
export const maxTurns = task.max_turns ?? 8;
// Large enough for any scripted turn: the limit a user raises to after a
// turn was cut by task.max_output_tokens.
export const retryOutputTokens = 4096;

// The first canned result whose `when` is a subset of the arguments; an
// unknown tool or arguments that are not an object get an MCP error.
export function callTool(name, args) {
  const tool = task.tools.find((t) => t.name === name);
  if (!tool) return errorResult(`unknown tool ${name}`);
  if (args === null || typeof args !== "object" || Array.isArray(args)) return errorResult("arguments are not a JSON object");
  if (!(tool.results ?? []).length) return { content: [{ type: "text", text: "ok" }] };
  for (const r of tool.results) {
    const when = r.when ?? {};
    if (Object.keys(when).every((k) => JSON.stringify(args[k]) === JSON.stringify(when[k]))) return r.result;
  }
  return errorResult(`no result for ${name} with these arguments`);
}

const errorResult = (text) => ({ content: [{ type: "text", text }], isError: true });

// The text of a result: its text items and text resources, or the
// structured content when there is no text.
export function textOf(result) {
  let parts = (result.content ?? []).flatMap((c) =>
    c.type === "text" ? [c.text] : c.type === "resource" && c.resource?.text ? [c.resource.text] : []);
  if (!parts.length && result.structuredContent !== undefined) parts = [JSON.stringify(result.structuredContent)];
  return parts.join("\n");
}

// The binary items of a result: images and blob resources.
export function mediaOf(result) {
  return (result.content ?? []).flatMap((c) =>
    c.type === "image" && c.data ? [{ mediaType: c.mimeType, data: c.data }]
      : c.type === "resource" && c.resource?.blob ? [{ mediaType: c.resource.mimeType, data: c.resource.blob, uri: c.resource.uri }] : []);
}

export const parameters = (t) => t.parameters ?? { type: "object", properties: {} };

// Prints the contract's reply line, or the error and exit status 1.
export function finish(promise) {
  promise.then(
    (text) => { console.log(JSON.stringify({ final_text: text ?? "" })); },
    (e) => { console.error(e?.stack ?? String(e)); process.exit(1); },
  );
}
