/**
 * The compatibility matrix's model, shared by the generator (which builds the matrix and writes
 * generated/compatibility.json) and the runtime (which reads agentnorm/compatibility.json): the live calls, the types
 * and the Markdown rendering. Imports nothing, uses no Node APIs.
 */

/** The LiveSession calls a table's `live:` entry says how the driver makes (mappings/README.md "Live drivers"). */
export const LIVE_CALLS = ["connect", "prompt", "answer", "cancel", "load", "resume", "mode", "model"] as const;
export type LiveCallName = (typeof LIVE_CALLS)[number];

/** A live agent that drives a surface (its table's `live:`): the program, the transport, and per call how, or why not. */
export interface LiveDriverEntry {
  agent: string;
  program: string;
  transport: string;
  calls: Record<LiveCallName, string | { none: string }>;
}

/** The compatibility matrix (agentnorm/compatibility.json): per surface, upstream methods mapped / ignored / missing and the canonical types each produces. */
export interface Compatibility {
  $comment: string;
  canonicalEventTypes: string[];
  surfaces: Record<string, {
    table: string;
    upstream: { package: string; version: string; dir?: string; reports?: string; extensions?: { name: string; package: string; version: string; dir: string }[]; versions?: { version: string; dir: string; reports?: string }[] };
    kinds: Record<string, {
      total: number | null; mapped: number; ignored: number; missing: number; patterns?: number;
      /** Methods the provider sends that its schema does not list, ignored by entries that say so (not in `total`). */
      unlisted?: number;
      /** Tables pinning several versions: the same counts at each pinned version. */
      versions?: Record<string, { total: number; mapped: number; ignored: number; missing: number }>;
      /** Kinds with a subtag: the subtypes (of every type) per pinned version, mapped / ignored / missing. */
      subtypes?: Record<string, { total: number; mapped: number; ignored: number; missing: number }>;
      methods: Record<string, { status: "mapped" | "ignored" | "missing"; rules?: string[]; events?: string[]; reason?: string; versions?: string[]; /** mapped, except the messages an ignore entry with `when` catches: its reason */ ignoredWhen?: string }>;
    }>;
    events: Record<string, string[]>;
    /** Surfaces with requests: what answerRequest answers (mappings/README.md "Answers"). */
    answers?: {
      /** The transports answers can go over (answerRequest's option), the first the default. */
      transports?: string[];
      /** Per request type: the reply decisions it can be answered with. */
      requestTypes: Record<string, string[]>;
      /** Per row that opens requests: the types it opens and, per type, the decisions it answers; or why it is not answered. */
      rows: Record<string, { requestTypes: string[]; /** the row's default transport */ transport?: string; decisions?: Record<string, string[]>; none?: string }>;
    };
    /** Surfaces a live driver (agentnorm/live) drives: the agents, from the table's `live:`. */
    live?: LiveDriverEntry[];
  }>;
  /**
   * The agent versions our recordings hold (the repository's fixtures/recorded): per agent and version, the sessions
   * recorded, their canonical events and runtime.warnings; per canonical event type, the sessions producing it.
   */
  recorded?: {
    manifest: string;
    agents: { key: string; agent: string; version: string; surface: string; sessions: number; events: number; warnings: number }[];
    events: Record<string, Record<string, number>>;
  };
}


