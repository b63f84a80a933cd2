/**
 * A small Markdown renderer for the viewer's message cards. Safe by construction: every piece of the input is
 * HTML-escaped before any markup is added, so HTML in the text shows as text (no passthrough). Links are
 * shown, not followed: the label and its target as text (the page loads nothing and navigates nowhere). Covers what agents write: headings, paragraphs,
 * fenced and indented code, block quotes, ordered/unordered/task lists, tables, rules, and inline code, bold,
 * italic, strike-through and links. No Node APIs, no dependencies.
 */

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Inline markup of one (raw, unescaped) text run. */
export function inlineMarkdown(text: string): string {
  let out = "";
  let i = 0;
  let plain = "";
  const flush = () => { out += emphasis(esc(plain)); plain = ""; };
  while (i < text.length) {
    const c = text[i];
    if (c === "\\" && i + 1 < text.length && /[\\`*_{}\[\]()#+\-.!|~>]/.test(text[i + 1])) { plain += text[i + 1]; i += 2; continue; }
    if (c === "`") {
      const run = /^`+/.exec(text.slice(i))![0];
      const end = text.indexOf(run, i + run.length);
      if (end > 0) {
        flush();
        out += `<code>${esc(text.slice(i + run.length, end).replace(/^ (.+) $/, "$1"))}</code>`;
        i = end + run.length;
        continue;
      }
      plain += run;
      i += run.length;
      continue;
    }
    if (c === "[") {
      const m = /^\[([^\]\n]{1,500})\]\(([^()\s]{1,2000})\)/.exec(text.slice(i));
      if (m) {
        flush();
        const label = inlineMarkdown(m[1]);
        out += `<span class="md-link">${label}</span> <span class="md-url">(${esc(m[2])})</span>`;
        i += m[0].length;
        continue;
      }
    }
    if (c === "<") {
      const m = /^<((?:https?:\/\/|mailto:)[^\s<>]{1,2000})>/i.exec(text.slice(i));
      if (m) {
        flush();
        out += `<span class="md-url">${esc(m[1])}</span>`;
        i += m[0].length;
        continue;
      }
    }
    plain += c;
    i++;
  }
  flush();
  return out;
}

/** Bold, italic and strike-through in already-escaped text (outside code spans). */
function emphasis(s: string): string {
  return s
    .replace(/\*\*(?=\S)([^*]*?\S)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^\w])__(?=\S)([^_]*?\S)__(?!\w)/g, "$1<strong>$2</strong>")
    .replace(/(^|[^*\w])\*(?=[^\s*])([^*]*?[^\s*])\*(?!\*)/g, "$1<em>$2</em>")
    .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_])_(?!\w)/g, "$1<em>$2</em>")
    .replace(/~~(?=\S)([^~]*?\S)~~/g, "<del>$1</del>");
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const LIST = /^( {0,3})([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^ {0,3}> ?(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function cells(line: string): string[] {
  let l = line.trim();
  if (l.startsWith("|")) l = l.slice(1);
  if (l.endsWith("|") && !l.endsWith("\\|")) l = l.slice(0, -1);
  return l.split(/(?<!\\)\|/).map((c) => c.trim());
}

/** Markdown text → HTML (block level). */
export function markdownHtml(src: string): string {
  const lines = src.replace(/\r\n?/g, "\n").split("\n");
  return blocks(lines, 0);
}

function blocks(lines: string[], depth: number): string {
  let out = "";
  let i = 0;
  let para: string[] = [];
  const endPara = () => {
    if (para.length) out += `<p>${para.map((l) => inlineMarkdown(l.trim())).join("<br>")}</p>`;
    para = [];
  };
  while (i < lines.length) {
    const line = lines[i];
    if (!line.trim()) { endPara(); i++; continue; }
    const fence = FENCE.exec(line);
    if (fence) {
      endPara();
      const close = new RegExp(`^ {0,3}${fence[1][0] === "`" ? "`" : "~"}{${fence[1].length},}\\s*$`);
      const body: string[] = [];
      i++;
      while (i < lines.length && !close.test(lines[i])) body.push(lines[i++]);
      i++; // the closing fence (or the end)
      out += `<pre class="md-code"${fence[2] ? ` data-lang="${esc(fence[2])}"` : ""}><code>${esc(body.join("\n"))}</code></pre>`;
      continue;
    }
    const h = HEADING.exec(line);
    if (h) { endPara(); out += `<h${h[1].length + 2 > 6 ? 6 : h[1].length + 2} class="md-h">${inlineMarkdown(h[2])}</h${h[1].length + 2 > 6 ? 6 : h[1].length + 2}>`; i++; continue; }
    if (RULE.test(line) && !para.length) { out += "<hr>"; i++; continue; }
    if (/^( {4}|\t)/.test(line) && !para.length) {
      const body: string[] = [];
      while (i < lines.length && (/^( {4}|\t)/.test(lines[i]) || !lines[i].trim())) body.push(lines[i++].replace(/^( {4}|\t)/, ""));
      while (body.length && !body[body.length - 1].trim()) body.pop();
      out += `<pre class="md-code"><code>${esc(body.join("\n"))}</code></pre>`;
      continue;
    }
    if (QUOTE.test(line)) {
      endPara();
      const body: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i])) body.push(QUOTE.exec(lines[i++])![1]);
      out += depth < 8 ? `<blockquote>${blocks(body, depth + 1)}</blockquote>` : `<blockquote><p>${esc(body.join("\n"))}</p></blockquote>`;
      continue;
    }
    if (line.includes("|") && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]) && lines[i + 1].includes("-")) {
      endPara();
      const head = cells(line);
      const align = cells(lines[i + 1]).map((c) => (c.startsWith(":") && c.endsWith(":") ? "center" : c.endsWith(":") ? "right" : ""));
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && lines[i].trim() && lines[i].includes("|")) rows.push(cells(lines[i++]));
      const td = (tag: string, c: string, k: number) => `<${tag}${align[k] ? ` style="text-align:${align[k]}"` : ""}>${inlineMarkdown(c)}</${tag}>`;
      out += `<table class="md-table"><thead><tr>${head.map((c, k) => td("th", c, k)).join("")}</tr></thead><tbody>${rows.map((r) => `<tr>${head.map((_, k) => td("td", r[k] ?? "", k)).join("")}</tr>`).join("")}</tbody></table>`;
      continue;
    }
    const li = LIST.exec(line);
    if (li && (!para.length || !/^\d/.test(li[2]) || li[2].startsWith("1"))) {
      endPara();
      const ordered = /^\d/.test(li[2]);
      const start = ordered ? parseInt(li[2], 10) : 1;
      const items: string[][] = [];
      const indent = li[1].length;
      while (i < lines.length) {
        const m = LIST.exec(lines[i]);
        if (m && m[1].length <= indent + 1 && /^\d/.test(m[2]) === ordered) { items.push([m[3]]); i++; continue; }
        if (!items.length) break;
        const l = lines[i];
        if (!l.trim()) {
          // a blank line continues the list only when the next line is indented or another item
          const next = lines[i + 1];
          if (next !== undefined && (/^\s{2,}\S/.test(next) || (LIST.exec(next)?.[1].length ?? 99) <= indent + 1)) { items[items.length - 1].push(""); i++; continue; }
          break;
        }
        if (/^\s{2,}/.test(l) || (!LIST.test(l) && !FENCE.test(l) && !HEADING.test(l) && !QUOTE.test(l))) { items[items.length - 1].push(l.replace(/^\s{2,4}/, "")); i++; continue; }
        break;
      }
      const itemHtml = (body: string[]) => {
        const task = /^\[([ xX])\]\s+/.exec(body[0]);
        if (task) body = [body[0].slice(task[0].length), ...body.slice(1)];
        const inner = body.length === 1 || depth >= 8 ? inlineMarkdown(body.join(" ")) : blocks(body, depth + 1).replace(/^<p>([\s\S]*?)<\/p>/, "$1");
        return `<li${task ? ` class="task"` : ""}>${task ? `<span class="md-check">${task[1] === " " ? "☐" : "☑"}</span> ` : ""}${inner}</li>`;
      };
      out += ordered ? `<ol${start !== 1 ? ` start="${start}"` : ""}>${items.map(itemHtml).join("")}</ol>` : `<ul>${items.map(itemHtml).join("")}</ul>`;
      continue;
    }
    para.push(line);
    i++;
  }
  endPara();
  return out;
}
