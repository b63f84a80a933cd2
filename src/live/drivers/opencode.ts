/**
 * opencode (`opencode serve`): an HTTP server on 127.0.0.1 (port 0: the port it picked is read from its first
 * output line), protected by a random password (HTTP basic auth, user "opencode"). Events come over `GET /event`
 * (SSE): reconnected after a drop, and reconciled from the session's stored messages, pending permissions and
 * questions, and status (opencode keeps no replay buffer), so nothing is lost or doubled. Prompts go with
 * `prompt_async` (no blocking call to time out), answers with answerRequest's HTTP call, interrupts with
 * `POST /session/{id}/abort`, history with `GET /session/{id}/message`.
 *
 * Capture channels: `event` for /event payloads, `http` for our calls ({method, path, body?}) and their answers
 * ({status, body}) — the form the opencode table reads.
 */
import { randomBytes } from "node:crypto";
import { startChild, describeExit, type Child, type ExitInfo } from "../process.js";
import { SseReader } from "../sse.js";
import { LiveError, LIVE_ERROR_CODES } from "../errors.js";
import type { Driver, DriverFactory, DriverHost, Frame, RequestAnswer, ResolvedOptions } from "../types.js";

type Json = any;

class OpencodeDriver implements Driver {
  private child!: Child;
  private base = "";
  private auth = "";
  private sse: SseReader | undefined;
  private sessionId = "";
  /** What the event stream said last about each message and part (reconciliation after a drop sends what changed). */
  private seen = new Map<string, string>();
  private exitedResolve!: (x: ExitInfo) => void;
  readonly exited = new Promise<ExitInfo>((r) => (this.exitedResolve = r));
  private connected: (() => void) | undefined;
  /** Parts the stream showed as started and not yet ended; parts it showed at all. */
  private partsOpen = new Set<string>();
  private partsKnown = new Set<string>();
  /** Parts whose deltas a drop interrupted: their further deltas are left out, their final update carries the text. */
  private partsDirty = new Set<string>();
  private droppedOnce = false;

  constructor(private readonly host: DriverHost, private readonly o: ResolvedOptions) {}

  get pid() { return this.child?.pid; }

