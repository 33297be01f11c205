// Raw Chat Completions calls through the variables the SDKs read, so the
// tests need no SDK installed.
export async function chat(messages) {
  const res = await fetch(`${process.env.OPENAI_BASE_URL}/chat/completions`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${process.env.OPENAI_API_KEY}` },
    body: JSON.stringify({ model: "gpt-4o-mini", messages }),
  });
  return { status: res.status, rule: res.headers.get("x-toolwire-rule"), body: await res.json() };
}

export const hello = [{ role: "user", content: "Hello" }];
// A tool result answering a call no assistant message made.
export const orphanResult = [
  { role: "user", content: "Weather in Paris?" },
  { role: "tool", tool_call_id: "call_missing", content: '{"temperature":22}' },
];
