#!/usr/bin/env node
/**
 * Bundles the package's entry points with esbuild (devDependency) into dist/pkg/: one ES module per entry point
 * (the root, accumulator, validate, compatibility, tables, one per surface, the CLI) and shared chunks, minified,
 * with source maps (sources included). Importing one module instead of the ~90 files tsc emits is what keeps an
 * import cheap; a surface's entry pulls only its own mappers. Declarations stay tsc's (dist/src/**.d.ts).
 * Also writes a CommonJS stub per entry (require() on a Node.js without require(esm) gets a clear message).
 *   node scripts/bundle-package.mjs [--verbose]
 */
import { build } from "esbuild";
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "dist/pkg");

/** Entry point name (its path under dist/pkg, without .js) → source file. */
export function entryPoints() {
  const entries = {
    index: "src/index.ts",
    accumulator: "src/render/accumulator.ts",
    validate: "src/validate.ts",
    compatibility: "src/normalize/matrix.ts",
    tables: "src/tables.ts",
    cli: "src/cli/cli.ts",
  };
  for (const f of readdirSync(join(root, "generated/entries")).sort()) {
    if (f.endsWith(".gen.ts")) entries[`surfaces/${f.slice(0, -".gen.ts".length)}`] = `generated/entries/${f}`;
  }
  return entries;
}

const entries = entryPoints();
rmSync(out, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, join(root, v)])),
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  external: ["node:*"],
  target: "es2022",
  minify: true,
  sourcemap: true,
  legalComments: "none",
  charset: "utf8",
  chunkNames: "chunks/[name]-[hash]",
  outdir: out,
  metafile: true,
  logLevel: "warning",
});

// require() of an ES module works on Node.js >= 20.19 / >= 22.12 (the "module-sync" condition); older versions
// take the "require" condition: this stub, which says so instead of ERR_REQUIRE_ESM's generic text.
mkdirSync(join(out, "cjs"), { recursive: true });
for (const name of Object.keys(entries)) {
  if (name === "cli") continue;
  const file = join(out, "cjs", `${name.replace(/\//g, "__")}.cjs`);
  const target = `../${name}.js`;
  writeFileSync(file, `"use strict";
try {
  module.exports = require(${JSON.stringify(target)});
} catch (err) {
  if (err && (err.code === "ERR_REQUIRE_ESM" || err.code === "ERR_REQUIRE_ASYNC_MODULE")) {
    throw new Error("agentnorm is an ES module: require() of it needs Node.js >= 20.19 or >= 22.12 (where require(esm) is on by default); this is Node.js " + process.version + ". Use import() / an ES module, or upgrade Node.js.", { cause: err });
  }
  throw err;
}
`);
}

if (process.argv.includes("--verbose")) {
  for (const [f, o] of Object.entries(result.metafile.outputs)) if (f.endsWith(".js")) console.error(`${f}: ${o.bytes} bytes`);
}
