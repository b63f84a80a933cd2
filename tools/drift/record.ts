/**
 * `npm run drift -- --record`: drift by recording. Installs the newest published version of every agent we drive,
 * records scenarios with the recorders (fixtures/record/, `npm run record`: against the scripted model server, in a
 * loopback-only network namespace), normalizes every recorded file with its surface and reports, per agent and
 * form (stream, wire, transcript, rollout, history), what the tables do not account for (tools/drift/analyze.ts):
 * unknown kinds the normalizer warns about, validation errors, types the pinned schema files do not list, and fields
 * and values the pinned schemas do not declare — each named with the subtype it is on.
 *
 * New is what the newest version's recordings show and the committed recordings of the pinned version
 * (fixtures/recorded/, same recorder) do not: the pinned schemas do not declare everything the pinned agents send
 * (Claude Code's internal transcript and wire fields, for one), and what was already there when the tables were
 * written is not drift. Those are counted as "also in the pinned recordings".
 *
 * Versions: per recorder, each package the drift check follows (tools/drift/packages.ts) moves to its newest
 * version; when recorders pin one package at different lines (Claude Agent SDK 0.2.62 and 0.3.333) each stays on
 * its line, the highest line following `latest`; a package named `<base>-<platform>` pinned at its base's version
 * (the native Claude Code CLI) follows its base; helpers (zod, the MCP SDK) stay pinned. Recorders that come out
 * the same (same surface, same versions: claude-sdk-333 and a claude-sdk-337) are recorded once. The versions reach
 * the recorders through AGENTNORM_RECORD_VERSIONS (fixtures/record/load-recorders.ts); nothing is copied.
 *
 * Not part of CI: it needs the registry for the installs, and takes minutes.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { analyzeFile, formOf, type FieldTally, type FileAnalysis, type Tally } from "./analyze.ts";
import { EXIT, defaultCache } from "./drift.ts";
import { readTableUpstream } from "./inventory.ts";
import { PACKAGES } from "./packages.ts";
import { lineOf, newestVersion, npmRegistry, successorIn, compareVersions, type Registry } from "./registry.ts";

export interface RecorderInfo { name: string; surface: string; folder?: string; packages: string[] }
export interface ScenarioInfo { name: string; agents: string[] }

/**
 * The scenarios recorded by default (each agent: those of them it supports): what every agent does (a plain answer,
 * a shell command, an edit, an approval, two turns, a failing tool, a model error, an interrupt, a question) plus
 * Claude Code's background work, subagent, elicitation, compaction and broken stream. `--all-scenarios`: every one.
 */
export const DEFAULT_SCENARIOS = ["plain", "shell", "edit", "approval", "two-turn", "failing-tool", "model-error", "interrupt", "question", "background-bash", "background-agent", "elicitation", "compact", "stream-error"];

export interface PlannedPackage {
  name: string;
  pinned: string;
  /** The version recorded. */
  version: string;
  /** The line it was kept on (several recorders pin the package at different lines). */
  line?: string;
  /** Why it was not moved: a helper, or a platform package following its base. */
  why?: string;
}

export interface AgentPlan {
  recorder: string;
  surface: string;
  packages: PlannedPackage[];
  scenarios: string[];
  /** Not recorded: another recorder comes out the same. */
  skip?: string;
  /** npm's deprecation notice of an agent package, and the successor it or packages.ts names. */
  notices: string[];
}

const FOLLOWED = new Set(PACKAGES.map((s) => s.name));
const KNOWN_SUCCESSORS = new Map(PACKAGES.filter((s) => s.successors?.length).map((s) => [s.name, s.successors!]));

function splitSpec(spec: string): [string, string] {
  const at = spec.lastIndexOf("@");
  return at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, ""];
}

