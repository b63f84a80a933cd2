/**
 * The `live:` section of a table (generator/dsl.ts LiveAgentSpec): the live agents whose messages the surface maps,
 * and how each driver makes each LiveSession call. Checked here (E340–E342, with the DSL schema's help), compiled into
 * the compatibility matrix (`live` per surface, "Live drivers") and generated/live.gen.ts.
 */
import type { Diagnostic, SourcedYaml } from "./diagnostics.ts";
import { LIVE_CALLS, type LiveCallName, type LiveDriverEntry } from "../src/model/matrix.ts";

export { LIVE_CALLS };

import type { LiveIR } from "./ir.ts";
export type { LiveIR };

/**
 * The DSL schema's errors under `live[].calls`, as E340 (an unknown call) and E341 (a missing call); undefined for
 * any other error. `path` is the error's instance path, split.
 */
export function liveSchemaError(src: SourcedYaml, path: string[], keyword: string, params: any): Diagnostic | undefined {
  if (path.length !== 3 || path[0] !== "live" || path[2] !== "calls") return undefined;
  const where = `live[${path[1]}]`;
  if (keyword === "additionalProperties") {
    const name = String(params.additionalProperty);
    return src.diag([...path, name], "E340", `${where}: unknown call "${name}" (calls: ${LIVE_CALLS.join(", ")})`, true);
  }
  if (keyword === "required") {
    const name = String(params.missingProperty);
    return src.diag(path, "E341", `${where}: call "${name}" is missing (say how the driver makes it, or { none: REASON })`, true);
  }
  return undefined;
}

/** The message for a call that is neither a text nor `{ none: REASON }` (a failed anyOf at `live.N.calls.NAME`). */
export function liveCallShape(path: string[]): { code: string; message: string } | undefined {
  if (path.length !== 4 || path[0] !== "live" || path[2] !== "calls") return undefined;
  return { code: "E341", message: `live[${path[1]}]: call "${path[3]}" is a text (how the driver makes it) or { none: REASON } (a non-empty reason)` };
}

/** The table's `live:` entries (already valid against the DSL schema); an agent listed twice is E342. */
export function parseLive(src: SourcedYaml, v: any, ds: Diagnostic[]): LiveIR[] {
  const seen = new Map<string, number>();
  return (v.live ?? []).map((x: any, i: number) => {
    const line = src.pos(["live", i]).line;
    const prev = seen.get(x.agent);
    if (prev !== undefined) ds.push(src.diag(["live", i, "agent"], "E342", `live agent "${x.agent}" is already declared at line ${prev}`));
    else seen.set(x.agent, line);
    const calls = Object.fromEntries(LIVE_CALLS.map((c) => [c, typeof x.calls[c] === "string" ? x.calls[c] : { none: x.calls[c].none }])) as Record<LiveCallName, string | { none: string }>;
    return { agent: x.agent, program: x.program, transport: x.transport, calls, line };
  });
}

/** An agent declared by two tables: E342 at the second (tables in file order). */
export function checkLiveAcrossTables(tables: { file: string; surface: string; live?: LiveIR[] }[]): Diagnostic[] {
  const ds: Diagnostic[] = [];
  const seen = new Map<string, { file: string; line: number }>();
  for (const t of tables) {
    for (const l of t.live ?? []) {
      const prev = seen.get(l.agent);
      if (prev && prev.file !== t.file) ds.push({ file: t.file, line: l.line, col: 3, code: "E342", message: `live agent "${l.agent}" is already declared by ${prev.file}:${prev.line} (an agent drives one surface)` });
      else if (!prev) seen.set(l.agent, { file: t.file, line: l.line });
    }
  }
  return ds;
}

/**
 * generated/live.gen.ts: the declared live agents, by agent: their surface, program, transport and calls (no Node
 * imports; test/live-declared.test.ts holds them against src/live's drivers).
 */
export function emitLive(tables: { surface: string; live?: LiveIR[] }[], hdr: string): string {
  const byAgent = tables
    .flatMap((t) => (t.live ?? []).map(({ line: _line, agent, ...l }) => [agent, { agent, surface: t.surface, ...l }] as const))
    .sort(([a], [b]) => a.localeCompare(b));
  return `${hdr}

/** The live calls a table declares for each agent (mappings/README.md "Live drivers"). */
export const LIVE_CALL_NAMES = ${JSON.stringify(LIVE_CALLS)} as const;
export type LiveCallName = (typeof LIVE_CALL_NAMES)[number];

/** How a driver makes a call: a short text, or { none: REASON } when it does not support it. */
export type DeclaredCall = string | { readonly none: string };

export interface DeclaredLiveAgent {
  readonly agent: string;
  /** The surface whose table maps the agent's messages (the table that declares it). */
  readonly surface: string;
  readonly program: string;
  readonly transport: string;
  readonly calls: Readonly<Record<LiveCallName, DeclaredCall>>;
}

/** The live agents the tables declare (\`live:\`), by agent name. */
export const LIVE_DECLARED: Readonly<Record<string, DeclaredLiveAgent>> = ${JSON.stringify(Object.fromEntries(byAgent), null, 2)};

/** The declared agents' names, sorted. */
export const LIVE_DECLARED_AGENTS: readonly string[] = ${JSON.stringify(byAgent.map(([a]) => a))};
`;
}
