/**
 * `npm run drift [-- options]`: is any upstream package newer than the tables account for?
 *
 * Static check (the default). For each followed package (tools/drift/packages.ts: every package a table pins or a
 * recorder drives; the Claude Agent SDK once per line the tables pin, 0.2 and the newest) it finds the newest
 * published version of its line (`npm view`, tools/drift/registry.ts), installs it into a cache outside the
 * repository (`~/.cache/agentnorm-drift/<package>@<version>/`, or `$AGENTNORM_DRIFT_CACHE`; `npm install
 * --ignore-scripts`, with `npm view` the only steps that use the network), re-derives the surfaces' files from it
 * offline, and compares them with the tables (tools/drift/inventory.ts): methods/types the tables neither map nor
 * ignore, and fields/subtypes the pinned schemas do not declare, each named with the variant (subtype) it is on.
 * Where the pinned folder is written by hand, the pinned version is derived too and is what the newer one is
 * compared with, so the pinned version against itself gives nothing. Packages no inventory can be derived from are
 * followed by version (and, for agents, the ACP / Claude SDK they depend on); a package renamed (npm's deprecation
 * notice, or a known successor) whose successor nothing follows is drift.
 *
 * Record mode (`--record`, tools/drift/record.ts): installs the newest version of every agent we drive, records
 * scenarios with the recorders against the scripted model server, and reports what the tables do not account for
 * in every recorded form. See docs/upstream-versions.md.
 *
 * Options:
 *   --offline          no registry: the newest version as last fetched (the cache's registry.json), the installs
 *                      already in the cache
 *   --from DIR         check the packages installed in DIR (DIR/node_modules/<name>/), or DIR itself when it is one
 *                      package's folder; no registry, no cache
 *   --package NAME     only this package (repeatable; `NAME@0.2` for one line of it)
 *   --json             the report as JSON
 *   --record           the record mode (options of its own: --agent, --scenario, --all-scenarios, --keep)
 * Progress goes to stderr, the report to stdout. Exit: 0 no drift, 1 drift, 2 usage error, 3 could not check
 * (no network, a failed install or derivation) and no drift found in what could be checked.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { atVersion, compareSurface, readTableUpstream, type SurfaceDrift } from "./inventory.ts";
import { PACKAGES, UNCHECKABLE, specId, type Derived, type PackageSpec } from "./packages.ts";
import { cachedRegistry, compareVersions, lineOf, newestVersion, npmRegistry, successorIn, type Registry } from "./registry.ts";

export { compareVersions };
export const EXIT = { ok: 0, drift: 1, usage: 2, unchecked: 3 } as const;

export interface PackageReport {
  package: string;
  /** The package, with its line when the spec follows one (`@anthropic-ai/claude-agent-sdk@0.2`). */
  id: string;
  line?: string;
  pinned: string;
  /** Who pins it: the tables (upstream.version / versions), the recorders, or the spec itself. */
  pinnedBy: "tables" | "recorders" | "spec";
  checked?: string;
  status: "current" | "drift" | "version-only" | "unchecked";
  /** --from: the folder does not hold it (or holds another line of it): not a failure. */
  absent?: boolean;
  /** Why it could not be checked, or what a version-only check means. */
  reason?: string;
  note?: string;
  /** When the checked version was published. */
  released?: string;
  /** npm's deprecation notice. */
  deprecated?: string;
  /** The package that replaces it, and whether anything follows that one. */
  renamed?: { successor: string; how: "deprecation notice" | "known successor"; newest?: string; followed: boolean };
  /** The checked version's dependencies the spec names (its ACP SDK, its Claude Agent SDK). */
  dependencies?: Record<string, string>;
  /** The Claude Code the checked version bundles (its package.json's claudeCodeVersion). */
  claudeCode?: string;
  surfaces: (SurfaceDrift & { note?: string })[];
}

export interface Report {
  /** Where versions came from: the registry, its cached answers (--offline), or a folder (--from). */
  source: string;
  packages: PackageReport[];
  uncheckable: typeof UNCHECKABLE;
  drift: boolean;
  exitCode: number;
}

