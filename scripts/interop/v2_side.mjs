// The official TypeScript SDK's side of the ACP v2 interop (scripts/interop/v2.sh), over stdio.
//
//   node v2_side.mjs client CMD [ARGS...]   its experimental v2 client against the agent CMD
//   node v2_side.mjs agent                  an AgentProtocolRouter agent on stdin/stdout, with a
//                                           v1 and a v2 implementation (stable and
//                                           experimental/v2 entry points)
//   node v2_side.mjs agent --v1-only        the same router with the v1 implementation only
//
// `client` prints one line per check (`PASS name` / `FAIL name: why`) and exits 0 when all
// passed. `agent` answers prompts by their text: `hello` (a message), `permission` (a tool call
// and session/request_permission), `slow` (chunks until session/cancel); each turn's text says
// which protocol version the connection speaks (`[v1]` / `[v2]`).

import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const STEP_MS = 20000;

function stdioStream(input, output, sdk) {
  return sdk.ndJsonStream(Writable.toWeb(output), Readable.toWeb(input));
}

/** `promise`, or a rejection after `ms` naming `what`. */
function within(what, promise, ms = STEP_MS) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---- The v2 client against an agent command. ----

async function runClient(command, args) {
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const results = [];
  const check = (name, ok, why) => {
    results.push(ok);
    console.log(ok ? `PASS ${name}` : `FAIL ${name}: ${why}`);
  };
  const permissions = [];
  const app = v2
    .client({ name: "ts-v2-client" })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    });
  try {
    await within(
      "the whole client run",
      app.connectWith(stdioStream(child.stdout, child.stdin, v2), async (agent) => {
        const init = await within(
          "initialize",
          agent.request("initialize", {
            protocolVersion: 2,
            info: { name: "ts-v2-client", version: "1.0.0" },
            capabilities: {},
          }),
        );
        check(
          "initialize negotiates v2",
          init.protocolVersion === 2 && typeof init.info?.name === "string",
          JSON.stringify(init),
        );
        const session = await within("session/new", agent.buildSession(process.cwd()).start());
        check("session/new", typeof session.sessionId === "string", "no session id");

        // A turn: acknowledged with the user message's id, then its updates until idle.
        const ack = await within("session/prompt", session.prompt("hello"));
        check("prompt acknowledged with a messageId", typeof ack.messageId === "string", JSON.stringify(ack));
        const seen = [];
        let stop;
        while (stop === undefined) {
          const message = await within("the turn's updates", session.nextUpdate());
          seen.push(message.update.sessionUpdate + (message.update.state ? `:${message.update.state}` : ""));
          if (message.kind === "stop") stop = message.stopReason;
        }
        check("turn ends at idle end_turn", stop === "end_turn", `${stop} after ${seen}`);
        check("user_message acknowledgement", seen.includes("user_message"), seen.join(","));
        check("running before idle", seen.indexOf("state_update:running") >= 0, seen.join(","));
        check("agent text", seen.includes("agent_message_chunk"), seen.join(","));

        // A cancelled turn: the idle that confirms it says `cancelled`.
        await within("session/prompt", session.prompt("stream 100 50"));
        await within("the first chunk", (async () => {
          for (;;) {
            const m = await session.nextUpdate();
            if (m.update.sessionUpdate === "agent_message_chunk") return;
            if (m.kind === "stop") throw new Error(`idle before any chunk: ${m.stopReason}`);
          }
        })());
        await agent.notify("session/cancel", { sessionId: session.sessionId });
        let cancelled;
        while (cancelled === undefined) {
          const m = await within("the idle after session/cancel", session.nextUpdate());
          if (m.kind === "stop") cancelled = m.stopReason;
        }
        check("session/cancel ends the turn with idle cancelled", cancelled === "cancelled", cancelled);

        const listed = await within("session/list", agent.request("session/list", {}));
        check(
          "session/list",
          listed.sessions.some((s) => s.sessionId === session.sessionId),
          JSON.stringify(listed),
        );
        // Resume with the whole history replayed on a session this connection knows.
        const resumed = await within(
          "session/resume",
          agent.request("session/resume", {
            sessionId: session.sessionId,
            cwd: process.cwd(),
            replayFrom: { type: "start" },
          }),
        );
        check("session/resume with replayFrom start", resumed !== undefined, "no answer");
        await within("session/close", agent.request("session/close", { sessionId: session.sessionId }));
        check("session/close", true, "");
        session.dispose();
      }),
    );
  } catch (error) {
    check("the run", false, error?.stack ?? String(error));
  } finally {
    child.stdin.end();
    const exited = await within(
      "the agent's exit",
      new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal }))),
      5000,
    ).catch(() => {
      child.kill("SIGKILL");
      return { code: null, signal: "SIGKILL" };
    });
    check("the agent exits once its input closes", exited.code === 0, JSON.stringify(exited));
  }
  process.exit(results.every(Boolean) ? 0 : 1);
}

// ---- The AgentProtocolRouter agent: a v1 and a v2 implementation. ----

const PERMISSION_OPTIONS = [
  { optionId: "allow", name: "Allow", kind: "allow_once" },
  { optionId: "reject", name: "Reject", kind: "reject_once" },
];

