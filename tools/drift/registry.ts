/**
 * What the registry says about a package, for the drift check: its versions, dist-tags, deprecation notice, publish
 * times and the dependencies of its newest version — one `npm view <name> --json` per package, kept in a file of
 * the drift cache (`registry.json`) so that `--offline` can answer from what was last fetched (and say when).
 *
 * Everything that reads a package's metadata takes a `Registry`: the tests give a fake one (no network in tests).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export interface PackageMeta {
  name: string;
  /** Every published version. */
  versions: string[];
  distTags: Record<string, string>;
  /** npm's deprecation notice on the newest version (`npm deprecate`), if any. */
  deprecated?: string;
  /** Publish time per version (ISO). */
  time?: Record<string, string>;
  /** The newest version's dependencies, name → range. */
  dependencies?: Record<string, string>;
  /** The newest version's `claudeCodeVersion` (Claude Agent SDK packages: the Claude Code it bundles). */
  claudeCodeVersion?: string;
  /** When this was fetched from the registry (ISO). */
  fetchedAt?: string;
}

export interface Registry {
  /** The package's metadata; throws when it cannot be had (no network, unknown package, nothing cached). */
  meta(name: string): PackageMeta;
  /** Where the answers come from, for the report ("registry", "cache of 2026-12-06"). */
  readonly source: string;
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

/** The line a version belongs to: `0.<minor>` below 1.0 (each minor a line: 0.2.62 → "0.2"), else `<major>`. */
export function lineOf(version: string): string {
  const [major, minor] = version.split(".");
  return major === "0" ? `0.${minor ?? "0"}` : major;
}

const stable = (v: string) => /^\d+\.\d+\.\d+$/.test(v);

/**
 * The newest published version: with `line`, the newest stable version of that line (`0.2` → 0.2.141 though
 * `latest` is 0.3.337); without, the `latest` dist-tag (what `npm install <name>` takes), or the newest stable version
 * when the package has no `latest`.
 */
export function newestVersion(meta: PackageMeta, line?: string): string | undefined {
  if (line) return meta.versions.filter((v) => stable(v) && lineOf(v) === line).sort(compareVersions).pop();
  return meta.distTags.latest ?? meta.versions.filter(stable).sort(compareVersions).pop();
}

/**
 * The package a deprecation notice names as the one to use instead: the first scoped name in it other than `self`
 * ("renamed to @zed-industries/claude-agent-acp"), else the name after "renamed to", "moved to", "replaced by" or "use".
 */
export function successorIn(notice: string | undefined, self: string): string | undefined {
  if (!notice) return undefined;
  const scoped = [...notice.matchAll(/@[a-z0-9][\w.-]*\/[a-z0-9][\w-]*(?:\.[\w-]+)*/gi)].map((m) => m[0]).find((n) => n !== self);
  if (scoped) return scoped;
  const m = /(?:renamed to|moved to|replaced by|use)\s+[`'"]?([a-z0-9][\w-]*(?:\.[\w-]+)*)/i.exec(notice);
  return m && m[1] !== self ? m[1] : undefined;
}

/** `npm view <name> --json`, reduced to PackageMeta. */
export function npmView(name: string): PackageMeta {
  const out = execFileSync("npm", ["view", name, "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
  const d = JSON.parse(out);
  if (!d || typeof d !== "object" || Array.isArray(d)) throw new Error(`npm view ${name} answered ${out.trim().slice(0, 120)}`);
  return {
    name,
    versions: Array.isArray(d.versions) ? d.versions : typeof d.version === "string" ? [d.version] : [],
    distTags: d["dist-tags"] ?? {},
    deprecated: typeof d.deprecated === "string" && d.deprecated ? d.deprecated : undefined,
    time: d.time && typeof d.time === "object" ? Object.fromEntries(Object.entries(d.time).filter(([k]) => /^\d/.test(k))) as Record<string, string> : undefined,
    dependencies: d.dependencies,
    claudeCodeVersion: typeof d.claudeCodeVersion === "string" ? d.claudeCodeVersion : undefined,
    fetchedAt: new Date().toISOString(),
  };
}

/** The registry through npm, each answer written to `cacheFile` (for --offline). */
export function npmRegistry(cacheFile: string, view: (name: string) => PackageMeta = npmView): Registry {
  const seen = new Map<string, PackageMeta>();
  return {
    source: "registry",
    meta(name) {
      let m = seen.get(name);
      if (!m) {
        m = view(name);
        seen.set(name, m);
        const all = readCache(cacheFile);
        all[name] = m;
        mkdirSync(dirname(cacheFile), { recursive: true });
        writeFileSync(cacheFile, JSON.stringify(all, null, 1) + "\n");
      }
      return m;
    },
  };
}

function readCache(file: string): Record<string, PackageMeta> {
  if (!existsSync(file)) return {};
  try {
    const d = JSON.parse(readFileSync(file, "utf8"));
    return d && typeof d === "object" && !Array.isArray(d) ? d : {};
  } catch {
    return {};
  }
}

/** The registry as last fetched (`cacheFile`), for --offline: no network. */
export function cachedRegistry(cacheFile: string): Registry {
  const all = readCache(cacheFile);
  const dates = Object.values(all).map((m) => m.fetchedAt).filter((d): d is string => !!d).sort();
  return {
    source: dates.length ? `the registry as fetched ${dates[0].slice(0, 10)}${dates.at(-1)!.slice(0, 10) !== dates[0].slice(0, 10) ? ` to ${dates.at(-1)!.slice(0, 10)}` : ""} (${cacheFile})` : `${cacheFile} (empty)`,
    meta(name) {
      const m = all[name];
      if (!m) throw new Error(`--offline: ${name} was never fetched into ${cacheFile} (run once without --offline)`);
      return m;
    },
  };
}

/** A registry of fixed answers (tests). */
export function fixedRegistry(metas: PackageMeta[], source = "fixture"): Registry {
  const by = new Map(metas.map((m) => [m.name, m]));
  return {
    source,
    meta(name) {
      const m = by.get(name);
      if (!m) throw new Error(`no metadata for ${name}`);
      return m;
    },
  };
}