/** An installed package: its folder and the folder whose node_modules/ holds it. */
export interface Installed { pkgDir: string; installDir: string }

export interface Options {
  root: string;
  offline?: boolean;
  from?: string;
  /** Package names or spec ids (`name@0.2`). */
  packages?: string[];
  cache?: string;
  log?: (msg: string) => void;
  specs?: PackageSpec[];
  /** Package metadata (default: npm, or the cache's registry.json with --offline). */
  registry?: Registry;
  /** The versions the recorders pin, by package (default: read from fixtures/record/recorders/). */
  pins?: Map<string, string[]>;
  /** Where `name@version` is installed (the baseline of a hand-written pinned folder); default: the repository's devDependencies, then the cache. */
  locate?: (name: string, version: string) => Installed | undefined;
  /** Install a missing baseline into the cache (default: when the registry is used). */
  installBaseline?: boolean;
}

const cacheName = (name: string, version: string) => `${name.replace(/\//g, "+")}@${version}`;
export const defaultCache = () => process.env.AGENTNORM_DRIFT_CACHE ?? join(homedir(), ".cache", "agentnorm-drift");

function installCached(cache: string, spec: PackageSpec, version: string, log: (m: string) => void): string {
  const dir = join(cache, cacheName(spec.name, version));
  const stamp = join(dir, ".installed");
  if (existsSync(stamp)) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "agentnorm-drift", private: true }));
  log(`installing ${spec.name}@${version} into ${dir} …`);
  execFileSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", ...(spec.installFlags ?? []), `${spec.name}@${version}`], { cwd: dir, stdio: ["ignore", "ignore", "pipe"], timeout: 600_000 });
  writeFileSync(stamp, new Date().toISOString());
  return dir;
}

/** The newest version of `name` (of `line`) already installed in the cache. */
function newestCached(cache: string, name: string, line?: string): string | undefined {
  if (!existsSync(cache)) return undefined;
  const prefix = `${name.replace(/\//g, "+")}@`;
  const versions = readdirSync(cache)
    .filter((d) => d.startsWith(prefix) && existsSync(join(cache, d, ".installed")))
    .map((d) => d.slice(prefix.length))
    .filter((v) => !line || lineOf(v) === line);
  return versions.sort(compareVersions).pop();
}

/** `name@version` in the repository's node_modules (itself, or a devDependency alias `npm:name@version`), else in the cache. */
export function locateInstalled(root: string, cache: string, name: string, version: string): Installed | undefined {
  const nm = join(root, "node_modules");
  let aliases: string[] = [];
  try {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
    aliases = Object.entries<string>({ ...pkg.devDependencies, ...pkg.dependencies }).filter(([, v]) => typeof v === "string" && v.startsWith(`npm:${name}@`)).map(([k]) => k);
  } catch { /* no package.json */ }
  for (const dir of [join(nm, name), ...aliases.map((a) => join(nm, a))]) {
    try {
      const p = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      if (p.name === name && p.version === version) return { pkgDir: dir, installDir: root };
    } catch { /* not there */ }
  }
  const dir = join(cache, cacheName(name, version));
  if (existsSync(join(dir, ".installed"))) return { pkgDir: join(dir, "node_modules", name), installDir: dir };
  return undefined;
}

/** Where `name` is in a --from folder: DIR/node_modules/<name>, or DIR itself when its package.json names it. */
function fromDir(dir: string, name: string): Installed | undefined {
  const nested = join(dir, "node_modules", name);
  if (existsSync(join(nested, "package.json"))) return { pkgDir: nested, installDir: dir };
  const own = join(dir, "package.json");
  if (existsSync(own)) {
    try {
      if (JSON.parse(readFileSync(own, "utf8")).name === name) {
        // …/node_modules/<name> → the folder above node_modules holds its siblings (platform packages)
        const parts = name.split("/").length;
        let up = dir;
        for (let i = 0; i < parts; i++) up = dirname(up);
        return { pkgDir: dir, installDir: up.endsWith("node_modules") ? dirname(up) : dir };
      }
    } catch { /* not a package folder */ }
  }
  return undefined;
}