export function planRecord(recorders: RecorderInfo[], scenarios: ScenarioInfo[], registry: Registry, opts: { agents?: string[]; scenarios?: string[]; all?: boolean } = {}): AgentPlan[] {
  // the lines each followed package is pinned at, over all recorders
  const lines = new Map<string, Set<string>>();
  for (const r of recorders) for (const p of r.packages) {
    const [name, v] = splitSpec(p);
    if (FOLLOWED.has(name)) lines.set(name, (lines.get(name) ?? new Set()).add(lineOf(v)));
  }
  const wanted = opts.scenarios?.length ? opts.scenarios : opts.all ? undefined : DEFAULT_SCENARIOS;
  const plans: AgentPlan[] = [];
  for (const r of recorders.filter((x) => !opts.agents?.length || opts.agents.includes(x.name))) {
    const specs = r.packages.map(splitSpec);
    const chosen = new Map<string, PlannedPackage>();
    const notices: string[] = [];
    // bases before the platform packages that follow them
    const order = [...specs].sort(([a], [b]) => a.length - b.length);
    for (const [name, pinned] of order) {
      const base = order.find(([b, bv]) => b !== name && name.startsWith(`${b}-`) && bv === pinned && chosen.has(b));
      if (base) {
        chosen.set(name, { name, pinned, version: chosen.get(base[0])!.version, why: `follows ${base[0]}` });
        continue;
      }
      if (!FOLLOWED.has(name)) {
        chosen.set(name, { name, pinned, version: pinned, why: "a helper of the recorder: kept pinned" });
        continue;
      }
      const ls = [...(lines.get(name) ?? [])].sort(compareVersions);
      const line = ls.length > 1 && lineOf(pinned) !== ls.at(-1) ? lineOf(pinned) : undefined;
      const meta = registry.meta(name);
      const version = newestVersion(meta, line);
      if (!version) throw new Error(`${name} has no published version${line ? ` of the ${line} line` : ""}`);
      chosen.set(name, { name, pinned, version, ...(line ? { line } : {}) });
      const successor = successorIn(meta.deprecated, name);
      if (meta.deprecated) notices.push(`${name} is deprecated: ${meta.deprecated}`);
      for (const s of [...(successor ? [successor] : []), ...(KNOWN_SUCCESSORS.get(name) ?? [])]) {
        let newest: string | undefined;
        try { newest = newestVersion(registry.meta(s)); } catch { continue; }
        const recorded = recorders.some((x) => x.packages.some((p) => splitSpec(p)[0] === s));
        notices.push(`${name} is replaced by ${s} ${newest ?? ""} (${s === successor ? "its deprecation notice" : "a known successor"})${recorded ? ", which a recorder records too" : ": NO recorder records it"}`);
        break;
      }
    }
    const mine = scenarios.filter((s) => s.agents.includes(r.name) && (!wanted || wanted.includes(s.name))).map((s) => s.name);
    plans.push({ recorder: r.name, surface: r.surface, packages: specs.map(([n]) => chosen.get(n)!), scenarios: mine, notices });
  }
  // recorders that come out the same: the one pinned newest records
  const key = (p: AgentPlan) => `${p.surface} ${p.packages.map((x) => `${x.name}@${x.version}`).sort().join(" ")}`;
  const pinnedOf = (p: AgentPlan) => p.packages.find((x) => FOLLOWED.has(x.name) && !x.why)?.pinned ?? "0";
  for (const p of plans) {
    const same = plans.filter((q) => key(q) === key(p));
    const keep = same.sort((a, b) => compareVersions(pinnedOf(b), pinnedOf(a)))[0];
    if (keep !== p) p.skip = `records the same versions as ${keep.recorder}`;
  }
  return plans;
}

/** The versions of a plan as AGENTNORM_RECORD_VERSIONS wants them. */
export const overridesOf = (p: AgentPlan) => ({ [p.recorder]: Object.fromEntries(p.packages.filter((x) => x.version !== x.pinned).map((x) => [x.name, x.version])) });

export interface FormReport {
  form: string;
  surface: string;
  schemaDir: string;
  files: number;
  lines: number;
  /** Messages compared with a member of the pinned schema. */
  checked: number;
  unchecked: Record<string, number>;
  unknown: Tally[];
  invalid: Tally[];
  notInSchema: Tally[];
  fields: FieldTally[];
  values: FieldTally[];
  /** Findings the committed recordings of the pinned version show too (not new). */
  alsoPinned: number;
}

