/**
 * `npm run drift [-- options]`: is any upstream package newer than the tables account for?
 *
 * For each followed package (tools/drift/packages.ts) it finds the newest published version (`npm view`), installs
 * it into a cache outside the repository (`~/.cache/agentnorm-drift/<package>@<version>/`, or
 * `$AGENTNORM_DRIFT_CACHE`; `npm install --ignore-scripts`, the only step that uses the network), re-derives the
 * surfaces' files from it offline, and compares them with the tables (tools/drift/inventory.ts): methods/types the
 * tables neither map nor ignore, and fields/subtypes the pinned schemas do not declare.
 *
 * Options:
 *   --offline          no registry: check the newest version already in the cache
 *   --from DIR         check the packages installed in DIR (DIR/node_modules/<name>/), or DIR itself when it is one
 *                      package's folder; no registry, no cache
 *   --package NAME     only this package (repeatable)
 *   --json             the report as JSON
 * Progress goes to stderr, the report to stdout. Exit: 0 no drift, 1 drift, 2 usage error, 3 could not check
 * (no network, a failed install or derivation) and no drift found in what could be checked.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compareSurface, readTableUpstream, type SurfaceDrift } from "./inventory.ts";
import { PACKAGES, UNCHECKABLE, type PackageSpec } from "./packages.ts";

export const EXIT = { ok: 0, drift: 1, usage: 2, unchecked: 3 } as const;

export interface PackageReport {
  package: string;
  pinned: string;
  checked?: string;
  status: "current" | "drift" | "version-only" | "unchecked";
  /** Why it could not be checked, or what a version-only check means. */
  reason?: string;
  note?: string;
  surfaces: (SurfaceDrift & { note?: string })[];
}

export interface Report {
  packages: PackageReport[];
  uncheckable: typeof UNCHECKABLE;
  drift: boolean;
  exitCode: number;
}

export interface Options {
  root: string;
  offline?: boolean;
  from?: string;
  packages?: string[];
  cache?: string;
  log?: (msg: string) => void;
  specs?: PackageSpec[];
}

const cacheName = (name: string, version: string) => `${name.replace(/\//g, "+")}@${version}`;

function npmLatest(name: string): string {
  const out = execFileSync("npm", ["view", name, "version", "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
  const v = JSON.parse(out);
  if (typeof v !== "string") throw new Error(`npm view ${name} version answered ${out.trim()}`);
  return v;
}

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

/** The newest version of `name` already installed in the cache. */
function newestCached(cache: string, name: string): string | undefined {
  if (!existsSync(cache)) return undefined;
  const prefix = `${name.replace(/\//g, "+")}@`;
  const versions = readdirSync(cache)
    .filter((d) => d.startsWith(prefix) && existsSync(join(cache, d, ".installed")))
    .map((d) => d.slice(prefix.length));
  return versions.sort(compareVersions).pop();
}

export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  const pb = b.split(/[.-]/).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? 0;
    const y = pb[i] ?? 0;
    if (x === y) continue;
    if (typeof x === "number" && typeof y === "number") return x - y;
    return String(x) < String(y) ? -1 : 1;
  }
  return 0;
}

/** Where `name` is in a --from folder: DIR/node_modules/<name>, or DIR itself when its package.json names it. */
function fromDir(dir: string, name: string): { pkgDir: string; installDir: string } | undefined {
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

function pinnedOf(root: string, spec: PackageSpec): string {
  return spec.pinned ?? readTableUpstream(root, spec.surfaces[0]).version;
}

export async function runDrift(opts: Options): Promise<Report> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`drift: ${m}\n`));
  const cache = opts.cache ?? process.env.AGENTNORM_DRIFT_CACHE ?? join(homedir(), ".cache", "agentnorm-drift");
  const specs = (opts.specs ?? PACKAGES).filter((s) => !opts.packages?.length || opts.packages.includes(s.name));
  const reports: PackageReport[] = [];
  for (const spec of specs) {
    const pinned = pinnedOf(opts.root, spec);
    const r: PackageReport = { package: spec.name, pinned, status: "unchecked", note: spec.note, surfaces: [] };
    reports.push(r);
    let where: { pkgDir: string; installDir: string } | undefined;
    try {
      if (opts.from) {
        where = fromDir(opts.from, spec.name);
        if (!where) {
          r.reason = `not in ${opts.from}`;
          continue;
        }
        r.checked = JSON.parse(readFileSync(join(where.pkgDir, "package.json"), "utf8")).version;
      } else {
        const version = opts.offline ? newestCached(cache, spec.name) : npmLatest(spec.name);
        if (!version) {
          r.reason = `--offline: no version of ${spec.name} in ${cache}`;
          continue;
        }
        r.checked = version;
        if (spec.derive) {
          const dir = opts.offline ? join(cache, cacheName(spec.name, version)) : installCached(cache, spec, version, log);
          where = { pkgDir: join(dir, "node_modules", spec.name), installDir: dir };
        }
      }
      log(`${spec.name}: pinned ${pinned}, checking ${r.checked}`);
      if (!spec.derive) {
        r.status = r.checked === pinned ? "current" : "version-only";
        if (r.checked !== pinned) r.reason = pinned === "none" ? "no table follows this package" : `newer than the pinned ${pinned}; no inventory can be derived from this package`;
        continue;
      }
      const work = mkdtempSync(join(tmpdir(), "agentnorm-drift-"));
      try {
        const derived = await spec.derive({ pkgDir: where!.pkgDir, installDir: where!.installDir, version: r.checked!, work, log });
        for (const d of derived) {
          const table = readTableUpstream(opts.root, d.surface);
          r.surfaces.push({ ...compareSurface(opts.root, table, d.dir, r.checked!, { maxDepth: d.maxDepth, kinds: d.kinds }), note: d.note });
        }
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
      r.status = r.surfaces.some((s) => s.drift) ? "drift" : "current";
    } catch (e) {
      const err = e as Error & { stderr?: Buffer | string };
      const detail = err.stderr ? String(err.stderr).trim().split("\n").slice(-3).join(" / ") : "";
      r.status = "unchecked";
      r.reason = `${err.message.split("\n")[0]}${detail ? ` (${detail})` : ""}`;
      log(`${spec.name}: could not check: ${r.reason}`);
    }
  }
  const drift = reports.some((r) => r.status === "drift");
  const unchecked = reports.some((r) => r.status === "unchecked" && !(opts.from && r.reason?.startsWith("not in ")));
  const nothing = opts.from !== undefined && reports.every((r) => r.status === "unchecked");
  return { packages: reports, uncheckable: UNCHECKABLE, drift, exitCode: drift ? EXIT.drift : unchecked || nothing ? EXIT.unchecked : EXIT.ok };
}

