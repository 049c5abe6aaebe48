// A client of the official TypeScript SDK driving `devrites-engine mcp` over
// stdio: node client.mjs ENGINE PROJECT_DIR. It lists the tools; raises a
// question answered in the form (accept), one whose form is cancelled, then
// waits for that one until another process answers it (it prints the
// "waiting" step first), and raises one whose form is declined. Each step
// prints one JSON line; the Go test (TestTypeScriptClient) reads them.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [engine, project] = process.argv.slice(2);
const print = (step, value) => console.log(JSON.stringify({ step, ...value }));

let answer = null; // what the person does with the next form
const forms = [];
const client = new Client({ name: "ts-harness", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  forms.push(request.params);
  return answer;
});

const transport = new StdioClientTransport({ command: engine, args: ["mcp"], cwd: project, env: process.env, stderr: "inherit" });
await client.connect(transport);

const { tools } = await client.listTools();
print("tools", { names: tools.map((t) => t.name).sort(), schemas: tools.every((t) => t.inputSchema && t.outputSchema) });

const raise = async (question) => {
  const res = await client.callTool({
    name: "raise_question",
    arguments: { gate: "blocking", slice: "3 — payments", question, options: ["Banker's — unbiased", "Half up"] },
  });
  if (res.isError) throw new Error(JSON.stringify(res.content));
  return res.structuredContent;
};

answer = { action: "accept", content: { decision: "2", name: "ts-person" } };
print("accept", await raise("Which rounding?"));

answer = { action: "cancel" };
const cancelled = await raise("Which currency?");
print("cancel", cancelled);

print("waiting", { qid: cancelled.qid });
const progress = [];
const waited = await client.callTool(
  { name: "wait_for_answer", arguments: { qid: cancelled.qid, timeout_seconds: 60 } },
  undefined,
  { timeout: 90000, onprogress: (p) => progress.push(p.message) },
);
print("waited", { ...waited.structuredContent, isError: waited.isError ?? false });

answer = { action: "decline" };
print("decline", await raise("Which tax rule?"));

print("forms", { count: forms.length, first: forms[0] });
await client.close();