export interface AgentReport {
  recorder: string;
  surface: string;
  packages: PlannedPackage[];
  /** What the agent reported about itself (the manifest's agentVersion). */
  agentVersion?: string;
  scenarios: string[];
  recorded: string[];
  failed: string[];
  skip?: string;
  notices: string[];
  /** The committed recordings the findings were compared with. */
  baseline: string[];
  forms: FormReport[];
  seconds: number;
  /** Unaccounted: anything new in a form, a form no surface reads, or a successor no recorder records. */
  unaccounted: boolean;
}

export interface RecordReport { agents: AgentReport[]; unaccounted: boolean; exitCode: number; minutes: number }

interface ManifestEntry { agent: string; scenario: string; surface: string; packages: string[]; agentVersion?: string; files: { file: string; lines: number }[] }

const readManifest = (file: string): ManifestEntry[] => (existsSync(file) ? JSON.parse(readFileSync(file, "utf8")).recordings ?? [] : []);

/** `<dir>/<scenario><suffix>.ndjson` → suffix. */
const suffixOf = (file: string, scenario: string) => basename(file).slice(scenario.length).replace(/\.ndjson$/, "");

/** The pinned schema folder for a surface recorded with these packages: the table's version of the same line. */
function schemaDirFor(root: string, surface: string, packages: { name: string; version: string }[]): string {
  const t = readTableUpstream(root, surface);
  const p = packages.find((x) => x.name === t.package);
  if (!p) return t.dir;
  return t.versions.find((v) => lineOf(v.version) === lineOf(p.version))?.dir ?? t.dir;
}

type Keyed = { form: string; a: FileAnalysis };

function analyzeEntries(root: string, entries: ManifestEntry[], surface: string, packages: { name: string; version: string }[], log: (m: string) => void): Keyed[] {
  const out: Keyed[] = [];
  for (const e of entries) for (const f of e.files) {
    const suffix = suffixOf(f.file, e.scenario);
    const fo = formOf(suffix, surface);
    const file = join(root, f.file);
    if (!fo) {
      out.push({ form: `unknown form "${suffix}"`, a: { surface: "?", schemaDir: "?", lines: f.lines, checked: 0, unchecked: { "no surface known for this form (tools/drift/analyze.ts FORMS)": f.lines }, unknown: [], invalid: [], notInSchema: [], shapes: [] } });
      continue;
    }
    try {
      out.push({ form: fo.form, a: analyzeFile(root, file, fo.surface, { schemaDir: schemaDirFor(root, fo.surface, packages), label: `${e.scenario}${suffix}` }) });
    } catch (err) {
      log(`${e.agent}/${e.scenario}${suffix}: could not analyze: ${(err as Error).message.split("\n")[0]}`);
      out.push({ form: fo.form, a: { surface: fo.surface, schemaDir: "?", lines: f.lines, checked: 0, unchecked: { [`could not analyze: ${(err as Error).message.split("\n")[0]}`]: f.lines }, unknown: [], invalid: [], notInSchema: [], shapes: [] } });
    }
  }
  return out;
}

/** Merge the analyses of one form; leave out what `known` (the pinned recordings' keys of the form) has. */
function mergeForm(form: string, list: FileAnalysis[], known: Set<string> | undefined): FormReport {
  const r: FormReport = { form, surface: list[0].surface, schemaDir: list[0].schemaDir, files: list.length, lines: 0, checked: 0, unchecked: {}, unknown: [], invalid: [], notInSchema: [], fields: [], values: [], alsoPinned: 0 };
  const add = <T extends Tally>(into: T[], t: T) => {
    if (known?.has(t.key)) { r.alsoPinned++; return; }
    const x = into.find((y) => y.key === t.key);
    if (!x) into.push({ ...t, files: [...t.files] });
    else { x.count += t.count; for (const f of t.files) if (!x.files.includes(f)) x.files.push(f); }
  };
  for (const a of list) {
    r.lines += a.lines;
    r.checked += a.checked;
    for (const [k, v] of Object.entries(a.unchecked)) r.unchecked[k] = (r.unchecked[k] ?? 0) + v;
    for (const t of a.unknown) add(r.unknown, t);
    for (const t of a.invalid) add(r.invalid, t);
    for (const t of a.notInSchema) add(r.notInSchema, t);
    for (const t of a.shapes) add(t.what === "field" ? r.fields : r.values, t);
  }
  return r;
}

