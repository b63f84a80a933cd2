/**
 * Requests (permissions, questions, host calls: open → resolved, linked to the tool they wait on) and tasks.
 */
import type { CanonicalRuntimeEventType } from "../../../generated/canonical.gen.js";
import { requestKindOf } from "../rules.js";
import { sideChange, type BlockState, type Ctx, type Handler, type State, type StepState } from "./state.js";
import type { RequestBlock } from "./types.js";

// ───────────────────────────── requests, questions, tasks ─────────────────────────────

function requestBlock(S: State, c: Ctx, kind: RequestBlock["kind"]): BlockState {
  const { requestId } = c;
  const id = requestId ?? `${c.eventId}`;
  const blockId = id + ":request";
  let step: StepState;
  const existing = c.session.blockIndex.get(blockId);
  if (existing) step = existing.step;
  else if (c.itemId) step = S.itemStep(c);
  else step = S.syntheticStep(c, id);
  c.outStepId = step.stepId;
  const b = S.block(c, step, blockId, kind, requestFields);
  if (kind !== "permission") b.kind = kind;
  if (c.itemId && !existing) {
    const tool = primaryBlockIfTool(S, c, step);
    if (tool) {
      (tool.fields.awaitingRequests as string[]).push(blockId);
      c.session.requestTool.set(blockId, tool.blockId);
      sideChange(c, tool);
    }
  }
  return b;
}

const requestFields = (c: Ctx) => ({ state: "open", requestId: c.requestId });

/** The item's tool card, if it has one (a request alone does not make a tool card). */
function primaryBlockIfTool(_S: State, _c: Ctx, step: StepState): BlockState | undefined {
  return step.own.tool;
}

function resolveRequest(S: State, c: Ctx, b: BlockState) {
  if (b.fields.state !== "open" && b.sequences.length === 1) S.problem(c, "resolve-without-open", `${c.type} for ${c.requestId ?? "a request without id"} that was never opened: shown resolved`);
  b.fields.state = "resolved";
  const tool = c.session.requestTool.get(b.blockId);
  if (tool) {
    const tb = S.findBlock(c.session, tool);
    if (tb) { tb.fields.awaitingRequests = (tb.fields.awaitingRequests as string[]).filter((x) => x !== b.blockId); sideChange(c, tb); }
  }
}

function isNewBlock(S: State, c: Ctx, blockId: string) {
  return !c.session.blockIndex.has(blockId);
}

function taskBlock(S: State, c: Ctx, start: boolean): BlockState {
  const { p } = c;
  const blockId = `${p.taskId}:task`;
  if (!start && isNewBlock(S, c, blockId)) S.problem(c, "task-without-start", `${c.type} for task ${p.taskId} before task.started: opened implicitly`);
  const existing = c.session.blockIndex.get(blockId);
  const step = existing?.step ?? (c.parentId ? parentStep(S, c) : c.itemId ? S.itemStep(c) : S.syntheticStep(c, String(p.taskId)));
  c.outStepId = step.stepId;
  return S.block(c, step, blockId, "task", taskFields);
}

const taskFields = (c: Ctx) => ({ taskId: c.p.taskId, status: "running", progress: [] });

/** The step of e.parentId (a task hangs under its tool use). */
function parentStep(S: State, c: Ctx): StepState {
  const { itemId, parentId } = c;
  const st = c.session.stepIndex.get(parentId!);
  if (st) return st;
  S.problem(c, "unknown-parent", `${c.type} names parent ${parentId}, never seen: an implicit parent step is created`);
  // the parent's own step, made as for an event of that item (without a parent of its own)
  c.itemId = parentId;
  c.parentId = undefined;
  try {
    return S.itemStep(c);
  } finally {
    c.itemId = itemId;
    c.parentId = parentId;
  }
}


export const REQUEST_HANDLERS = {
  "request.opened": (S, c) => {
    const b = requestBlock(S, c, requestKindOf(c.p.requestType));
    b.fields.state = "open";
    b.fields.requestType = c.p.requestType;
    if (c.p.detail !== undefined) b.fields.detail = c.p.detail;
    if (c.p.args !== undefined) b.fields.args = c.p.args;
    if (Array.isArray(c.p.options)) b.fields.options = c.p.options;
    if (c.p.questions !== undefined) b.fields.questions = c.p.questions;
  },
  "request.resolved": (S, c) => {
    const isNew = isNewBlock(S, c, (c.requestId ?? c.eventId) + ":request");
    const b = requestBlock(S, c, requestKindOf(c.p.requestType));
    if (isNew) b.fields.state = "never-opened";
    resolveRequest(S, c, b);
    b.fields.requestType ??= c.p.requestType;
    if (c.p.decision !== undefined) b.fields.decision = c.p.decision;
    if (c.p.resolution !== undefined) b.fields.resolution = c.p.resolution;
    if (c.p.answers !== undefined) b.fields.answers = c.p.answers;
  },
  "user-input.requested": (S, c) => {
    const b = requestBlock(S, c, "question");
    b.kind = "question";
    if (c.p.questions !== undefined) b.fields.questions = c.p.questions;
  },
  "user-input.resolved": (S, c) => {
    const isNew = isNewBlock(S, c, (c.requestId ?? c.eventId) + ":request");
    const b = requestBlock(S, c, "question");
    b.kind = "question";
    if (isNew) b.fields.state = "never-opened";
    resolveRequest(S, c, b);
    if (c.p.answers !== undefined) b.fields.answers = c.p.answers;
  },
  "task.started": (S, c) => {
    const b = taskBlock(S, c, true);
    if (c.p.description !== undefined) b.fields.description = c.p.description;
    if (c.p.taskType !== undefined) b.fields.taskType = c.p.taskType;
  },
  "task.progress": (S, c) => {
    const b = taskBlock(S, c, false);
    (b.fields.progress as string[]).push(String(c.p.description ?? ""));
    if (c.p.lastToolName !== undefined) b.fields.lastToolName = c.p.lastToolName;
    if (c.p.usage !== undefined) b.fields.usage = c.p.usage;
  },
  "task.completed": (S, c) => {
    const b = taskBlock(S, c, false);
    b.fields.status = c.p.status ?? "completed";
    if (c.p.summary !== undefined) b.fields.summary = c.p.summary;
    if (c.p.usage !== undefined) b.fields.usage = c.p.usage;
  },
} satisfies Partial<Record<CanonicalRuntimeEventType, Handler>>;
