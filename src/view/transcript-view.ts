/**
 * The transcript pane's data: canonical events → the accumulator (src/render/accumulator.ts) → cards. This is
 * the one function the pane's data flows through (`transcriptView`); the page only knows TranscriptView.
 * No Node APIs.
 */
import { createAccumulator, type AccumulatorSnapshot, type Block, type RequestBlock, type Step } from "../render/accumulator.js";
import type { TranscriptBlock, TranscriptTurn, TranscriptView, ViewerEvent } from "./types.js";
import { decisionLabel, isRetrying, requestKind } from "./labels.js";

type Ev = Pick<ViewerEvent, "sequence" | "type" | "payload"> & Partial<ViewerEvent> & { sessionId?: string };

export interface TranscriptOptions {
  /** The events' createdAt are real times (a recorded canonical stream or capture), so tool durations may come from them. */
  timed?: boolean;
}

/** The transcript as cards: turns → blocks, nested activity under its parent, plus the accumulator's repairs. */
export function transcriptView(events: readonly Ev[], opts: TranscriptOptions = {}): TranscriptView {
  const acc = createAccumulator({ eventLog: false });
  acc.applyAll(events);
  // Event times (not state): a tool's duration when its provider does not report one.
  const times = new Map<number, number>();
  if (opts.timed) for (const e of events) if (e.createdAt) times.set(e.sequence, Date.parse(e.createdAt));
  const bySeq = new Map<number, Ev>();
  for (const e of events) bySeq.set(e.sequence, e);
  return fromSnapshot(acc.snapshot(), times, bySeq);
}

type Options = NonNullable<TranscriptBlock["options"]>;
interface Ctx { times: Map<number, number>; events: Map<number, Ev> }

/**
 * An accumulator snapshot as the viewer's cards (`events`: the events by sequence, to tell input problems from the
 * conversation's own errors). Cards outside any turn (a session's own steps) stand where they happened: before the
 * first turn, or after the cards of the turn that began before them (so the end-of-stream warnings come last in every
 * stream). Runs of input-problem cards (lines that are not messages of the surface) fold into one card.
 */
export function fromSnapshot(snap: AccumulatorSnapshot, times: Map<number, number> = new Map(), events: Map<number, Ev> = new Map()): TranscriptView {
  const cx: Ctx = { times, events };
  const view: TranscriptView = { source: "accumulator", preamble: [], turns: [], repairs: snap.problems.map((p) => ({ ...(p.sequence !== undefined ? { sequence: p.sequence } : {}), message: `${p.kind}: ${p.message}` })) };
  for (const s of snap.sessions) {
    const turns: TranscriptTurn[] = [];
    for (const t of s.turns) {
      const state = t.state + (t.errorMessage ? `: ${t.errorMessage}` : t.abortReason ? `: ${t.abortReason}` : "");
      turns.push({ id: t.turnId, index: view.turns.length + turns.length + 1, state, seqs: t.sequences.slice(), blocks: t.steps.flatMap((st) => stepBlocks(st, cx)) });
    }
    const starts = turns.map((t) => (t.seqs.length ? Math.min(...t.seqs) : Infinity));
    for (const b of s.steps.flatMap((st) => stepBlocks(st, cx))) {
      const first = b.seqs.length ? b.seqs[0] : -Infinity;
      let k = -1;
      for (let i = 0; i < starts.length; i++) if (starts[i] < first) k = i;
      if (k < 0) view.preamble.push(b);
      else insertBySeq(turns[k].blocks, b);
    }
    view.turns.push(...turns);
  }
  view.preamble = foldInputProblems(view.preamble, cx);
  for (const t of view.turns) t.blocks = foldInputProblems(t.blocks, cx);
  return view;
}

/** Put a card among others ordered by their first sequence (after those that began before it). */
function insertBySeq(blocks: TranscriptBlock[], b: TranscriptBlock): void {
  const first = b.seqs[0] ?? Infinity;
  let i = blocks.length;
  while (i > 0 && (blocks[i - 1].seqs[0] ?? -Infinity) > first) i--;
  blocks.splice(i, 0, b);
}

/**
 * A card made only of input problems: runtime events saying a line is not a message the table reads (not JSON, not a
 * message of the protocol, a message no row could map: class validation_error) — the recording's, not the agent's.
 */
function inputProblem(b: TranscriptBlock, cx: Ctx): boolean {
  if ((b.kind !== "error" && b.kind !== "notice") || !b.seqs.length) return false;
  return b.seqs.every((s) => {
    const e = cx.events.get(s);
    if (!e) return false;
    const p = e.payload as { class?: unknown; detail?: { nonJson?: unknown } } | null;
    return (e.type === "runtime.error" && p?.class === "validation_error") || (e.type === "runtime.warning" && p?.detail?.nonJson === true);
  });
}