const LIMIT = 40;
const FACTS = 12;

export function formatReport(rep: Report): string {
  const out: string[] = [];
  for (const p of rep.packages) {
    const head = `${p.package}: ${p.pinned === "none" ? "followed by no table" : `pinned ${p.pinned}`}, ${p.checked ? `newest ${p.checked}` : "newest unknown"} — ${p.status === "current" ? (p.checked && p.checked !== p.pinned ? "newer version, no drift" : "no drift") : p.status === "drift" ? "DRIFT" : p.status === "version-only" ? (p.pinned === "none" ? "version only" : "newer version (version-only check)") : "could not check"}`;
    out.push(head);
    if (p.reason) out.push(`  ${p.reason}`);
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
          out.push(`    ${k.kind} (${k.file}): ${n} new field(s)/value(s) in ${k.newFacts.length} method(s) the pinned schema does not declare`);
          for (const f of k.newFacts.slice(0, LIMIT)) {
            const items = factItems(f.facts);
            out.push(`      ${f.method}: ${items.slice(0, FACTS).join(", ")}${items.length > FACTS ? `, … ${items.length - FACTS} more` : ""}`);
          }
          if (k.newFacts.length > LIMIT) out.push(`      … ${k.newFacts.length - LIMIT} more method(s)`);
        }
        if (k.goneMethods.length) out.push(`    ${k.kind}: ${k.goneMethods.length} pinned method(s) the checked version does not list (the table keeps them for older streams): ${k.goneMethods.slice(0, LIMIT).join(", ")}${k.goneMethods.length > LIMIT ? " …" : ""}`);
      }
    }
  }
  out.push("not checkable (no published package):");
  for (const u of rep.uncheckable) out.push(`  ${u.surface}: ${u.why}`);
  out.push(rep.drift ? "drift: yes" : rep.exitCode === EXIT.unchecked ? "drift: none found, but not everything could be checked" : "drift: none");
  return out.join("\n") + "\n";
}

/** Facts as report items: the values of one path joined (`subtype = api_retry | notification`), then the fields. */
function factItems(facts: string[]): string[] {
  const values = new Map<string, string[]>();
  const fields: string[] = [];
  for (const f of facts) {
    const v = /^value (.*) = (".*")$/.exec(f);
    if (v) values.set(v[1], [...(values.get(v[1]) ?? []), JSON.parse(v[2])]);
    else fields.push(f.replace(/^field /, ""));
  }
  return [...[...values].map(([p, vs]) => `${p} = ${vs.join(" | ")}`), ...fields];
}

const USAGE = "usage: npm run drift -- [--offline] [--from DIR] [--package NAME]… [--json]";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const opts: Options = { root: resolve(fileURLToPath(import.meta.url), "../../..") };
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
  const unknown = (opts.packages ?? []).filter((p) => !PACKAGES.some((s) => s.name === p));
  if (unknown.length) {
    process.stderr.write(`drift: unknown package ${unknown.join(", ")} (followed: ${PACKAGES.map((s) => s.name).join(", ")})\n`);
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
      process.stderr.write(`drift: ${(e as Error).message}\n`);
      process.exit(EXIT.unchecked);
    },
  );
}
