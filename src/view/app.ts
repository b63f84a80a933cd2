/**
 * The viewer page's script (runs in the browser; bundled by scripts/bundle-viewer.mjs into
 * src/view/bundle.gen.ts at build time and inlined into every page). Three linked panes:
 * transcript (cards), timeline (virtualized list of canonical events) and native (the provider message behind
 * the selected event). Selecting in any pane selects in the others. The timeline's filters (free text, event
 * types, turn, id, problems) filter the transcript's cards too; the pane boundaries can be dragged; the theme
 * follows the system until the header's toggle picks one.
 */
import { PROBLEM_KINDS, type ProblemKind, type TranscriptBlock, type TranscriptTurn, type ViewerData, type ViewerEvent, type ViewerProblem } from "./types.js";
import { markdownHtml } from "./markdown.js";
import { cutNotice, decisionLabel, requestKind } from "./labels.js";

const ROW = 22;
const CHUNK = 150;
const TEXT_CAP = 20_000;
const JSON_CAP = 200_000;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** "1 turn", "2 turns", "1,000 events". */
function count(n: number, word: string): string {
  return `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
}
function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}
// Short ids: an id that is short already shows as is; a longer one as its prefix and its order of first
// appearance among the ids with that prefix (itm#4), so every id on the page keeps a distinct label.
const shortIds = new Map<string, string>();
const shortCounters = new Map<string, number>();
const SHORT_MAX = 12;
function short(id: string | undefined, role = "id"): string {
  if (!id) return "";
  let s = shortIds.get(id);
  if (s === undefined) {
    if (id.length <= SHORT_MAX) s = id;
    else {
      const prefix = /^([A-Za-z]{2,8})[_:-]/.exec(id)?.[1] ?? role;
      const n = (shortCounters.get(prefix) ?? 0) + 1;
      shortCounters.set(prefix, n);
      s = `${prefix}#${n}`;
    }
    shortIds.set(id, s);
  }
  return s;
}
/** A short id with the full one as its tooltip. */
function idHtml(id: string | undefined, role?: string): string {
  return id ? `<span class="id" title="${esc(id)}">${esc(short(id, role))}</span>` : "";
}
function pretty(v: unknown): string {
  try {
    return JSON.stringify(v, null, 2) ?? String(v);
  } catch {
    return String(v);
  }
}
/** JSON with light colouring; capped (the rest behind a button). */
function jsonHtml(v: unknown, cap = JSON_CAP): string {
  const text = typeof v === "string" ? v : pretty(v);
  const shown = text.length > cap ? text.slice(0, cap) : text;
  const body = esc(shown).replace(/(&quot;(?:[^&]|&(?!quot;))*?&quot;)(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g, (m, str, colon, lit, num) => {
    if (str) return colon ? `<span class="j-k">${str}</span>${colon}` : `<span class="j-s">${str}</span>`;
    if (lit) return `<span class="j-b">${lit}</span>`;
    if (num) return `<span class="j-n">${num}</span>`;
    return m;
  });
  return body + (text.length > cap ? `\n… ${(text.length - cap).toLocaleString("en")} more characters` : "");
}

// ───────────────────────────── data ─────────────────────────────
const data: ViewerData = JSON.parse(($("agentnorm-data").textContent ?? "null") as string);
const events = data.events;
const indexOfSeq = new Map<number, number>();
events.forEach((e, i) => indexOfSeq.set(e.sequence, i));
// Short labels in stream order (the first item seen is itm#1).
for (const e of events) { short(e.threadId, "thr"); short(e.turnId, "trn"); short(e.itemId, "itm"); short(e.requestId, "req"); short(e.parentId, "itm"); }
const problemsBySeq = new Map<number, ViewerProblem[]>();
const streamProblems: ViewerProblem[] = [];
const counts = Object.fromEntries(PROBLEM_KINDS.map((k) => [k, 0])) as Record<ProblemKind, number>;
for (const p of data.problems) {
  counts[p.kind]++;
  if (p.sequence === undefined || !indexOfSeq.has(p.sequence)) streamProblems.push(p);
  else {
    const list = problemsBySeq.get(p.sequence) ?? [];
    list.push(p);
    problemsBySeq.set(p.sequence, list);
  }
}

// Transcript index: every block and turn header gets a DOM id; every sequence maps to the innermost one.
interface Top { kind: "turn"; turn: TranscriptTurn; dom: string; sub: number[] }
interface TopBlock { kind: "block"; block: TranscriptBlock; dom: string; sub: number[] }
const tops: (Top | TopBlock)[] = [];
const domOfSeq = new Map<number, { dom: string; top: number }>();
const seqsOfDom = new Map<string, number[]>();
/** Every sequence of a block and its children (for filtering), by DOM id. */
const subOfDom = new Map<string, number[]>();
let domCounter = 0;
function indexBlock(b: TranscriptBlock, top: number): string {
  const dom = `b${++domCounter}`;
  (b as any)._dom = dom;
  seqsOfDom.set(dom, b.seqs);
  for (const s of b.seqs) domOfSeq.set(s, { dom, top });
  const sub = [...b.seqs];
  for (const c of b.children ?? []) sub.push(...subOfDom.get(indexBlock(c, top))!);
  subOfDom.set(dom, sub);
  return dom;
}
for (const b of data.transcript.preamble) { const dom = indexBlock(b, tops.length); tops.push({ kind: "block", block: b, dom, sub: subOfDom.get(dom)! }); }
for (const t of data.transcript.turns) {
  const dom = `t${++domCounter}`;
  seqsOfDom.set(dom, t.seqs);
  const turnTop: Top = { kind: "turn", turn: t, dom, sub: [...t.seqs] };
  for (const s of t.seqs) domOfSeq.set(s, { dom, top: tops.length });
  tops.push(turnTop);
  for (const b of t.blocks) {
    const bd = indexBlock(b, tops.length);
    tops.push({ kind: "block", block: b, dom: bd, sub: subOfDom.get(bd)! });
    turnTop.sub.push(...subOfDom.get(bd)!);
  }
}

// ───────────────────────────── state ─────────────────────────────
let selected = -1; // index into events
let related = new Set<number>(); // sequences of the selected card
let rows: Int32Array = new Int32Array(0); // filtered event indexes
/** Whether any filter is on; `passes[i]`: event i passes them. */
let filtering = false;
let passes = new Uint8Array(events.length);
/** Transcript positions (indexes into tops) the filters keep, ascending. */
let visTops: number[] = tops.map((_, i) => i);

// ───────────────────────────── theme ─────────────────────────────
const THEMES = ["auto", "light", "dark"] as const;
function storage(): Storage | undefined {
  try { return window.localStorage; } catch { return undefined; }
}
function applyTheme(t: string): void {
  if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  else delete document.documentElement.dataset.theme;
  $("theme").textContent = `theme: ${t}`;
  $("theme").dataset.theme = t;
}
function initTheme(): void {
  let t = "auto";
  try { t = storage()?.getItem("agentnorm-view-theme") ?? "auto"; } catch { /* storage refused */ }
  applyTheme((THEMES as readonly string[]).includes(t) ? t : "auto");
  $("theme").addEventListener("click", () => {
    const next = THEMES[(THEMES.indexOf(($("theme").dataset.theme ?? "auto") as any) + 1) % THEMES.length];
    applyTheme(next);
    try { storage()?.setItem("agentnorm-view-theme", next); } catch { /* storage refused */ }
  });
}

// ───────────────────────────── header ─────────────────────────────
function renderHeader(): void {
  const m = data.meta;
  $("title").textContent = m.title;
  document.title = m.title;
  const c = m.capture;
  $("meta").textContent = [
    `${m.input} input`,
    m.surface ? `surface ${m.surface}` : m.provider ? `provider ${m.provider}` : "",
    count(events.length, "event"),
    count(data.natives.length, "native message"),
    count(data.transcript.turns.length, "turn"),
    c ? `capture check: ${c.kind}, ${c.records} of ${c.lines} line(s) valid (${Object.entries(c.stages).map(([k, n]) => `${k} ${n}`).join(", ")}), ${c.redactions} redaction(s), ${c.problems} problem(s)` : "",
  ].filter(Boolean).join(" · ");
  // a capped page says so, above everything: what it shows, and what it leaves out
  if (m.cut) {
    const cut = $("cut");
    cut.textContent = cutNotice(m.cut);
    cut.hidden = false;
  }
  const box = $("counts");
  box.innerHTML = PROBLEM_KINDS.map((k) => {
    if (k === "violation" && !m.verified) return `<button class="count unverified" id="count-violation" data-kind="violation" data-count="" title="the verifier was not available when this page was made">not verified</button>`;
    const n = counts[k];
    return `<button class="count ${k}${n ? "" : " zero"}" id="count-${k}" data-kind="${k}" data-count="${n}" title="show only events with ${k}s"><b>${n}</b> ${k}${n === 1 ? "" : "s"}</button>`;
  }).join("");
  box.addEventListener("click", (ev) => {
    const b = (ev.target as HTMLElement).closest("button.count") as HTMLElement | null;
    if (!b) return;
    const k = b.dataset.kind!;
    const sel = $<HTMLSelectElement>("f-problem");
    sel.value = sel.value === k ? "" : k;
    applyFilters();
    if (sel.value && rows.length) select(rows[0], "header");
  });
}
function markActiveCount(): void {
  const v = $<HTMLSelectElement>("f-problem").value;
  document.querySelectorAll("#counts .count").forEach((b) => b.classList.toggle("active", (b as HTMLElement).dataset.kind === v));
}

// ───────────────────────────── transcript ─────────────────────────────
function statusPill(s: string | undefined): string {
  if (!s) return "";
  const tone = /^(complet|resolv|answer|accept|allow|approv|success|ok)/i.test(s) ? "good" : /^(fail|error|declin|deny|denied|reject|cancel|abort|stop|interrupt)/i.test(s) ? "bad" : /^(running|open|pending|inProgress|streaming)/i.test(s) ? "busy" : "";
  return `<span class="pill ${tone}">${esc(s)}</span>`;
}
function more(s: string): string {
  const rest = s.slice(TEXT_CAP, TEXT_CAP * 25);
  const beyond = s.length - TEXT_CAP - rest.length;
  return `<details><summary>${(s.length - TEXT_CAP).toLocaleString("en")} more characters</summary><pre>${esc(rest)}</pre>${beyond > 0 ? `<div class="lbl">… ${beyond.toLocaleString("en")} more characters (the events in the timeline carry all of it)</div>` : ""}</details>`;
}
function textHtml(s: string): string {
  if (s.length <= TEXT_CAP) return `<pre>${esc(s)}</pre>`;
  return `<pre>${esc(s.slice(0, TEXT_CAP))}</pre>${more(s)}`;
}
/** Message text as Markdown (rendered by our own renderer: no HTML from the text reaches the page). */
function mdHtml(s: string): string {
  if (s.length <= TEXT_CAP) return `<div class="md">${markdownHtml(s)}</div>`;
  return `<div class="md">${markdownHtml(s.slice(0, TEXT_CAP))}</div>${more(s)}`;
}
function diffHtml(diff: string): string {
  const lines = diff.split("\n").map((l) => {
    const cls = l.startsWith("+++") || l.startsWith("---") ? "" : l.startsWith("+") ? "add" : l.startsWith("-") ? "del" : l.startsWith("@@") ? "hunk" : "";
    return cls ? `<span class="${cls}">${esc(l) || " "}</span>` : esc(l) + "\n";
  });
  return `<pre class="diff out">${lines.join("")}</pre>`;
}
function valueHtml(v: unknown): string {
  return typeof v === "string" ? `<pre class="out">${esc(clip(v, TEXT_CAP))}</pre>` : `<pre class="out">${jsonHtml(v, TEXT_CAP)}</pre>`;
}
const KIND_LABEL: Record<string, string> = { user: "user", text: "assistant", thinking: "thinking", tool: "tool", permission: "permission", question: "question", request: "request", plan: "plan", diff: "diff", task: "task", usage: "usage", status: "status", notice: "warning", error: "error" };
const PLAN_MARK: Record<string, string> = { completed: "☑", inProgress: "◐", pending: "☐" };
/** Cards that gate their tool (shown before its output). */
const GATES = new Set(["permission", "question", "request"]);

/** Whether a card (or one of its children) has an event the filters keep. */
function shown(b: TranscriptBlock): boolean {
  if (!filtering) return true;
  for (const s of subOfDom.get((b as any)._dom) ?? []) {
    const i = indexOfSeq.get(s);
    if (i !== undefined && passes[i]) return true;
  }
  return false;
}
function optionsHtml(b: TranscriptBlock): string {
  let html = "";
  if (b.options?.length) {
    // the options offered, as text (a read-only page: nothing here looks like a button); the chosen one marked
    html += `<div class="opts"><span class="lbl">options</span>${b.options.map((o) => {
      const tone = /^allow/.test(o.decision) ? " allow" : /^reject/.test(o.decision) ? " reject" : "";
      return `<span class="opt${tone}${o.decision === b.decision ? " chosen" : ""}" data-decision="${esc(o.decision)}" title="canonical decision: ${esc(o.decision)}">${esc(o.label ?? o.decision)}</span>`;
    }).join("")}</div>`;
  }
  const open = b.status === "open";
  if (b.kind === "question" && b.decision === undefined) return html + (open ? `<div class="decision">waiting for an answer</div>` : "");
  // the decision in words: the chosen option's label (as the options read), else the canonical decision's
  const chosen = b.decision !== undefined ? (b.options ?? []).find((o) => o.decision === b.decision)?.label ?? decisionLabel(b.decision) : undefined;
  html += `<div class="decision">${b.decision !== undefined ? `decision: <b class="dec" data-decision="${esc(b.decision)}" title="canonical decision: ${esc(b.decision)}">${esc(chosen!)}</b>` : open ? "waiting for a decision" : "resolved without a decision"}</div>`;
  return html;
}
/** A card; `parentTitle`: the title of the tool it gates (not repeated on the gate). */
function blockHtml(b: TranscriptBlock, parentTitle?: string): string {
  const dom = (b as any)._dom as string;
  const label = b.label ?? b.subtype;
  const title = b.title !== undefined && String(b.title) !== parentTitle ? b.title : undefined;
  const hd = `<div class="hd"><span class="kind">${esc(KIND_LABEL[b.kind] ?? b.kind)}${label && label !== b.kind ? ` · ${esc(label)}` : ""}</span>${title ? `<span class="title">${esc(clip(String(title), 300))}</span>` : ""}${statusPill(b.status)}${b.durationMs !== undefined ? `<span class="dur">${b.durationMs < 1000 ? `${b.durationMs} ms` : `${(b.durationMs / 1000).toFixed(1)} s`}</span>` : ""}</div>`;
  const kids = (b.children ?? []).filter(shown);
  const gates = b.kind === "tool" ? kids.filter((k) => GATES.has(k.kind)) : [];
  const rest = kids.filter((k) => !gates.includes(k));
  let body = "";
  switch (b.kind) {
    case "thinking":
      body = `<details><summary>${(b.text ?? "").length.toLocaleString("en")} characters of thinking</summary>${mdHtml(b.text ?? "")}</details>`;
      break;
    case "plan":
      body = (b.text ? mdHtml(b.text) : "") + (b.plan ? `<ul class="plan">${b.plan.map((s) => `<li><span class="st">${PLAN_MARK[s.status] ?? "☐"}</span>${esc(s.step)}</li>`).join("")}</ul>` : "");
      break;
    case "diff":
      body = diffHtml(b.diff ?? "");
      break;
    case "usage":
    case "status":
      body = b.detail !== undefined ? `<details><summary>detail</summary>${valueHtml(b.detail)}</details>` : "";
      break;
    case "permission":
    case "request":
    case "question":
      body = optionsHtml(b);
      if (b.input !== undefined) body += b.kind === "question" ? `<div class="lbl">questions</div>${valueHtml(b.input)}` : `<details class="args"><summary>arguments</summary>${valueHtml(b.input)}</details>`;
      if (b.resolution !== undefined) body += b.kind === "question" ? `<div class="lbl">answers</div>${valueHtml(b.resolution)}` : `<details class="res"><summary>resolution</summary>${valueHtml(b.resolution)}</details>`;
      break;
    default: {
      if (b.text) body += b.kind === "text" || b.kind === "user" ? mdHtml(b.text) : textHtml(b.text);
      if (b.input !== undefined) body += `<div class="lbl">input</div>${valueHtml(b.input)}`;
      // A permission gates what follows: it comes before the output.
      if (gates.length) body += `<div class="gates">${gates.map((g) => blockHtml(g, b.title === undefined ? undefined : String(b.title))).join("")}</div>`;
      if (b.output !== undefined && b.output !== "") body += `<div class="lbl">output</div>${valueHtml(b.output)}`;
      if (b.diff) body += `<div class="lbl">diff</div>${diffHtml(b.diff)}`;
      if (b.resolution !== undefined) body += `<div class="lbl">resolution</div>${valueHtml(b.resolution)}`;
      if (b.detail !== undefined && b.kind !== "user" && b.kind !== "text") body += `<details><summary>data</summary>${valueHtml(b.detail)}</details>`;
    }
  }
  const kidsHtml = rest.length ? `<div class="children">${rest.map((k) => blockHtml(k)).join("")}</div>` : "";
  return `<div class="card ${esc(b.kind)}${b.retrying ? " retrying" : ""}" id="${dom}" data-block="${esc(b.id)}" data-kind="${esc(b.kind)}">${hd}${body ? `<div class="body">${body}</div>` : ""}${kidsHtml}</div>`;
}
function topHtml(t: Top | TopBlock): string {
  if (t.kind === "turn") return `<div class="turn" id="${t.dom}" data-turn="${esc(t.turn.id)}">turn ${t.turn.index} <span class="mono">${idHtml(t.turn.id, "trn")}</span><span class="state">${esc(t.turn.state ?? "")}</span></div>`;
  return blockHtml(t.block);
}
// The transcript renders a window of the visible cards [winStart, winEnd) (positions in visTops): it grows by
// chunks as it scrolls either way, and moves when a selection lands far outside it, so a long session never
// renders all its cards.
let winStart = 0;
let winEnd = 0;
function tops_(from: number, to: number): string {
  let html = "";
  for (let i = from; i < to; i++) html += topHtml(tops[visTops[i]]);
  return html;
}
function windowNote(): void {
  const n = visTops.length;
  $("tr-more").textContent = winEnd < n ? `${count(n - winEnd, "more card")} below…` : n ? "" : tops.length ? "no transcript cards match the filters" : "no transcript cards";
  $("tr-before").textContent = winStart > 0 ? `${count(winStart, "card")} above…` : "";
  $("tr-note").textContent = filtering ? `${n.toLocaleString("en")} of ${tops.length.toLocaleString("en")}` : "";
}
function renderWindow(center: number): void {
  winStart = Math.max(0, center - 40);
  winEnd = Math.min(visTops.length, Math.max(center + 1, winStart + CHUNK));
  $("tr-list").innerHTML = tops_(winStart, winEnd);
  windowNote();
}
function extendDown(upto = winEnd): void {
  const end = Math.min(visTops.length, Math.max(upto + 1, winEnd + CHUNK));
  if (end <= winEnd) return;
  $("tr-list").insertAdjacentHTML("beforeend", tops_(winEnd, end));
  winEnd = end;
  windowNote();
}
function extendUp(): void {
  if (winStart === 0) return;
  const start = Math.max(0, winStart - CHUNK);
  const sc = $("tr-scroll");
  const before = sc.scrollHeight;
  $("tr-list").insertAdjacentHTML("afterbegin", tops_(start, winStart));
  winStart = start;
  windowNote();
  sc.scrollTop += sc.scrollHeight - before; // keep what was on screen in place
}
/** Position of tops[top] in visTops (-1: hidden by the filters). */
function visPos(top: number): number {
  let lo = 0;
  let hi = visTops.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (visTops[mid] === top) return mid;
    if (visTops[mid] < top) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
/** Make the card at position `top` rendered (false: the filters hide it). */
function ensureRendered(top: number): boolean {
  const v = visPos(top);
  if (v < 0) return false;
  if (v >= winStart && v < winEnd) return true;
  if (v >= winEnd && v < winEnd + 2 * CHUNK) extendDown(v);
  else renderWindow(v);
  return true;
}
function initTranscript(): void {
  renderWindow(0);
  const io = new IntersectionObserver((es) => {
    for (const e of es) {
      if (!e.isIntersecting) continue;
      if (e.target.id === "tr-more") extendDown();
      else extendUp();
    }
  }, { root: $("tr-scroll") });
  io.observe($("tr-more"));
  io.observe($("tr-before"));
  $("tr-list").addEventListener("click", (ev) => {
    const t = ev.target as HTMLElement;
    if (t.closest("summary, a")) return; // expanding a <details> or following a link is not a selection
    const el = t.closest(".card, .turn") as HTMLElement | null;
    if (!el) return;
    const seqs = seqsOfDom.get(el.id) ?? [];
    const i = seqs.length ? indexOfSeq.get(seqs[0]) : undefined;
    if (i !== undefined) select(i, "transcript");
  });
}
function highlightCard(seq: number, scroll: boolean): void {
  document.querySelectorAll("#tr-list .selected").forEach((el) => el.classList.remove("selected"));
  related = new Set();
  const at = domOfSeq.get(seq);
  if (!at) return;
  related = new Set(seqsOfDom.get(at.dom) ?? []);
  if (!ensureRendered(at.top)) return;
  const el = document.getElementById(at.dom);
  if (!el) return;
  el.classList.add("selected");
  if (scroll) el.scrollIntoView({ block: "nearest" });
}

// ───────────────────────────── timeline ─────────────────────────────
const summaries = new Map<number, string>();
function summary(i: number): string {
  let s = summaries.get(i);
  if (s === undefined) summaries.set(i, (s = summarize(events[i])));
  return s;
}
function summarize(e: ViewerEvent): string {
  const p: any = e.payload ?? {};
  switch (e.type) {
    case "content.delta": return `${p.streamKind}: ${JSON.stringify(clip(String(p.delta ?? ""), 120))}`;
    case "item.started": case "item.updated": case "item.completed": return [p.itemType, p.status, p.title].filter(Boolean).join(" · ");
    case "request.opened": case "request.resolved": return [requestKind(p.requestType, p.options, p.decision).label, p.decision, p.detail].filter(Boolean).join(" · ");
    case "runtime.warning": case "runtime.error": return clip(String(p.message ?? ""), 200);
    case "turn.completed": return [p.state, p.errorMessage].filter(Boolean).join(" · ");
    default: return clip(JSON.stringify(p) ?? "", 160);
  }
}
function badges(seq: number): string {
  const ps = problemsBySeq.get(seq);
  if (!ps) return "";
  const kinds = [...new Set(ps.map((p) => p.kind))];
  return kinds.map((k) => `<span class="badge ${k}" title="${esc(ps.filter((p) => p.kind === k).map((p) => p.message).join("\n"))}">${k}</span>`).join("");
}
function renderRows(): void {
  const sc = $("tl-scroll");
  const first = Math.max(0, Math.floor(sc.scrollTop / ROW) - 10);
  const last = Math.min(rows.length, Math.ceil((sc.scrollTop + sc.clientHeight) / ROW) + 10);
  let html = "";
  for (let r = first; r < last; r++) {
    const i = rows[r];
    const e = events[i];
    const cls = i === selected ? " selected" : related.has(e.sequence) ? " related" : "";
    html += `<div class="row${cls}" style="top:${r * ROW}px" data-seq="${e.sequence}" data-i="${i}"><span class="seq">#${e.sequence}</span>${badges(e.sequence)}<span class="type">${esc(e.type)}</span><span class="ids">${idHtml(e.turnId, "trn")} ${idHtml(e.itemId ?? e.requestId, e.itemId ? "itm" : "req")}</span><span class="sum">${esc(summary(i))}</span></div>`;
  }
  $("tl-spacer").innerHTML = html;
}

// Free-text search: each event's searchable text (type, ids and their short labels, payload), made on first use.
const haystacks: (string | undefined)[] = new Array(events.length);
function haystack(i: number): string {
  let h = haystacks[i];
  if (h === undefined) {
    const e = events[i];
    const ids = [e.threadId, e.turnId, e.itemId, e.requestId, e.parentId].filter(Boolean) as string[];
    let payload = "";
    try { payload = JSON.stringify(e.payload) ?? ""; } catch { /* not serializable */ }
    haystacks[i] = h = [e.type, ...ids, ...ids.map((x) => short(x)), payload].join("\n").toLowerCase();
  }
  return h;
}
const selectedTypes = new Set<string>();
function typeLabel(): void {
  const n = selectedTypes.size;
  $("f-types-label").textContent = n === 0 ? "all types" : n === 1 ? [...selectedTypes][0] : `${n} types`;
}
function filterDescription(): string {
  const parts: string[] = [];
  const q = $<HTMLInputElement>("f-search").value.trim();
  if (q) parts.push(`text “${q}”`);
  if (selectedTypes.size) parts.push(`type ${[...selectedTypes].join(" or ")}`);
  const turn = $<HTMLSelectElement>("f-turn");
  if (turn.value) parts.push(turn.selectedOptions[0]?.textContent ?? turn.value);
  const item = $<HTMLInputElement>("f-item").value.trim();
  if (item) parts.push(`id containing “${item}”`);
  const prob = $<HTMLSelectElement>("f-problem").value;
  if (prob) parts.push(prob === "any" ? "with problems" : `with ${prob}s`);
  return parts.join(", ");
}
function applyFilters(): void {
  const q = $<HTMLInputElement>("f-search").value.trim().toLowerCase();
  const turn = $<HTMLSelectElement>("f-turn").value;
  const item = $<HTMLInputElement>("f-item").value.trim();
  const prob = $<HTMLSelectElement>("f-problem").value;
  const types = selectedTypes.size ? selectedTypes : undefined;
  filtering = !!(q || turn || item || prob || types);
  const out: number[] = [];
  passes = new Uint8Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (types && !types.has(e.type)) continue;
    if (turn && (turn === "-" ? e.turnId !== undefined : e.turnId !== turn)) continue;
    if (item && ![e.itemId, e.requestId, e.parentId].some((x) => x !== undefined && (x.includes(item) || short(x) === item))) continue;
    if (prob) {
      const ps = problemsBySeq.get(e.sequence);
      if (!ps || (prob !== "any" && !ps.some((p) => p.kind === prob))) continue;
    }
    if (q && !haystack(i).includes(q)) continue;
    passes[i] = 1;
    out.push(i);
  }
  rows = Int32Array.from(out);
  $("tl-spacer").style.height = `${rows.length * ROW}px`;
  $("tl-note").textContent = rows.length === events.length ? count(rows.length, "event") : `${rows.length.toLocaleString("en")} of ${count(events.length, "event")}`;
  const empty = $("tl-empty");
  empty.hidden = rows.length > 0;
  if (!rows.length) empty.innerHTML = events.length ? `No events ${esc(filterDescription())}. <button type="button" data-clear>clear filters</button>` : "The stream has no events.";
  markActiveCount();
  // The transcript follows: only cards with an event the filters keep.
  visTops = filtering ? tops.flatMap((t, k) => (t.sub.some((s) => { const i = indexOfSeq.get(s); return i !== undefined && passes[i] === 1; }) ? [k] : [])) : tops.map((_, k) => k);
  const at = selected >= 0 ? domOfSeq.get(events[selected].sequence) : undefined;
  const v = at ? visPos(at.top) : -1;
  renderWindow(v >= 0 ? v : 0);
  if (selected >= 0) highlightCard(events[selected].sequence, true);
  $("tl-hidden").textContent = selected >= 0 && !passes[selected] ? "the selected event is hidden by the filters" : "";
  renderRows();
}
function clearFilters(): void {
  $<HTMLInputElement>("f-search").value = "";
  $<HTMLSelectElement>("f-turn").value = "";
  $<HTMLInputElement>("f-item").value = "";
  $<HTMLSelectElement>("f-problem").value = "";
  selectedTypes.clear();
  document.querySelectorAll<HTMLInputElement>("#f-types-menu input[type=checkbox]").forEach((c) => { c.checked = false; });
  typeLabel();
  applyFilters();
}
function initTimeline(): void {
  const types = new Map<string, number>();
  const turns: string[] = [];
  const seenTurn = new Set<string>();
  for (const e of events) {
    types.set(e.type, (types.get(e.type) ?? 0) + 1);
    if (e.turnId && !seenTurn.has(e.turnId)) { seenTurn.add(e.turnId); turns.push(e.turnId); }
  }
  $("f-types-menu").innerHTML = `<div class="acts"><button type="button" data-types="none">all types</button></div>` + [...types].sort().map(([t, n]) => `<label><input type="checkbox" value="${esc(t)}"> <span>${esc(t)}</span><span class="n">${n.toLocaleString("en")}</span></label>`).join("");
  $("f-types-menu").addEventListener("change", (ev) => {
    const c = ev.target as HTMLInputElement;
    if (c.checked) selectedTypes.add(c.value);
    else selectedTypes.delete(c.value);
    typeLabel();
    applyFilters();
  });
  $("f-types-menu").addEventListener("click", (ev) => {
    if (!(ev.target as HTMLElement).closest("[data-types]")) return;
    selectedTypes.clear();
    document.querySelectorAll<HTMLInputElement>("#f-types-menu input[type=checkbox]").forEach((c) => { c.checked = false; });
    typeLabel();
    applyFilters();
  });
  // The type menu floats over the panes (a fixed box kept inside the window), and closes on a click elsewhere, or Escape.
  $("f-types").addEventListener("toggle", () => {
    const menu = $("f-types-menu");
    if (!$<HTMLDetailsElement>("f-types").open) return;
    const r = $("f-types-label").getBoundingClientRect();
    menu.style.maxHeight = `${Math.max(120, window.innerHeight - r.bottom - 10)}px`;
    menu.style.top = `${r.bottom + 2}px`;
    menu.style.left = `${Math.max(4, Math.min(r.left, window.innerWidth - menu.offsetWidth - 4))}px`;
  });
  // The type menu closes on a click elsewhere, or Escape.
  document.addEventListener("click", (ev) => { if (!(ev.target as HTMLElement).closest("#f-types")) $<HTMLDetailsElement>("f-types").open = false; });
  document.addEventListener("keydown", (ev) => { if (ev.key === "Escape") $<HTMLDetailsElement>("f-types").open = false; });
  $("f-turn").innerHTML = `<option value="">all turns</option><option value="-">outside turns</option>` + turns.map((t, i) => `<option value="${esc(t)}">turn ${i + 1} ${esc(short(t, "trn"))}</option>`).join("");
  $("f-problem").innerHTML = `<option value="">all events</option><option value="any">with problems</option>` + PROBLEM_KINDS.map((k) => `<option value="${k}">${k}s</option>`).join("");
  for (const id of ["f-turn", "f-problem"]) $(id).addEventListener("change", applyFilters);
  $("f-item").addEventListener("input", applyFilters);
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  $("f-search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(applyFilters, events.length > 20_000 ? 250 : 60);
  });
  $("f-search").addEventListener("keydown", (ev) => { if (ev.key === "Enter") { clearTimeout(searchTimer); applyFilters(); } });
  $("f-clear").addEventListener("click", clearFilters);
  $("tl-empty").addEventListener("click", (ev) => { if ((ev.target as HTMLElement).closest("[data-clear]")) clearFilters(); });
  const sc = $("tl-scroll");
  let pending = false;
  sc.addEventListener("scroll", () => {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => { pending = false; renderRows(); });
  });
  sc.addEventListener("click", (ev) => {
    const row = (ev.target as HTMLElement).closest(".row") as HTMLElement | null;
    if (row) select(Number(row.dataset.i), "timeline");
  });
  sc.addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
    ev.preventDefault();
    const r = rows.indexOf(selected);
    const next = ev.key === "ArrowDown" ? (r < 0 ? 0 : Math.min(rows.length - 1, r + 1)) : Math.max(0, r - 1);
    if (rows.length) select(rows[next], "keys");
  });
  applyFilters();
}
function scrollTimelineTo(i: number): void {
  const r = rows.indexOf(i);
  $("tl-hidden").textContent = r < 0 && i >= 0 ? "the selected event is hidden by the filters" : "";
  if (r < 0) return;
  const sc = $("tl-scroll");
  const top = r * ROW;
  if (top < sc.scrollTop || top + ROW > sc.scrollTop + sc.clientHeight) sc.scrollTop = Math.max(0, top - sc.clientHeight / 2);
}

