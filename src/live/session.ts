/**
 * connect(): one LiveSession over any driver. What every agent shares lives here, written once:
 * - native frames (both directions) → the surface's normalizer → the bounded event queue (and the capture log);
 * - open requests tracked from the canonical events (request.opened / request.resolved), answered through the
 *   generated answerRequest and the driver's transport; settled as cancelled on cancel, close and crash;
 * - cancel: the native interrupt, then the turn's terminal event — synthesized (with a warning) when the agent sends
 *   none within the grace period; an interrupt that itself hangs stops the process;
 * - a crash (exit by code or signal) → session.exited + runtime.error; `restart: "on-demand"` resumes on the next prompt;
 * - close: requests cancelled, the process group stopped, the normalizer's end, the queue's end.
 */
import { openSync, writeSync, closeSync } from "node:fs";
import { createNormalizer, type CanonicalEvent, type Normalizer } from "../normalize/normalizer.js";
import type { HostEvent } from "../normalize/engine.js";
import { createCaptureWriter } from "../capture/capture.js";
import { machineRedactOptions } from "../capture/machine.js";
import { capturingNormalizer, type CapturingNormalizer } from "../capture/replay.js";
import { answerRequest, type RequestReply } from "../answer/answer.js";
import { InvalidOptionError } from "../errors.js";
import { EventQueue } from "./queue.js";
import { storedSessionIds } from "../normalize/ids.js";
import { storeOfLiveAgent } from "../sessions/stores.js";
import { describeExit, findOnPath, type ExitInfo } from "./process.js";
import { LiveError, LIVE_ERROR_CODES } from "./errors.js";
import type { ConnectOptions, Driver, LiveAgent, DriverFactory, DriverHost, Frame, LiveSession, PromptInput, PromptResult, RequestRef, ResolvedOptions } from "./types.js";

const TERMINAL = new Set(["turn.completed", "turn.aborted"]);

interface Waiter {
  pred(e: CanonicalEvent): boolean;
  resolve(e: CanonicalEvent): void;
}

export class Session implements LiveSession {
  readonly events: EventQueue<CanonicalEvent>;
  readonly closed: Promise<void>;
  providerSessionId: string | undefined;
  private normalizer: Normalizer;
  private capture: CapturingNormalizer | undefined;
  private captureWrite: ((s: string) => void) | undefined;
  private captureClose: (() => void) | undefined;
  private driver: Driver | undefined;
  private open = new Map<string, CanonicalEvent>();
  private answering = new Set<string>();
  private waiters: Waiter[] = [];
  private turn: { turnId: string; providerTurnId?: string } | undefined;
  private state: "starting" | "ready" | "crashed" | "closing" | "closed" = "starting";
  private closedResolve!: () => void;
  private starting: Promise<void> | undefined;
  private lastExit: ExitInfo | undefined;

  constructor(private readonly factory: DriverFactory, private readonly o: ResolvedOptions) {
    // a resumed session is the stored session (agentnorm/sessions): the same canonical session and thread ids
    const key = o.resume !== undefined ? storedIdsKey(factory.agent) : undefined;
    const ids = o.ids ?? (key ? storedSessionIds(key, o.resume!) : undefined);
    this.normalizer = createNormalizer({ surface: factory.surface, ids, ...(o.sequenceAfter !== undefined ? { sequenceAfter: o.sequenceAfter } : {}) });
    this.events = new EventQueue<CanonicalEvent>({
      highWater: o.highWater,
      onHigh: () => this.driver?.pause(),
      onLow: () => this.driver?.resume(),
    });
    this.closed = new Promise((r) => (this.closedResolve = r));
    if (o.capture !== undefined) {
      // redaction knows this machine: the home, the project (cwd), the temp dir and the login name
      const writer = createCaptureWriter({ provider: factory.provider, source: factory.surface, redact: machineRedactOptions(o.cwd) });
      this.capture = capturingNormalizer(this.normalizer, writer, { surface: factory.surface });
      if (typeof o.capture === "string") {
        const fd = openSync(o.capture, "w");
        this.captureWrite = (s) => writeSync(fd, s);
        this.captureClose = () => closeSync(fd);
      } else {
        const sink = o.capture;
        this.captureWrite = (s) => sink.write(s);
      }

    }
    o.signal?.addEventListener("abort", () => void this.close(), { once: true });
  }