/** Consecutive input-problem cards → one neutral card listing them (the timeline and the header still count each). */
function foldInputProblems(blocks: TranscriptBlock[], cx: Ctx): TranscriptBlock[] {
  const out: TranscriptBlock[] = [];
  let run: TranscriptBlock[] = [];
  const flush = () => {
    if (!run.length) return;
    const lines = run.map((b) => {
      const e = cx.events.get(b.seqs[0]);
      const line = (e?.payload as { detail?: { line?: unknown } } | null)?.detail?.line;
      return `${typeof line === "number" ? `line ${line}: ` : `#${b.seqs[0]}: `}${String(b.title ?? "").replace(/^line \d+: /, "")}`;
    });
    out.push({
      id: `input-problems-${run[0].seqs[0]}`,
      kind: "status",
      label: "input",
      title: `${run.length} input line(s) not read as messages of the stream`,
      text: lines.join("\n"),
      seqs: [...new Set(run.flatMap((b) => b.seqs))].sort((x, y) => x - y),
    });
    run = [];
  };
  for (const b of blocks) {
    if (inputProblem(b, cx)) { run.push(b); continue; }
    flush();
    out.push(b);
  }
  flush();
  return out;
}

/**
 * One step's cards. A step with a tool card folds its terminal output and item diff into that card and holds its
 * permission/question cards and nested steps as children.
 */
function stepBlocks(st: Step, cx: Ctx): TranscriptBlock[] {
  if (st.superseded) return []; // a later step replaced it: not part of the conversation
  const toolBlock = st.blocks.find((b) => b.kind === "tool");
  const host = toolBlock ? card(toolBlock, cx) : undefined;
  const out: TranscriptBlock[] = [];
  const kids: TranscriptBlock[] = [];
  for (const b of st.blocks) {
    if (b === toolBlock) { out.push(host!); continue; }
    if (b.kind === "text" && !b.streaming && b.text.trim() === "") continue; // a whitespace-only message: no empty card
    if (host && b.kind === "terminal") { host.output = joinOutput(host.output, b.text || (b.terminalId ? `(output in the client's terminal ${b.terminalId})` : "")); merge(host, b.sequences); continue; }
    if (host && b.kind === "diff" && b.scope === "item") { host.diff = diffText(b); merge(host, b.sequences); continue; }
    if (host && isRequest(b)) { kids.push(card(b, cx)); continue; }
    out.push(card(b, cx));
  }
  kids.push(...st.children.flatMap((c) => stepBlocks(c, cx)));
  if (!kids.length) return out;
  const parent = host ?? out[out.length - 1];
  if (!parent) return kids;
  parent.children = [...(parent.children ?? []), ...kids];
  return out;
}

/** The item's final output and the streamed terminal text often say the same thing: keep the longer when one holds the other. */
function joinOutput(a: string | undefined, b: string): string {
  if (!a) return b;
  if (!b || a.includes(b)) return a;
  if (b.includes(a)) return b;
  return a + "\n" + b;
}

function merge(b: TranscriptBlock, seqs: number[]): void {
  b.seqs = [...new Set([...b.seqs, ...seqs])].sort((x, y) => x - y);
}

function diffText(b: Extract<Block, { kind: "diff" }>): string {
  if (b.unifiedDiff) return b.unifiedDiff;
  return b.files.map((f) => f.diff ?? `${f.kind ?? "changed"} ${f.path}${f.movePath ? ` → ${f.movePath}` : ""}`).join("\n") + (b.output ? `\n${b.output}` : "");
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  return typeof v === "string" ? v : JSON.stringify(v, null, 2);
}