// ───────────────────────────── resizable panes ─────────────────────────────
const NARROW = window.matchMedia("(max-width: 1100px)");
const MIN_PANE = 180;
/**
 * Move a pane boundary by `d` px from where it was (`start`: the panes' boxes then). A boundary changes only the
 * two panes beside it, and no pane gets narrower than MIN_PANE. The sizes are kept as proportions (fr), so a
 * window resized later scales them instead of pushing a pane out. Wide layout: split-1 is transcript | timeline,
 * split-2 timeline | native (--w1, --w2, --w3). Narrow: split-1 is transcript | the right column (--n1, --n2),
 * split-2 timeline above native (--r1, --r2).
 */
function movePane(id: string, d: number, start: Record<string, DOMRect>): void {
  const main = $("panes");
  const { transcript: tr, timeline: tl, native: nv } = start;
  const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));
  const set = (pairs: [string, number][]) => { for (const [k, v] of pairs) main.style.setProperty(k, `${Math.round(v * 10) / 10}fr`); };
  if (NARROW.matches) {
    if (id === "split-1") { const n1 = clamp(tr.width + d, MIN_PANE, tr.width + tl.width - MIN_PANE); set([["--n1", n1], ["--n2", tr.width + tl.width - n1]]); }
    else { const r1 = clamp(tl.height + d, MIN_PANE, tl.height + nv.height - MIN_PANE); set([["--r1", r1], ["--r2", tl.height + nv.height - r1]]); }
  } else if (id === "split-1") {
    const w1 = clamp(tr.width + d, MIN_PANE, tr.width + tl.width - MIN_PANE);
    set([["--w1", w1], ["--w2", tl.width + tr.width - w1], ["--w3", nv.width]]);
  } else {
    const w2 = clamp(tl.width + d, MIN_PANE, tl.width + nv.width - MIN_PANE);
    set([["--w1", tr.width], ["--w2", w2], ["--w3", tl.width + nv.width - w2]]);
  }
  renderRows();
}
function paneBoxes(): Record<string, DOMRect> {
  return { transcript: $("transcript").getBoundingClientRect(), timeline: $("timeline").getBoundingClientRect(), native: $("native").getBoundingClientRect() };
}
const horizontal = (id: string) => NARROW.matches && id === "split-2";
function initSplitters(): void {
  for (const id of ["split-1", "split-2"]) {
    const el = $(id);
    el.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      el.setPointerCapture(ev.pointerId);
      el.classList.add("dragging");
      const start = paneBoxes();
      const h = horizontal(id);
      const x0 = h ? ev.clientY : ev.clientX;
      const move = (e: PointerEvent) => movePane(id, (h ? e.clientY : e.clientX) - x0, start);
      const up = () => { el.classList.remove("dragging"); el.removeEventListener("pointermove", move); el.removeEventListener("pointerup", up); el.removeEventListener("pointercancel", up); };
      el.addEventListener("pointermove", move);
      el.addEventListener("pointerup", up);
      el.addEventListener("pointercancel", up);
    });
    el.addEventListener("keydown", (ev) => {
      const step = ev.shiftKey ? 60 : 20;
      const keys: Record<string, number> = horizontal(id) ? { ArrowUp: -step, ArrowDown: step } : { ArrowLeft: -step, ArrowRight: step };
      const d = keys[ev.key];
      if (d === undefined) return;
      ev.preventDefault();
      movePane(id, d, paneBoxes());
    });
    // Double-click: back to the default proportions.
    el.addEventListener("dblclick", () => {
      for (const v of ["--w1", "--w2", "--w3", "--n1", "--n2", "--r1", "--r2"]) $("panes").style.removeProperty(v);
      renderRows();
    });
  }
  const orient = () => $("split-2").setAttribute("aria-orientation", NARROW.matches ? "horizontal" : "vertical");
  orient();
  NARROW.addEventListener("change", () => { orient(); renderRows(); });
  window.addEventListener("resize", () => {
    $<HTMLDetailsElement>("f-types").open = false; // its fixed box was placed for the old size
    renderRows();
  });
}

