/**
 * Provenance stage: every pinned upstream folder (schemas/upstream/<name>/<version>/) has a PROVENANCE.md whose
 * file table (`| \`File.json\` | <sha256> |`) lists its files with their sha256. Codegen checks that the listed
 * hashes are the pinned files' (a changed schema must be re-synced, or its listing updated, on purpose), that every
 * schema file in the folder is listed (in particular every file a table reads), and reports each problem as a
 * diagnostic at its line of PROVENANCE.md.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "./diagnostics.ts";

export const UPSTREAM_ROOT = "schemas/upstream";
export const PROVENANCE = "PROVENANCE.md";
const ROW = /^(\|\s*`([^`]+)`\s*\|\s*)([0-9a-fA-F]{64})\s*\|/;

export interface ListingEntry { sha256: string; line: number; col: number }
export interface Listing { file: string; entries: Map<string, ListingEntry>; tableLine: number }

export const sha256 = (bytes: Buffer | string): string => createHash("sha256").update(bytes).digest("hex");

/** The pinned folders, relative to the root: schemas/upstream/<name>/<version>. */
export function pinnedFolders(root: string): string[] {
  const base = join(root, UPSTREAM_ROOT);
  if (!existsSync(base)) return [];
  const dirs = (p: string) => readdirSync(p).filter((n) => statSync(join(p, n)).isDirectory()).sort();
  return dirs(base).flatMap((name) => dirs(join(base, name)).map((version) => `${UPSTREAM_ROOT}/${name}/${version}`));
}

/** The pinned folder a root-relative file belongs to, if any. */
export function pinnedFolderOf(path: string): string | undefined {
  const segs = path.split("/");
  return path.startsWith(`${UPSTREAM_ROOT}/`) && segs.length > 4 ? segs.slice(0, 4).join("/") : undefined;
}

/** The file table of a PROVENANCE.md: file (relative to its folder) → listed sha256 and position. */
export function readListing(file: string, text: string, ds: Diagnostic[]): Listing {
  const entries = new Map<string, ListingEntry>();
  const lines = text.split("\n");
  let tableLine = 0;
  lines.forEach((l, i) => {
    if (!tableLine && /^\|\s*file\s*\|\s*sha256\s*\|/.test(l)) tableLine = i + 1;
    const m = ROW.exec(l);
    if (!m) return;
    const at = { line: i + 1, col: m[1].length + 1 };
    const prev = entries.get(m[2]);
    if (prev) ds.push({ file, ...at, code: "E605", message: `\`${m[2]}\` is listed twice (first at line ${prev.line})` });
    else entries.set(m[2], { sha256: m[3].toLowerCase(), ...at });
  });
  return { file, entries, tableLine };
}

function filesUnder(abs: string, rel = ""): string[] {
  return readdirSync(join(abs, rel)).sort().flatMap((n) => {
    const r = rel ? `${rel}/${n}` : n;
    return statSync(join(abs, r)).isDirectory() ? filesUnder(abs, r) : [r];
  });
}

/**
 * Checks every pinned folder: E600 no PROVENANCE.md, E601 a listed sha256 that is not the file's, E602 a listed
 * file that does not exist, E603 a file a table reads that is not listed, E604 a schema file (.json) in the folder
 * that is not listed, E605 a file listed twice. `used`: root-relative schema file → the tables that read it.
 * `hashes`: sha256 already computed (root-relative path → hash), to avoid hashing a file twice.
 */
export function checkProvenance(root: string, used: ReadonlyMap<string, readonly string[]>, hashes: ReadonlyMap<string, string> = new Map()): Diagnostic[] {
  const ds: Diagnostic[] = [];
  const folders = pinnedFolders(root);
  for (const folder of folders) {
    const pf = `${folder}/${PROVENANCE}`;
    const abs = join(root, folder);
    if (!existsSync(join(abs, PROVENANCE))) {
      ds.push({ file: pf, line: 1, col: 1, code: "E600", message: `pinned upstream folder ${folder} has no ${PROVENANCE} (where it comes from, its license, and a "| file | sha256 |" table of its files)` });
      continue;
    }
    const listing = readListing(pf, readFileSync(join(abs, PROVENANCE), "utf8"), ds);
    for (const [name, e] of listing.entries) {
      const p = join(abs, name);
      if (!existsSync(p) || !statSync(p).isFile()) {
        ds.push({ file: pf, line: e.line, col: e.col, code: "E602", message: `lists \`${name}\`, which is not in ${folder}` });
        continue;
      }
      const actual = hashes.get(`${folder}/${name}`) ?? sha256(readFileSync(p));
      if (actual !== e.sha256) {
        ds.push({ file: pf, line: e.line, col: e.col, code: "E601", message: `sha256 of \`${name}\` is ${actual}, not the listed ${e.sha256}: the pinned file changed (restore or re-sync it) or the listing is stale (update it)` });
      }
    }
    const at = { line: listing.tableLine || 1, col: 1 };
    for (const name of filesUnder(abs)) {
      if (name === PROVENANCE || listing.entries.has(name)) continue;
      const readBy = used.get(`${folder}/${name}`);
      if (readBy?.length) ds.push({ file: pf, ...at, code: "E603", message: `does not list \`${name}\`, which ${readBy.join(", ")} read${readBy.length > 1 ? "" : "s"}: add it with its sha256 (${sha256(readFileSync(join(abs, name)))})` });
      else if (name.endsWith(".json")) ds.push({ file: pf, ...at, code: "E604", message: `does not list the schema file \`${name}\`: add it with its sha256 (${sha256(readFileSync(join(abs, name)))})` });
    }
  }
  // A file a table reads under schemas/upstream but outside any pinned folder (e.g. schemas/upstream/x/File.json).
  for (const [path, readBy] of used) {
    if (path.startsWith(`${UPSTREAM_ROOT}/`) && !folders.includes(pinnedFolderOf(path) ?? "")) {
      ds.push({ file: readBy[0] ?? path, line: 1, col: 1, code: "E606", message: `reads ${path}, which is not in a pinned folder (${UPSTREAM_ROOT}/<name>/<version>/)` });
    }
  }
  return ds;
}
