/**
 * One Server-Sent Events reader (opencode's `/event`): fetch, parse `data:` blocks, reconnect with backoff after a
 * drop. A reconnect is announced through `onOpen(true)` so the driver can reconcile what the drop lost (servers
 * such as opencode keep no replay buffer: no Last-Event-ID). Reading waits on `gate()` between chunks, so a lagging
 * consumer stops the reading (TCP then stops the server) instead of growing memory.
 */
export interface SseOptions {
  url: string;
  headers?: Record<string, string>;
  /** Each event's data (JSON-parsed when it is JSON, else the text). Awaited before the next event is read. */
  onEvent(data: unknown): void | Promise<void>;
  /** The stream is open (after a reconnect: `reconnected` true). Awaited before events are read. */
  onOpen?(reconnected: boolean): void | Promise<void>;
  /** A drop, with the reason (the reader retries unless stopped). */
  onDrop?(reason: string, attempt: number): void;
  /** Resolves when reading may go on (backpressure). */
  gate?(): Promise<void> | undefined;
  /** Backoff between reconnects: first, then doubled up to max (ms). */
  backoffMs?: { first: number; max: number };
  /** Give up after this many failed connects in a row (default 8). */
  maxAttempts?: number;
  /** Called once when the reader gives up (or is stopped: not called then). */
  onGiveUp?(reason: string): void;
}

export class SseReader {
  private abort = new AbortController();
  private stopped = false;
  readonly done: Promise<void>;

  constructor(private readonly o: SseOptions) {
    this.done = this.run();
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  /** Break the current connection (tests: a drop); the reader reconnects. */
  dropConnection(): void {
    const old = this.abort;
    this.abort = new AbortController();
    old.abort();
  }

  private async run(): Promise<void> {
    let attempt = 0;
    let opened = false;
    const first = this.o.backoffMs?.first ?? 100;
    const max = this.o.backoffMs?.max ?? 3000;
    while (!this.stopped) {
      const signal = this.abort.signal;
      let reason = "";
      try {
        const r = await fetch(this.o.url, { headers: { accept: "text/event-stream", ...this.o.headers }, signal });
        if (!r.ok || !r.body) throw new Error(`GET ${new URL(this.o.url).pathname} → HTTP ${r.status}`);
        attempt = 0;
        await this.o.onOpen?.(opened);
        opened = true;
        await this.read(r.body as unknown as AsyncIterable<Uint8Array>);
        reason = "the server closed the event stream";
      } catch (e) {
        if (this.stopped) return;
        reason = signal.aborted ? "the event stream was dropped" : `the event stream failed: ${(e as Error).message}`;
      }
      if (this.stopped) return;
      attempt++;
      this.o.onDrop?.(reason, attempt);
      if (attempt > (this.o.maxAttempts ?? 8)) {
        this.o.onGiveUp?.(`${reason} (gave up after ${attempt - 1} reconnects)`);
        return;
      }
      await new Promise((r) => setTimeout(r, Math.min(max, first * 2 ** (attempt - 1))));
    }
  }

  private async read(body: AsyncIterable<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buf = "";
    for await (const piece of body) {
      buf += decoder.decode(piece, { stream: true });
      let i: number;
      // events end with a blank line (\n\n, or \r\n\r\n)
      while ((i = blankLine(buf)) >= 0) {
        const block = buf.slice(0, i);
        buf = buf.slice(buf.startsWith("\r\n", i) ? i + 4 : i + 2);
        const data = block.split(/\r?\n/).filter((l) => l.startsWith("data:")).map((l) => l.slice(5).replace(/^ /, "")).join("\n");
        if (data === "") continue;
        let ev: unknown = data;
        try { ev = JSON.parse(data); } catch { /* text */ }
        await this.o.onEvent(ev);
        const g = this.o.gate?.();
        if (g) await g;
        if (this.stopped) return;
      }
    }
  }
}

function blankLine(s: string): number {
  const a = s.indexOf("\n\n");
  const b = s.indexOf("\r\n\r\n");
  return a < 0 ? b : b < 0 ? a : Math.min(a, b);
}
