// The TypeScript SDK's two ends of a conductor's chain, over stdio (@agentclientprotocol/sdk
// 2.4.0). Run from the temporary folder where conductor.sh installed the SDK.
//
//   node conductor_ts.mjs agent
//       An agent on stdin/stdout: initialize, session/new, and session/prompt, which streams
//       one chunk `TS agent got: TEXTS` (the prompt's text blocks joined with ` | `, so that
//       what proxies added shows) and ends the turn with end_turn.
//   node conductor_ts.mjs client [--expect TEXT]... -- CMD ARGS...
//       Starts CMD (a conductor and its chain) and drives it as an editor: initialize,
//       session/new, a prompt `hello`; checks the turn ends with end_turn and its chunk names
//       `hello` (and each TEXT given). Logs `STEP chain: ok` and exits 0 on success.

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { agent, client, ndJsonStream } from "@agentclientprotocol/sdk";

const log = (...args) => console.error("[ts]", ...args);

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function runAgent() {
  let sessions = 0;
  const app = agent({ name: "acp-interop-ts-agent" })
    .onRequest("initialize", () => ({
      protocolVersion: 1,
      agentCapabilities: { loadSession: false },
      agentInfo: { name: "acp-interop-ts-agent", version: "0" },
    }))
    .onRequest("session/new", () => {
      sessions += 1;
      return { sessionId: `ts-session-${sessions}` };
    })
    .onNotification("session/cancel", () => {})
    .onRequest("session/prompt", async ({ params, client: peer }) => {
      const texts = params.prompt.filter((b) => b.type === "text").map((b) => b.text);
      await peer.notify("session/update", {
        sessionId: params.sessionId,
        update: {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: `TS agent got: ${texts.join(" | ")}` },
        },
      });
      return { stopReason: "end_turn" };
    });
  const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  const connection = app.connect(stream);
  await connection.closed;
}

async function runClient(expect, command) {
  const child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const chunks = [];
  await client({ name: "acp-interop-ts-client" })
    .onNotification("session/update", ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk") {
        chunks.push(params.update.content.text ?? "");
      }
    })
    .onRequest("session/request_permission", ({ params }) => ({
      outcome: { outcome: "selected", optionId: params.options[0].optionId },
    }))
    .connectWith(stream, async (ctx) => {
      const init = await withTimeout(
        ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} }),
        20000,
        "initialize",
      );
      log("initialize:", JSON.stringify(init.agentInfo ?? {}));
      const { sessionId } = await withTimeout(
        ctx.request("session/new", { cwd: "/tmp", mcpServers: [] }),
        20000,
        "session/new",
      );
      const answer = await withTimeout(
        ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] }),
        20000,
        "session/prompt",
      );
      if (answer.stopReason !== "end_turn") {
        throw new Error(`the turn ended with ${answer.stopReason}`);
      }
    });
  child.stdin.end();
  const said = chunks.join("");
  log("the agent said:", JSON.stringify(said.slice(0, 300)));
  if (!said.includes("hello")) {
    throw new Error("the agent's answer does not name the prompt");
  }
  for (const text of expect) {
    if (!said.includes(text)) {
      throw new Error(`the agent did not get ${JSON.stringify(text)}`);
    }
  }
  log("STEP chain: ok");
}

const args = process.argv.slice(2);
try {
  if (args[0] === "agent") {
    await runAgent();
  } else if (args[0] === "client") {
    let rest = args.slice(1);
    const expect = [];
    while (rest[0] === "--expect") {
      expect.push(rest[1]);
      rest = rest.slice(2);
    }
    if (rest[0] !== "--" || rest.length < 2) {
      throw new Error("usage: client [--expect TEXT]... -- CMD ARGS...");
    }
    await runClient(expect, rest.slice(1));
    process.exit(0);
  } else {
    console.error("usage: node conductor_ts.mjs agent | client [--expect TEXT]... -- CMD ARGS...");
    process.exit(2);
  }
} catch (error) {
  log("FAILED:", error?.stack ?? error);
  process.exit(1);
}
