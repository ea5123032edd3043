// The browser check's page server: serves the files of one folder (no subfolders) on
// 127.0.0.1, on a free port, and prints `serving http://127.0.0.1:PORT/` on stdout. Its origin
// differs from the agents' (another port), so the page's requests to them are cross-origin.
//
//   node serve.mjs DIR

import { readFile } from "node:fs/promises";
import http from "node:http";
import path from "node:path";

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".map": "application/json",
};

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node serve.mjs DIR");
  process.exit(2);
}

const server = http.createServer(async (request, response) => {
  let name = "";
  try {
    name = decodeURIComponent(new URL(request.url, "http://x").pathname).slice(1);
  } catch {
    // A malformed path: 404 below.
  }
  const type = TYPES[path.extname(name)];
  // Only plain names of the served types: no traversal, nothing else of the machine.
  if (request.method !== "GET" || !type || name.includes("/") || name.includes("\\")) {
    response.writeHead(404).end();
    return;
  }
  try {
    const body = await readFile(path.join(dir, name));
    response.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body);
  } catch {
    response.writeHead(404).end();
  }
  console.error(`${request.method} /${name} ${response.statusCode}`);
});

server.listen(0, "127.0.0.1", () => {
  console.log(`serving http://127.0.0.1:${server.address().port}/`);
});
