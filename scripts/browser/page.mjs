// The browser side of the browser check: the official TypeScript SDK's browser clients
// (@agentclientprotocol/sdk 2.4.0: createHttpStream over fetch + SSE, createWebSocketStream
// over the browser's WebSocket) against the example agent of acp-rs, from a page of another
// origin (so CORS and the Origin check apply as they do for a real web app).
//
// run.sh bundles this module for the browser with esbuild (page.js) and serves it with
// page.html. The cases to run come in the page's fragment, as JSON (drive.mjs writes it):
//
//   page.html#[{"name":…,"transport":"http"|"ws","url":…,"token":…,"expect":"pass"|"refused"}]
//
// `pass`: initialize, session/new, the prompt `hello` (its updates streamed, a reply that
// quotes it), stopReason end_turn, then closing the transport (HTTP: the DELETE answered 2xx;
// WebSocket: the socket closed). With a token, HTTP sends `Authorization: Bearer TOKEN` and
// WebSocket offers the subprotocols `acp` and `acp.bearer.TOKEN` (a browser cannot set
// headers on a WebSocket), and the server must select `acp`.
// `refused`: initialize must fail (within the deadline) instead of being answered: no HTTP
// exchange succeeds (with a wrong token, the POST is answered 401, visible to the page), and
// the WebSocket never opens.
//
// Each case's verdict goes into the page's table and the console; when all are done,
// `window.acpResults` holds them ([{name, transport, verdict: "PASS"|"FAIL", detail}]).

import { client } from "@agentclientprotocol/sdk";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";

/** How long one request may take before its case fails. */
const REQUEST_MS = 15000;
/** How long the transport may take to close once the client is done. */
const CLOSE_MS = 5000;

function check(condition, message) {
  if (!condition) {
    throw new Error(message);
  }
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Polls `condition` every 50 ms until it holds (true) or `ms` passed (false). */
async function eventually(condition, ms) {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * The SDK's stream for a case, and a probe of its transport: every HTTP exchange
 * (`METHOD status`) through a recording fetch, or the browser WebSocket itself.
 */
function openStream(spec) {
  const probe = { exchanges: [], sockets: [] };
  if (spec.transport === "http") {
    const recordingFetch = async (input, init) => {
      const method = init?.method ?? "GET";
      try {
        const response = await fetch(input, init);
        probe.exchanges.push(`${method} ${response.status}`);
        return response;
      } catch (error) {
        probe.exchanges.push(`${method} failed`);
        throw error;
      }
    };
    const headers = spec.token ? { Authorization: `Bearer ${spec.token}` } : undefined;
    return { probe, stream: createHttpStream(spec.url, { fetch: recordingFetch, headers }) };
  }
  class RecordingWebSocket extends WebSocket {
    constructor(url, protocols) {
      super(url, protocols);
      probe.sockets.push(this);
      this.addEventListener("open", () => {
        this.opened = true;
      });
      this.addEventListener("close", (event) => {
        this.closeCode = event.code;
      });
    }
  }
  const protocols = spec.token ? ["acp", `acp.bearer.${spec.token}`] : undefined;
  return {
    probe,
    stream: createWebSocketStream(spec.url, { WebSocket: RecordingWebSocket, protocols }),
  };
}

/** A `pass` case: what was seen, or an error naming the failed check and the exchanges. */
async function runPass(spec) {
  const seen = { kinds: new Set(), reply: "" };
  const app = client({ name: "acp-browser-check" }).onNotification(
    "session/update",
    ({ params }) => {
      seen.kinds.add(params.update.sessionUpdate);
      if (params.update.sessionUpdate === "agent_message_chunk") {
        seen.reply += params.update.content?.text ?? "";
      }
    },
  );
  const { probe, stream } = openStream(spec);
  try {
    return await turn(app, spec, probe, stream, seen);
  } catch (error) {
    const how =
      spec.transport === "http"
        ? probe.exchanges.join(", ") || "no exchange"
        : `WebSocket ${probe.sockets[0]?.opened ? "opened" : "never opened"}`;
    throw new Error(`${describe(error)} (${how})`);
  }
}

/** Initialize, session/new, `hello`, close; then the checks of what came and of the close. */
async function turn(app, spec, probe, stream, seen) {
  let stopReason;
  await app.connectWith(stream, async (ctx) => {
    const init = await withTimeout(
      ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "acp-browser-check", version: "0" },
      }),
      REQUEST_MS,
      "initialize",
    );
    check(init.protocolVersion === 1, `initialize: protocolVersion ${init.protocolVersion}`);
    const { sessionId } = await withTimeout(
      ctx.request("session/new", { cwd: "/tmp/acp-browser", mcpServers: [] }),
      REQUEST_MS,
      "session/new",
    );
    check(typeof sessionId === "string" && sessionId !== "", "session/new: no sessionId");
    const answer = await withTimeout(
      ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] }),
      REQUEST_MS,
      "session/prompt hello",
    );
    stopReason = answer.stopReason;
  });
  check(stopReason === "end_turn", `hello: stopReason ${stopReason}, not end_turn`);
  check(seen.kinds.has("agent_message_chunk"), `hello: no agent_message_chunk (${[...seen.kinds]})`);
  check(seen.reply.includes("hello"), `hello: the reply does not quote the prompt: ${seen.reply}`);

  let closed;
  if (spec.transport === "http") {
    const deleted = await eventually(
      () => probe.exchanges.some((e) => /^DELETE 2\d\d$/.test(e)),
      CLOSE_MS,
    );
    check(deleted, `close: no DELETE answered 2xx (${probe.exchanges.join(", ")})`);
    closed = probe.exchanges.join(", ");
  } else {
    const [socket] = probe.sockets;
    check(probe.sockets.length === 1, `${probe.sockets.length} WebSockets opened, not 1`);
    if (spec.token) {
      check(socket.protocol === "acp", `subprotocol selected: "${socket.protocol}", not "acp"`);
    }
    const shut = await eventually(() => socket.readyState === WebSocket.CLOSED, CLOSE_MS);
    check(shut, `close: the WebSocket is still in state ${socket.readyState}`);
    closed = `subprotocol "${socket.protocol}", socket closed`;
  }
  return `${seen.kinds.size} update kinds (${[...seen.kinds].join(", ")}), end_turn; ${closed}`;
}

