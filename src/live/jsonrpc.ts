/**
 * One JSON-RPC peer over a pair of byte streams carrying one JSON message per line (Codex app-server's stdio,
 * which leaves out the "jsonrpc" field, and ACP's, which has it). Shared by every stdio driver.
 *
 * - Every frame, both directions, goes to `onFrame` first (the session normalizes and captures it), in the order
 *   it was read or written.
 * - `request()` settles exactly once: with the result, a LiveError AGENT_ERROR carrying the peer's error, TIMEOUT
 *   after `timeoutMs` (the peer's late answer is then only normalized), or AGENT_EXITED when the stream closes.
 * - Reading pauses while `paused()` says so (the consumer lags): the agent then blocks on a full pipe instead of our
 *   memory growing.
 */
import type { Readable, Writable } from "node:stream";
import { LiveError, LIVE_ERROR_CODES } from "./errors.js";

export type JsonRpcId = number | string;
export interface JsonRpcMessage {
  jsonrpc?: "2.0";
  id?: JsonRpcId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

export interface JsonRpcPeerOptions {
  /** Write `"jsonrpc": "2.0"` on every message (ACP); Codex app-server omits it. */
  version?: boolean;
  /** Each frame, read (`in`) or written (`out`); a line that is not JSON comes as its text. */
  onFrame(dir: "in" | "out", message: JsonRpcMessage | string): void;
  /** The stream ended (EOF or error). */
  onClose?(reason: string): void;
  /** Longest line read (longer: reported through onFrame as a text of its first 1,000 characters, then skipped). */
  maxLineBytes?: number;
}

/** Where a call's own frames go instead of onFrame (a history read that is not part of the live stream). */
export type FrameTap = (dir: "in" | "out", message: JsonRpcMessage) => void;

interface Pending {
  method: string;
  tap?: FrameTap;
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer?: NodeJS.Timeout;
}

export class JsonRpcPeer {
  private nextId = 0;
  private pending = new Map<string, Pending>();
  private closedReason: string | undefined;
  private buf = "";
  private skipping = false;
  private readonly max: number;

  constructor(private readonly input: Readable, private readonly output: Writable, private readonly opts: JsonRpcPeerOptions) {
    this.max = opts.maxLineBytes ?? 256 * 1024 * 1024;
    input.setEncoding("utf8");
    input.on("data", (chunk: string) => this.onData(chunk));
    const closed = (why: string) => this.close(why);
    input.on("end", () => closed("the agent closed its output"));
    input.on("error", (e) => closed(`reading from the agent failed: ${e.message}`));
    output.on("error", () => { /* EPIPE after the agent died: the exit is reported by the process, not here */ });
  }

  get isClosed(): boolean {
    return this.closedReason !== undefined;
  }

  /** Pause / resume reading (backpressure from the event consumer). */
  pause(): void {
    this.input.pause();
  }
  resume(): void {
    if (!this.isClosed) this.input.resume();
  }

  private onData(chunk: string): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf("\n", start);
      if (nl < 0) break;
      const piece = chunk.slice(start, nl);
      start = nl + 1;
      if (this.skipping) { this.skipping = false; this.buf = ""; continue; }
      const line = this.buf === "" ? piece : this.buf + piece;
      this.buf = "";
      this.onLine(line);
    }
    if (start < chunk.length && !this.skipping) {
      this.buf += chunk.slice(start);
      if (this.buf.length > this.max) {
        this.opts.onFrame("in", `${this.buf.slice(0, 1000)}… [agentnorm: a line over ${this.max} bytes was skipped]`);
        this.buf = "";
        this.skipping = true;
      }
    }
  }

  private onLine(line: string): void {
    const text = line.trim();
    if (text === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.opts.onFrame("in", text);
      return;
    }
    if (!msg || typeof msg !== "object" || Array.isArray(msg)) {
      this.opts.onFrame("in", text);
      return;
    }
    const m = msg as JsonRpcMessage;
    // a response to one of our requests
    if (m.method === undefined && m.id !== undefined && m.id !== null) {
      const key = String(m.id);
      const p = this.pending.get(key);
      if (p?.tap) p.tap("in", m);
      else this.opts.onFrame("in", m);
      if (!p) return;
      this.pending.delete(key);
      if (p.timer) clearTimeout(p.timer);
      if (m.error !== undefined) p.reject(new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `${p.method}: the agent answered with an error: ${m.error?.message ?? JSON.stringify(m.error)}`, { detail: m.error }));
      else p.resolve(m.result);
      return;
    }
    this.opts.onFrame("in", m);
  }

  /** Write a message (an answer to the agent's request, a notification). Throws SESSION_CLOSED after the stream closed. */
  send(message: JsonRpcMessage, tap?: FrameTap): void {
    if (this.isClosed) throw new LiveError(LIVE_ERROR_CODES.AGENT_EXITED, `cannot write to the agent: ${this.closedReason}`);
    let m = message;
    if (this.opts.version && m.jsonrpc === undefined) m = { jsonrpc: "2.0", ...m };
    else if (!this.opts.version && m.jsonrpc !== undefined) { const { jsonrpc: _, ...rest } = m; m = rest; }
    if (tap) tap("out", m);
    else this.opts.onFrame("out", m);
    this.output.write(JSON.stringify(m) + "\n");
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  /** Call `method`; see the module comment for how it settles. */
  request<T = unknown>(method: string, params?: unknown, timeoutMs?: number, tap?: FrameTap): Promise<T> {
    if (this.isClosed) return Promise.reject(new LiveError(LIVE_ERROR_CODES.AGENT_EXITED, `${method}: ${this.closedReason}`));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const p: Pending = { method, tap, resolve: resolve as (v: unknown) => void, reject };
      if (timeoutMs !== undefined && timeoutMs > 0 && Number.isFinite(timeoutMs)) {
        p.timer = setTimeout(() => {
          this.pending.delete(String(id));
          reject(new LiveError(LIVE_ERROR_CODES.TIMEOUT, `${method}: no answer from the agent within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.pending.set(String(id), p);
      try {
        this.send(params === undefined ? { id, method } : { id, method, params }, tap);
      } catch (e) {
        this.pending.delete(String(id));
        if (p.timer) clearTimeout(p.timer);
        reject(e);
      }
    });
  }

  /** The stream is gone: every call in flight rejects with AGENT_EXITED. Idempotent. */
  close(reason: string): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const p of this.pending.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(new LiveError(LIVE_ERROR_CODES.AGENT_EXITED, `${p.method}: ${reason}`));
    }
    this.pending.clear();
    this.opts.onClose?.(reason);
  }
}
