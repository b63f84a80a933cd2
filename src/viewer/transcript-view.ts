/**
 * The transcript pane's data: canonical events → turns of cards. This is the one function the pane's data flows
 * through (`transcriptView`). It renders from canonical events only, so it works the same for every surface.
 * No Node APIs.
 */
import type { TranscriptBlock, TranscriptTurn, TranscriptView, ViewerEvent } from "./types.js";

type Ev = Pick<ViewerEvent, "sequence" | "type" | "turnId" | "itemId" | "requestId" | "parentId" | "payload" | "createdAt">;

const ITEM_KIND: Record<string, TranscriptBlock["kind"]> = {
  user_message: "user",
  assistant_message: "text",
  reasoning: "thinking",
  plan: "plan",
  error: "error",
  context_compaction: "status",
  review_entered: "status",
  review_exited: "status",
};
const STREAM_KIND: Record<string, TranscriptBlock["kind"]> = {
  assistant_text: "text",
  reasoning_text: "thinking",
  reasoning_summary_text: "thinking",
  plan_text: "plan",
};
const ITEM_STATUS: Record<string, string> = { inProgress: "running", completed: "completed", failed: "failed", declined: "declined" };

/** The transcript as cards: turns → blocks, nested activity under its parent. */
export function transcriptView(events: readonly Ev[]): TranscriptView {
  return fallbackTranscript(events);
}

/** The viewer's own minimal accumulation of canonical events. */
export function fallbackTranscript(events: readonly Ev[]): TranscriptView {
  const view: TranscriptView = { source: "fallback", preamble: [], turns: [] };
  const turns = new Map<string, TranscriptTurn>();
  const blocks = new Map<string, TranscriptBlock>();
  const started = new Map<string, number>();
  const turnBlocks = new Map<string, TranscriptBlock>(); // per-turn plan / diff / usage cards
  let current: TranscriptTurn | undefined;

  const turnOf = (e: Ev): TranscriptTurn | undefined => {
    if (e.turnId) {
      let t = turns.get(e.turnId);
      if (!t) {
        t = { id: e.turnId, index: view.turns.length + 1, seqs: [], blocks: [] };
        turns.set(e.turnId, t);
        view.turns.push(t);
      }
      return t;
    }
    return current;
  };
  const place = (e: Ev, b: TranscriptBlock) => {
    // Nested activity hangs under its parent item; a request about an item hangs under that item's card.
    const parent = e.parentId ? blocks.get(e.parentId) : e.requestId && e.itemId ? blocks.get(e.itemId) : undefined;
    if (parent && parent !== b) (parent.children ??= []).push(b);
    else {
      const t = turnOf(e);
      (t ? t.blocks : view.preamble).push(b);
    }
  };
  const block = (e: Ev, key: string, make: () => Omit<TranscriptBlock, "seqs" | "id">): TranscriptBlock => {
    let b = blocks.get(key);
    if (!b) {
      b = { id: key, seqs: [], ...make() };
      blocks.set(key, b);
      place(e, b);
    }
    b.seqs.push(e.sequence);
    return b;
  };
  const ms = (e: Ev) => (e.createdAt ? Date.parse(e.createdAt) : NaN);

  for (const e of events) {
    const p: any = e.payload ?? {};
    switch (e.type) {
      case "turn.started": {
        current = turnOf(e);
        current?.seqs.push(e.sequence);
        if (current) current.state = "running";
        break;
      }
      case "turn.completed":
      case "turn.aborted": {
        const t = turnOf(e);
        if (t) {
          t.seqs.push(e.sequence);
          t.state = e.type === "turn.aborted" ? `aborted: ${p.reason ?? ""}` : p.state + (p.errorMessage ? `: ${p.errorMessage}` : "");
        }
        if (t === current) current = undefined;
        break;
      }
      case "item.started":
      case "item.updated":
      case "item.completed": {
        const key = e.itemId ?? `seq${e.sequence}`;
        const kind = ITEM_KIND[p.itemType] ?? "tool";
        const b = block(e, key, () => ({ kind, subtype: p.itemType }));
        if (e.type === "item.started") started.set(key, ms(e));
        if (p.title) b.title = p.title;
        if (p.status) b.status = ITEM_STATUS[p.status] ?? p.status;
        else if (e.type === "item.completed") b.status = "completed";
        else if (!b.status) b.status = "running";
        if (p.data !== undefined) {
          b.detail = p.data;
          fillFromData(b, p.data);
        }
        if (p.detail && !b.title) b.title = p.detail;
        if (e.type === "item.completed") {
          const d = p.data?.durationMs ?? p.data?.duration_ms;
          const t0 = started.get(key);
          if (typeof d === "number") b.durationMs = d;
          else if (t0 !== undefined && !Number.isNaN(t0) && ms(e) - t0 > 0) b.durationMs = ms(e) - t0;
        }
        break;
      }
      case "content.delta": {
        const key = e.itemId ?? `delta${e.turnId ?? ""}`;
        const kind = STREAM_KIND[p.streamKind] ?? "tool";
        const b = block(e, key, () => ({ kind, status: "running" }));
        if (p.streamKind === "command_output" || p.streamKind === "file_change_output") b.output = (b.output ?? "") + p.delta;
        else b.text = (b.text ?? "") + p.delta;
        break;
      }
      case "request.opened":
      case "request.resolved": {
        const key = e.requestId ?? `seq${e.sequence}`;
        const question = p.requestType === "tool_user_input";
        const b = block(e, key, () => ({ kind: question ? "question" : "permission", subtype: p.requestType, status: "open" }));
        if (e.type === "request.opened") {
          b.title = p.detail ?? p.requestType;
          if (p.args !== undefined) b.input = p.args;
        } else {
          b.status = p.decision ?? "resolved";
          b.resolution = p.resolution ?? p.decision ?? null;
        }
        break;
      }
      case "user-input.requested":
      case "user-input.resolved": {
        const key = e.requestId ?? `question${e.turnId ?? ""}`;
        const b = block(e, key, () => ({ kind: "question", status: "open" }));
        if (e.type === "user-input.requested") b.input = p.questions;
        else { b.status = "answered"; b.resolution = p.answers; }
        break;
      }
      case "turn.plan.updated": {
        const b = block(e, `plan:${e.turnId ?? "-"}`, () => ({ kind: "plan", title: "plan" }));
        b.plan = p.plan;
        if (p.explanation) b.text = p.explanation;
        turnBlocks.set(b.id, b);
        break;
      }
      case "turn.diff.updated": {
        const b = block(e, `diff:${e.turnId ?? "-"}`, () => ({ kind: "diff", title: "turn diff" }));
        b.diff = p.unifiedDiff;
        break;
      }
      case "task.started":
      case "task.progress":
      case "task.completed": {
        const b = block(e, p.taskId ?? `seq${e.sequence}`, () => ({ kind: "task", status: "running" }));
        if (p.description) b.title = p.description;
        if (p.taskType) b.subtype = p.taskType;
        if (e.type === "task.completed") { b.status = p.status; if (p.summary) b.text = p.summary; }
        break;
      }
      case "thread.token-usage.updated": {
        const b = block(e, `usage:${e.turnId ?? "-"}`, () => ({ kind: "usage", title: "token usage" }));
        b.detail = p.usage;
        break;
      }
      case "runtime.warning":
      case "runtime.error": {
        const b = block(e, `seq${e.sequence}`, () => ({ kind: e.type === "runtime.error" ? "error" : "notice", title: p.message }));
        if (p.detail !== undefined) b.detail = p.detail;
        break;
      }
      default:
        break;
    }
  }
  return view;
}