  /** One HTTP call, captured both ways (channel http). `quiet`: not part of the live stream (history). */
  private async http(method: string, path: string, body?: unknown, quiet?: Frame[]): Promise<{ status: number; body: Json }> {
    const out: Frame = { dir: "out", channel: "http", message: body === undefined ? { method, path } : { method, path, body } };
    if (quiet) quiet.push(out); else this.host.frame(out);
    const r = await fetch(this.base + path, {
      method,
      headers: { authorization: this.auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.o.timeouts.requestMs),
    }).catch((e: Error) => {
      throw new LiveError(e.name === "TimeoutError" ? LIVE_ERROR_CODES.TIMEOUT : LIVE_ERROR_CODES.AGENT_EXITED, `opencode: ${method} ${path}: ${e.name === "TimeoutError" ? `no answer within ${this.o.timeouts.requestMs} ms` : e.message}`);
    });
    const text = await r.text();
    let parsed: Json = null;
    try { parsed = text ? JSON.parse(text) : null; } catch { parsed = text; }
    const back: Frame = { dir: "in", channel: "http", message: { status: r.status, body: parsed } };
    if (quiet) quiet.push(back); else this.host.frame(back);
    if (r.status >= 400) throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `opencode: ${method} ${path} → HTTP ${r.status}${text ? `: ${text.slice(0, 300)}` : ""}`, { detail: { status: r.status, body: parsed } });
    return { status: r.status, body: parsed };
  }

  async start(resume: string | undefined): Promise<string> {
    const password = randomBytes(24).toString("base64url");
    this.auth = "Basic " + Buffer.from(`opencode:${password}`).toString("base64");
    const env = { ...this.o.env, OPENCODE_SERVER_PASSWORD: password, OPENCODE_SERVER_USERNAME: "opencode" };
    this.child = await startChild(this.o.bin, ["serve", "--hostname", "127.0.0.1", "--port", "0", ...(this.o.args ?? [])], { cwd: this.o.cwd, env, onStderr: (l) => this.host.log(l) });
    void this.child.exited.then((x) => { this.sse?.stop(); this.exitedResolve(x); });
    // its first output line names the address it listens on
    this.base = await new Promise<string>((resolve, reject) => {
      let buf = "";
      const out = this.child.proc.stdout!;
      out.setEncoding("utf8");
      const onData = (d: string) => {
        buf += d;
        const m = /listening on (http:\/\/[^\s]+)/.exec(buf);
        if (m) { out.off("data", onData); out.on("data", (l: string) => this.host.log(l.trimEnd())); resolve(m[1].replace(/\/$/, "")); }
        else if (buf.length > 64_000) buf = buf.slice(-1000);
      };
      out.on("data", onData);
      void this.child.exited.then((x) => reject(new LiveError(LIVE_ERROR_CODES.START_FAILED, `opencode serve ${describeExit(x)} before listening${this.child.tail() ? `: ${this.child.tail().trim().split("\n").slice(-3).join(" | ")}` : ""}`)));
    });
    // healthy (its first requests can fail or hang for a moment after the line: short tries, only the answer kept),
    // then the event stream, then the session
    for (let attempt = 0; ; attempt++) {
      if (this.child.ended) throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `opencode serve exited: ${this.child.tail().trim().split("\n").slice(-3).join(" | ")}`);
      const ok = await fetch(`${this.base}/global/health`, { headers: { authorization: this.auth }, signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
      if (ok) break;
      if (attempt >= 50) throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `opencode serve at ${this.base} did not answer GET /global/health`);
      await new Promise((r) => setTimeout(r, Math.min(500, 50 * (attempt + 1))));
    }
    await this.http("GET", "/global/health");
    const connected = new Promise<void>((r) => (this.connected = r));
    this.sse = new SseReader({
      url: `${this.base}/event`,
      headers: { authorization: this.auth },
      onOpen: (again) => (again ? this.reconcile() : undefined),
      onEvent: (ev) => this.onEvent(ev),
      onDrop: (reason, attempt) => {
        // deltas of the parts streaming now may be lost: what they miss comes with each part's final update
        for (const id of this.partsOpen) this.partsDirty.add(id);
        this.droppedOnce = true;
        if (!this.child.ended) this.host.warn(`opencode: ${reason}; reconnecting (attempt ${attempt})`);
      },
      onGiveUp: (reason) => this.host.host({ type: "runtime.error", payload: { message: `opencode: ${reason}`, class: "transport_error" } }),
      gate: () => this.host.gate(),
    });
    await connected;
    if (resume) {
      await this.http("GET", `/session/${encodeURIComponent(resume)}`);
      this.sessionId = resume;
    } else {
      const created = await this.http("POST", "/session", {});
      this.sessionId = String(created.body?.id ?? "");
      if (!this.sessionId) throw new LiveError(LIVE_ERROR_CODES.START_FAILED, "opencode: POST /session returned no id");
    }
    return this.sessionId;
  }

  private onEvent(ev: Json): void {
    const type = ev?.type;
    if (type === "server.heartbeat") return; // keep-alive, not in opencode's Event union
    if (type === "server.connected") this.connected?.();
    if (type === "message.part.delta") {
      // a part whose earlier deltas a drop may have taken (or that started during the drop): its text arrives whole
      // with its final message.part.updated, which the table turns into exactly the text not yet delivered
      const id = ev?.properties?.partID;
      if (typeof id === "string" && (this.partsDirty.has(id) || (this.droppedOnce && !this.partsKnown.has(id)))) {
        this.partsDirty.add(id);
        return;
      }
    }
    this.remember(ev);
    this.host.frame({ dir: "in", channel: "event", message: ev });
  }

  /** The last state the stream showed of each message and part (by id). */
  private remember(ev: Json): void {
    const p = ev?.properties;
    if (ev?.type === "message.updated" && p?.info?.id) this.seen.set(p.info.id, JSON.stringify(p.info));
    else if (ev?.type === "message.part.updated" && p?.part?.id) {
      const part = p.part;
      this.seen.set(part.id, JSON.stringify(part));
      this.partsKnown.add(part.id);
      const ended = part.time?.end !== undefined || part.state?.status === "completed" || part.state?.status === "error";
      if (ended) { this.partsOpen.delete(part.id); this.partsDirty.delete(part.id); } else this.partsOpen.add(part.id);
    }
  }

  /**
   * After a reconnect: what the drop may have hidden, from the server's own state — the session's messages and parts
   * that changed since the stream last showed them (as the update events the stream would have carried), open
   * permissions and questions, and the session's status.
   */
  private async reconcile(): Promise<void> {
    if (!this.sessionId) return;
    try {
      const sid = this.sessionId;
      const messages = await this.http("GET", `/session/${encodeURIComponent(sid)}/message`);
      for (const m of Array.isArray(messages.body) ? messages.body : []) {
        if (m?.info?.id && this.seen.get(m.info.id) !== JSON.stringify(m.info)) this.onEvent({ type: "message.updated", properties: { sessionID: sid, info: m.info } });
        for (const part of Array.isArray(m?.parts) ? m.parts : []) {
          if (part?.id && this.seen.get(part.id) !== JSON.stringify(part)) this.onEvent({ type: "message.part.updated", properties: { sessionID: sid, part } });
        }
      }
      for (const [path, type] of [["/permission", "permission.asked"], ["/question", "question.asked"]] as const) {
        const open = await this.http("GET", path).catch(() => undefined);
        for (const r of Array.isArray(open?.body) ? open!.body : []) if (r?.sessionID === sid) this.onEvent({ type, properties: r });
      }
      const status = await this.http("GET", "/session/status").catch(() => undefined);
      const s = status?.body?.[sid] ?? { type: "idle" };
      this.onEvent({ type: "session.status", properties: { sessionID: sid, status: s } });
    } catch (e) {
      this.host.warn(`opencode: reconciling after a reconnect failed: ${(e as Error).message}`);
    }
  }

  async prompt(sessionId: string, text: string): Promise<void> {
    const m = this.o.model;
    const model = m?.includes("/") ? { model: { providerID: m.split("/")[0], modelID: m.split("/").slice(1).join("/") } } : {};
    // the mode is opencode's agent ("build", "plan", or one of the project's own)
    const agent = this.o.permissionMode ? { agent: this.o.permissionMode } : {};
    await this.http("POST", `/session/${encodeURIComponent(sessionId)}/prompt_async`, { parts: [{ type: "text", text }], ...model, ...agent });
  }

  /** opencode's mode is its agent: sent with every prompt (the session keeps it in its options). */
  async setMode(): Promise<void> {}

  /** "provider/model": sent with every prompt (the session keeps it in its options). */
  async setModel(_sessionId: string, model: string): Promise<void> {
    if (!model.includes("/")) throw new LiveError(LIVE_ERROR_CODES.INVALID_OPTION, `opencode: the model must be "provider/model", got ${JSON.stringify(model)}`);
  }

  async interrupt(sessionId: string): Promise<void> {
    await this.http("POST", `/session/${encodeURIComponent(sessionId)}/abort`);
  }

  async send(answer: RequestAnswer): Promise<void> {
    if (answer.kind !== "http") throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `opencode answers over HTTP, not ${answer.kind}`);
    await this.http(answer.method, answer.path, answer.body);
  }

  async history(sessionId: string): Promise<{ surface: string; frames: Frame[]; raw: Frame[] }> {
    const quiet: Frame[] = [];
    const r = await this.http("GET", `/session/${encodeURIComponent(sessionId)}/message`, undefined, quiet);
    return { surface: "opencode-history", frames: (Array.isArray(r.body) ? r.body : []).map((m: Json) => ({ dir: "in" as const, message: m })), raw: quiet };
  }

  /** Test hook: break the event stream (the reader reconnects and reconciles). */
  dropEvents(): void { this.sse?.dropConnection(); }

  pause(): void { /* the SSE reader waits on host.gate() */ }
  resume(): void { /* idem */ }

  async stop(graceMs: number): Promise<ExitInfo> {
    this.sse?.stop();
    if (!this.child) return { code: null, signal: null, how: "stopped" };
    // a server has no stdin to close: the grace goes to SIGTERM's turn
    void graceMs;
    return this.child.stop(0, Math.max(graceMs, 1000));
  }
}

export const opencodeDriver: DriverFactory = {
  agent: "opencode",
  surface: "opencode",
  provider: "opencode",
  command: "opencode",
  create: (host, o) => new OpencodeDriver(host, o),
};