/** The versions the recorders (fixtures/record/recorders/*.ts) pin, by package name. */
export async function recorderPins(): Promise<Map<string, string[]>> {
  const { loadRecorders, splitSpec } = await import("../../fixtures/record/load-recorders.ts");
  const out = new Map<string, string[]>();
  for (const r of await loadRecorders({})) {
    for (const p of r.packages) {
      const [name, version] = splitSpec(p);
      const vs = out.get(name) ?? [];
      if (!vs.includes(version)) vs.push(version);
      out.set(name, vs);
    }
  }
  return out;
}

/** The version a spec is pinned at, and by whom ("none" when nothing pins it). */
export function pinnedOf(root: string, spec: PackageSpec, pins: Map<string, string[]>): { version: string; by: PackageReport["pinnedBy"] } {
  if (spec.pinned === "recorders") {
    const vs = (pins.get(spec.name) ?? []).filter((v) => !spec.line || lineOf(v) === spec.line).sort(compareVersions);
    return { version: vs.at(-1) ?? "none", by: "recorders" };
  }
  if (spec.pinned) return { version: spec.pinned, by: "spec" };
  const t = readTableUpstream(root, spec.surfaces[0]);
  if (!spec.line) return { version: t.version, by: "tables" };
  return { version: t.versions.find((v) => lineOf(v.version) === spec.line)?.version ?? "none", by: "tables" };
}

const errorLine = (e: unknown) => {
  const err = e as Error & { stderr?: Buffer | string };
  const detail = err.stderr ? String(err.stderr).trim().split("\n").slice(-3).join(" / ") : "";
  return `${String(err?.message ?? err).split("\n")[0]}${detail ? ` (${detail})` : ""}`;
};

