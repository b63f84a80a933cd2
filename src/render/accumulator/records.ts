/**
 * Turns and turn-level records: a turn's start and end (which closes what it left open), plans and to-do lists, the
 * turn's diff, token usage, mode, and status lines (their texts: src/render/rules.ts STATUS_RULES).
 */
import type { CanonicalRuntimeEventType } from "../../../generated/canonical.gen.js";
import { planSteps, STATUS_RULES, statusLevel, turnEndState, type StatusLevel } from "../rules.js";
import { itemBlock } from "./items.js";
import { outputChunk, sideChange, textChunk, type Ctx, type Handler, type State, type StepState } from "./state.js";
import type { ContextUsage, DiffFile, TokenUsage } from "./types.js";

/** A record kept on a session/turn field only (no block): the event is still listed in the event log. */
const noBlock = () => undefined;

/** A status line (warning, error, state change, notice) in the current turn, or at session level. */
function statusLine(S: State, c: Ctx, level: StatusLevel, message: string) {
  const t = S.turnOf(c, !!c.turnId);
  // Each status record is its own step at the point it happened (never merged with earlier ones).
  const step = c.itemId ? S.itemStep(c) : S.syntheticStep(c, `${c.eventId}`, !!t);
  c.outStepId = step.stepId;
  const b = S.block(c, step, `${c.eventId}:status`, "status", () => ({ level, source: c.type as CanonicalRuntimeEventType, message }));
  if (c.p.detail !== undefined) b.fields.detail = c.p.detail;
}

/** The status line of an event type with a STATUS_RULES entry (when its rule says it makes one). */
function ruled(type: CanonicalRuntimeEventType): Handler {
  const rule = STATUS_RULES[type]!;
  return (S, c) => { if (!rule.when || rule.when(c.p)) statusLine(S, c, statusLevel(rule, c.p), rule.message(c.p)); };
}

function modeOf(p: any): { mode?: string; model?: string } {
  const out: { mode?: string; model?: string } = {};
  if (typeof p.mode === "string") out.mode = p.mode;
  if (typeof p.model === "string") out.model = p.model;
  return out;
}

const usageFields = () => ({ updates: 0 });

function usageBlock(S: State, c: Ctx, usage: unknown, tokens: TokenUsage | undefined, context: ContextUsage | undefined) {
  const t = S.turnOf(c, !!c.turnId);
  c.session.usage = usage;
  if (tokens !== undefined) c.session.tokens = tokens;
  if (context !== undefined) c.session.context = context;
  if (t) t.fields.usage = usage;
  if (t && tokens !== undefined) t.fields.tokens = tokens;
  const step = t ? S.syntheticStep(c, `${t.turnId}:usage`) : S.syntheticStep(c, `${c.session.sessionId}:usage`, false);
  c.outStepId = step.stepId;
  const b = S.block(c, step, step.stepId, "usage", usageFields);
  b.fields.usage = usage;
  if (tokens !== undefined) b.fields.tokens = tokens;
  if (context !== undefined) b.fields.context = context;
  b.fields.updates = (b.fields.updates as number) + 1;
}

const planFields = () => ({ steps: [], updates: 0 });
const turnDiffFields = () => ({ scope: "turn", files: [] });

function endTurn(S: State, c: Ctx, state: unknown) {
  const { session } = c;
  const t = c.turnId ? S.turnOf(c) : session.openTurn;
  if (!t) {
    S.problem(c, "turn-without-start", `${c.type} without a turn to end: ignored`);
    return;
  }
  c.outTurnId = t.turnId;
  t.sequences.push(c.sequence);
  t.state = turnEndState(state);
  const p = c.p;
  if (p.stopReason !== undefined) t.fields.stopReason = p.stopReason;
  if (p.errorMessage !== undefined) t.fields.errorMessage = p.errorMessage;
  if (p.reason !== undefined) t.fields.abortReason = p.reason;
  if (p.usage !== undefined) t.fields.usage = p.usage;
  if (p.tokenUsage !== undefined) t.fields.tokens = p.tokenUsage;
  if (p.totalCostUsd !== undefined) t.fields.totalCostUsd = p.totalCostUsd;
  if (session.openTurn === t) session.openTurn = undefined;
  if (S.retain !== undefined && !t.ended) { t.ended = true; session.endedTurns.push(t); }
  // Close what the turn left open (deterministic; reported once per step).
  const visit = (steps: StepState[]) => {
    for (const st of steps) {
      visit(st.children);
      let open = false;
      for (const b of st.blocks) {
        if (b.fields.streaming === true) { b.fields.streaming = false; sideChange(c, b); } // e.g. ACP messages have no completion: closed silently
        if (b.kind === "tool" && (b.fields.status === "running" || b.fields.status === "pending")) open = true;
      }
      // background work outlives its turn (and so does what runs under it)
      if (open && st.itemId && !st.completed && !inBackground(st)) S.problem(c, "open-at-turn-end", `item ${st.itemId} (${st.itemType ?? "unknown"}) was still open when turn ${t.turnId} ended (${t.state})`);
    }
  };
  visit(t.steps);
}