const keysOf = (a: FileAnalysis) => [...a.unknown, ...a.invalid, ...a.notInSchema, ...a.shapes].map((t) => t.key);

/**
 * The report for one agent: the files `outManifest` lists for it, compared with the committed recordings of the same
 * recorder (`committedManifest`, paths relative to `root`).
 */
export function analyzeAgent(root: string, plan: AgentPlan, outManifest: string, committedManifest: string, log: (m: string) => void, seconds = 0): AgentReport {
  const fresh = readManifest(outManifest).filter((e) => e.agent === plan.recorder);
  const pinnedEntries = readManifest(committedManifest).filter((e) => e.agent === plan.recorder);
  const now = plan.packages.map((p) => ({ name: p.name, version: p.version }));
  const then = plan.packages.map((p) => ({ name: p.name, version: p.pinned }));
  const baseline = new Map<string, Set<string>>();
  for (const k of analyzeEntries(root, pinnedEntries, plan.surface, then, log)) {
    const s = baseline.get(k.form) ?? new Set<string>();
    for (const key of keysOf(k.a)) s.add(key);
    baseline.set(k.form, s);
  }
  const byForm = new Map<string, FileAnalysis[]>();
  for (const k of analyzeEntries(root, fresh, plan.surface, now, log)) byForm.set(k.form, [...(byForm.get(k.form) ?? []), k.a]);
  const forms = [...byForm].map(([form, list]) => mergeForm(form, list, baseline.get(form)));
  const recorded = fresh.map((e) => e.scenario);
  const failed = plan.scenarios.filter((s) => !recorded.includes(s));
  const unaccounted = forms.some((f) => f.unknown.length || f.invalid.length || f.notInSchema.length || f.fields.length || f.values.length || Object.keys(f.unchecked).some((k) => k.startsWith("no surface") || k.startsWith("could not analyze")))
    || plan.notices.some((n) => n.includes("NO recorder"));
  return {
    recorder: plan.recorder, surface: plan.surface, packages: plan.packages, agentVersion: fresh.find((e) => e.agentVersion)?.agentVersion,
    scenarios: plan.scenarios, recorded, failed, notices: plan.notices, baseline: pinnedEntries.map((e) => e.scenario), forms, seconds, unaccounted,
  };
}

export type RunRecorder = (plan: AgentPlan, outDir: string, log: (m: string) => void) => Promise<number>;