  get agent() { return this.factory.agent; }
  get surface() { return this.factory.surface; }
  get sessionId() { return this.normalizer.sessionId; }
  /** The agent's process id (its process group's id too); undefined before it started. */
  get pid() { return this.driver?.pid; }

  [Symbol.asyncIterator](): AsyncIterator<CanonicalEvent> {
    return this.events[Symbol.asyncIterator]();
  }

  // ───────────────────────────── what drivers call ─────────────────────────────

  private readonly driverHost: DriverHost = {
    frame: (f) => this.onFrame(f),
    host: (e) => this.emitHost(e),
    warn: (message, detail) => this.emitHost({ type: "runtime.warning", payload: detail === undefined ? { message } : { message, detail } }),
    gate: () => this.events.belowHigh(),
    log: (line) => this.o.onStderr?.(line),
  };

  private onFrame(f: Frame): CanonicalEvent[] {
    if (this.o.onFrame) { try { this.o.onFrame(f); } catch { /* the tap's own problem */ } }
    let events: CanonicalEvent[];
    // a frame on a named channel goes with its capture wrapper (the tables' input rows read the channel)
    const wrapper = f.channel !== undefined ? { dir: f.dir, channel: f.channel, message: f.message } : undefined;
    if (typeof f.message === "string") {
      // a line that is not JSON: reported (runtime.error), captured as it is
      if (this.capture) {
        const r = this.capture.pushUnparsed(f.message);
        events = r.events;
        this.writeCapture(r.lines);
      } else events = this.normalizer.pushLine(f.message);
    } else if (this.capture) {
      const r = this.capture.push(f.message, { direction: f.dir, channel: f.channel, capture: wrapper });
      events = r.events;
      this.writeCapture(r.lines);
    } else {
      events = this.normalizer.push(f.message, { direction: f.dir, capture: wrapper });
    }
    this.deliver(events);
    // A server request (JSON-RPC: id and method, from the agent) that no row opened as a request: refuse it, so the
    // agent does not wait for an answer forever.
    const m = f.message as { id?: unknown; method?: unknown } | null;
    if (f.dir === "in" && m && typeof m === "object" && m.id !== undefined && m.id !== null && typeof m.method === "string" && this.driver?.refuse) {
      if (!events.some((e) => e.type === "request.opened") && !this.driver.serve?.(f.message)) {
        this.driver.refuse(f.message);
        this.emitHost({ type: "runtime.warning", payload: { message: `the agent asked "${m.method}", which agentnorm does not answer: refused (method not found)`, detail: { method: m.method, id: m.id } } });
      }
    }
    return events;
  }

  private writeCapture(lines: string): void {
    if (!this.captureWrite || lines === "") return;
    try {
      this.captureWrite(lines);
    } catch (e) {
      this.captureWrite = undefined;
      this.emitHost({ type: "runtime.warning", payload: { message: `capture: writing the log failed, capture stopped: ${(e as Error).message}` } });
    }
  }

  private emitHost(h: HostEvent): CanonicalEvent[] {
    let events: CanonicalEvent[];
    // through the capture (in order with the messages' lines still held for redaction), or straight
    if (this.capture && this.state !== "closed") {
      const r = this.capture.host(h);
      events = r.events;
      this.writeCapture(r.lines);
    } else events = this.normalizer.hostEvent(h);
    this.deliver(events);
    return events;
  }