function v1Agent() {
  const sessions = new Map();
  let next = 0;
  return v1
    .agent({ name: "ts-v1-agent" })
    .onRequest("initialize", () => ({
      protocolVersion: 1,
      agentCapabilities: {},
      agentInfo: { name: "ts-router-agent", version: "1.0.0" },
      authMethods: [],
    }))
    .onRequest("session/new", () => {
      const sessionId = `v1-${++next}`;
      sessions.set(sessionId, { cancelled: false });
      return { sessionId };
    })
    .onNotification("session/cancel", ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (s) s.cancelled = true;
    })
    .onRequest("session/prompt", async ({ params, client }) => {
      const s = sessions.get(params.sessionId);
      if (!s) throw v1.RequestError.resourceNotFound(params.sessionId);
      s.cancelled = false;
      const text = params.prompt.map((b) => b.text ?? "").join(" ");
      const say = (t) =>
        client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } },
        });
      if (text.startsWith("permission")) {
        const toolCall = { toolCallId: "call-1", title: "Write notes.txt", kind: "edit", status: "pending" };
        await client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "tool_call", ...toolCall },
        });
        const answer = await client.request("session/request_permission", {
          sessionId: params.sessionId,
          toolCall,
          options: PERMISSION_OPTIONS,
        });
        await say(`[v1] permission: ${answer.outcome.outcome} ${answer.outcome.optionId ?? ""}`);
        return { stopReason: "end_turn" };
      }
      if (text.startsWith("slow")) {
        for (let i = 0; i < 200 && !s.cancelled; i++) {
          await say(`[v1] chunk ${i} `);
          await new Promise((r) => setTimeout(r, 20));
        }
        return { stopReason: s.cancelled ? "cancelled" : "end_turn" };
      }
      await say(`[v1] Hello from the TypeScript SDK's v1 agent: ${text}`);
      return { stopReason: "end_turn" };
    });
}

function v2Agent() {
  const sessions = new Map();
  let next = 0;
  let messages = 0;
  return v2
    .agent({ name: "ts-v2-agent" })
    .onRequest("initialize", () => ({
      protocolVersion: 2,
      info: { name: "ts-router-agent", version: "1.0.0" },
      capabilities: { session: {} },
    }))
    .onRequest("session/new", ({ params }) => {
      const sessionId = `v2-${++next}`;
      sessions.set(sessionId, { cwd: params.cwd, cancelled: false, busy: false });
      return { sessionId };
    })
    .onRequest("session/list", () => ({
      sessions: [...sessions.entries()].map(([sessionId, s]) => ({ sessionId, cwd: s.cwd })),
    }))
    .onRequest("session/resume", ({ params }) => {
      if (!sessions.has(params.sessionId)) throw v2.RequestError.resourceNotFound(params.sessionId);
      return {};
    })
    .onRequest("session/close", ({ params }) => {
      sessions.delete(params.sessionId);
      return {};
    })
    .onNotification("session/cancel", ({ params }) => {
      const s = sessions.get(params.sessionId);
      if (s?.busy) s.cancelled = true;
    })
    .onRequest("session/prompt", ({ params, client }) => {
      const sessionId = params.sessionId;
      const s = sessions.get(sessionId);
      if (!s) throw v2.RequestError.resourceNotFound(sessionId);
      const userId = `msg-${++messages}`;
      const replyId = `msg-${++messages}`;
      const text = params.prompt.map((b) => b.text ?? "").join(" ");
      const update = (u) => client.notify("session/update", { sessionId, update: u });
      const say = (t) =>
        update({ sessionUpdate: "agent_message_chunk", messageId: replyId, content: { type: "text", text: t } });
      s.cancelled = false;
      s.busy = true;
      // The turn runs once the acknowledgement is out.
      setTimeout(async () => {
        let stopReason = "end_turn";
        try {
          await update({ sessionUpdate: "user_message", messageId: userId, content: params.prompt });
          await update({ sessionUpdate: "state_update", state: "running" });
          if (text.startsWith("permission")) {
            await update({
              sessionUpdate: "tool_call_update",
              toolCallId: "call-1",
              title: "Write notes.txt",
              kind: "edit",
              status: "pending",
            });
            await update({ sessionUpdate: "state_update", state: "requires_action" });
            const answer = await client.request("session/request_permission", {
              sessionId,
              title: "Write notes.txt",
              subject: { type: "tool_call", toolCall: { toolCallId: "call-1" } },
              options: PERMISSION_OPTIONS,
            });
            await update({ sessionUpdate: "state_update", state: "running" });
            await update({ sessionUpdate: "tool_call_update", toolCallId: "call-1", status: "completed" });
            await say(`[v2] permission: ${answer.outcome.outcome} ${answer.outcome.optionId ?? ""}`);
          } else if (text.startsWith("slow")) {
            for (let i = 0; i < 200 && !s.cancelled; i++) {
              await say(`[v2] chunk ${i} `);
              await new Promise((r) => setTimeout(r, 20));
            }
            if (s.cancelled) stopReason = "cancelled";
          } else {
            await say(`[v2] Hello from the TypeScript SDK's v2 agent: ${text}`);
          }
        } catch (error) {
          stopReason = "cancelled";
          console.error(`ts agent: the turn failed: ${error}`);
        }
        s.busy = false;
        await update({ sessionUpdate: "state_update", state: "idle", stopReason });
      }, 0);
      return { messageId: userId };
    });
}

function runAgent(v1Only) {
  const router = v2.agentProtocolRouter().withV1(v1Agent());
  if (!v1Only) router.withV2(v2Agent());
  const connection = router.connect(stdioStream(process.stdin, process.stdout, v2));
  connection.closed.then(() => process.exit(0));
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "client" && rest.length > 0) {
  await runClient(rest[0], rest.slice(1));
} else if (mode === "agent" && (rest.length === 0 || (rest.length === 1 && rest[0] === "--v1-only"))) {
  runAgent(rest[0] === "--v1-only");
} else {
  console.error("usage: v2_side.mjs client CMD [ARGS...] | agent [--v1-only]");
  process.exit(2);
}
