// Drives the browser check: connects to the headless Chromium that run.sh started (over the
// DevTools protocol, with puppeteer-core, which never downloads a browser), opens the page with
// the cases in its fragment, waits for the page's verdicts and prints them, one case a line:
//
//   CASE <TAB> TRANSPORT <TAB> PASS|FAIL <TAB> DETAIL
//
//   node drive.mjs --devtools WS_URL --page URL --agent URL --token-agent URL --token TOKEN \
//                  --foreign-agent URL
//
// --agent allows the page's origin; --token-agent allows it and requires TOKEN;
// --foreign-agent does not allow it. The page's console goes to stderr. A case the page did not
// report is printed as FAIL: nothing is lost silently. Exit 0 when every line was printed (the
// verdicts are run.sh's to judge), 2 when the browser or the page could not be driven.

import puppeteer from "puppeteer-core";

/** How long the page may take to report every case. */
const PAGE_MS = 150000;

function parseArgs(argv) {
  const args = {};
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (!flag.startsWith("--") || value === undefined) {
      throw new Error(`usage: drive.mjs --flag value ...; bad: ${flag}`);
    }
    args[flag.slice(2)] = value;
  }
  for (const name of ["devtools", "page", "agent", "token-agent", "token", "foreign-agent"]) {
    if (!args[name]) {
      throw new Error(`--${name} is required`);
    }
  }
  return args;
}

/** The cases: every transport, against each agent. */
function cases(args) {
  const both = (name, url, rest) => [
    { name, transport: "http", url, ...rest },
    { name, transport: "ws", url: url.replace(/^http/, "ws"), ...rest },
  ];
  return [
    ...both("origin allowed", args.agent, { expect: "pass" }),
    ...both("origin allowed + token", args["token-agent"], { expect: "pass", token: args.token }),
    ...both("wrong token: refused", args["token-agent"], {
      expect: "refused",
      token: `not-${args.token}`,
    }),
    ...both("origin not allowed: refused", args["foreign-agent"], { expect: "refused" }),
  ];
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const specs = cases(args);
  const browser = await puppeteer.connect({
    browserWSEndpoint: args.devtools,
    defaultViewport: null,
    protocolTimeout: 30000,
  });
  let results = [];
  try {
    const page = await browser.newPage();
    page.on("console", (message) => console.error(`[page] ${message.text()}`));
    page.on("pageerror", (error) => console.error(`[page error] ${error.message}`));
    page.on("requestfailed", (request) => {
      const why = request.failure()?.errorText;
      // ERR_ABORTED: the SDK cancelling a body it does not need, or its streams on close.
      if (why !== "net::ERR_ABORTED") {
        console.error(`[page] request failed: ${request.method()} ${request.url()}: ${why}`);
      }
    });
    const url = `${args.page}#${encodeURIComponent(JSON.stringify(specs))}`;
    await page.goto(url, { waitUntil: "load", timeout: 30000 });
    try {
      await page.waitForFunction(() => Array.isArray(window.acpResults), {
        timeout: PAGE_MS,
        polling: 200,
      });
      results = await page.evaluate(() => window.acpResults);
    } catch (error) {
      console.error(`the page did not finish: ${error.message}`);
      // What it reported so far, from its table.
      results = await page.$$eval("#results tr", (rows) =>
        rows.map((row) => {
          const [name, transport, verdict, detail] = [...row.cells].map((c) => c.textContent);
          return { name, transport, verdict, detail };
        }),
      );
    }
    await page.close();
  } finally {
    await browser.close().catch(() => browser.disconnect());
  }
  const clean = (text) => String(text).replace(/[\t\n\r]+/g, " ");
  specs.forEach((spec, index) => {
    const transport = spec.transport === "http" ? "HTTP" : "WebSocket";
    const result = results[index];
    const line =
      result && result.name === spec.name && result.transport === transport
        ? [spec.name, transport, result.verdict === "PASS" ? "PASS" : "FAIL", clean(result.detail)]
        : [spec.name, transport, "FAIL", "no verdict from the page"];
    console.log(line.join("\t"));
  });
}

main().catch((error) => {
  console.error(`drive.mjs: ${error.stack ?? error}`);
  process.exit(2);
});