  private deliver(events: CanonicalEvent[]): void {
    for (const e of events) {
      this.track(e);
      this.events.push(e);
      if (this.waiters.length) {
        for (const w of [...this.waiters]) {
          if (w.pred(e)) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(e);
          }
        }
      }
    }
  }

  private track(e: CanonicalEvent): void {
    switch (e.type) {
      case "request.opened":
        if (e.requestId) this.open.set(e.requestId, e);
        break;
      case "request.resolved":
        if (e.requestId) { this.open.delete(e.requestId); this.answering.delete(e.requestId); }
        break;
      case "turn.started":
        if (e.turnId) this.turn = { turnId: e.turnId, providerTurnId: e.providerRefs?.providerTurnId };
        break;
      case "turn.completed":
      case "turn.aborted":
        if (this.turn && e.turnId === this.turn.turnId) this.turn = undefined;
        break;
    }
  }

  /** The next event matching `pred` (undefined after `ms`). */
  private waitEvent(pred: (e: CanonicalEvent) => boolean, ms: number): Promise<CanonicalEvent | undefined> {
    return new Promise((resolve) => {
      const w: Waiter = { pred, resolve: (e) => { clearTimeout(t); resolve(e); } };
      const t = setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(undefined);
      }, ms);
      (t as { unref?(): void }).unref?.();
      this.waiters.push(w);
    });
  }

  // ───────────────────────────── lifecycle ─────────────────────────────

  /** Start (or restart) the agent and open or resume its session. */
  start(resume: string | undefined): Promise<void> {
    if (this.starting) return this.starting;
    this.starting = (async () => {
      const driver = this.factory.create(this.driverHost, this.o);
      this.driver = driver;
      const exited = driver.exited.then((x) => this.onExit(driver, x));
      void exited;
      let id: string;
      try {
        id = await withTimeout(driver.start(resume), this.o.timeouts.startMs, `starting ${this.factory.command}`, () => driver.stop(0));
      } catch (e) {
        await driver.stop(0).catch(() => undefined);
        throw e instanceof LiveError ? e : new LiveError(LIVE_ERROR_CODES.START_FAILED, `${agentName(this.factory.agent)}: ${(e as Error).message}`, { cause: e });
      }
      this.providerSessionId = id;
      this.state = "ready";
      if (this.events.isHigh) driver.pause();
    })().finally(() => { this.starting = undefined; });
    return this.starting;
  }

  private onExit(driver: Driver, x: ExitInfo): void {
    if (driver !== this.driver) return;
    this.lastExit = x;
    if (x.how === "stopped" || this.state === "closing" || this.state === "closed") return;
    const wasStarting = this.state === "starting";
    this.state = "crashed";
    const recoverable = this.o.restart === "on-demand" && !wasStarting;
    this.settleAll(`the agent ${describeExit(x)}`);
    this.endTurn("failed", `the agent ${describeExit(x)} during the turn`);
    this.emitHost({ type: "runtime.error", payload: { message: `${this.factory.command} ${describeExit(x)}`, class: "transport_error", detail: { code: x.code, signal: x.signal } } });
    this.emitHost({ type: "session.exited", payload: { reason: `${this.factory.command} ${describeExit(x)}`, recoverable, exitKind: "error" } });
    if (!recoverable) void this.finish();
  }

  /** Every open request settled as cancelled (request.resolved), on cancel, close and crash. */
  private settleAll(why: string): void {
    for (const [id, opened] of [...this.open]) {
      this.open.delete(id);
      this.answering.delete(id);
      const requestType = (opened.payload as { requestType?: string })?.requestType ?? "unknown";
      this.emitHost({ type: "request.resolved", requestId: id, payload: { requestType, decision: "cancelled", resolution: { reason: why } } });
    }
  }

  /** End the open turn on the host's behalf (the agent will not). */
  private endTurn(state: "interrupted" | "failed", why: string): void {
    if (!this.turn) return;
    const { turnId } = this.turn;
    this.emitHost({ type: "runtime.warning", turnId, payload: { message: why } });
    this.emitHost({ type: "turn.completed", turnId, payload: { state } });
    this.turn = undefined;
  }

  private async ready(): Promise<Driver> {
    if (this.state === "closing" || this.state === "closed") throw new LiveError(LIVE_ERROR_CODES.SESSION_CLOSED, "the session is closed");
    if (this.starting) await this.starting;
    if (this.state === "crashed") {
      if (this.o.restart !== "on-demand") throw new LiveError(LIVE_ERROR_CODES.AGENT_EXITED, `the agent ${this.lastExit ? describeExit(this.lastExit) : "exited"}`);
      await this.start(this.providerSessionId);
    }
    return this.driver!;
  }

  // ───────────────────────────── the API ─────────────────────────────

  async prompt(input: PromptInput): Promise<PromptResult> {
    const text = typeof input === "string" ? input : input?.text;
    if (typeof text !== "string") throw new InvalidOptionError("input", "prompt: the input must be a string or {text: string}");
    const driver = await this.ready();
    if (this.turn) throw new LiveError(LIVE_ERROR_CODES.BUSY, `prompt: turn ${this.turn.turnId} is still running (cancel() it or wait for its end)`);
    const started = this.waitEvent((e) => e.type === "turn.started", this.o.timeouts.requestMs);
    await withTimeout(driver.prompt(this.providerSessionId!, text), this.o.timeouts.requestMs, "sending the prompt");
    const e = await started;
    if (!e?.turnId) {
      const now = this.turn as { turnId: string } | undefined;
      if (now) return { turnId: now.turnId };
      throw new LiveError(LIVE_ERROR_CODES.TIMEOUT, `prompt: the agent accepted the prompt but started no turn within ${this.o.timeouts.requestMs} ms`);
    }
    return { turnId: e.turnId };
  }

  pending(): CanonicalEvent[] {
    return [...this.open.values()];
  }

  async answer(request: RequestRef, reply: RequestReply): Promise<void> {
    const id = typeof request === "string" ? request : request?.requestId;
    const opened = id !== undefined ? this.open.get(id) : undefined;
    if (!opened || this.answering.has(id!)) {
      throw new LiveError(LIVE_ERROR_CODES.NOT_PENDING, `answer: request ${id ?? "(no requestId)"} is not pending${id !== undefined && this.answering.has(id) ? " (already answered)" : ""}`);
    }
    const native = answerRequest(opened, reply);
    const driver = await this.ready();
    this.answering.add(id!);
    try {
      await driver.send(native, opened);
    } catch (e) {
      this.answering.delete(id!);
      throw e;
    }
  }

  async cancel(): Promise<void> {
    if (this.state === "crashed") { this.settleAll("the agent had exited"); return; }
    const driver = await this.ready();
    const turn = this.turn;
    // every open request answered as cancelled, natively (the agent stops waiting) and canonically — before the
    // interrupt, or (driver.interruptFirst) right after it
    const answerOpen = async () => {
      for (const [id, opened] of [...this.open]) {
        if (this.answering.has(id)) continue;
        try {
          this.answering.add(id);
          await driver.send(answerRequest(opened, { decision: "cancelled" }), opened);
        } catch {
          /* the request may take no cancellation natively: settled below */
        }
      }
    };
    if (!driver.interruptFirst || !turn) await answerOpen();
    if (!turn) {
      this.settleAll("cancelled");
      return;
    }
    // watched from now (the end may come before the interrupt's answer); the grace counts from the answer
    let sawEnd = false;
    const terminal = this.waitEvent((e) => TERMINAL.has(e.type) && e.turnId === turn.turnId, this.o.timeouts.interruptGraceMs + this.o.timeouts.requestMs);
    void terminal.then((e) => { sawEnd = e !== undefined; });
    let hung = false;
    try {
      await withTimeout(driver.interrupt(this.providerSessionId!, turn.providerTurnId), this.o.timeouts.requestMs, "the interrupt");
    } catch (e) {
      if ((e as LiveError).code === LIVE_ERROR_CODES.TIMEOUT) hung = true;
      else if ((e as LiveError).code !== LIVE_ERROR_CODES.AGENT_EXITED) this.emitHost({ type: "runtime.warning", turnId: turn.turnId, payload: { message: `cancel: the interrupt failed: ${(e as Error).message}` } });
    }
    if (driver.interruptFirst && !hung) await answerOpen();
    if (hung) {
      // the interrupt call itself hangs: the agent is stopped (and restarted on the next prompt when allowed)
      this.emitHost({ type: "runtime.warning", turnId: turn.turnId, payload: { message: `cancel: the agent did not answer the interrupt within ${this.o.timeouts.requestMs} ms; stopping it` } });
      this.state = "crashed";
      this.lastExit = await driver.stop(0);
      this.settleAll("the agent was stopped");
      this.endTurn("interrupted", "cancel: the turn ended when the agent was stopped");
      if (this.o.restart !== "on-demand") await this.finish();
      return;
    }
    const got = this.turn === undefined || sawEnd ? true : await Promise.race([terminal, new Promise<undefined>((r) => setTimeout(r, this.o.timeouts.interruptGraceMs))]);
    this.settleAll("cancelled");
    if (!got && this.turn?.turnId === turn.turnId) this.endTurn("interrupted", `cancel: the agent sent no end of the turn within ${this.o.timeouts.interruptGraceMs} ms of the interrupt; ended here as interrupted`);
  }

  async setMode(mode: string): Promise<void> {
    if (typeof mode !== "string" || !mode) throw new InvalidOptionError("mode", "setMode: the mode must be a non-empty string");
    const driver = await this.ready();
    if (!driver.setMode) throw new LiveError(LIVE_ERROR_CODES.UNSUPPORTED, `setMode: ${agentName(this.factory.agent)} has no mode to set`);
    await withTimeout(driver.setMode(this.providerSessionId!, mode), this.o.timeouts.requestMs, "setMode");
    // kept: the drivers that send it per turn read it, and a restarted agent starts with it
    this.o.permissionMode = mode;
  }

  async setModel(model: string): Promise<void> {
    if (typeof model !== "string" || !model) throw new InvalidOptionError("model", "setModel: the model must be a non-empty string");
    const driver = await this.ready();
    if (!driver.setModel) throw new LiveError(LIVE_ERROR_CODES.UNSUPPORTED, `setModel: ${agentName(this.factory.agent)} cannot change its model during a session`);
    await withTimeout(driver.setModel(this.providerSessionId!, model), this.o.timeouts.requestMs, "setModel");
    this.o.model = model;
  }

  async load(providerSessionId?: string): Promise<CanonicalEvent[]> {
    const driver = await this.ready();
    const id = providerSessionId ?? this.providerSessionId!;
    const tap = this.o.onFrame ? (f: Frame) => { try { this.o.onFrame!({ ...f, history: true }); } catch { /* the tap's own problem */ } } : undefined;
    const h = await withTimeout(readHistory(driver, id, tap), this.o.timeouts.requestMs, "reading the history");
    return historyEvents(h.surface, h.frames, this.factory.agent, id);
  }

  async resume(providerSessionId: string): Promise<void> {
    if (this.turn) throw new LiveError(LIVE_ERROR_CODES.BUSY, `resume: turn ${this.turn.turnId} is still running`);
    const old = this.driver;
    if (this.state === "ready" && old) {
      this.state = "starting";
      this.settleAll("the session was switched");
      await old.stop(this.o.timeouts.closeGraceMs);
    }
    await this.start(providerSessionId);
  }

  async close(options: { graceMs?: number } = {}): Promise<ExitInfo | undefined> {
    if (this.state === "closing" || this.state === "closed") {
      await this.closed;
      return this.lastExit;
    }
    if (this.starting) await this.starting.catch(() => undefined);
    const running = this.state === "ready";
    this.state = "closing";
    this.settleAll("the session was closed");
    this.endTurn("interrupted", "the session was closed during the turn");
    if (running) this.emitHost({ type: "session.exited", payload: { reason: "closed by the host", recoverable: false, exitKind: "graceful" } });
    if (this.driver && running) this.lastExit = await this.driver.stop(options.graceMs ?? this.o.timeouts.closeGraceMs);
    await this.finish();
    return this.lastExit;
  }

  private async finish(): Promise<void> {
    if (this.state === "closed") return;
    this.state = "closed";
    const end = this.capture ? this.capture.end() : { events: this.normalizer.end(), lines: "" };
    this.writeCapture(end.lines);
    this.deliver(end.events);
    this.events.end();
    try { this.captureClose?.(); } catch { /* closed */ }
    this.driver?.resume();
    this.closedResolve();
  }
}