function card(b: Block, cx: Ctx): TranscriptBlock {
  const times = cx.times;
  const base = { id: b.blockId, seqs: b.sequences.slice().sort((x, y) => x - y) };
  switch (b.kind) {
    case "text":
      return { ...base, kind: b.role === "user" ? "user" : "text", text: b.text, ...(b.streaming ? { status: "streaming" } : {}) };
    case "thinking":
      return { ...base, kind: "thinking", text: [b.summary, b.text].filter(Boolean).join("\n\n") };
    case "tool": {
      const t: TranscriptBlock = { ...base, kind: "tool", subtype: b.itemType, status: b.status };
      const title = b.title ?? b.command ?? b.detail;
      if (title) t.title = title;
      if (b.input !== undefined) t.input = b.input;
      // result, output and error, each once (a failed call often carries the same text as its output and its error)
      const output = [str(b.result), b.output, b.error].reduce<string>((acc, x) => (x ? joinOutput(acc, x) : acc), "");
      if (output) t.output = output;
      const facts = Object.fromEntries(Object.entries({ tool: b.toolName, server: b.server, command: b.command, cwd: b.cwd, exitCode: b.exitCode, query: b.query, path: b.path, url: b.url }).filter(([, v]) => v !== undefined));
      if (Object.keys(facts).length) t.detail = facts;
      const d = b.durationMs;
      if (typeof d === "number") t.durationMs = d;
      else if (b.status === "completed" || b.status === "failed") {
        const t0 = times.get(base.seqs[0]);
        const t1 = times.get(base.seqs[base.seqs.length - 1]);
        if (t0 !== undefined && t1 !== undefined && t1 > t0) t.durationMs = t1 - t0;
      }
      return t;
    }
    case "terminal":
      return { ...base, kind: "tool", subtype: "terminal", ...(b.terminalId ? { title: `terminal ${b.terminalId}` } : {}), output: b.text, status: b.streaming ? "running" : "completed" };
    case "diff":
      return { ...base, kind: "diff", title: b.scope === "turn" ? "turn diff" : b.files.map((f) => f.path).join(", ") || "diff", diff: diffText(b) };
    case "plan":
    case "todo":
      return { ...base, kind: "plan", subtype: b.kind, title: b.kind, plan: b.steps, ...(b.explanation || b.text ? { text: b.explanation || b.text } : {}) };
    case "permission":
    case "question":
      return requestCard(b, base);
    case "task":
      return { ...base, kind: "task", status: b.status, title: b.description ?? b.taskId, ...(b.taskType ? { subtype: b.taskType } : {}), ...(b.summary || b.progress.length ? { text: b.summary ?? b.progress.join("\n") } : {}), ...(b.usage !== undefined ? { detail: b.usage } : {}) };
    case "usage":
      return { ...base, kind: "usage", title: "token usage", detail: b.tokens ?? b.usage };
    case "mode":
      return { ...base, kind: "status", subtype: "mode", title: [b.mode && `mode ${b.mode}`, b.model && `model ${b.model}`].filter(Boolean).join(" · ") || "configuration", detail: b.config };
    case "status": {
      // An error the provider retries is a warning, not a failure.
      const retrying = b.level === "error" && isRetrying(b);
      return { ...base, kind: b.level === "error" && !retrying ? "error" : b.level === "warning" || retrying ? "notice" : "status", subtype: b.source, title: b.message, ...(retrying ? { retrying: true, label: "retrying" } : {}), ...(b.detail !== undefined ? { detail: b.detail } : {}) };
    }
    default: {
      const other = b as Block;
      // A request block of a kind this module does not know yet (its canonical request fields name it).
      if (isRequest(other)) return requestCard(other as RequestBlock, base);
      return { ...base, kind: "status", subtype: (other as any).kind, detail: other };
    }
  }
}

/** A block about a request to the client: a permission, a question, or any block carrying a canonical request type and state. */
function isRequest(b: Block): boolean {
  const x = b as Partial<RequestBlock> & { kind: string };
  return x.kind === "permission" || x.kind === "question" || (typeof x.requestType === "string" && typeof x.state === "string");
}

/** A request's card, named for what it is from the canonical request type, options and decision. */
function requestCard(b: RequestBlock, base: { id: string; seqs: number[] }): TranscriptBlock {
  // the canonical options the request offered (the request block's), as decision and label
  const options: Options | undefined = Array.isArray(b.options) ? b.options.filter((x) => x && typeof x === "object" && typeof x.decision === "string").map((x) => ({ decision: x.decision, label: typeof x.label === "string" && x.label.trim() ? x.label : decisionLabel(x.decision) })) : undefined;
  const named = b.kind === "question" && !b.requestType ? { kind: "question" as const, label: "question" } : requestKind(b.requestType, options, b.decision);
  const r: TranscriptBlock = { ...base, kind: named.kind, label: named.label, status: b.state === "resolved" ? b.decision ?? "resolved" : "open" };
  if (b.requestType) r.subtype = b.requestType;
  if (b.detail) r.title = b.detail;
  if (options?.length) r.options = options;
  if (b.decision !== undefined) r.decision = b.decision;
  const input = b.questions ?? b.args;
  if (input !== undefined) r.input = input;
  const res = b.answers ?? b.resolution;
  if (res !== undefined) r.resolution = res;
  return r;
}
