/**
 * `npm run bench` (first part): what adopting the package costs, measured on the built bundles (dist/pkg, what
 * the package ships).
 *
 *  - import cost: CPU time (user + system) of `await import(entry)` in a fresh Node process, over the same process
 *    doing nothing else — the median of 7 runs. CPU time rather than wall time, so a busy machine inflates it
 *    less. Targets: the root ≤ 50 ms, agentnorm/accumulator ≤ 10 ms.
 *  - browser bundle: a page that imports one surface's normalizer (agentnorm/surfaces/<surface>) and the
 *    accumulator, bundled and minified by esbuild for the browser, gzip -9. Target ≤ 60 KB for every surface.
 *  - package size: what `npm pack --dry-run` reports (packed and unpacked bytes, files).
 *
 * The figures are also written to bench/results/package.json (committed): the README's figures are these, and
 * test/figures.test.ts checks them against it (timings) and against its own measurement (sizes).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../../", import.meta.url));
const pkg = `${root}dist/pkg/`;

function importCpuMs(file: string): number {
  const script = `const c0 = process.cpuUsage(); await import(${JSON.stringify(file)}); const c = process.cpuUsage(c0); process.stdout.write(String((c.user + c.system) / 1000));`;
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) runs.push(Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })));
  runs.sort((a, b) => a - b);
  return runs[3];
}

/** What bench/results/package.json records. */
const results: {
  node: string;
  importCpuMs: Record<string, number>;
  browserBundle: Record<string, { minifiedKB: number; gzipKB: number }>;
  browserBundleLargest: { surface: string; gzipKB: number };
  pack: { packedMB: number; unpackedMB: number; files: number };
} = { node: process.version, importCpuMs: {}, browserBundle: {}, browserBundleLargest: { surface: "", gzipKB: 0 }, pack: { packedMB: 0, unpackedMB: 0, files: 0 } };

const imports = [
  { entry: "agentnorm", file: `${pkg}index.js`, target: 50 },
  { entry: "agentnorm/accumulator", file: `${pkg}accumulator.js`, target: 10 },
  { entry: "agentnorm/surfaces/claude-sdk", file: `${pkg}surfaces/claude-sdk.js`, target: null },
  { entry: "agentnorm/validate", file: `${pkg}validate.js`, target: null },
];
for (const i of imports) {
  const ms = importCpuMs(i.file);
  const pass = i.target === null ? null : ms <= i.target;
  process.stderr.write(`import ${i.entry}: ${ms.toFixed(1)} ms CPU${i.target === null ? "" : ` (target ≤ ${i.target} ms: ${pass ? "pass" : "FAIL"})`}\n`);
  console.log(JSON.stringify({ import: i.entry, cpuMs: Number(ms.toFixed(1)), target: i.target, pass }));
  results.importCpuMs[i.entry] = Number(ms.toFixed(1));
}

const surfaces = readdirSync(`${pkg}surfaces`).filter((f) => f.endsWith(".js")).map((f) => f.slice(0, -3)).sort();
let largest = { surface: "", gzip: 0, minified: 0 };
for (const surface of surfaces) {
  const result = await build({
    stdin: {
      contents: `import { createNormalizer } from ${JSON.stringify(`${pkg}surfaces/${surface}.js`)};
import { createAccumulator } from ${JSON.stringify(`${pkg}accumulator.js`)};
const n = createNormalizer(), acc = createAccumulator();
globalThis.onLine = (line) => { for (const e of n.pushLine(line)) acc.apply(e); return acc.getSession(); };`,
      resolveDir: root,
      loader: "js",
    },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "error",
  });
  const js = result.outputFiles[0].contents;
  const gzip = gzipSync(js, { level: 9 }).length;
  if (gzip > largest.gzip) largest = { surface, gzip, minified: js.length };
  console.log(JSON.stringify({ browserBundle: surface, minifiedKB: Number((js.length / 1024).toFixed(1)), gzipKB: Number((gzip / 1024).toFixed(1)) }));
  results.browserBundle[surface] = { minifiedKB: Number((js.length / 1024).toFixed(1)), gzipKB: Number((gzip / 1024).toFixed(1)) };
}
const pass = largest.gzip <= 60 * 1024;
process.stderr.write(`browser bundle (one surface's normalizer + accumulator), largest: ${largest.surface} ${(largest.minified / 1024).toFixed(0)} KB minified, ${(largest.gzip / 1024).toFixed(1)} KB gzip (target ≤ 60 KB: ${pass ? "pass" : "FAIL"})\n`);
console.log(JSON.stringify({ browserBundleLargest: largest.surface, gzipKB: Number((largest.gzip / 1024).toFixed(1)), target: 60, pass }));
results.browserBundleLargest = { surface: largest.surface, gzipKB: Number((largest.gzip / 1024).toFixed(1)) };

// The package: `npm pack --dry-run` of the built tree (scripts skipped: the build ran already).
const packed = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }))[0];
results.pack = { packedMB: Number((packed.size / 1e6).toFixed(2)), unpackedMB: Number((packed.unpackedSize / 1e6).toFixed(2)), files: packed.entryCount };
process.stderr.write(`package: ${results.pack.packedMB} MB packed, ${results.pack.unpackedMB} MB unpacked, ${results.pack.files} files\n`);
console.log(JSON.stringify({ pack: results.pack }));

mkdirSync(`${root}bench/results`, { recursive: true });
writeFileSync(`${root}bench/results/package.json`, JSON.stringify(results, null, 2) + "\n");
process.stderr.write(`wrote bench/results/package.json\n`);