/**
 * Whose stored session an id names, for its canonical ids (storedSessionIds): the agent whose store agentnorm/sessions
 * reads (codex, claude, opencode, gemini — a live agent sharing a store counts as it), else the agent's own name (an
 * ACP preset: its own list); none for a command given as `{ acp }`.
 */
export function storedIdsKey(agent: LiveAgent): string | undefined {
  return typeof agent === "string" ? storeOfLiveAgent(agent) ?? agent : undefined;
}

/** A driver's history of a stored session; `tap` sees every frame as it crossed the wire (once). */
export async function readHistory(driver: Driver, id: string, tap: ((f: Frame) => void) | undefined): Promise<{ surface: string; frames: Frame[] }> {
  const h = await driver.history(id, tap);
  if (tap) for (const f of h.raw ?? h.frames) tap(f);
  return h;
}

/** A stored session's history frames as canonical events, with the stored session's ids (storedIdsKey). */
export function historyEvents(surface: string, frames: readonly Frame[], agent: LiveAgent, providerSessionId: string): CanonicalEvent[] {
  const key = storedIdsKey(agent);
  const n = createNormalizer({ surface, ...(key ? { ids: storedSessionIds(key, providerSessionId) } : {}) });
  const out: CanonicalEvent[] = [];
  for (const f of frames) out.push(...n.push(f.message, { direction: f.dir }));
  out.push(...n.end());
  return out;
}

