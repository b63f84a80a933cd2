/** Shared by the maintainer sync scripts (schemas:sync*): file listing (the generator's), checksums, pinned installs. */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { listFiles } from "../../generator/files.ts";

export { listFiles } from "../../generator/files.ts";

/** Markdown table rows `| \`file\` | sha256 |` for `files` in the given order (default: every file below `dir`, sorted). */
export function sha256Rows(dir: string, files: string[] = listFiles(dir).sort()): string[] {
  return files.map((f) => `| \`${f}\` | ${createHash("sha256").update(readFileSync(join(dir, f))).digest("hex")} |`);
}

/** `npm install` pinned packages into `dir` (no install scripts run). */
export function npmInstall(dir: string, specs: string[]): void {
  execFileSync("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", ...specs], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
}

/** Whether the module at `url` is the script node was started with (so importing a sync script runs nothing). */
export function isMain(url: string): boolean {
  return !!process.argv[1] && resolve(process.argv[1]) === fileURLToPath(url);
}

/**
 * The native Codex binary inside an install of @openai/codex (`dir` has node_modules/): vendor/<triple>/bin/codex
 * (recent releases) or vendor/<triple>/codex/codex (older ones), in any @openai/* package (the platform package).
 */
export function codexBinary(dir: string): string | undefined {
  const vendor = join(dir, "node_modules/@openai");
  if (!existsSync(vendor)) return undefined;
  const exe = process.platform === "win32" ? "codex.exe" : "codex";
  return readdirSync(vendor)
    .map((d) => join(vendor, d, "vendor"))
    .filter(existsSync)
    .flatMap((vd) => readdirSync(vd).flatMap((t) => [join(vd, t, "bin", exe), join(vd, t, "codex", exe)]))
    .find(existsSync);
}
