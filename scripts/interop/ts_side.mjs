// The TypeScript SDK's side of the interop run (@agentclientprotocol/sdk 2.4.0, `ws` 8).
//
// Plain JavaScript (ES modules): Node 20 runs it as it is, with no TypeScript toolchain.
// It is run from the temporary folder where run.sh installed the SDK (NODE_PATH is not used by
// ES modules, so run.sh copies this file there).
//
//   node ts_side.mjs client URL [--no-reload | --reload-refused]
//                                 The SDK's HTTP (http://) or WebSocket (ws://) client drives
//                                 the agent at URL through the script below; exit 0 on success.
//                                 Logs `STEP core: ok` and `STEP reload: ok` as the two parts
//                                 pass; --no-reload skips the second (an agent whose sessions
//                                 end with their connection, as behind the bridge);
//                                 --reload-refused expects the second's session/load to fail
//                                 with -32002 (Resource not found, the schema's code for an
//                                 unknown session) and logs `STEP reload: refused`.
//                                 With ACP_INTEROP_TOKEN set, every request (HTTP) and the
//                                 upgrade (WebSocket) carry `Authorization: Bearer` with it.
//   node ts_side.mjs eras URL     The stable entry point's client drives the newly stable
//                                 features (compaction, notices, tool-call names) at URL, first
//                                 as an August-era client (advertising neither) and then as a
//                                 November-era one (advertising both); logs `STEP eras: ok`.
//   node ts_side.mjs draft URL    The `/unstable` entry point's client forks a session
//                                 (session/fork, a draft method); logs `STEP draft: ok`.
//   node ts_side.mjs server [--draft]
//                                 The SDK's AcpServer, with a small agent, on 127.0.0.1 (a free
//                                 port): prints `listening http://127.0.0.1:PORT/acp` on stdout,
//                                 logs each HTTP request's method, path and status on stderr,
//                                 and each connection's client capabilities (`CLIENT CAPS {...}`).
//                                 The agent comes from the stable entry point, or with --draft
//                                 from `/unstable`, advertising and serving session/fork.
//
// The client's script (against the example agent of acp-rs, whose behaviour follows the first
// word of the prompt): initialize (offering fs), session/new, `hello` (streamed updates),
// `edit notes.txt` (fs/read_text_file, session/request_permission, fs/write_text_file),
// `stream 100 100` cancelled with session/cancel after its first chunk, session/close, and
// closing the transport; then a new connection: initialize and session/load of that session
// (its history replayed as updates), a prompt in the loaded session, and closing again.
//
// The `eras` script (against the same agent): an August-era client sends `compact` and
// `notice warning ...` and must see no compaction or notice update; a November-era client
// advertising `session.compaction` and `session.notices` sends the same and must see a
// compaction (in_progress, its summary chunks, completed, one compactionId) and the notice;
// its `edit notes.txt` must report a tool call with a `name`.
//
// The server's agent: `hello` streams three chunks; `permission` reports a tool call (with a
// `name`), asks session/request_permission and says what was chosen; `slow` streams a chunk
// every 100 ms until session/cancel (or 10 s); `compact` reports a compaction (two summary
// chunks) when the client advertised `session.compaction`, and says it did not otherwise;
// `notice` shows a warning notice when the client advertised `session.notices`, and says it
// did not otherwise; anything else is echoed.

import http from "node:http";
import { agent, client } from "@agentclientprotocol/sdk";
import * as draftSdk from "@agentclientprotocol/sdk/unstable";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import {
  createNodeHttpHandler,
  createNodeWebSocketUpgradeHandler,
} from "@agentclientprotocol/sdk/experimental/node";
import { WebSocket, WebSocketServer } from "ws";

const log = (...args) => console.error("[ts]", ...args);

function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// --- The client side ---

// An editor built with `make` (the `client` builder of the stable or the `/unstable` entry
// point): answers permission requests (allow once), reads and writes `files` (by base name),
// and notes in `seen` what it got; `onUpdate` sees each session update too.
function editor(make, files, seen, onUpdate = () => {}) {
  return make({ name: "acp-interop-ts-client" })
    .onNotification("session/update", ({ params }) => {
      seen.updateKinds.add(params.update.sessionUpdate);
      seen.updates.push(params.update);
      if (params.update.sessionUpdate === "agent_message_chunk") {
        seen.chunks += 1;
      }
      onUpdate(params.update);
    })
    .onRequest("session/request_permission", ({ params }) => {
      seen.permissions += 1;
      const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
      return { outcome: { outcome: "selected", optionId: allow.optionId } };
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      seen.reads += 1;
      const name = params.path.split("/").pop();
      const content = files.get(name);
      if (content === undefined) {
        throw new Error(`no such file: ${params.path}`);
      }
      return { content };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      seen.writes.push(params.path);
      files.set(params.path.split("/").pop(), params.content);
      return {};
    });
}

