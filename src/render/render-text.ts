/**
 * The terminal view of an accumulator snapshot (`agentnorm render`): turns, text, collapsed thinking, tool cards with
 * their lifecycle status, terminal output, diffs, permissions and questions, plans and todos, tasks, usage, mode and
 * status lines. Pure (no Node APIs); colour is an option (ANSI SGR), decided by the caller.
 * Every text from the stream is escaped first (src/render/terminal-safe.ts): control characters in agent text, tool
 * output or ids are shown (\e, \r, \x07…, and invisible characters as \u200b…), never obeyed; with colour on, the SGR
 * colour / bold / dim / italic / underline codes of tool output are kept (no other SGR). Lines longer than `width` are
 * cut with a marker.
 */
import type { AccumulatorSnapshot, Block, ContextUsage, Step, TokenUsage, Turn } from "./accumulator.js";
import { questionFields, toolFailure, toolHeadline, toolLabel } from "./rules.js";
import { cutLine, escapeTerminalDeep } from "./terminal-safe.js";

/** Default `width`: characters per output line before it is cut (a paragraph of prose fits; a minified file does not). */
export const DEFAULT_RENDER_WIDTH = 1000;

export interface RenderTextOptions {
  /** ANSI colours (default false). */
  color?: boolean;
  /** Characters of thinking shown before it is collapsed (default 120). */
  thinkingChars?: number;
  /** Lines of tool output / diff shown per block (default 12). */
  maxLines?: number;
  /** Add the problems the accumulator reported (default true). */
  problems?: boolean;
  /** With colour: keep SGR colour sequences found in the stream's text (default true); false escapes them too. */
  keepSgr?: boolean;
  /**
   * Characters per output line (code points, after escaping; colour codes do not count): a longer line is cut and
   * ends with `… (+N chars)` (default DEFAULT_RENDER_WIDTH, 1000).
   */
  width?: number;
}

type Paint = (s: string) => string;
interface Style { dim: Paint; bold: Paint; red: Paint; green: Paint; yellow: Paint; cyan: Paint; magenta: Paint; blue: Paint }

const sgr = (open: number, close: number): Paint => (s) => `\u001b[${open}m${s}\u001b[${close}m`;
const COLOR: Style = { dim: sgr(2, 22), bold: sgr(1, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39), cyan: sgr(36, 39), magenta: sgr(35, 39), blue: sgr(34, 39) };
const id: Paint = (s) => s;
const PLAIN: Style = { dim: id, bold: id, red: id, green: id, yellow: id, cyan: id, magenta: id, blue: id };

const STATUS_PAINT: Record<string, keyof Style> = {
  completed: "green", resolved: "green", running: "cyan", pending: "dim", open: "yellow",
  failed: "red", declined: "yellow", stopped: "yellow", interrupted: "yellow", cancelled: "yellow", aborted: "yellow",
};
const TOOL_ICON: Record<string, string> = {
  command_execution: "$", file_change: "✎", mcp_tool_call: "⚙", dynamic_tool_call: "⚙", collab_agent_tool_call: "⧉",
  web_search: "⌕", image_view: "▣", context_compaction: "≡",
};
const PLAN_MARK: Record<string, string> = { completed: "[x]", inProgress: "[~]", pending: "[ ]" };

