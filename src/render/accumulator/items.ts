/**
 * Blocks per item type: an item's lifecycle (item.started / updated / completed) and its streamed content
 * (content.delta), each applied to the item's own step and blocks only.
 */
import type { CanonicalRuntimeEventType } from "../../../generated/canonical.gen.js";
import { outputChunk, sideChange, textChunk, touch, type BlockState, type Ctx, type Handler, type State, type StepState } from "./state.js";
import { deltaRoute, diffFiles, isToolItem, ITEM_TO_TOOL_STATUS, primarySuffix, TOOL_FIELDS, toolStatusOf, userMessageText, type ItemSuffix } from "../rules.js";
import type { BlockKind } from "./types.js";

/** How each of an item's blocks is made (its kind, chunk arrays and first fields). */
const ITEM_BLOCKS: Record<ItemSuffix, { kind: BlockKind; chunks: () => Record<string, string[]>; init: (c: Ctx, st: StepState) => Record<string, unknown> }> = {
  text: { kind: "text", chunks: textChunk, init: (_c, st) => ({ role: st.itemType === "user_message" ? "user" : "assistant", streaming: true }) },
  thinking: { kind: "thinking", chunks: () => ({ text: [], summary: [] }), init: () => ({ streaming: true }) },
  plan: { kind: "plan", chunks: textChunk, init: () => ({ steps: [], updates: 0 }) },
  tool: { kind: "tool", chunks: outputChunk, init: (_c, st) => ({ itemType: st.itemType ?? "unknown", status: "pending", awaitingRequests: [] }) },
  terminal: { kind: "terminal", chunks: textChunk, init: () => ({ streaming: true }) },
  diff: { kind: "diff", chunks: outputChunk, init: () => ({ scope: "item", files: [] }) },
};

/** An item's block by suffix, created on first use; records the event on it (the fast path allocates nothing). */
export function itemBlock(S: State, c: Ctx, step: StepState, suffix: ItemSuffix): BlockState {
  const b = step.own[suffix];
  if (b) { touch(c, b); return b; }
  const spec = ITEM_BLOCKS[suffix];
  const created = S.block(c, step, step.stepId + ":" + suffix, spec.kind, spec.init, spec.chunks);
  step.own[suffix] = created;
  if (suffix === "tool") {
    // Requests that arrived before the tool card: link the open ones to it.
    for (const r of step.blocks) {
      if ((r.kind === "permission" || r.kind === "question" || r.kind === "host_call") && r.fields.state === "open") {
        (created.fields.awaitingRequests as string[]).push(r.blockId);
        c.session.requestTool.set(r.blockId, created.blockId);
      }
    }
  }
  return created;
}

/** The primary block of an item: text, thinking, plan text, or a tool card. */
export function primaryBlock(S: State, c: Ctx, step: StepState): BlockState {
  return itemBlock(S, c, step, primarySuffix(step.itemType));
}

/** Output streamed before its tool started still gets its card (pending), placed first; an existing card is not touched. */
function ensureToolCard(S: State, c: Ctx, st: StepState) {
  if (isToolItem(st.itemType) && !st.own.tool) itemBlock(S, c, st, "tool");
}