/** Tool input and output from an item's data, by the field names the canonical items carry. */
function fillFromData(b: TranscriptBlock, data: any): void {
  if (data === null || typeof data !== "object") return;
  if (b.kind === "user" && b.text === undefined) {
    const c = data.content;
    const text = typeof c === "string" ? c : Array.isArray(c) ? c.map((x: any) => (typeof x?.text === "string" ? x.text : "")).join("") : data.text;
    if (typeof text === "string") b.text = text;
  }
  if ((b.kind === "text" || b.kind === "thinking") && typeof data.text === "string" && (b.text ?? "").length < data.text.length) b.text = data.text;
  if (b.kind !== "tool") return;
  const input = data.command ?? data.input ?? data.arguments ?? data.rawInput ?? data.args ?? data.query ?? data.changes;
  if (input !== undefined) b.input = input;
  if (!b.title) b.title = typeof data.command === "string" ? data.command : data.tool ?? data.name ?? data.toolName ?? data.title;
  const out = data.aggregatedOutput ?? data.aggregated_output ?? data.output ?? data.result ?? data.rawOutput ?? data.content;
  if (out !== undefined && out !== null) {
    const s = typeof out === "string" ? out : JSON.stringify(out, null, 2);
    if (s.length >= (b.output ?? "").length) b.output = s;
  }
  if (Array.isArray(data.changes)) {
    const diff = data.changes.map((c: any) => c?.diff ?? c?.unified_diff ?? "").filter(Boolean).join("\n");
    if (diff) b.diff = diff;
  }
}
