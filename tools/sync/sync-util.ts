/** Shared by the maintainer sync scripts (schemas:sync*) and the pipeline: file listing, checksums, pinned installs. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Every file below `dir` (none when it does not exist), as paths relative to `base`. */
export function listFiles(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? listFiles(p, base) : [relative(base, p)];
  });
}

/** Markdown table rows `| \`file\` | sha256 |` for `files` in the given order (default: every file below `dir`, sorted). */
export function sha256Rows(dir: string, files: string[] = listFiles(dir).sort()): string[] {
  return files.map((f) => `| \`${f}\` | ${createHash("sha256").update(readFileSync(join(dir, f))).digest("hex")} |`);
}

/** `npm install` pinned packages into `dir` (no install scripts run). */
export function npmInstall(dir: string, specs: string[]): void {
  execFileSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", ...specs], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
}