/** Runs `npm run record` for one plan (the recorder alone, its scenarios, the plan's versions), into `outDir`. */
export function spawnRecorder(root: string, keep: boolean): RunRecorder {
  return (plan, outDir, log) => new Promise((resolve, reject) => {
    const args = ["--import", "tsx", join(root, "fixtures/record/record.ts"), "--agent", plan.recorder, "--exact", "--scenario", plan.scenarios.join(","), ...(keep ? ["--keep"] : [])];
    log(`${plan.recorder}: npm run record -- ${args.slice(3).join(" ")} (${plan.packages.filter((p) => p.version !== p.pinned).map((p) => `${p.name}@${p.version}`).join(", ") || "the pinned versions"})`);
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, AGENTNORM_RECORD_OUT: outDir, AGENTNORM_RECORD_VERSIONS: JSON.stringify(overridesOf(plan)) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout.on("data", (d) => process.stderr.write(d)); // progress only: the report is ours
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
}

export interface RecordOptions {
  root: string;
  agents?: string[];
  scenarios?: string[];
  all?: boolean;
  keep?: boolean;
  registry?: Registry;
  recorders?: RecorderInfo[];
  scenarioList?: ScenarioInfo[];
  run?: RunRecorder;
  /** The committed recordings (default: fixtures/recorded/manifest.json). */
  committedManifest?: string;
  log?: (m: string) => void;
}

export async function runRecord(opts: RecordOptions): Promise<RecordReport> {
  const t0 = Date.now();
  const log = opts.log ?? ((m: string) => process.stderr.write(`drift --record: ${m}\n`));
  const recorders = opts.recorders ?? (await (await import("../../fixtures/record/load-recorders.ts")).loadRecorders({}));
  const scenarioList = opts.scenarioList ?? (await import("../../fixtures/record/scenario.ts")).loadScenarios();
  const registry = opts.registry ?? npmRegistry(join(defaultCache(), "registry.json"));
  const plans = planRecord(recorders, scenarioList, registry, opts);
  const run = opts.run ?? spawnRecorder(opts.root, !!opts.keep);
  const committed = opts.committedManifest ?? join(opts.root, "fixtures/recorded/manifest.json");
  const out = mkdtempSync(join(tmpdir(), "agentnorm-drift-record-"));
  const agents: AgentReport[] = [];
  try {
    for (const p of plans) {
      if (p.skip) {
        agents.push({ recorder: p.recorder, surface: p.surface, packages: p.packages, scenarios: p.scenarios, recorded: [], failed: [], skip: p.skip, notices: p.notices, baseline: [], forms: [], seconds: 0, unaccounted: false });
        continue;
      }
      if (!p.scenarios.length) {
        agents.push({ recorder: p.recorder, surface: p.surface, packages: p.packages, scenarios: [], recorded: [], failed: [], skip: "no scenario chosen supports it", notices: p.notices, baseline: [], forms: [], seconds: 0, unaccounted: false });
        continue;
      }
      const dir = join(out, p.recorder);
      mkdirSync(dir, { recursive: true });
      const t = Date.now();
      let code: number;
      try {
        code = await run(p, dir, log);
      } catch (e) {
        log(`${p.recorder}: ${(e as Error).message.split("\n")[0]}`);
        code = 1;
      }
      const seconds = Math.round((Date.now() - t) / 1000);
      if (code !== 0) log(`${p.recorder}: the recorder exited ${code}`);
      log(`${p.recorder}: recorded in ${seconds} s; normalizing and comparing …`);
      const a = analyzeAgent(opts.root, p, join(dir, "manifest.json"), committed, log, seconds);
      if (a.failed.length) log(`${p.recorder}: not recorded: ${a.failed.join(", ")} (see the recorder's output above)`);
      agents.push(a);
    }
  } finally {
    if (!opts.keep) rmSync(out, { recursive: true, force: true });
    else log(`recordings kept in ${out}`);
  }
  const unaccounted = agents.some((a) => a.unaccounted);
  const failed = agents.some((a) => a.failed.length);
  const exitCode = unaccounted ? EXIT.drift : failed ? EXIT.unchecked : EXIT.ok;
  return { agents, unaccounted, exitCode, minutes: Math.round((Date.now() - t0) / 600) / 100 };
}

const LIMIT = 30;

function tallyLine(t: Tally): string {
  return `${t.kind} ${t.method} ×${t.count} (${t.files.slice(0, 4).join(", ")}${t.files.length > 4 ? ", …" : ""})`;
}

export function formatRecordReport(rep: RecordReport): string {
  const out: string[] = [];
  for (const a of rep.agents) {
    const moved = a.packages.filter((p) => !p.why);
    out.push(`${a.recorder} (${a.surface}): ${moved.map((p) => `${p.name} ${p.pinned === p.version ? `${p.version} (= pinned)` : `${p.pinned} → ${p.version}`}${p.line ? ` [${p.line} line]` : ""}`).join(", ")}${a.agentVersion ? `; reports ${a.agentVersion}` : ""}`);
    for (const n of a.notices) out.push(`  ${n}`);
    if (a.skip) { out.push(`  not recorded: ${a.skip}`); continue; }
    out.push(`  scenarios: ${a.recorded.length}/${a.scenarios.length} recorded in ${a.seconds} s (${a.scenarios.join(", ")})${a.failed.length ? `; FAILED: ${a.failed.join(", ")}` : ""}`);
    if (!a.baseline.length) out.push("  no committed recordings of this recorder: everything the pinned schemas lack is reported");
    for (const f of a.forms) {
      const news = f.unknown.length + f.invalid.length + f.notInSchema.length + f.fields.length + f.values.length;
      const odd = Object.entries(f.unchecked).filter(([k]) => k.startsWith("no surface") || k.startsWith("could not analyze"));
      out.push(`  ${f.form} (${f.surface}, ${f.files} file(s), ${f.lines} lines, ${f.checked} messages compared with ${f.schemaDir}): ${news || odd.length ? "NOT ACCOUNTED FOR:" : "everything accounted for"}${f.alsoPinned ? ` [${f.alsoPinned} finding(s) also in the pinned recordings, not new]` : ""}`);
      for (const [k, v] of odd) out.push(`    ${k}: ${v} lines`);
      for (const t of f.unknown.slice(0, LIMIT)) out.push(`    unknown to the table: ${tallyLine(t)} — "${t.example}"`);
      for (const t of f.invalid.slice(0, LIMIT)) out.push(`    validation error: ${t.example} ×${t.count}`);
      for (const t of f.notInSchema.slice(0, LIMIT)) out.push(`    not in the pinned schema: ${tallyLine(t)}`);
      const shape = (t: FieldTally) => `${t.kind} ${t.method}${t.where.length ? ` (${t.where.map((w) => w.replace(/ = "([^"]*)"/, " $1")).join(", ")})` : ""}: ${t.what === "value" ? `${t.path} = ${JSON.stringify(t.value)}` : t.path} ×${t.count}`;
      for (const t of f.fields.slice(0, LIMIT)) out.push(`    new field: ${shape(t)}`);
      for (const t of f.values.slice(0, LIMIT)) out.push(`    new value: ${shape(t)}`);
      const more = Math.max(0, f.unknown.length - LIMIT) + Math.max(0, f.fields.length - LIMIT) + Math.max(0, f.values.length - LIMIT) + Math.max(0, f.notInSchema.length - LIMIT);
      if (more) out.push(`    … ${more} more (--json lists all)`);
    }
  }
  out.push(`${rep.agents.filter((a) => !a.skip).length} agent(s) recorded in ${rep.minutes} min`);
  out.push(rep.exitCode === EXIT.ok ? "unaccounted for: nothing" : rep.exitCode === EXIT.unchecked ? "unaccounted for: nothing found, but some recordings failed" : "unaccounted for: yes");
  return out.join("\n") + "\n";
}

export async function recordMain(root: string, args: string[], usage: string): Promise<number> {
  const opts: RecordOptions = { root };
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--json") json = true;
    else if (a === "--all-scenarios") opts.all = true;
    else if (a === "--keep") opts.keep = true;
    else if (a === "--agent" || a === "--scenario") {
      const v = args[++i];
      if (!v) {
        process.stderr.write(`drift: ${a} needs a value\n${usage}\n`);
        return EXIT.usage;
      }
      (a === "--agent" ? (opts.agents ??= []) : (opts.scenarios ??= [])).push(...v.split(",").filter(Boolean));
    } else {
      process.stderr.write(`drift: ${a === "--offline" || a === "--from" || a === "--package" ? `${a} is not an option of --record` : `unknown option ${a}`}\n${usage}\n`);
      return EXIT.usage;
    }
  }
  const recorders = await (await import("../../fixtures/record/load-recorders.ts")).loadRecorders({});
  const scenarioList = (await import("../../fixtures/record/scenario.ts")).loadScenarios();
  const badAgents = (opts.agents ?? []).filter((a) => !recorders.some((r) => r.name === a));
  if (badAgents.length) {
    process.stderr.write(`drift: unknown agent ${badAgents.join(", ")} (recorders: ${recorders.map((r) => r.name).join(", ")})\n`);
    return EXIT.usage;
  }
  const badScenarios = (opts.scenarios ?? []).filter((s) => !scenarioList.some((x) => x.name === s));
  if (badScenarios.length) {
    process.stderr.write(`drift: unknown scenario ${badScenarios.join(", ")} (scenarios: ${scenarioList.map((s) => s.name).join(", ")})\n`);
    return EXIT.usage;
  }
  const rep = await runRecord({ ...opts, recorders, scenarioList });
  process.stdout.write(json ? JSON.stringify(rep, null, 2) + "\n" : formatRecordReport(rep));
  return rep.exitCode;
}