export async function runDrift(opts: Options): Promise<Report> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`drift: ${m}\n`));
  const cache = opts.cache ?? defaultCache();
  const registryFile = join(cache, "registry.json");
  const registry = opts.from ? undefined : opts.registry ?? (opts.offline ? cachedRegistry(registryFile) : npmRegistry(registryFile));
  const all = opts.specs ?? PACKAGES;
  let pins = opts.pins;
  if (!pins) {
    try {
      pins = await recorderPins();
    } catch (e) {
      log(`could not read the recorders' pinned packages: ${errorLine(e)}`);
      pins = new Map();
    }
  }
  const pinOf = new Map(all.map((s) => [s, pinnedOf(opts.root, s, pins!)]));
  const specs = all.filter((s) => !opts.packages?.length || opts.packages.includes(s.name) || opts.packages.includes(specId(s)));
  const locate = opts.locate ?? ((name: string, version: string) => locateInstalled(opts.root, cache, name, version));
  const mayInstall = opts.installBaseline ?? (!opts.offline && !opts.from);
  const reports: PackageReport[] = [];
  for (const spec of specs) {
    const { version: pinned, by } = pinOf.get(spec)!;
    const r: PackageReport = { package: spec.name, id: specId(spec), ...(spec.line ? { line: spec.line } : {}), pinned, pinnedBy: by, status: "unchecked", note: spec.note, surfaces: [] };
    reports.push(r);
    let where: Installed | undefined;
    try {
      if (opts.from) {
        where = fromDir(opts.from, spec.name);
        const version = where && JSON.parse(readFileSync(join(where.pkgDir, "package.json"), "utf8")).version;
        // a folder holds one version: the spec of its line checks it (the spec without a line: any other line)
        const otherLine = version && (spec.line ? lineOf(version) !== spec.line : all.some((s) => s.name === spec.name && s.line === lineOf(version)));
        if (!where || otherLine) {
          r.absent = true;
          r.reason = where ? `${opts.from} has ${spec.name} ${version}, of another line` : `not in ${opts.from}`;
          continue;
        }
        r.checked = version;
      } else {
        let version: string | undefined;
        try {
          const meta = registry!.meta(spec.name);
          version = newestVersion(meta, spec.line);
          if (!version) throw new Error(`${spec.name} has no published version${spec.line ? ` of the ${spec.line} line` : ""}`);
          r.released = meta.time?.[version];
          r.deprecated = meta.deprecated;
          const latest = newestVersion(meta) === version;
          if (latest && spec.dependencies?.length) r.dependencies = Object.fromEntries(spec.dependencies.filter((d) => meta.dependencies?.[d]).map((d) => [d, meta.dependencies![d]]));
          if (latest && meta.claudeCodeVersion) r.claudeCode = meta.claudeCodeVersion;
          r.renamed = renamedTo(spec, meta.deprecated, registry!, all, pinOf);
        } catch (e) {
          if (!opts.offline) throw e;
          version = newestCached(cache, spec.name, spec.line);
          if (!version) throw new Error(`--offline: no version of ${spec.name} in ${cache} (${errorLine(e)})`);
        }
        r.checked = version;
        if (spec.derive) {
          const dir = opts.offline ? join(cache, cacheName(spec.name, version)) : installCached(cache, spec, version, log);
          if (!existsSync(join(dir, ".installed"))) throw new Error(`--offline: ${spec.name}@${version} is not installed in ${cache} (run once without --offline)`);
          where = { pkgDir: join(dir, "node_modules", spec.name), installDir: dir };
        }
      }
      log(`${r.id}: pinned ${pinned}, checking ${r.checked}`);
      if (!spec.derive) {
        r.status = r.checked === pinned ? "current" : "version-only";
        if (r.checked !== pinned) r.reason = pinned === "none" ? "nothing pins this package (no table, no recorder)" : `newer than the pinned ${pinned}; no inventory can be derived from this package (npm run drift -- --record records it)`;
        continue;
      }
      const work = mkdtempSync(join(tmpdir(), "agentnorm-drift-"));
      for (const d of ["checked", "pinned"]) mkdirSync(join(work, d));
      try {
        const derived = await spec.derive({ pkgDir: where!.pkgDir, installDir: where!.installDir, version: r.checked!, work: join(work, "checked"), log });
        let baseline: Derived[] | undefined;
        let baselineNote: string | undefined;
        if (spec.handWritten && pinned !== "none") {
          if (pinned === r.checked) baseline = derived;
          else {
            let at = locate(spec.name, pinned);
            if (!at && mayInstall) {
              const dir = installCached(cache, spec, pinned, log);
              at = { pkgDir: join(dir, "node_modules", spec.name), installDir: dir };
            }
            if (at) baseline = await spec.derive({ pkgDir: at.pkgDir, installDir: at.installDir, version: pinned, work: join(work, "pinned"), log });
            else baselineNote = `${spec.name}@${pinned} is not installed here: compared with the hand-written pinned folder (a field moved to another subtype is not seen)`;
          }
        }
        derived.forEach((d, i) => {
          const table = readTableUpstream(opts.root, d.surface);
          const t = spec.line ? atVersion(table, pinned) : table;
          const s = compareSurface(opts.root, t, d.dir, r.checked!, { maxDepth: d.maxDepth, kinds: d.kinds, baselineDir: baseline?.[i]?.dir, handWritten: spec.handWritten });
          r.surfaces.push({ ...s, note: [d.note, baselineNote].filter(Boolean).join("; ") || undefined });
        });
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
      r.status = r.surfaces.some((s) => s.drift) ? "drift" : "current";
    } catch (e) {
      r.status = "unchecked";
      r.reason = errorLine(e);
      log(`${r.id}: could not check: ${r.reason}`);
    }
  }
  const drift = reports.some((r) => r.status === "drift" || (r.renamed && !r.renamed.followed) || (r.deprecated && !r.renamed?.followed));
  const unchecked = reports.some((r) => r.status === "unchecked" && !r.absent);
  const nothing = opts.from !== undefined && reports.every((r) => r.status === "unchecked");
  return { source: opts.from ? `the packages in ${opts.from}` : registry!.source, packages: reports, uncheckable: UNCHECKABLE, drift, exitCode: drift ? EXIT.drift : unchecked || nothing ? EXIT.unchecked : EXIT.ok };
}