function notes() {
  return new Map([["notes.txt", "# Notes\n- TODO: one\n- TODO: two\n"]]);
}

function fresh() {
  return { chunks: 0, permissions: 0, reads: 0, writes: [], updateKinds: new Set(), updates: [] };
}

// `Authorization: Bearer TOKEN` on every request (HTTP) or on the upgrade (WebSocket, whose
// `ws` constructor takes headers) when ACP_INTEROP_TOKEN holds TOKEN; nothing otherwise.
function authHeaders() {
  const token = process.env.ACP_INTEROP_TOKEN;
  return token ? { Authorization: `Bearer ${token}` } : {};
}

function transport(url) {
  const headers = authHeaders();
  return url.startsWith("ws")
    ? createWebSocketStream(url, { WebSocket, headers })
    : createHttpStream(url, { headers });
}

// The error code the schema names for a session the agent does not know ("Resource not found").
const RESOURCE_NOT_FOUND = -32002;

// Sends a text prompt and checks that the turn ended with `end_turn`; returns the updates it
// brought.
async function turn(ctx, seen, sessionId, text) {
  const from = seen.updates.length;
  const answer = await withTimeout(
    ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }),
    15000,
    `prompt ${text}`,
  );
  check(answer.stopReason === "end_turn", `${text}: ${answer.stopReason}`);
  return seen.updates.slice(from);
}

const FS = { readTextFile: true, writeTextFile: true };

async function runEras(url) {
  // August era: the capabilities of the August schema only.
  const august = fresh();
  await editor(client, notes(), august).connectWith(transport(url), async (ctx) => {
    await withTimeout(
      ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: FS, terminal: false } }),
      15000,
      "initialize (August era)",
    );
    const { sessionId } = await withTimeout(
      ctx.request("session/new", { cwd: "/tmp/interop", mcpServers: [] }),
      15000,
      "session/new (August era)",
    );
    const updates = [
      ...(await turn(ctx, august, sessionId, "compact")),
      ...(await turn(ctx, august, sessionId, "notice warning Disk almost full")),
    ];
    const unadvertised = updates
      .map((u) => u.sessionUpdate)
      .filter((k) => k === "notice" || k.startsWith("compaction_"));
    check(unadvertised.length === 0, `August era: the agent sent ${unadvertised} unadvertised`);
    await withTimeout(ctx.request("session/close", { sessionId }), 15000, "session/close");
  });
  log("August era: no compaction or notice update without the capabilities");

  // November era: compaction and notices advertised.
  const november = fresh();
  const files = notes();
  await editor(client, files, november).connectWith(transport(url), async (ctx) => {
    await withTimeout(
      ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: FS, terminal: false, session: { compaction: {}, notices: {} } },
      }),
      15000,
      "initialize (November era)",
    );
    const { sessionId } = await withTimeout(
      ctx.request("session/new", { cwd: "/tmp/interop", mcpServers: [] }),
      15000,
      "session/new (November era)",
    );
    const compaction = (await turn(ctx, november, sessionId, "compact")).filter((u) =>
      u.sessionUpdate.startsWith("compaction_"),
    );
    const statuses = compaction
      .filter((u) => u.sessionUpdate === "compaction_update")
      .map((u) => u.status);
    check(
      statuses[0] === "in_progress" && statuses.at(-1) === "completed",
      `compaction statuses ${statuses}`,
    );
    const ids = new Set(compaction.map((u) => u.compactionId));
    check(ids.size === 1, `compaction ids ${[...ids]}`);
    const summary = compaction.filter((u) => u.sessionUpdate === "compaction_summary_chunk");
    check(summary.length >= 1, "no compaction_summary_chunk");
    const notices = (await turn(ctx, november, sessionId, "notice warning Disk almost full")).filter(
      (u) => u.sessionUpdate === "notice",
    );
    check(notices.length === 1, `${notices.length} notices`);
    check(notices[0].severity === "warning" && notices[0].title.length > 0, JSON.stringify(notices[0]));
    const calls = (await turn(ctx, november, sessionId, "edit notes.txt")).filter(
      (u) => u.sessionUpdate === "tool_call",
    );
    check(calls.length >= 1, "edit: no tool_call");
    check(
      calls.every((c) => typeof c.name === "string" && c.name.length > 0),
      `tool calls without a name: ${JSON.stringify(calls.map((c) => c.title))}`,
    );
    check(files.get("notes.txt").includes("DONE: one"), "edit: notes.txt not edited");
    await withTimeout(ctx.request("session/close", { sessionId }), 15000, "session/close");
    log(
      `STEP eras: ok (August era: none unadvertised; November era: compaction ${statuses.join(">")} ` +
        `with ${summary.length} summary chunks, a ${notices[0].severity} notice, tool calls named ` +
        `${[...new Set(calls.map((c) => c.name))].join(",")})`,
    );
  });
}

