/**
 * The viewer page's script (runs in the browser; bundled by scripts/bundle-viewer.mjs into
 * src/view/bundle.gen.ts at build time and inlined into every page). Three linked panes:
 * transcript (cards), timeline (virtualized list of canonical events) and native (the provider message behind
 * the selected event). Selecting in any pane selects in the others.
 */
import { PROBLEM_KINDS, type ProblemKind, type TranscriptBlock, type TranscriptTurn, type ViewerData, type ViewerEvent, type ViewerProblem } from "./types.js";

const ROW = 22;
const CHUNK = 150;
const TEXT_CAP = 20_000;
const JSON_CAP = 200_000;

const $ = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

function esc(s: unknown): string {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}
function clip(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}
function short(id: string | undefined): string {
  return id ? id.replace(/^(\w{3})_(.{0,10}).*$/, "$1_$2") : "";
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
interface Top { kind: "turn"; turn: TranscriptTurn; dom: string }
interface TopBlock { kind: "block"; block: TranscriptBlock; dom: string }
const tops: (Top | TopBlock)[] = [];
const domOfSeq = new Map<number, { dom: string; top: number }>();
const seqsOfDom = new Map<string, number[]>();
let domCounter = 0;
function indexBlock(b: TranscriptBlock, top: number): string {
  const dom = `b${++domCounter}`;
  (b as any)._dom = dom;
  seqsOfDom.set(dom, b.seqs);
  for (const s of b.seqs) domOfSeq.set(s, { dom, top });
  for (const c of b.children ?? []) indexBlock(c, top);
  return dom;
}
for (const b of data.transcript.preamble) tops.push({ kind: "block", block: b, dom: indexBlock(b, tops.length) });
for (const t of data.transcript.turns) {
  const dom = `t${++domCounter}`;
  seqsOfDom.set(dom, t.seqs);
  for (const s of t.seqs) domOfSeq.set(s, { dom, top: tops.length });
  tops.push({ kind: "turn", turn: t, dom });
  for (const b of t.blocks) tops.push({ kind: "block", block: b, dom: indexBlock(b, tops.length) });
}

// ───────────────────────────── state ─────────────────────────────
let selected = -1; // index into events
let related = new Set<number>(); // sequences of the selected card
let rows: Int32Array = new Int32Array(0); // filtered event indexes

// ───────────────────────────── header ─────────────────────────────
function renderHeader(): void {
  const m = data.meta;
  $("title").textContent = m.title;
  document.title = m.title;
  $("meta").textContent = [
    `${m.input} input`,
    m.surface ? `surface ${m.surface}` : m.provider ? `provider ${m.provider}` : "",
    `${events.length.toLocaleString("en")} events`,
    `${data.natives.length.toLocaleString("en")} native messages`,
    `${data.transcript.turns.length} turns`,
    `transcript: ${data.transcript.source}`,
  ].filter(Boolean).join(" · ");
  const box = $("counts");
  box.innerHTML = PROBLEM_KINDS.map((k) => {
    if (k === "violation" && !m.verified) return `<button class="count unverified" id="count-violation" data-kind="violation" data-count="" title="the verifier was not available when this page was made">not verified</button>`;
    const n = counts[k];
    return `<button class="count ${k}${n ? "" : " zero"}" id="count-${k}" data-kind="${k}" data-count="${n}" title="show only ${k}s"><b>${n}</b> ${k}${n === 1 ? "" : "s"}</button>`;
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

// ───────────────────────────── transcript ─────────────────────────────
function statusPill(s: string | undefined): string {
  if (!s) return "";
  const tone = /^(complet|resolv|answer|accept|allow|approv|success|ok)/i.test(s) ? "good" : /^(fail|error|declin|deny|denied|reject|cancel|abort|stop|interrupt)/i.test(s) ? "bad" : /^(running|open|pending|inProgress|streaming)/i.test(s) ? "busy" : "";
  return `<span class="pill ${tone}">${esc(s)}</span>`;
}
function textHtml(s: string): string {
  if (s.length <= TEXT_CAP) return `<pre>${esc(s)}</pre>`;
  const rest = s.slice(TEXT_CAP, TEXT_CAP * 25);
  const beyond = s.length - TEXT_CAP - rest.length;
  return `<pre>${esc(s.slice(0, TEXT_CAP))}</pre><details><summary>${(s.length - TEXT_CAP).toLocaleString("en")} more characters</summary><pre>${esc(rest)}</pre>${beyond > 0 ? `<div class="lbl">… ${beyond.toLocaleString("en")} more characters (the events in the timeline carry all of it)</div>` : ""}</details>`;
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
const KIND_LABEL: Record<string, string> = { user: "user", text: "assistant", thinking: "thinking", tool: "tool", permission: "permission", question: "question", plan: "plan", diff: "diff", task: "task", usage: "usage", status: "status", notice: "warning", error: "error" };
const PLAN_MARK: Record<string, string> = { completed: "☑", inProgress: "◐", pending: "☐" };

function blockHtml(b: TranscriptBlock): string {
  const dom = (b as any)._dom as string;
  const hd = `<div class="hd"><span class="kind">${esc(KIND_LABEL[b.kind] ?? b.kind)}${b.subtype && b.subtype !== b.kind ? ` · ${esc(b.subtype)}` : ""}</span>${b.title ? `<span class="title">${esc(clip(String(b.title), 300))}</span>` : ""}${statusPill(b.status)}${b.durationMs !== undefined ? `<span class="dur">${b.durationMs < 1000 ? `${b.durationMs} ms` : `${(b.durationMs / 1000).toFixed(1)} s`}</span>` : ""}</div>`;
  let body = "";
  switch (b.kind) {
    case "thinking":
      body = `<details><summary>${(b.text ?? "").length.toLocaleString("en")} characters of thinking</summary>${textHtml(b.text ?? "")}</details>`;
      break;
    case "plan":
      body = (b.text ? textHtml(b.text) : "") + (b.plan ? `<ul class="plan">${b.plan.map((s) => `<li><span class="st">${PLAN_MARK[s.status] ?? "☐"}</span>${esc(s.step)}</li>`).join("")}</ul>` : "");
      break;
    case "diff":
      body = diffHtml(b.diff ?? "");
      break;
    case "usage":
    case "status":
      body = b.detail !== undefined ? `<details><summary>detail</summary>${valueHtml(b.detail)}</details>` : "";
      break;
    default: {
      if (b.text) body += textHtml(b.text);
      if (b.input !== undefined) body += `<div class="lbl">${b.kind === "question" ? "questions" : "input"}</div>${valueHtml(b.input)}`;
      if (b.output !== undefined && b.output !== "") body += `<div class="lbl">output</div>${valueHtml(b.output)}`;
      if (b.diff) body += `<div class="lbl">diff</div>${diffHtml(b.diff)}`;
      if (b.resolution !== undefined) body += `<div class="lbl">${b.kind === "question" ? "answers" : "resolution"}</div>${valueHtml(b.resolution)}`;
      if (b.detail !== undefined && b.kind !== "user" && b.kind !== "text") body += `<details><summary>data</summary>${valueHtml(b.detail)}</details>`;
    }
  }
  const kids = b.children?.length ? `<div class="children">${b.children.map(blockHtml).join("")}</div>` : "";
  return `<div class="card ${esc(b.kind)}" id="${dom}" data-block="${esc(b.id)}" data-kind="${esc(b.kind)}">${hd}${body ? `<div class="body">${body}</div>` : ""}${kids}</div>`;
}
function topHtml(t: Top | TopBlock): string {
  if (t.kind === "turn") return `<div class="turn" id="${t.dom}" data-turn="${esc(t.turn.id)}">turn ${t.turn.index} <span class="mono">${esc(short(t.turn.id))}</span><span class="state">${esc(t.turn.state ?? "")}</span></div>`;
  return blockHtml(t.block);
}
// The transcript renders a window of cards [winStart, winEnd): it grows by chunks as it scrolls either way, and
// moves when a selection lands far outside it, so a long session never renders all its cards.
let winStart = 0;
let winEnd = 0;
function tops_(from: number, to: number): string {
  let html = "";
  for (let i = from; i < to; i++) html += topHtml(tops[i]);
  return html;
}
function windowNote(): void {
  $("tr-more").textContent = winEnd < tops.length ? `${(tops.length - winEnd).toLocaleString("en")} more cards below…` : tops.length ? "" : "no transcript cards";
  $("tr-before").textContent = winStart > 0 ? `${winStart.toLocaleString("en")} cards above…` : "";
}
function renderWindow(center: number): void {
  winStart = Math.max(0, center - 40);
  winEnd = Math.min(tops.length, Math.max(center + 1, winStart + CHUNK));
  $("tr-list").innerHTML = tops_(winStart, winEnd);
  windowNote();
}
function extendDown(upto = winEnd): void {
  const end = Math.min(tops.length, Math.max(upto + 1, winEnd + CHUNK));
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
/** Make the card at position `top` rendered. */
function ensureRendered(top: number): void {
  if (top >= winStart && top < winEnd) return;
  if (top >= winEnd && top < winEnd + 2 * CHUNK) extendDown(top);
  else renderWindow(top);
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
    if (t.closest("summary")) return; // expanding a <details> is not a selection
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
  ensureRendered(at.top);
  const el = document.getElementById(at.dom);
  if (!el) return;
  el.classList.add("selected");
  related = new Set(seqsOfDom.get(at.dom) ?? []);
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
    case "request.opened": case "request.resolved": return [p.requestType, p.decision, p.detail].filter(Boolean).join(" · ");
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
    html += `<div class="row${cls}" style="top:${r * ROW}px" data-seq="${e.sequence}" data-i="${i}"><span class="seq">#${e.sequence}</span>${badges(e.sequence)}<span class="type">${esc(e.type)}</span><span class="ids">${esc(short(e.turnId))} ${esc(short(e.itemId ?? e.requestId))}</span><span class="sum">${esc(summary(i))}</span></div>`;
  }
  $("tl-spacer").innerHTML = html;
}
function applyFilters(): void {
  const type = $<HTMLSelectElement>("f-type").value;
  const turn = $<HTMLSelectElement>("f-turn").value;
  const item = $<HTMLInputElement>("f-item").value.trim();
  const prob = $<HTMLSelectElement>("f-problem").value;
  const out: number[] = [];
  for (let i = 0; i < events.length; i++) {
    const e = events[i];
    if (type && e.type !== type) continue;
    if (turn && (turn === "-" ? e.turnId !== undefined : e.turnId !== turn)) continue;
    if (item && !(e.itemId?.includes(item) || e.requestId?.includes(item) || e.parentId?.includes(item))) continue;
    if (prob) {
      const ps = problemsBySeq.get(e.sequence);
      if (!ps || (prob !== "any" && !ps.some((p) => p.kind === prob))) continue;
    }
    out.push(i);
  }
  rows = Int32Array.from(out);
  $("tl-spacer").style.height = `${rows.length * ROW}px`;
  $("tl-note").textContent = rows.length === events.length ? `${rows.length.toLocaleString("en")} events` : `${rows.length.toLocaleString("en")} of ${events.length.toLocaleString("en")} events`;
  renderRows();
}
function initTimeline(): void {
  const types = new Map<string, number>();
  const turns: string[] = [];
  const seenTurn = new Set<string>();
  for (const e of events) {
    types.set(e.type, (types.get(e.type) ?? 0) + 1);
    if (e.turnId && !seenTurn.has(e.turnId)) { seenTurn.add(e.turnId); turns.push(e.turnId); }
  }
  $("f-type").innerHTML = `<option value="">all types</option>` + [...types].sort().map(([t, n]) => `<option value="${esc(t)}">${esc(t)} (${n})</option>`).join("");
  $("f-turn").innerHTML = `<option value="">all turns</option><option value="-">outside turns</option>` + turns.map((t, i) => `<option value="${esc(t)}">turn ${i + 1} ${esc(short(t))}</option>`).join("");
  $("f-problem").innerHTML = `<option value="">all events</option><option value="any">with problems</option>` + PROBLEM_KINDS.map((k) => `<option value="${k}">${k}s</option>`).join("");
  for (const id of ["f-type", "f-turn", "f-problem"]) $(id).addEventListener("change", applyFilters);
  $("f-item").addEventListener("input", applyFilters);
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

// ───────────────────────────── native pane ─────────────────────────────
function renderNative(): void {
  const box = $("native-body");
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
  const { native: _native, ...shown } = e; // the page's own link to the native pane, not part of the event
  html += `<h3>canonical event</h3><pre class="json" id="canonical-json">${jsonHtml(shown)}</pre>`;
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
  renderHeader();
  initTranscript();
  initTimeline();
  initNative();
  const m = /seq=(\d+)/.exec(location.hash);
  const i = m ? indexOfSeq.get(Number(m[1])) : undefined;
  if (i !== undefined) select(i, "hash");
  if (streamProblems.length) $("tl-stream").textContent = streamProblems.map((p) => `${p.kind}: ${p.message}`).join("; ");
  document.body.dataset.ready = "1";
}
main();
