/**
 * The SSE reader (src/live/sse.ts) against a local HTTP server: events parsed across chunk boundaries, a drop
 * reconnected and announced (onOpen(true)), and the give-up after the stated number of failed reconnects (what the
 * opencode driver reports as a runtime.error). Waits are on the reader's callbacks, never sleeps.
 */
import { describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import { SseReader } from "../src/live/sse.js";

function serve(handler: (n: number, res: import("node:http").ServerResponse) => void): Promise<{ url: string; server: Server; hits: () => number }> {
  let n = 0;
  const server = createServer((_req, res) => handler(++n, res));
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number };
    resolve({ url: `http://127.0.0.1:${port}/event`, server, hits: () => n });
  }));
}

describe("SSE reader", () => {
  it("parses data blocks split across chunks (\\n\\n and \\r\\n\\r\\n), JSON or text; a server that closes is reconnected and announced", async () => {
    const { url, server } = await serve((n, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      if (n === 1) {
        res.write('data: {"a":');
        res.write('1}\n\ndata: plain text\r\n\r\n: a comment\n\n');
        res.end();
      } else {
        res.write(`data: {"again":${n}}\n\n`);
      }
    });
    const events: unknown[] = [];
    const opens: boolean[] = [];
    const drops: string[] = [];
    let reader!: SseReader;
    await new Promise<void>((resolve) => {
      reader = new SseReader({
        url, backoffMs: { first: 1, max: 5 },
        onOpen: (re) => { opens.push(re); },
        onDrop: (why) => { drops.push(why); },
        onEvent: (d) => { events.push(d); if (events.length === 3) resolve(); },
      });
    });
    reader.stop();
    await reader.done;
    server.close();
    expect(events).toEqual([{ a: 1 }, "plain text", { again: 2 }]);
    expect(opens).toEqual([false, true]);
    expect(drops).toEqual(["the server closed the event stream"]);
  });

  it("gives up after maxAttempts failed connects in a row (default 8), saying so once", async () => {
    const { url, server, hits } = await serve((_n, res) => { res.writeHead(503); res.end(); });
    const drops: number[] = [];
    const gaveUp = await new Promise<string>((resolve) => {
      new SseReader({ url, backoffMs: { first: 1, max: 2 }, onEvent: () => undefined, onDrop: (_w, attempt) => drops.push(attempt), onGiveUp: resolve });
    });
    server.close();
    expect(gaveUp).toMatch(/HTTP 503 \(gave up after 8 reconnects\)$/);
    expect(drops).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(hits()).toBe(9);
  });
});
