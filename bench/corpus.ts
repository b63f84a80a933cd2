/**
 * Bench inputs, per surface: the bundled real-agent recordings (fixtures/recorded, fixtures/<surface>), and for
 * surfaces with no bundled recording the development recordings beside the repository (../shared/recordings/dev,
 * when present; skipped with a notice otherwise). Each surface's files are repeated up to the requested number of
 * lines, every copy with fresh provider ids (so each copy is its own session, like a long-running host serving many
 * sessions), in file order.
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export interface Corpus {
  surface: string;
  /** Where the lines came from: "bundled" (in the repository) or "dev" (../shared/recordings/dev). */
  origin: "bundled" | "dev";
  files: string[];
  /** One template per file (its non-empty lines). */
  templates: string[][];
}

const list = (dir: string, keep: (f: string) => boolean): string[] =>
  existsSync(dir) ? readdirSync(dir).filter(keep).sort().map((f) => join(dir, f)) : [];
const deep = (dir: string, keep: (f: string) => boolean): string[] => {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const f of readdirSync(dir).sort()) {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) out.push(...deep(p, keep));
    else if (keep(f)) out.push(p);
  }
  return out;
};
const plain = (f: string) => /\.ndjson$/.test(f) && !/\.(expected|transcript|wire|rollout|messages|transcript-subagents)\.ndjson$/.test(f);

/** The files each surface is benchmarked on, bundled first; `dev` lists the development recordings used otherwise. */
export function corpusFiles(root: string): Record<string, { bundled: string[]; dev: string[] }> {
  const rec = join(root, "fixtures/recorded");
  const dev = join(root, "../shared/recordings/dev");
  const devFiles = (sub: string, keep: (f: string) => boolean = (f) => /\.(jsonl|ndjson)$/.test(f)) => list(join(dev, sub), keep);
  return {
    "codex-app-server": { bundled: [...list(join(root, "fixtures/codex-app-server"), plain), ...list(join(rec, "codex-app-server"), plain)], dev: [] },
    "codex-exec": { bundled: list(join(rec, "codex-exec"), plain), dev: [] },
    "codex-rollout": { bundled: list(join(rec, "codex-exec"), (f) => f.endsWith(".rollout.ndjson")), dev: [] },
    "codex-eventmsg": { bundled: [], dev: devFiles("codex-eventmsg") },
    "claude-sdk": { bundled: [...list(join(rec, "claude-sdk"), plain), ...list(join(rec, "claude-sdk/2.1.333"), plain)], dev: [] },
    "claude-permission": { bundled: list(join(root, "fixtures/claude-permission"), plain), dev: [] },
    "claude-transcript": { bundled: [...list(join(rec, "claude-sdk"), (f) => f.endsWith(".transcript.ndjson")), ...list(join(rec, "claude-sdk/2.1.333"), (f) => f.endsWith(".transcript.ndjson"))], dev: [] },
    acp: { bundled: deep(join(rec, "acp"), plain), dev: [] },
    opencode: { bundled: list(join(rec, "opencode"), plain), dev: [] },
    "opencode-history": { bundled: list(join(rec, "opencode"), (f) => f.endsWith(".messages.ndjson")), dev: [] },
    "opencode-run": { bundled: [], dev: devFiles("opencode", (f) => f.includes("opencode-run")) },
    "cursor-cli": { bundled: [], dev: devFiles("cursor") },
    "cursor-sdk": { bundled: list(join(root, "fixtures/cursor-sdk"), (f) => f.endsWith(".jsonl")), dev: [] },
    "gemini-chat": { bundled: deep(join(root, "fixtures/sessions/gemini/home/.gemini/tmp"), (f) => f.endsWith(".jsonl")), dev: [] },
  };
}

/** A line of the recorder's envelope (`{seq, dir, channel?, message}`): what the host saw, and from where. */
export interface Recorded { dir?: string; channel?: string; message: unknown }

/**
 * One surface's corpus as a host would feed it: the recorder's envelopes are unwrapped to the provider message
 * they carry (`keep` chooses which, e.g. only what the agent sent); other lines are kept as they are.
 */
export function loadCorpus(root: string, surface: string, keep: (r: Recorded) => boolean = () => true, opts: { files?: (file: string) => boolean; mask?: (r: Recorded) => boolean } = {}): Corpus | undefined {
  const spec = corpusFiles(root)[surface];
  if (!spec) return undefined;
  const origin = spec.bundled.length > 0 ? "bundled" : "dev";
  const files = (origin === "bundled" ? spec.bundled : spec.dev).filter(opts.files ?? (() => true));
  if (files.length === 0) return undefined;
  const templates = files.map((f) => {
    const out: string[] = [];
    for (const l of readFileSync(f, "utf8").split("\n")) {
      if (l.trim() === "") continue;
      let v: unknown;
      try { v = JSON.parse(l); } catch { continue; } // a log line in a capture: not input a host would feed
      const r = v as Recorded & { seq?: unknown };
      if (r && typeof r === "object" && "seq" in r && "message" in r) {
        // masked: kept as an empty line (a side that must not see it, aligned with one that does)
        if (keep(r)) out.push(opts.mask?.(r) ? "" : JSON.stringify(r.message));
      } else out.push(l);
    }
    return out;
  }).filter((t) => t.length > 0);
  return { surface, origin, files, templates };
}

/**
 * Provider ids: strings of id characters holding a digit and a separator (UUIDs, msg_…, toolu_…, call_…, ses_…),
 * or long hex/base62 runs. Every copy gets its own by suffixing them; names like model ids are renamed too, which
 * changes nothing a table reads. Object keys ("ephemeral_5m_input_tokens": …) are left alone.
 */
const ID = /"((?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[_-])[A-Za-z0-9_-]{4,}|[0-9a-f]{24,})"(?!\s*:)/g;

/** `target` lines: the templates in order, copy after copy, each copy with fresh ids. */
export function expand(c: Corpus, target: number): string[] {
  const lines: string[] = [];
  // recordings are sanitized with the same counters (itm_1, ses_000002, …) in every file: every file of every copy
  // gets its own suffix
  for (let copy = 0, k = 0; lines.length < target; copy++) {
    for (const t of c.templates) {
      const tag = k++;
      for (const l of t) lines.push(l.replace(ID, (_, id) => `"${id}-${tag}"`));
    }
  }
  lines.length = Math.min(lines.length, target);
  return lines;
}

/** Cut `lines` into chunks of `size` (the unit the side-by-side runs alternate on). */
export function chunks<T>(xs: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += size) out.push(xs.slice(i, i + size));
  return out;
}