/** A refused connection: initialize must fail, not be answered. */
async function runRefused(spec) {
  const app = client({ name: "acp-browser-check" });
  const { probe, stream } = openStream(spec);
  let answered = false;
  try {
    await app.connectWith(stream, async (ctx) => {
      await withTimeout(
        ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} }),
        REQUEST_MS,
        "initialize",
      );
      answered = true;
    });
  } catch (error) {
    // The WebSocket's close event (with its code) may come just after the error.
    await eventually(() => probe.sockets.every((s) => s.closeCode !== undefined), 1000);
    const why = describe(error);
    check(!why.includes("no answer within"), `not refused, no answer: ${why}`);
    let how;
    if (spec.transport === "http") {
      how = probe.exchanges.join(", ") || "no exchange";
      check(!probe.exchanges.some((e) => / 2\d\d$/.test(e)), `an exchange succeeded: ${how}`);
      // A refused token must be told apart from a network error: the 401 must reach the page
      // (the server sends its CORS headers on it too).
      if (spec.token) {
        check(probe.exchanges.includes("POST 401"), `no POST answered 401: ${how}; ${why}`);
      }
    } else {
      const [socket] = probe.sockets;
      check(socket && !socket.opened, "the WebSocket opened");
      how = `WebSocket closed before opening, code ${socket.closeCode}`;
    }
    return `refused (${how}): ${why.slice(0, 120)}`;
  }
  check(!answered, "initialize was answered");
  throw new Error("the connection ended without an error");
}

/** A readable reason: the SDK rejects with an Error, or with the WebSocket's error Event. */
function describe(error) {
  if (error instanceof Event) {
    const socket = error.target;
    return `WebSocket ${error.type} event (code ${socket?.closeCode ?? "none yet"})`;
  }
  return String(error?.message ?? error);
}

function show(result) {
  const row = document.createElement("tr");
  row.dataset.verdict = result.verdict;
  for (const text of [result.name, result.transport, result.verdict, result.detail]) {
    const cell = document.createElement("td");
    cell.textContent = text;
    row.append(cell);
  }
  document.querySelector("#results").append(row);
  console.log(`[acp-browser] ${result.verdict} ${result.name} (${result.transport}): ${result.detail}`);
}

async function main() {
  let cases;
  try {
    cases = JSON.parse(decodeURIComponent(location.hash.slice(1)));
    check(Array.isArray(cases), "not a list");
  } catch (error) {
    document.querySelector("#status").textContent =
      `No cases: the fragment must be a JSON list of cases (${error.message}).`;
    window.acpResults = [];
    return;
  }
  const results = [];
  for (const spec of cases) {
    const transport = spec.transport === "http" ? "HTTP" : "WebSocket";
    const result = { name: spec.name, transport, verdict: "FAIL", detail: "" };
    try {
      result.detail = spec.expect === "refused" ? await runRefused(spec) : await runPass(spec);
      result.verdict = "PASS";
    } catch (error) {
      result.detail = describe(error);
    }
    show(result);
    results.push(result);
  }
  document.querySelector("#status").textContent = "done";
  window.acpResults = results;
}

main();