/** The step is background work, or nested under background work. */
function inBackground(st: StepState): boolean {
  for (let x: StepState | undefined = st; x; x = x.parent) if (x.background) return true;
  return false;
}

function filesOfUnifiedDiff(diff: string): DiffFile[] {
  const out: DiffFile[] = [];
  const re = /^\+\+\+ (?:b\/)?(.+)$/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(diff))) if (m[1] !== "/dev/null") out.push({ path: m[1].trim() });
  return out;
}

export const RECORD_HANDLERS = {
  "session.started": noBlock,
  "session.configured": (S, c) => {
    const config = (c.p.config ?? {}) as Record<string, unknown>;
    Object.assign(c.session.config, config);
    const { mode, model } = modeOf(c.p);
    if (mode === undefined && model === undefined) return;
    const t = S.turnOf(c, false);
    const step = S.syntheticStep(c, `${c.eventId}`, !!t);
    c.outStepId = step.stepId;
    const b = S.block(c, step, `${c.eventId}:mode`, "mode", () => ({ config }));
    if (mode !== undefined) b.fields.mode = mode;
    if (model !== undefined) b.fields.model = model;
  },
  "session.state.changed": (S, c) => { c.session.state = c.p.state; },
  "session.exited": ruled("session.exited"),
  "thread.started": noBlock,
  "thread.state.changed": noBlock,
  "thread.metadata.updated": noBlock,
  "thread.token-usage.updated": (S, c) => usageBlock(S, c, c.p.usage, c.p.tokenUsage, c.p.context),
  "thread.realtime.started": noBlock,
  "thread.realtime.item-added": noBlock,
  "thread.realtime.audio.delta": noBlock,
  "thread.realtime.error": ruled("thread.realtime.error"),
  "thread.realtime.closed": noBlock,
  "turn.started": (S, c) => {
    const { session } = c;
    const id = c.turnId ?? `${c.eventId}:turn`;
    let t = session.turnIndex.get(id);
    if (t) {
      if (t.implicit) t.implicit = false;
    } else t = S.newTurn(session, id, c.e, false);
    session.openTurn = t;
    t.sequences.push(c.sequence);
    if (c.p.model) t.fields.model = c.p.model;
    c.outTurnId = t.turnId;
  },
  "turn.completed": (S, c) => endTurn(S, c, c.p.state),
  "turn.aborted": (S, c) => endTurn(S, c, "aborted"),
  "turn.plan.updated": (S, c) => {
    const { p } = c;
    let step: StepState;
    let kind: "plan" | "todo";
    // A checklist tied to an item (a to-do list tool/item) is a todo; the turn's own plan is a plan.
    if (c.itemId) { step = S.itemStep(c, "plan"); kind = "todo"; }
    else { const t = S.turnOf(c); step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:plan`); kind = "plan"; }
    c.outStepId = step.stepId;
    const b = c.itemId ? itemBlock(S, c, step, "plan") : S.block(c, step, step.stepId, kind, planFields, textChunk);
    b.kind = kind;
    b.fields.steps = planSteps(p.plan);
    if (p.explanation !== undefined) b.fields.explanation = p.explanation;
    b.fields.updates = (b.fields.updates as number) + 1;
  },
  "turn.diff.updated": (S, c) => {
    const t = S.turnOf(c);
    const step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:diff`);
    c.outStepId = step.stepId;
    const b = S.block(c, step, step.stepId, "diff", turnDiffFields, outputChunk);
    b.fields.unifiedDiff = String(c.p.unifiedDiff ?? "");
    b.fields.files = filesOfUnifiedDiff(b.fields.unifiedDiff as string);
  },
  "hook.started": noBlock,
  "hook.progress": noBlock,
  "hook.completed": ruled("hook.completed"),
  "tool.progress": noBlock,
  "tool.summary": ruled("tool.summary"),
  "auth.status": ruled("auth.status"),
  "account.updated": noBlock,
  "account.rate-limits.updated": noBlock,
  "mcp.status.updated": noBlock,
  "mcp.oauth.completed": ruled("mcp.oauth.completed"),
  "model.rerouted": ruled("model.rerouted"),
  "config.warning": ruled("config.warning"),
  "deprecation.notice": noBlock,
  "files.persisted": noBlock,
  "runtime.warning": ruled("runtime.warning"),
  "runtime.error": ruled("runtime.error"),
} satisfies Partial<Record<CanonicalRuntimeEventType, Handler>>;