/** The matrix as Markdown (`agentnorm matrix` prints it; the build writes it to dist/COMPATIBILITY.md). */
export function renderCompatibilityMarkdown(c: Compatibility): string {
  const surfaces = Object.keys(c.surfaces);
  const lines = [
    "<!-- Rendered from compatibility.json, which agentnorm codegen generates from mappings/*.yaml. DO NOT EDIT. -->",
    "# Compatibility matrix",
    "",
    "## Upstream coverage",
    "",
    "| surface | upstream | kind | upstream methods | mapped | ignored | missing | patterns |",
    "|---|---|---|---:|---:|---:|---:|---:|",
  ];
  for (const s of surfaces) {
    const sv = c.surfaces[s];
    for (const [k, kv] of Object.entries(sv.kinds)) {
      if (kv.versions) {
        // one line per pinned version: what the rows and ignore entries for that version account for
        for (const [ver, n] of Object.entries(kv.versions)) lines.push(`| ${s} | ${sv.upstream.package}@${ver} | ${k} | ${n.total} | ${n.mapped} | ${n.ignored} | ${n.missing} | ${kv.patterns ?? 0} |`);
        continue;
      }
      lines.push(`| ${s} | ${sv.upstream.package}@${sv.upstream.version}${(sv.upstream.extensions ?? []).map((x) => ` + ${x.package}@${x.version}`).join("")} | ${k} | ${kv.total ?? "—"} | ${kv.mapped} | ${kv.ignored} | ${kv.missing} | ${kv.patterns ?? 0} |`);
    }
  }
  const subtypeLines = surfaces.flatMap((s) => Object.entries(c.surfaces[s].kinds).flatMap(([k, kv]) =>
    Object.entries(kv.subtypes ?? {}).map(([ver, n]) => `| ${s} | ${c.surfaces[s].upstream.package}@${ver} | ${k} | ${n.total} | ${n.mapped} | ${n.ignored} | ${n.missing} |`)));
  if (subtypeLines.length) {
    lines.push("", "### Subtypes", "", "Kinds whose types have subtypes (`subtag`): every subtype of every type, per pinned version.", "",
      "| surface | upstream | kind | subtypes | mapped | ignored | missing |", "|---|---|---|---:|---:|---:|---:|", ...subtypeLines);
  }
  lines.push("", "## Canonical event type × surface", "", "Number of upstream methods that produce each canonical event type.", "");
  lines.push(`| canonical event | ${surfaces.join(" | ")} |`, `|---|${surfaces.map(() => "---:").join("|")}|`);
  for (const ty of c.canonicalEventTypes) {
    lines.push(`| \`${ty}\` | ${surfaces.map((s) => {
      const n = (c.surfaces[s].events[ty] ?? []).reduce((a, x) => a + x.split(":")[1].split("|").length, 0);
      return n ? String(n) : "—";
    }).join(" | ")} |`);
  }
  if (c.recorded) {
    const r = c.recorded;
    lines.push("", "## Recorded agent versions", "", `The agents our recorders drove offline (\`${r.manifest}\`): the sessions recorded, and the canonical events and \`runtime.warning\`s their normalized streams hold.`, "",
      "| agent | version | surface | sessions | events | runtime.warning |", "|---|---|---|---:|---:|---:|");
    for (const a of r.agents) lines.push(`| \`${a.agent}\` | ${a.version} | ${a.surface} | ${a.sessions} | ${a.events} | ${a.warnings} |`);
    lines.push("", "## Canonical event type × recorded agent version", "", "Number of recorded sessions of each agent version whose stream holds the canonical event type.", "",
      `| canonical event | ${r.agents.map((a) => a.key).join(" | ")} |`, `|---|${r.agents.map(() => "---:").join("|")}|`);
    for (const [ty, per] of Object.entries(r.events)) lines.push(`| \`${ty}\` | ${r.agents.map((a) => (per[a.key] ? String(per[a.key]) : "—")).join(" | ")} |`);
  }
  const answered = surfaces.filter((s) => c.surfaces[s].answers);
  if (answered.length) {
    lines.push("", "## Answers", "", "The reply decisions `answerRequest` answers, per surface and request type (rows whose requests are not answered through agentnorm say why).", "",
      "| surface | request type | decisions |", "|---|---|---|");
    for (const s of answered) {
      const a = c.surfaces[s].answers!;
      const via = a.transports?.length ? ` (${a.transports.join(" / ")})` : "";
      for (const [type, ds] of Object.entries(a.requestTypes)) lines.push(`| ${s}${via} | \`${type}\` | ${ds.map((d) => `\`${d}\``).join(", ")} |`);
      for (const [rule, rv] of Object.entries(a.rows)) if (rv.none !== undefined) lines.push(`| ${s} | ${rv.requestTypes.map((x) => `\`${x}\``).join(", ")} (\`${rule}\`) | not answered: ${rv.none.replace(/\|/g, "\\|")} |`);
    }
  }
  const live = surfaces.flatMap((s) => (c.surfaces[s].live ?? []).map((l) => ({ s, l })));
  if (live.length) {
    const cell = (x: string) => x.replace(/\|/g, "\\|").replace(/\n/g, " ").replace(/</g, "&lt;");
    const call = (x: string | { none: string }) => (typeof x === "string" ? cell(x) : `— (${cell(x.none)})`);
    lines.push("", "## Live drivers", "", "The agents `connect()` (agentnorm/live) runs, the surface that maps each, and how its driver makes each call (— : not supported, and why).", "",
      `| agent | surface | program | transport | ${LIVE_CALLS.join(" | ")} |`, `|---|---|---|---|${LIVE_CALLS.map(() => "---").join("|")}|`);
    for (const { s, l } of [...live].sort((a, b) => a.l.agent.localeCompare(b.l.agent))) {
      lines.push(`| \`${l.agent}\` | ${s} | ${cell(l.program)} | ${cell(l.transport)} | ${LIVE_CALLS.map((k) => call(l.calls[k])).join(" | ")} |`);
    }
  }
  for (const s of surfaces) {
    lines.push("", `## ${s}`, "");
    for (const [k, kv] of Object.entries(c.surfaces[s].kinds)) {
      lines.push(`### ${k}`, "", "| method | status | canonical events / reason |", "|---|---|---|");
      for (const [m, mv] of Object.entries(kv.methods)) {
        const only = kv.versions && mv.versions && mv.versions.length < Object.keys(kv.versions).length ? ` (${mv.versions.join(", ")} only)` : "";
        lines.push(`| \`${m}\` | ${mv.status}${only} | ${mv.status === "mapped" ? ((mv.events ?? []).map((e) => `\`${e}\``).join(", ") || "(dispatch)") + (mv.ignoredWhen ? `; some ignored: ${mv.ignoredWhen.replace(/\|/g, "\\|")}` : "") : (mv.reason ?? "").replace(/\|/g, "\\|")} |`);
      }
      lines.push("");
    }
  }
  return lines.join("\n").trimEnd() + "\n";
}