/** The package that replaces `spec`: named by npm's deprecation notice, or a known successor that is published. */
function renamedTo(spec: PackageSpec, notice: string | undefined, registry: Registry, all: PackageSpec[], pinOf: Map<PackageSpec, { version: string }>): PackageReport["renamed"] {
  const fromNotice = successorIn(notice, spec.name);
  const candidates: [string, "deprecation notice" | "known successor"][] = [...(fromNotice ? [[fromNotice, "deprecation notice"] as [string, "deprecation notice"]] : []), ...(spec.successors ?? []).map((s) => [s, "known successor"] as [string, "known successor"])];
  for (const [successor, how] of candidates) {
    let newest: string | undefined;
    try {
      newest = newestVersion(registry.meta(successor));
    } catch {
      if (how === "known successor") continue; // not published (yet): nothing to say
    }
    const followed = all.some((s) => s.name === successor && pinOf.get(s)?.version !== "none");
    return { successor, how, newest, followed };
  }
  return undefined;
}

const LIMIT = 40;
const FACTS = 12;

function headline(p: PackageReport): string {
  const state = p.status === "current" ? (p.checked && p.checked !== p.pinned ? "newer version, no drift" : "no drift")
    : p.status === "drift" ? "DRIFT"
    : p.status === "version-only" ? (p.pinned === "none" ? "version only" : "newer version (version-only check)")
    : p.absent ? "not in the folder" : "could not check";
  const pinned = p.pinned === "none" ? "pinned by nothing" : `pinned ${p.pinned}${p.pinnedBy === "recorders" ? " (recorders)" : ""}`;
  return `${p.id}${p.line ? " line" : ""}: ${pinned}, ${p.checked ? `newest ${p.checked}` : "newest unknown"}${p.released ? ` (${p.released.slice(0, 10)})` : ""} — ${state}`;
}

export function formatReport(rep: Report): string {
  const out: string[] = [`versions from ${rep.source}`];
  for (const p of rep.packages) {
    out.push(headline(p));
    if (p.reason) out.push(`  ${p.reason}`);
    if (p.deprecated) out.push(`  deprecated: ${p.deprecated}`);
    if (p.renamed) out.push(`  renamed: ${p.renamed.successor}${p.renamed.newest ? ` ${p.renamed.newest}` : ""} replaces it (${p.renamed.how}) — ${p.renamed.followed ? "followed here too" : "NOT followed: no table or recorder pins it"}`);
    const deps = Object.entries(p.dependencies ?? {});
    if (deps.length || p.claudeCode) out.push(`  ${p.checked} ${[...(p.claudeCode ? [`bundles Claude Code ${p.claudeCode}`] : []), ...(deps.length ? [`depends on ${deps.map(([d, v]) => `${d} ${v}`).join(", ")}`] : [])].join("; ")}`);
    for (const s of p.surfaces) {
      const kinds = s.kinds.filter((k) => k.newMethods.length || k.newFacts.length || k.goneMethods.length);
      out.push(`  ${s.surface}${s.pinned !== p.pinned ? ` (pinned ${s.pinned})` : ""}${s.note ? ` [${s.note}]` : ""}: ${s.drift ? "not accounted for:" : "everything accounted for"}${s.notDerived.length ? ` [not derivable: ${s.notDerived.join(", ")}]` : ""}`);
      for (const k of kinds) {
        if (k.newMethods.length) {
          out.push(`    ${k.kind} (${k.file}): ${k.newMethods.length} new method(s) the table neither maps nor ignores`);
          for (const m of k.newMethods.slice(0, LIMIT)) out.push(`      + ${m.method}${m.caughtBy.length ? `  (caught at run time by ${m.caughtBy.join(", ")})` : ""}`);
          if (k.newMethods.length > LIMIT) out.push(`      … ${k.newMethods.length - LIMIT} more (--json lists all)`);
        }
        if (k.newFacts.length) {
          const n = k.newFacts.reduce((a, f) => a + f.facts.length, 0);
          out.push(`    ${k.kind} (${k.file}): ${n} new field(s)/value(s) in ${k.newFacts.length} method(s) the ${s.against} does not have`);
          const lines = k.newFacts.flatMap((f) => factGroups(f.facts).map(([on, items]) => `      ${f.method}${on ? ` (${on})` : ""}: ${items.slice(0, FACTS).join(", ")}${items.length > FACTS ? `, … ${items.length - FACTS} more` : ""}`));
          out.push(...lines.slice(0, LIMIT));
          if (lines.length > LIMIT) out.push(`      … ${lines.length - LIMIT} more line(s) (--json lists all)`);
        }
        if (k.goneMethods.length) out.push(`    ${k.kind}: ${k.goneMethods.length} method(s) of the pinned version the checked version does not list (the table keeps them for older streams): ${k.goneMethods.slice(0, LIMIT).join(", ")}${k.goneMethods.length > LIMIT ? " …" : ""}`);
      }
    }
  }
  out.push("not checkable (no published package):");
  for (const u of rep.uncheckable) out.push(`  ${u.surface}: ${u.why}`);
  out.push(rep.drift ? "drift: yes" : rep.exitCode === EXIT.unchecked ? "drift: none found, but not everything could be checked" : "drift: none");
  return out.join("\n") + "\n";
}