/** item.started / item.updated / item.completed: the item's snapshot, applied to its own step and blocks only. */
function itemLifecycle(phase: "started" | "updated" | "completed") {
  return (S: State, c: Ctx) => {
    const { itemId, p } = c;
    if (!itemId) return;
    const existed = c.session.stepIndex.get(itemId);
    if (phase === "started" && existed && (existed.blocks.length || existed.completed)) S.problem(c, "late-start", `item.started for ${itemId} after its content: merged into the existing step, position kept`);
    if (phase === "completed" && !existed) S.problem(c, "completion-without-start", `item.completed for ${itemId}, never started: rendered from the completion alone`);
    if (phase !== "completed" && existed?.completed && phase === "updated") S.problem(c, "update-after-completion", `item.updated for ${itemId} after its completion: data applied, status kept`);
    const step = S.itemStep(c, p.itemType);
    if (phase === "started") step.started = true;
    if (p.background === true) step.background = true;
    // A step is implicit while only later events (delta, request, child) vouch for it.
    if (phase === "started" || (phase === "completed" && !existed)) step.implicit = false;
    c.outStepId = step.stepId;
    const b = primaryBlock(S, c, step);
    const f = b.fields;
    if (b.kind === "tool") {
      // the tool's name is its first title (stable for the tool's lifetime; later titles go to `title`)
      if (typeof p.title === "string" && !step.name) step.name = p.title;
      if (p.title !== undefined) f.title = p.title;
      if (p.detail !== undefined) f.detail = p.detail;
      for (const k of TOOL_FIELDS) { const v = p[k]; if (v !== undefined && v !== null) f[k] = v; }
      if (p.input !== undefined) f.input = p.input;
      const isCommand = step.itemType === "command_execution";
      if (p.output !== undefined && p.output !== null) {
        if (isCommand && typeof p.output === "string") {
          // The command's whole output: its terminal block shows what the deltas did not already stream. A start's
          // output (restored history: the item arrives complete) is left to the completion, which repeats it after
          // the history's output deltas. The terminal block is this event's only when it adds text.
          const have = step.own.terminal?.chunks.text.join("") ?? "";
          if (phase === "started") step.startOutput = p.output;
          else if (p.output.length > have.length && p.output.startsWith(have)) itemBlock(S, c, step, "terminal").chunks.text.push(p.output.slice(have.length));
        } else f.result = p.output;
      } else if (phase === "completed" && isCommand) {
        // a completion that does not repeat the output its start carried (a turn's end completing a restored call):
        // the start's output, when nothing was streamed
        const given = step.startOutput;
        if (given && !step.own.terminal?.chunks.text.length) itemBlock(S, c, step, "terminal").chunks.text.push(given);
      }
      if (phase === "completed") step.startOutput = undefined;
      const done = f.status === "completed" || f.status === "failed" || f.status === "declined";
      const next = p.status ? ITEM_TO_TOOL_STATUS[p.status] : toolStatusOf(undefined, phase);
      if (!(done && phase === "updated")) f.status = next ?? f.status;
      if (typeof p.terminalId === "string") {
        const t = itemBlock(S, c, step, "terminal");
        t.fields.terminalId = p.terminalId;
      }
      if (step.itemType === "file_change") {
        const files = diffFiles(p.files);
        if (files.length) {
          const d = itemBlock(S, c, step, "diff");
          d.fields.files = files;
        }
      }
    } else {
      if (b.kind === "text" && b.chunks.text.length === 0 && phase !== "updated") {
        // A user message usually arrives whole, without deltas.
        const t = userMessageText(p);
        if (t !== undefined && f.role === "user") b.chunks.text.push(t);
      }
    }
    if (phase === "completed") {
      step.completed = true;
      if (p.status === "superseded") step.superseded = true;
      for (const bl of step.blocks) if ("streaming" in bl.fields && bl.fields.streaming !== false) { bl.fields.streaming = false; sideChange(c, bl); }
    }
  };
}

/** content.delta: appended to the block its stream kind goes to (rules.ts DELTA_ROUTES), of its item or of a per-turn stream. */
function contentDelta(S: State, c: Ctx) {
  const { p } = c;
  const route = deltaRoute(p.streamKind);
  let step: StepState;
  if (c.itemId) {
    step = S.itemStep(c, route?.itemType);
    if (step.completed) S.problem(c, "update-after-completion", `content.delta (${p.streamKind}) for ${c.itemId} after its completion: appended to its block`);
  } else {
    // A delta without an item: its own stream per turn and kind.
    const t = S.turnOf(c);
    step = S.syntheticStep(c, `${t?.turnId ?? c.session.sessionId}:stream:${p.streamKind}`);
    if (!step.itemType) step.itemType = route?.itemType ?? "unknown";
  }
  c.outStepId = step.stepId;
  let block: BlockState;
  let chunk: string;
  if (route) {
    if (route.toolCard) ensureToolCard(S, c, step);
    block = itemBlock(S, c, step, route.suffix);
    chunk = route.chunk;
  } else {
    block = primaryBlock(S, c, step); // an unknown stream: the item's own block
    chunk = Object.keys(block.chunks)[0];
  }
  if (typeof p.delta === "string" && p.delta !== "") (block.chunks[chunk] ??= []).push(p.delta);
}


export const ITEM_HANDLERS = {
  "item.started": itemLifecycle("started"),
  "item.updated": itemLifecycle("updated"),
  "item.completed": itemLifecycle("completed"),
  "content.delta": contentDelta,
} satisfies Partial<Record<CanonicalRuntimeEventType, Handler>>;