async function runDraft(url) {
  const seen = fresh();
  await editor(draftSdk.client, notes(), seen).connectWith(transport(url), async (ctx) => {
    const init = await withTimeout(
      ctx.request("initialize", { protocolVersion: 1, clientCapabilities: { fs: FS, terminal: false } }),
      15000,
      "initialize",
    );
    check(init.agentCapabilities?.sessionCapabilities?.fork, "the agent does not advertise session/fork");
    const { sessionId } = await withTimeout(
      ctx.request("session/new", { cwd: "/tmp/interop", mcpServers: [] }),
      15000,
      "session/new",
    );
    await turn(ctx, seen, sessionId, "hello");
    const fork = await withTimeout(
      ctx.request("session/fork", { sessionId, cwd: "/tmp/interop", mcpServers: [] }),
      15000,
      "session/fork",
    );
    check(fork.sessionId && fork.sessionId !== sessionId, `fork: ${JSON.stringify(fork)}`);
    await turn(ctx, seen, fork.sessionId, "hello again");
    log(`STEP draft: ok (session/fork of ${sessionId} into ${fork.sessionId}, a prompt in the fork)`);
  });
}

// `reload`: "load" (the session must load on a new connection), "refused" (session/load on a
// new connection must fail with RESOURCE_NOT_FOUND: the session belonged to the connection that
// made it), or "none".
async function runClient(url, reload) {
  const files = notes();
  const seen = fresh();
  let onChunk = null;
  let closedSession = null;

  const app = editor(client, files, seen, (update) => {
    if (update.sessionUpdate === "agent_message_chunk" && onChunk) {
      const callback = onChunk;
      onChunk = null;
      callback();
    }
  });

  await app.connectWith(transport(url), async (ctx) => {
    const init = await withTimeout(
      ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: "acp-interop-ts-client", version: "0" },
      }),
      15000,
      "initialize",
    );
    check(init.protocolVersion === 1, `protocolVersion ${init.protocolVersion}`);
    log("initialized:", init.agentInfo?.name);

    const session = await withTimeout(
      ctx.request("session/new", { cwd: "/tmp/interop", mcpServers: [] }),
      15000,
      "session/new",
    );
    const sessionId = session.sessionId;
    log("session:", sessionId);

    const hello = await withTimeout(
      ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] }),
      15000,
      "prompt hello",
    );
    check(hello.stopReason === "end_turn", `hello: ${hello.stopReason}`);
    check(seen.chunks > 0, "hello: no agent_message_chunk");
    log("hello: end_turn after", seen.chunks, "chunks");

    const edit = await withTimeout(
      ctx.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "edit notes.txt" }],
      }),
      15000,
      "prompt edit",
    );
    check(edit.stopReason === "end_turn", `edit: ${edit.stopReason}`);
    check(seen.reads === 1, `edit: ${seen.reads} fs/read_text_file`);
    check(seen.permissions === 1, `edit: ${seen.permissions} permission requests`);
    check(seen.writes.length === 1, `edit: ${seen.writes.length} fs/write_text_file`);
    check(files.get("notes.txt").includes("DONE: one"), "edit: notes.txt not edited");
    log("edit: read, permission, write: ok");

    // Cancel after the first chunk of a slow turn.
    const firstChunk = new Promise((resolve) => {
      onChunk = resolve;
    });
    const slow = ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "stream 100 100" }],
    });
    await withTimeout(firstChunk, 15000, "first chunk of the slow turn");
    await ctx.notify("session/cancel", { sessionId });
    const cancelled = await withTimeout(slow, 15000, "the cancelled turn");
    check(cancelled.stopReason === "cancelled", `cancel: ${cancelled.stopReason}`);
    log("cancel: cancelled");

    await withTimeout(ctx.request("session/close", { sessionId }), 15000, "session/close");
    log("session/close: ok");
    closedSession = sessionId;
  });
  log("connection closed");
  log("STEP core: ok (initialize, updates, fs + permission, cancel, session/close, close)");
  if (reload === "none") {
    return;
  }
  if (reload === "refused") {
    await app.connectWith(transport(url), async (ctx) => {
      await withTimeout(
        ctx.request("initialize", {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        }),
        15000,
        "initialize (reconnect)",
      );
      let error = null;
      try {
        await withTimeout(
          ctx.request("session/load", { sessionId: closedSession, cwd: "/tmp/interop", mcpServers: [] }),
          15000,
          "session/load",
        );
      } catch (e) {
        error = e;
      }
      check(error !== null, "session/load of another connection's session succeeded");
      check(
        error.code === RESOURCE_NOT_FOUND,
        `session/load: ${error.code ?? "no code"} ${error.message} (wanted ${RESOURCE_NOT_FOUND})`,
      );
      log(
        `STEP reload: refused (session/load on a new connection answered ${error.code} ` +
          `"${error.message}")`,
      );
    });
    log("connection closed");
    return;
  }

  // Reconnect: a new connection loads the session, whose history is replayed as updates.
  const before = seen.updateKinds.size;
  seen.updateKinds.clear();
  await app.connectWith(transport(url), async (ctx) => {
    const init = await withTimeout(
      ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
      }),
      15000,
      "initialize (reconnect)",
    );
    check(init.agentCapabilities?.loadSession === true, "reconnect: no loadSession");
    await withTimeout(
      ctx.request("session/load", { sessionId: closedSession, cwd: "/tmp/interop", mcpServers: [] }),
      15000,
      "session/load",
    );
    // The replay must come before the answer; if it did not, see whether it comes at all.
    let order = "replay before the answer";
    if (!seen.updateKinds.has("user_message_chunk")) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
      order = seen.updateKinds.has("user_message_chunk")
        ? "replay AFTER the session/load answer"
        : "replay never delivered";
      log(`FAILED CHECK: session/load: ${order}`);
    }
    log("reconnect + session/load:", order, [...seen.updateKinds].join(","), `(${before} kinds live)`);
    const after = await withTimeout(
      ctx.request("session/prompt", {
        sessionId: closedSession,
        prompt: [{ type: "text", text: "hello again" }],
      }),
      15000,
      "prompt after session/load",
    );
    check(after.stopReason === "end_turn", `prompt after load: ${after.stopReason}`);
    log("prompt after session/load: end_turn");
    check(order === "replay before the answer", `session/load: ${order}`);
  });
  log("connection closed");
  log("STEP reload: ok (reconnect, session/load with its replay, a prompt)");
}