export function renderSnapshotText(snapshot: AccumulatorSnapshot, options: RenderTextOptions = {}): string {
  const snap = escapeTerminalDeep(snapshot, { keepSgr: !!options.color && options.keepSgr !== false });
  const st = options.color ? COLOR : PLAIN;
  const thinkingChars = options.thinkingChars ?? 120;
  const maxLines = options.maxLines ?? 12;
  const out: string[] = [];
  const status = (s: string) => st[STATUS_PAINT[s] ?? "dim"](`[${s}]`);
  /** The last mode line written (a mode block restating it is not written again). */
  let lastMode: string | undefined;

  const block = (b: Block, pad: string) => {
    const line = (s: string) => out.push(pad + s);
    const body = (text: string, paint: Paint = id) => { for (const l of clipLines(text, maxLines)) out.push(pad + st.dim("  │ ") + paint(l)); };
    switch (b.kind) {
      case "text":
        if (b.text.trim() === "") return;
        prefixed(b.role === "user" ? st.bold(st.blue("user      ")) : st.bold("assistant "), b.text.trimEnd()).forEach(line);
        return;
      case "thinking": {
        const t = (b.text || b.summary).trim();
        if (!t) return;
        const flat = t.replace(/\s+/g, " ");
        line(st.dim(`thinking ▸ ${flat.length > thinkingChars ? flat.slice(0, thinkingChars - 1) + `… (+${flat.length - thinkingChars + 1} chars)` : flat}`));
        return;
      }
      case "tool": {
        const icon = TOOL_ICON[b.itemType] ?? "⚙";
        // commands and edits say what they are by their icon; other tools by their name or kind, in words
        const kind = b.itemType === "command_execution" || b.itemType === "file_change" ? "" : st.dim(` (${oneLine(toolLabel(b))})`);
        const waiting = b.awaitingRequests.length ? st.yellow(" awaiting approval") : "";
        line(`${st.magenta(icon)} ${st.bold(oneLine(toolHeadline(b)))}${kind} ${status(b.status)}${waiting}`);
        if (b.detail) body(b.detail, st.dim);
        // a command's output and error are its terminal's text; other tools show what went wrong here (their error,
        // or the output a failed call carries its reason in)
        const failure = b.itemType === "command_execution" ? undefined : toolFailure(b);
        if (failure && failure !== b.detail) body(failure, st.dim);
        if (b.output) body(b.output);
        return;
      }
      case "terminal":
        if (b.text.trim()) body(b.text.replace(/^\n+/, ""));
        return;
      case "diff": {
        if (b.scope === "turn") {
          const { add, del } = countDiff(b.unifiedDiff ?? "");
          line(`${st.magenta("±")} turn diff: ${b.files.length} file(s), ${st.green(`+${add}`)} ${st.red(`-${del}`)}`);
          return;
        }
        for (const f of b.files) {
          line(`${st.magenta("±")} ${f.path}${f.kind ? st.dim(` (${f.kind}${f.movePath ? ` → ${f.movePath}` : ""})`) : ""}`);
          const lines = f.diff ?? "";
          for (const l of clipLines(lines, maxLines)) out.push(pad + st.dim("  │ ") + (l.startsWith("+") ? st.green(l) : l.startsWith("-") ? st.red(l) : l.startsWith("@@") ? st.cyan(l) : l));
        }
        if (b.output) body(b.output, st.dim);
        return;
      }
      case "plan":
      case "todo": {
        line(`${st.magenta("☰")} ${b.kind}${b.explanation ? `: ${oneLine(b.explanation)}` : ""}`);
        for (const s of b.steps) out.push(pad + "  " + (s.status === "completed" ? st.green : s.status === "inProgress" ? st.cyan : st.dim)(PLAN_MARK[s.status] ?? `[${s.status}]`) + " " + s.step);
        if (b.text) body(b.text);
        return;
      }
      case "permission": {
        const what = b.detail ? `: ${oneLine(b.detail)}` : "";
        line(`${st.yellow("?")} permission ${b.requestType ?? ""}${what}${b.decision ? ` → ${st.bold(b.decision)}` : ""} ${status(b.state)}`);
        // the choices offered, while the request is open (the answer replaces them once it is made)
        if (!b.decision && b.options?.length) out.push(pad + "  " + st.dim(`choices: ${b.options.map((o) => o.label ? `${o.decision} (${oneLine(o.label)})` : o.decision).join(", ")}`));
        return;
      }
      case "host_call": {
        // the host is asked to do something itself (run a tool the agent defined, refresh tokens), not to allow it
        const what = b.detail ? `: ${oneLine(b.detail)}` : "";
        line(`${st.cyan("⇄")} host call ${b.requestType ?? ""}${what}${b.decision ? ` → ${st.bold(b.decision)}` : ""} ${status(b.state)}`);
        return;
      }
      case "question": {
        const { questions, answers } = questionFields(b);
        line(`${st.yellow("?")} question ${oneLine(questionText(questions) ?? b.detail ?? "")}${answers !== undefined ? ` → ${st.bold(oneLine(answerText(answers)))}` : b.decision ? ` → ${b.decision}` : ""} ${status(b.state)}`);
        return;
      }
      case "task":
        line(`${st.magenta("⧉")} task ${oneLine(b.description ?? b.taskId)} ${status(b.status)}${b.progress.length ? st.dim(` — ${oneLine(b.progress[b.progress.length - 1])}`) : ""}`);
        if (b.summary) body(b.summary, st.dim);
        return;
      case "usage":
        line(st.dim(`usage: ${[b.tokens ? tokensText(b.tokens) : undefined, b.context ? contextText(b.context) : undefined].filter((x) => x !== undefined).join("; ") || usageText(b.usage)}`));
        return;
      case "mode": {
        // said when it changes: a provider that restates its configuration every turn (Codex's turn_context) says
        // the same mode and model over and over
        const said = [b.mode, b.model && `model ${b.model}`].filter(Boolean).join(", ");
        if (said === lastMode) return;
        lastMode = said;
        line(st.dim(`mode: ${said}`));
        return;
      }
      case "status":
        line((b.level === "error" ? st.red("✗ error: ") : b.level === "warning" ? st.yellow("! warning: ") : st.dim("· ")) + oneLine(b.message));
        return;
    }
  };
  const steps = (list: Step[], depth: number) => {
    for (const s of list) {
      if (s.superseded) continue; // replaced by a later step: not part of the conversation
      const pad = "  ".repeat(depth);
      for (const b of s.blocks) block(b, pad);
      if (s.children.length) steps(s.children, depth + 1);
    }
  };
  const turnFooter = (t: Turn) => {
    const why = t.errorMessage ?? t.abortReason ?? (t.stopReason ? String(t.stopReason) : "");
    return st.dim("── ") + (t.state === "running" ? st.cyan("turn running") : st[STATUS_PAINT[t.state] ?? "dim"](`turn ${t.state}`)) + (why ? st.dim(`: ${oneLine(why)}`) : "") + st.dim(" ──");
  };

  for (const s of snap.sessions) {
    if (snap.sessions.length > 1) out.push(st.bold(`══ session ${s.sessionId} (${s.provider}) ══`));
    lastMode = undefined; // each session says its own
    steps(s.steps, 0);
    for (const t of s.turns) {
      out.push(st.dim(`── turn ${t.index}${t.model ? ` · ${t.model}` : ""} ──`));
      steps(t.steps, 0);
      out.push(turnFooter(t));
    }
  }
  if (options.problems !== false && snap.problems.length) {
    out.push(st.yellow(`${snap.problems.length} stream problem(s) repaired:`));
    for (const p of snap.problems.slice(0, 20)) out.push(st.dim(`  #${p.sequence ?? "?"} ${p.kind}: ${p.message}`));
    if (snap.problems.length > 20) out.push(st.dim(`  … ${snap.problems.length - 20} more`));
  }
  if (!out.length) return "";
  const width = options.width ?? DEFAULT_RENDER_WIDTH;
  // an entry may hold several lines (a plan step, a permission's choices): each is cut on its own
  return out.map((l) => (l.length > width ? l.split("\n").map((x) => cutLine(x, width)).join("\n") : l)).join("\n") + "\n";
}

