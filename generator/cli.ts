/**
 * `npm run codegen` — regenerate generated/ from mappings/, schemas/canonical/ and schemas/upstream/.
 * `npm run codegen -- --check` — regenerate in memory and fail if generated/ differs (CI runs this).
 * Exit codes: 0 ok, 1 table/model errors or stale output, 2 usage.
 */
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildAll, checkFiles, writeFiles } from "./pipeline.ts";
import { formatDiagnostic } from "./diagnostics.ts";

const args = process.argv.slice(2);
const known = new Set(["--check", "--help", "-h", "--quiet"]);
const bad = args.filter((a) => !known.has(a) && !a.startsWith("--root=") && !a.startsWith("--table="));
if (bad.length || args.includes("--help") || args.includes("-h")) {
  (bad.length ? console.error : console.log)(`usage: npm run codegen [-- --check] [--root=DIR] [--table=mappings/x.yaml]${bad.length ? `\nunknown argument: ${bad.join(" ")}` : ""}`);
  process.exit(bad.length ? 2 : 0);
}
const check = args.includes("--check");
const quiet = args.includes("--quiet");
const root = resolve(args.find((a) => a.startsWith("--root="))?.slice(7) ?? resolve(fileURLToPath(import.meta.url), "../.."));
const tables = args.filter((a) => a.startsWith("--table=")).map((a) => a.slice(8));

const result = await buildAll(root, tables.length ? { tables } : undefined);
if (result.diagnostics.length) {
  for (const d of result.diagnostics) console.error(formatDiagnostic(d));
  console.error(`codegen: ${result.diagnostics.length} error(s); nothing was written.`);
  process.exit(1);
}
const files = result.files!;
if (check) {
  const problems = checkFiles(root, files);
  if (problems.length) {
    for (const p of problems) console.error(p);
    console.error(`codegen --check: generated/ is out of date (${problems.length} file(s)). Run: npm run codegen`);
    process.exit(1);
  }
  if (!quiet) console.error(`codegen --check: generated/ is up to date (${files.size} files).`);
} else {
  const changed = writeFiles(root, files);
  if (!quiet) console.error(changed.length ? `codegen: wrote ${changed.length} file(s):\n  ${changed.join("\n  ")}` : `codegen: generated/ already up to date (${files.size} files).`);
}