// --- The server side ---

// The server's agent, from `make` (the `agent` builder of the stable entry point, or of
// `/unstable` with `draft`, which adds session/fork).
function makeAgent(make, draft) {
  const cancelled = new Set();
  let sessions = 0;
  let caps = {};
  const say = (client, sessionId, text) =>
    client.notify("session/update", {
      sessionId,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
    });
  const app = make({ name: "acp-interop-ts-agent" })
    .onRequest("initialize", ({ params }) => {
      caps = params.clientCapabilities ?? {};
      log(`CLIENT CAPS ${JSON.stringify(caps)}`);
      return {
        protocolVersion: 1,
        agentCapabilities: draft
          ? { loadSession: false, sessionCapabilities: { fork: {} } }
          : { loadSession: false },
        agentInfo: { name: "acp-interop-ts-agent", version: "0" },
      };
    })
    .onRequest("session/new", () => {
      sessions += 1;
      return { sessionId: `ts-session-${sessions}` };
    })
    .onRequest("session/close", () => ({}))
    .onNotification("session/cancel", ({ params }) => {
      cancelled.add(params.sessionId);
    })
    .onRequest("session/prompt", async ({ params, client: peer }) => {
      const { sessionId } = params;
      cancelled.delete(sessionId);
      const text = params.prompt
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join(" ")
        .trim();
      const word = text.split(/\s+/)[0];
      if (word === "hello") {
        for (const part of ["Hello ", "from the ", "TypeScript agent."]) {
          await say(peer, sessionId, part);
        }
        return { stopReason: "end_turn" };
      }
      if (word === "permission") {
        const toolCallId = "call-1";
        await peer.notify("session/update", {
          sessionId,
          update: {
            sessionUpdate: "tool_call",
            toolCallId,
            name: "touch_file",
            title: "Touch a file",
            kind: "edit",
            status: "pending",
          },
        });
        const answer = await peer.request("session/request_permission", {
          sessionId,
          toolCall: { toolCallId, title: "Touch a file", kind: "edit", status: "pending" },
          options: [
            { optionId: "allow", name: "Allow", kind: "allow_once" },
            { optionId: "reject", name: "Reject", kind: "reject_once" },
          ],
        });
        const outcome =
          answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled";
        await peer.notify("session/update", {
          sessionId,
          update: {
            sessionUpdate: "tool_call_update",
            toolCallId,
            status: outcome === "allow" ? "completed" : "failed",
          },
        });
        await say(peer, sessionId, `Permission: ${outcome}.`);
        return { stopReason: outcome === "cancelled" ? "cancelled" : "end_turn" };
      }
      if (word === "slow") {
        for (let i = 0; i < 100; i += 1) {
          if (cancelled.has(sessionId)) {
            return { stopReason: "cancelled" };
          }
          await say(peer, sessionId, `chunk ${i} `);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        return { stopReason: cancelled.has(sessionId) ? "cancelled" : "end_turn" };
      }
      if (word === "compact") {
        if (!caps.session?.compaction) {
          await say(peer, sessionId, "Compaction not advertised: no compaction updates.");
          return { stopReason: "end_turn" };
        }
        const compactionId = `compaction-${sessionId}`;
        const update = (u) => peer.notify("session/update", { sessionId, update: u });
        await update({ sessionUpdate: "compaction_update", compactionId, status: "in_progress" });
        for (const text of ["The user said hello. ", "Nothing else happened."]) {
          await update({
            sessionUpdate: "compaction_summary_chunk",
            compactionId,
            content: { type: "text", text },
          });
        }
        await update({ sessionUpdate: "compaction_update", compactionId, status: "completed" });
        return { stopReason: "end_turn" };
      }
      if (word === "notice") {
        if (!caps.session?.notices) {
          await say(peer, sessionId, "Notices not advertised: no notice.");
          return { stopReason: "end_turn" };
        }
        await peer.notify("session/update", {
          sessionId,
          update: {
            sessionUpdate: "notice",
            severity: "warning",
            title: "Disk almost full",
            description: "2% left",
          },
        });
        return { stopReason: "end_turn" };
      }
      await say(peer, sessionId, `You said: ${text}`);
      return { stopReason: "end_turn" };
    });
  if (!draft) {
    return app;
  }
  return app.onRequest("session/fork", () => {
    sessions += 1;
    return { sessionId: `ts-fork-${sessions}` };
  });
}

async function runServer(draft) {
  const make = draft ? draftSdk.agent : agent;
  const acp = new AcpServer({ createAgent: () => makeAgent(make, draft) });
  const handle = createNodeHttpHandler(acp);
  const server = http.createServer((req, res) => {
    res.on("close", () => log(`${req.method} ${req.url} ${res.statusCode}`));
    if (new URL(req.url, "http://localhost").pathname !== "/acp") {
      res.writeHead(404).end();
      return;
    }
    handle(req, res);
  });
  const wss = new WebSocketServer({ noServer: true });
  // The SDK's upgrade handler over `ws`, with each socket's close logged.
  const logged = {
    on: (event, listener) => wss.on(event, listener),
    off: (event, listener) => wss.off(event, listener),
    handleUpgrade: (req, socket, head, callback) =>
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.on("close", (code) => log(`WEBSOCKET CLOSED ${code}`));
        callback(ws);
      }),
  };
  const upgrade = createNodeWebSocketUpgradeHandler(acp, logged);
  server.on("upgrade", (req, socket, head) => {
    log(`UPGRADE ${req.url}`);
    if (new URL(req.url, "http://localhost").pathname !== "/acp") {
      socket.destroy();
      return;
    }
    upgrade(req, socket, head);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  console.log(`listening http://127.0.0.1:${port}/acp`);
  const stop = async () => {
    log("stopping");
    await acp.close();
    server.close();
    wss.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}

const [mode, url, flag] = process.argv.slice(2);
try {
  if (mode === "client" && url) {
    const reloads = new Map([
      [undefined, "load"],
      ["--no-reload", "none"],
      ["--reload-refused", "refused"],
    ]);
    const reload = reloads.get(flag);
    if (!reload) {
      throw new Error(`unknown flag ${flag}`);
    }
    await runClient(url, reload);
    process.exit(0);
  } else if (mode === "eras" && url) {
    await runEras(url);
    process.exit(0);
  } else if (mode === "draft" && url) {
    await runDraft(url);
    process.exit(0);
  } else if (mode === "server") {
    await runServer(url === "--draft");
  } else {
    console.error(
      "usage: node ts_side.mjs client URL [--no-reload | --reload-refused] | eras URL | draft URL |" +
        " server [--draft]",
    );
    process.exit(2);
  }
} catch (error) {
  log("FAILED:", error?.stack ?? error);
  process.exit(1);
}