/**
 * Facts as report lines: grouped by the variant they are on (`subtype task_notification`, "" for none), the values
 * of one path joined (`subtype = api_retry | notification`), then the fields.
 */
export function factGroups(facts: string[]): [string, string[]][] {
  const groups = new Map<string, { values: Map<string, string[]>; fields: string[] }>();
  for (const f of facts) {
    const [fact, q] = f.split(" @ ");
    const on = q ? q.replace(/ = "([^"]*)"/g, " $1") : "";
    const g = groups.get(on) ?? { values: new Map<string, string[]>(), fields: [] as string[] };
    groups.set(on, g);
    const v = /^value (.*) = (".*")$/.exec(fact);
    if (v) g.values.set(v[1], [...(g.values.get(v[1]) ?? []), JSON.parse(v[2])]);
    else g.fields.push(fact.replace(/^field /, ""));
  }
  return [...groups].sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)).map(([on, g]) => [on, [...[...g.values].map(([p, vs]) => `${p} = ${vs.join(" | ")}`), ...g.fields]]);
}

const USAGE = "usage: npm run drift -- [--offline] [--from DIR] [--package NAME]… [--json]\n       npm run drift -- --record [--agent NAME]… [--scenario NAME]… [--all-scenarios] [--keep] [--json]";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const root = resolve(fileURLToPath(import.meta.url), "../../..");
  if (args.includes("--record")) {
    const { recordMain } = await import("./record.ts");
    return recordMain(root, args.filter((a) => a !== "--record"), USAGE);
  }
  const opts: Options = { root };
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--offline") opts.offline = true;
    else if (a === "--json") json = true;
    else if (a === "--from" || a === "--package") {
      const v = args[++i];
      if (!v) {
        process.stderr.write(`drift: ${a} needs a value\n${USAGE}\n`);
        return EXIT.usage;
      }
      if (a === "--from") {
        if (!existsSync(v)) {
          process.stderr.write(`drift: --from ${v}: no such folder\n`);
          return EXIT.usage;
        }
        opts.from = resolve(v);
      } else (opts.packages ??= []).push(v);
    } else if (a === "--help" || a === "-h") {
      process.stdout.write(`${USAGE}\nexit: 0 no drift, 1 drift, 2 usage error, 3 could not check\n`);
      return EXIT.ok;
    } else {
      process.stderr.write(`drift: unknown option ${a}\n${USAGE}\n`);
      return EXIT.usage;
    }
  }
  const unknown = (opts.packages ?? []).filter((p) => !PACKAGES.some((s) => s.name === p || specId(s) === p));
  if (unknown.length) {
    process.stderr.write(`drift: unknown package ${unknown.join(", ")} (followed: ${[...new Set(PACKAGES.map(specId))].join(", ")})\n`);
    return EXIT.usage;
  }
  const rep = await runDrift(opts);
  process.stdout.write(json ? JSON.stringify(rep, null, 2) + "\n" : formatReport(rep));
  return rep.exitCode;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`drift: ${(e as Error).message.split("\n")[0]}\n`);
      process.exit(EXIT.unchecked);
    },
  );
}
