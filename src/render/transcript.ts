/**
 * A short human-readable transcript of a canonical stream (for the CLI and README demo): a log that prints each item
 * when it completes (or when its turn ends), and requests, plans, diffs and warnings as they happen. It is a view of
 * the accumulator (src/render/accumulator.ts): each line is made from the blocks an event changed, with the rules of
 * src/render/rules.ts, so it works the same for every surface. Pure; no Node APIs.
 */
import type { CanonicalEvent } from "../normalize/normalizer.js";
import { accumulatorWithState } from "./accumulator.js";
import type { BlockState, StepState } from "./accumulator/state.js";
import { toolHeadline, toolLabel } from "./rules.js";

export function renderTranscript(events: Iterable<CanonicalEvent>): string {
  const { accumulator, state } = accumulatorWithState({ eventLog: false });
  const lines: string[] = [];
  /** Items seen and not printed yet, in order of first appearance. */
  const pending = new Set<StepState>();
  const flushAll = () => { for (const st of [...pending]) flush(st); };
  const flush = (st: StepState) => {
    pending.delete(st);
    lines.push(...stepLines(st));
  };
  for (const e of events) {
    const change = accumulator.apply(e);
    if (!change) continue;
    const session = state.sessionIndex.get(change.sessionId)!;
    const block = (i = 0): BlockState | undefined => (change.blockIds[i] !== undefined ? session.blockIndex.get(change.blockIds[i]) : undefined);
    const step = e.itemId ? session.stepIndex.get(e.itemId) : undefined;
    switch (e.type) {
      case "turn.started": {
        const t = change.turnId !== undefined ? session.turnIndex.get(change.turnId) : undefined;
        lines.push(`── turn ${t?.index ?? "?"} ──`);
        break;
      }
      case "turn.completed":
      case "turn.aborted": {
        flushAll();
        const t = change.turnId !== undefined ? session.turnIndex.get(change.turnId) : undefined;
        if (!t) break;
        const why = t.state === "aborted" ? t.fields.abortReason : t.fields.errorMessage;
        lines.push(`── turn ${t.state}${why ? `: ${why}` : ""} ──`);
        break;
      }
      case "item.started":
      case "item.updated":
      case "content.delta":
        if (step && !step.completed) pending.add(step);
        break;
      case "item.completed":
        if (step) flush(step);
        break;
      case "request.opened": {
        const b = block();
        if (b) lines.push(`approval?  ${b.fields.requestType}${b.fields.detail ? `: ${clip(String(b.fields.detail), 160)}` : ""}`);
        break;
      }
      case "request.resolved": {
        const b = block();
        if (b) lines.push(`approval:  ${b.fields.requestType} → ${b.fields.decision ?? "resolved"}`);
        break;
      }
      case "user-input.requested": {
        const b = block();
        // a form or a dialog (an MCP elicitation) has no canonical questions: its request says what it asks
        if (b) lines.push(`question?  ${b.fields.questions !== undefined ? clip(JSON.stringify(b.fields.questions), 200) : "(a form: see the request)"}`);
        break;
      }
      case "user-input.resolved": {
        const b = block();
        if (b) lines.push(`answer:    ${b.fields.answers !== undefined ? clip(JSON.stringify(b.fields.answers), 200) : "—"}`);
        break;
      }
      case "turn.plan.updated": {
        const b = block();
        if (b) lines.push(`plan:      ${(b.fields.steps as { step: string; status: string }[]).map((s) => `[${s.status === "completed" ? "x" : s.status === "inProgress" ? "~" : " "}] ${s.step}`).join("  ")}`);
        break;
      }
      case "turn.diff.updated": {
        const b = block();
        if (b) lines.push(`diff:      ${String(b.fields.unifiedDiff).split("\n").filter((l) => /^[+-][^+-]/.test(l)).length} changed line(s)`);
        break;
      }
      case "runtime.warning":
      case "runtime.error": {
        const b = block();
        if (b) lines.push(`${b.fields.level === "error" ? "error" : "warning"}:   ${clip(String(b.fields.message), 200)}`);
        break;
      }
      default:
        break;
    }
  }
  flushAll();
  return lines.join("\n") + (lines.length ? "\n" : "");
}

const text = (b: BlockState | undefined, chunk = "text"): string => (b?.chunks[chunk] ?? []).join("");

/** The lines of one item, from its blocks. */
function stepLines(st: StepState): string[] {
  const kind = st.itemType ?? "unknown";
  const own = st.own;
  if (kind === "assistant_message") {
    const t = text(own.text).trim();
    return t ? prefix("assistant: ", t) : [];
  }
  if (kind === "reasoning") {
    const t = (text(own.thinking, "summary") + text(own.thinking)).trim();
    return t ? prefix("thinking:  ", clip(t, 400)) : [];
  }
  if (kind === "user_message") return prefix("user:      ", text(own.text).trim());
  if (kind === "plan") {
    const t = text(own.plan).trim();
    return t ? prefix("plan:      ", t) : [];
  }
  const tool = own.tool?.fields ?? {};
  const status = (tool.status as string | undefined) ?? "?";
  const title = tool.title as string | undefined;
  if (kind === "command_execution") {
    const out = text(own.terminal).trim();
    return [`tool:      $ ${toolHeadline({ itemType: kind, title, command: tool.command as string | undefined }) || "(command)"}  [${status}]${out ? "\n" + indent(clip(out, 400)) : ""}`];
  }
  if (kind === "file_change") return [`tool:      edit ${title ?? ""}  [${status}]`];
  return [`tool:      ${toolLabel({ itemType: kind, toolName: tool.toolName as string | undefined, title })}${title ? " " + title : ""}  [${status}]`];
}

function prefix(p: string, text: string): string[] {
  return text.split("\n").map((l, i) => (i === 0 ? p : " ".repeat(p.length)) + l);
}
function indent(text: string): string {
  return text.split("\n").map((l) => "           " + l).join("\n");
}
function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}
