/**
 * The viewer page and the compatibility-matrix page: one self-contained HTML file each (inline CSS and JS, the
 * data embedded as JSON; nothing loaded from the network). No Node APIs.
 */
import { VIEWER_JS } from "./bundle.gen.js";
import { VIEWER_CSS } from "./style.js";
import type { ViewerData } from "./types.js";

/**
 * JSON that is safe inside a <script type="application/json"> element: `<`, `>` and `&` are escaped (so no
 * `</script>` or `<!--` can end or confuse the element), and U+2028/U+2029 too. JSON.parse reads it back unchanged.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

/** Inline script/style text: a literal `</script` or `</style` would end the element early. */
function inlineText(text: string, tag: "script" | "style"): string {
  return text.replace(new RegExp(`</(${tag})`, "gi"), "<\\/$1");
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

const CSP = `default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:`;

/** The document start both pages share: offline-only CSP, generator, title, the inline stylesheet (+ `css`). */
function pageHead(o: { title: string; generator: string; viewport?: boolean; css?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
${o.viewport ? `<meta name="viewport" content="width=device-width, initial-scale=1">\n` : ""}<meta name="generator" content="${escapeHtml(o.generator)}">
<title>${escapeHtml(o.title)}</title>
<style>${inlineText(VIEWER_CSS, "style")}${o.css ?? ""}</style>
</head>`;
}

/**
 * JSON text of `value` in pieces (their concatenation is JSON.stringify(value)): objects and arrays down to `depth`
 * levels are opened, so no piece is larger than one of their members. A large page is then written piece by
 * piece, never held as one string (`agentnorm view` writes what viewerHtmlChunks yields).
 */
export function* jsonChunks(value: unknown, depth: number): Generator<string> {
  if (depth <= 0 || value === null || typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function") {
    yield JSON.stringify(value) ?? "null";
    return;
  }
  if (Array.isArray(value)) {
    yield "[";
    for (let i = 0; i < value.length; i++) {
      if (i) yield ",";
      const x = value[i];
      if (x === undefined || typeof x === "function" || typeof x === "symbol") yield "null";
      else yield* jsonChunks(x, depth - 1);
    }
    yield "]";
    return;
  }
  yield "{";
  let first = true;
  for (const k of Object.keys(value)) {
    const x = (value as Record<string, unknown>)[k];
    if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
    yield `${first ? "" : ","}${JSON.stringify(k)}:`;
    first = false;
    yield* jsonChunks(x, depth - 1);
  }
  yield "}";
}

/** scriptJson(value) in pieces of about 64K characters or one large member (jsonChunks, escaped the same way). */
function* scriptJsonChunks(value: unknown, depth: number): Generator<string> {
  const esc = (s: string) => s.replace(/[<>&\u2028\u2029]/g, (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"));
  let parts: string[] = [];
  let size = 0;
  for (const c of jsonChunks(value, depth)) {
    parts.push(c);
    size += c.length;
    if (size >= 1 << 16) {
      yield esc(parts.join(""));
      parts = [];
      size = 0;
    }
  }
  if (parts.length) yield esc(parts.join(""));
}

/** The viewer page for `data`, in pieces (the data's events, natives, turns and problems one by one). */
export function* viewerHtmlChunks(data: ViewerData): Generator<string> {
  yield `${pageHead({ title: data.meta.title, generator: data.meta.generator, viewport: true })}
<body>
<header><h1 id="title"></h1><span class="meta" id="meta"></span><span class="counts" id="counts"></span><button id="theme" type="button" title="colour theme: follows the system until chosen">theme: auto</button></header>
<div id="cut" role="status" hidden></div>
<main id="panes">
<section id="transcript"><h2>Transcript <span id="tr-note"></span></h2><div class="scroll" id="tr-scroll"><div class="more" id="tr-before"></div><div id="tr-list"></div><div class="more" id="tr-more"></div></div></section>
<div class="split" id="split-1" role="separator" tabindex="0" aria-orientation="vertical" aria-controls="transcript" title="drag to resize (arrow keys too; double-click resets)"></div>
<section id="timeline"><h2>Timeline <span id="tl-note"></span></h2>
<div class="filters" id="filters"><input id="f-search" type="search" placeholder="search text…" title="events whose type, ids or payload contain this text (case-insensitive)"><details class="multi" id="f-types"><summary id="f-types-label" title="event types (several may be chosen)">all types</summary><div class="menu" id="f-types-menu"></div></details><select id="f-turn" title="turn"></select><input id="f-item" placeholder="item / request id" title="item, request or parent id (or its short label) contains"><select id="f-problem" title="problems"></select><button id="f-clear" type="button" title="clear every filter">clear</button></div>
<div id="tl-hidden" class="note mono"></div><div id="tl-stream" class="note"></div>
<div class="scroll" id="tl-scroll" tabindex="0"><div id="tl-spacer"></div><div id="tl-empty" class="empty" hidden></div></div></section>
<div class="split" id="split-2" role="separator" tabindex="0" aria-orientation="vertical" aria-controls="timeline" title="drag to resize (arrow keys too; double-click resets)"></div>
<section id="native"><h2>Native message</h2><div class="scroll"><div id="native-body"></div></div></section>
</main>
<script type="application/json" id="agentnorm-data">`;
  // data → events, natives, problems (opened: each member its own piece), transcript → turns (each turn a piece)
  yield* scriptJsonChunks(data, 3);
  yield `</script>
<script>${inlineText(VIEWER_JS, "script")}</script>
</body>
</html>
`;
}

/** The viewer page for `data`. */
export function viewerHtml(data: ViewerData): string {
  return [...viewerHtmlChunks(data)].join("");
}

interface MatrixMethod { status: string; rules?: string[]; events?: string[]; reason?: string }
interface MatrixData {
  canonicalEventTypes: string[];
  surfaces: Record<string, { table: string; upstream?: { package?: string; version?: string }; kinds: Record<string, { total: number; mapped: number; ignored: number; missing: number; methods: Record<string, MatrixMethod> }> }>;
}

/** The compatibility-matrix page: canonical event type × surface, then each surface's methods. */
export function matrixHtml(compat: MatrixData, generator: string): string {
  const surfaces = Object.keys(compat.surfaces);
  const emits = new Map<string, Set<string>>(); // surface → event types
  for (const s of surfaces) {
    const set = new Set<string>();
    for (const k of Object.values(compat.surfaces[s].kinds)) for (const m of Object.values(k.methods)) for (const e of m.events ?? []) set.add(e);
    emits.set(s, set);
  }
  const head = `<tr><th>canonical event</th>${surfaces.map((s) => `<th>${escapeHtml(s)}</th>`).join("")}</tr>`;
  const body = compat.canonicalEventTypes.map((t) => `<tr><td class="mono">${escapeHtml(t)}</td>${surfaces.map((s) => (emits.get(s)!.has(t) ? `<td class="y" title="${escapeHtml(s)} emits ${escapeHtml(t)}">✓</td>` : `<td class="n">·</td>`)).join("")}</tr>`).join("\n");
  const coverage = surfaces.map((s) => {
    const sf = compat.surfaces[s];
    const rows = Object.entries(sf.kinds).flatMap(([kind, k]) => Object.entries(k.methods).map(([m, v]) => `<tr><td>${escapeHtml(kind)}</td><td class="mono">${escapeHtml(m)}</td><td>${escapeHtml(v.status)}</td><td>${v.status === "mapped" ? escapeHtml((v.events ?? []).join(", ")) : escapeHtml(v.reason ?? "")}</td></tr>`));
    const totals = Object.entries(sf.kinds).map(([kind, k]) => `${escapeHtml(kind)}: ${k.mapped} mapped, ${k.ignored} ignored, ${k.missing} missing of ${k.total}`).join("; ");
    return `<h2 id="surface-${escapeHtml(s)}">${escapeHtml(s)}</h2><p>${escapeHtml(sf.table)}${sf.upstream?.package ? ` · upstream ${escapeHtml(sf.upstream.package)}@${escapeHtml(sf.upstream.version ?? "?")}` : ""}<br>${totals}</p>
<details><summary>${rows.length} upstream methods/types</summary><table class="matrix"><tr><th>kind</th><th>method / type</th><th>status</th><th>events / reason</th></tr>${rows.join("\n")}</table></details>`;
  }).join("\n");
  return `${pageHead({ title: "agentnorm compatibility matrix", generator, css: "\nhtml,body{height:auto}body{display:block;overflow:auto}" })}
<body>
<header><h1>agentnorm compatibility matrix</h1><span class="meta">${escapeHtml(generator)} · ${surfaces.length} surfaces · ${compat.canonicalEventTypes.length} canonical event types</span></header>
<div class="page">
<table class="matrix" id="matrix">${head}
${body}</table>
${coverage}
</div>
</body>
</html>
`;
}