function prefixed(prefix: string, text: string): string[] {
  const width = "assistant ".length;
  return text.split("\n").map((l, i) => (i === 0 ? prefix : " ".repeat(width)) + l);
}
function oneLine(s: unknown): string {
  const t = typeof s === "string" ? s : JSON.stringify(s) ?? "";
  const flat = t.replace(/\s+/g, " ").trim();
  return flat.length > 160 ? flat.slice(0, 159) + "…" : flat;
}
function clipLines(text: string, max: number): string[] {
  const lines = text.replace(/\n$/, "").split("\n");
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max - 1), `… ${lines.length - max + 1} more line(s)`];
}
function textLines(t: string | undefined): string[] {
  return t ? t.replace(/\n$/, "").split("\n") : [];
}
function countDiff(diff: string): { add: number; del: number } {
  let add = 0, del = 0;
  for (const l of diff.split("\n")) {
    if (l.startsWith("+") && !l.startsWith("+++")) add++;
    else if (l.startsWith("-") && !l.startsWith("---")) del++;
  }
  return { add, del };
}
function questionText(q: unknown): string | undefined {
  if (typeof q === "string") return q;
  if (Array.isArray(q)) return q.map((x: any) => x?.prompt ?? x?.question ?? x?.header ?? oneLine(x)).join(" / ");
  if (q && typeof q === "object") return (q as any).message ?? (q as any).question ?? oneLine(q);
  return undefined;
}
function answerText(a: unknown): string {
  if (a && typeof a === "object" && !Array.isArray(a)) {
    const vals = Object.values(a as Record<string, unknown>).map((v: any) => (Array.isArray(v) ? v.join(", ") : Array.isArray(v?.answers) ? v.answers.join(", ") : typeof v === "string" ? v : oneLine(v)));
    return vals.join("; ");
  }
  return oneLine(a);
}
/** Canonical token counts as one line: "input 1000, cached 200, output 40, reasoning 12, total 1040". */
function tokensText(t: TokenUsage): string {
  const parts: [string, number | undefined][] = [["input", t.inputTokens], ["cached", t.cachedInputTokens], ["cache write", t.cacheWriteTokens], ["output", t.outputTokens], ["reasoning", t.reasoningTokens], ["total", t.totalTokens], ["context window", t.contextWindow]];
  return parts.filter(([, v]) => v !== undefined).map(([k, v]) => `${k} ${v}`).join(", ");
}

/** A context-window reading as text: "context 1114 of 258400 tokens (0.4%)". */
function contextText(c: ContextUsage): string {
  if (c.windowTokens === undefined || c.windowTokens === 0) return `context ${c.usedTokens} tokens`;
  return `context ${c.usedTokens} of ${c.windowTokens} tokens (${Math.round((c.usedTokens / c.windowTokens) * 1000) / 10}%)`;
}

/** A usage record without token counts (e.g. a context-window reading): its top-level numbers as `key value` pairs. */
function usageText(u: unknown): string {
  if (!u || typeof u !== "object") return oneLine(u);
  const nums = Object.entries(u).filter(([, v]) => typeof v === "number" && v !== 0).map(([k, v]) => `${k} ${v}`);
  return nums.length ? nums.join(", ") : oneLine(u);
}
