/**
 * A short human-readable transcript of a canonical stream (for the CLI and README demo). It renders from
 * canonical events only, so it works the same for every surface. Pure; no Node APIs.
 */
import type { CanonicalEvent } from "../normalize/normalizer.js";

interface Block { kind: string; text: string[]; title?: string; status?: string; data?: any }

export function renderTranscript(events: Iterable<CanonicalEvent>): string {
  const lines: string[] = [];
  const items = new Map<string, Block>();
  const requestTypes = new Map<string, string>();
  let turns = 0;
  const flush = (id: string | undefined) => {
    if (!id) return;
    const b = items.get(id);
    if (!b) return;
    items.delete(id);
    const text = b.text.join("").trim();
    if (b.kind === "assistant_message" && text) lines.push(...prefix("assistant: ", text));
    else if (b.kind === "reasoning" && text) lines.push(...prefix("thinking:  ", clip(text, 400)));
    else if (b.kind === "user_message") lines.push(...prefix("user:      ", text || userText(b)));
    else if (b.kind === "command_execution") lines.push(`tool:      $ ${b.title ?? "(command)"}  [${b.status ?? "?"}]${text ? "\n" + indent(clip(text, 400)) : ""}`);
    else if (b.kind === "file_change") lines.push(`tool:      edit ${b.title ?? ""}  [${b.status ?? "?"}]`);
    else if (b.kind === "plan" && text) lines.push(...prefix("plan:      ", text));
    else if (b.kind !== "assistant_message" && b.kind !== "reasoning") lines.push(`tool:      ${b.kind}${b.title ? " " + b.title : ""}  [${b.status ?? "?"}]`);
  };
  for (const e of events) {
    const p: any = e.payload;
    switch (e.type) {
      case "turn.started":
        lines.push(`── turn ${++turns} ──`);
        break;
      case "turn.completed":
        for (const id of [...items.keys()]) flush(id);
        lines.push(`── turn ${p.state}${p.errorMessage ? `: ${p.errorMessage}` : ""} ──`);
        break;
      case "turn.aborted":
        for (const id of [...items.keys()]) flush(id);
        lines.push(`── turn aborted: ${p.reason} ──`);
        break;
      case "item.started":
      case "item.updated": {
        if (!e.itemId) break;
        const b: Block = items.get(e.itemId) ?? { kind: p.itemType, text: [] };
        b.title = p.title ?? b.title;
        b.status = p.status ?? b.status;
        b.data = p.data ?? b.data;
        items.set(e.itemId, b);
        break;
      }
      case "content.delta": {
        if (!e.itemId) break;
        const b: Block = items.get(e.itemId) ?? { kind: p.streamKind === "assistant_text" ? "assistant_message" : p.streamKind.startsWith("reasoning") ? "reasoning" : "unknown", text: [] };
        b.text.push(p.delta);
        items.set(e.itemId, b);
        break;
      }
      case "item.completed": {
        if (!e.itemId) break;
        const b: Block = items.get(e.itemId) ?? { kind: p.itemType, text: [] };
        b.title = p.title ?? b.title;
        b.status = p.status ?? "completed";
        b.data = p.data ?? b.data;
        // The completed item's own output is authoritative when the streamed chunks missed part of it.
        const full = b.data?.aggregatedOutput ?? b.data?.aggregated_output;
        if (b.kind === "command_execution" && typeof full === "string" && full.length > b.text.join("").length) b.text = [full];
        items.set(e.itemId, b);
        flush(e.itemId);
        break;
      }
      case "request.opened":
        if (e.requestId) requestTypes.set(e.requestId, p.requestType);
        lines.push(`approval?  ${p.requestType}${p.detail ? `: ${clip(String(p.detail), 160)}` : ""}`);
        break;
      case "request.resolved":
        lines.push(`approval:  ${p.requestType} → ${p.decision ?? "resolved"}`);
        break;
      case "user-input.requested":
        lines.push(`question?  ${clip(JSON.stringify(p.questions), 200)}`);
        break;
      case "user-input.resolved":
        lines.push(`answer:    ${clip(JSON.stringify(p.answers), 200)}`);
        break;
      case "turn.plan.updated":
        lines.push(`plan:      ${(p.plan ?? []).map((s: any) => `[${s.status === "completed" ? "x" : s.status === "inProgress" ? "~" : " "}] ${s.step}`).join("  ")}`);
        break;
      case "turn.diff.updated":
        lines.push(`diff:      ${String(p.unifiedDiff).split("\n").filter((l) => /^[+-][^+-]/.test(l)).length} changed line(s)`);
        break;
      case "runtime.warning":
      case "runtime.error":
        lines.push(`${e.type === "runtime.error" ? "error" : "warning"}:   ${clip(p.message, 200)}`);
        break;
      default:
        break;
    }
  }
  for (const id of [...items.keys()]) flush(id);
  return lines.join("\n") + (lines.length ? "\n" : "");
}

function userText(b: Block): string {
  if (typeof b.data?.text === "string") return b.data.text.trim(); // a text part (opencode)
  const c = b.data?.content;
  if (Array.isArray(c)) return c.map((x: any) => (typeof x?.text === "string" ? x.text : "")).join(" ").trim();
  return "";
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