// ───────────────────────────── native pane ─────────────────────────────
function renderNative(): void {
  const box = $("native-body");
  // nothing selected: the pane folds to a narrow strip, and the others share its width
  $("panes").dataset.native = selected < 0 ? "empty" : "shown";
  if (selected < 0) {
    box.innerHTML = `<div class="empty">Select an event, a card or a timeline row.</div>`;
    return;
  }
  const e = events[selected];
  const n = e.native !== undefined ? data.natives[e.native] : undefined;
  const ps = problemsBySeq.get(e.sequence) ?? [];
  const raw = e.raw ?? {};
  let html = `<dl class="kv"><dt>event</dt><dd><b>#${e.sequence}</b> ${esc(e.type)}</dd>` +
    `<dt>rule</dt><dd id="native-rule" class="mono">${esc(raw.rule ?? "—")}</dd>` +
    `<dt>source</dt><dd class="mono">${esc(raw.source ?? "—")}${raw.method ? ` · ${esc(raw.method)}` : ""}${raw.messageType ? ` · ${esc(raw.messageType)}` : ""}</dd>` +
    (e.turnId || e.itemId || e.requestId ? `<dt>ids</dt><dd class="mono">${[e.threadId, e.turnId, e.itemId, e.requestId, e.parentId ? `parent ${e.parentId}` : ""].filter(Boolean).map(esc).join(" ")}</dd>` : "") +
    `</dl>`;
  for (const p of ps) html += `<div class="problem ${p.kind}"><b>${p.kind}</b> ${esc(p.message)}</div>`;
  if (n) {
    const k = e.native!;
    html += `<h3>native message <span id="native-index">${k + 1}</span> of ${data.natives.length}${n.line !== undefined ? ` · line ${n.line}` : ""}${n.dir ? ` · ${n.dir === "in" ? "from the agent" : "from the client"}` : ""} <span class="nav"><button data-nav="-1" ${k === 0 ? "disabled" : ""}>◀</button><button data-nav="1" ${k === data.natives.length - 1 ? "disabled" : ""}>▶</button></span></h3>`;
    html += `<div class="chips">${n.events.length ? `events from it: ` : "produced no events"}${n.events.slice(0, 300).map((s) => `<span class="chip${s === e.sequence ? " current" : ""}" data-seq="${s}">#${s} ${esc(events[indexOfSeq.get(s)!]?.type ?? "")}</span>`).join("")}${n.events.length > 300 ? ` … ${n.events.length - 300} more` : ""}</div>`;
    html += `<pre class="json" id="native-json">${jsonHtml(n.payload)}</pre>`;
  } else {
    html += `<h3>native message</h3><div class="empty" id="native-json">no provider message behind this event (it was made by agentnorm, or the input carried no raw payload)</div>`;
  }
  const { native: _native, ...shownEvent } = e; // the page's own link to the native pane, not part of the event
  html += `<h3>canonical event</h3><pre class="json" id="canonical-json">${jsonHtml(shownEvent)}</pre>`;
  box.innerHTML = html;
  box.parentElement!.scrollTop = 0;
}
function initNative(): void {
  $("native-body").addEventListener("click", (ev) => {
    const t = ev.target as HTMLElement;
    const chip = t.closest(".chip") as HTMLElement | null;
    if (chip) {
      const i = indexOfSeq.get(Number(chip.dataset.seq));
      if (i !== undefined) select(i, "native");
      return;
    }
    const nav = t.closest("button[data-nav]") as HTMLElement | null;
    if (nav && selected >= 0) {
      // The previous/next native message that produced an event.
      const step = Number(nav.dataset.nav);
      for (let k = (events[selected].native ?? 0) + step; k >= 0 && k < data.natives.length; k += step) {
        const s = data.natives[k].events[0];
        if (s !== undefined) { select(indexOfSeq.get(s)!, "native"); return; }
      }
    }
  });
  renderNative();
}

// ───────────────────────────── selection ─────────────────────────────
function select(i: number, from: "timeline" | "transcript" | "native" | "header" | "keys" | "hash"): void {
  if (i < 0 || i >= events.length) return;
  selected = i;
  const seq = events[i].sequence;
  highlightCard(seq, from !== "transcript");
  if (from !== "timeline") scrollTimelineTo(i);
  else $("tl-hidden").textContent = "";
  renderRows();
  renderNative();
  document.body.dataset.selected = String(seq);
  history.replaceState(null, "", `#seq=${seq}`);
}

function main(): void {
  initTheme();
  renderHeader();
  initTranscript();
  initTimeline();
  initNative();
  initSplitters();
  const m = /seq=(\d+)/.exec(location.hash);
  const i = m ? indexOfSeq.get(Number(m[1])) : undefined;
  if (i !== undefined) select(i, "hash");
  if (streamProblems.length) $("tl-stream").textContent = streamProblems.map((p) => `${p.kind}: ${p.message}`).join("; ");
  document.body.dataset.ready = "1";
}
main();