/** An agent's name for messages ("acp" for a command given as `{ acp }`). */
export function agentName(agent: LiveAgent): string {
  return typeof agent === "string" ? agent : "acp";
}

/** `p`, or a TIMEOUT LiveError after `ms` (running `onTimeout` first). */
export function withTimeout<T>(p: Promise<T>, ms: number, what: string, onTimeout?: () => unknown): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      t = setTimeout(() => {
        void Promise.resolve(onTimeout?.()).catch(() => undefined);
        reject(new LiveError(LIVE_ERROR_CODES.TIMEOUT, `${what}: no answer within ${ms} ms`));
      }, ms);
    }),
  ]).finally(() => clearTimeout(t));
}

export function resolveOptions(o: ConnectOptions, factory: DriverFactory): ResolvedOptions {
  if (!o || typeof o !== "object") throw new InvalidOptionError("options", "connect: options must be an object");
  const env: Record<string, string | undefined> = { ...process.env, ...(o.env ?? {}) };
  const bin = o.bin !== undefined ? findOnPath(o.bin, env) : factory.binOptional ? "" : findOnPath(factory.command, env);
  const name = agentName(factory.agent);
  if (o.bin !== undefined && !bin) throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `${name}: bin ${JSON.stringify(o.bin)} is not an executable file`);
  if (bin === undefined) throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `${name}: "${factory.command}" is not on PATH (install it, or pass bin: "/path/to/${factory.command}")`);
  const t = o.timeouts ?? {};
  for (const [k, v] of Object.entries(t)) if (v !== undefined && !(typeof v === "number" && v >= 0)) throw new InvalidOptionError(`timeouts.${k}`, `connect: timeouts.${k} must be a number of ms ≥ 0`);
  if (o.restart !== undefined && o.restart !== "on-demand" && o.restart !== "never") throw new InvalidOptionError("restart", `connect: restart must be "on-demand" or "never"`);
  return {
    ...o,
    cwd: o.cwd ?? process.cwd(),
    bin,
    env,
    timeouts: { startMs: t.startMs ?? 30_000, requestMs: t.requestMs ?? 20_000, interruptGraceMs: t.interruptGraceMs ?? 5_000, closeGraceMs: t.closeGraceMs ?? 2_000 },
  };
}
