/**
 * The README's figures are true of the package, and its shipped documents link only to what ships.
 *
 *  - Sizes (packed / unpacked, the largest one-surface browser bundle) are measured here, as `npm run bench` measures
 *    them (`npm pack --dry-run`; esbuild + gzip -9 of the built bundles), and must agree with the README and with the
 *    committed bench result (bench/results/package.json) within 10 %.
 *  - Timings are never measured in a test: the README's import times must agree with the committed bench result
 *    within 10 % (re-run `npm run bench` and commit its result when they move).
 *  - Every document the package ships (package.json "files") links only to files the package holds, or to the
 *    repository; a repository path it names in backticks is such a link unless the package holds it.
 * Reads the built tree (npm test builds first).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const RESULTS = JSON.parse(readFileSync(join(ROOT, "bench/results/package.json"), "utf8"));
const REPO = "https://github.com/agentnorm/agentnorm";
const TOLERANCE = 0.1;

/** `npm pack --dry-run` of the built tree: what the package holds, and its sizes. */
let pack: { size: number; unpackedSize: number; files: { path: string }[] };
beforeAll(() => {
  pack = JSON.parse(execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }))[0];
}, 120_000);

const near = (a: number, b: number) => Math.abs(a - b) <= TOLERANCE * Math.max(a, b);
/** The one number a README pattern captures. */
function readmeFigure(re: RegExp): number {
  const m = re.exec(README);
  expect(m, `README: ${re}`).not.toBeNull();
  return Number(m![1]);
}

describe("README figures", () => {
  it("pack size: README = committed bench result = measured now (±10 %)", () => {
    const packed = readmeFigure(/`npm pack --dry-run` reports ([\d.]+) MB packed/);
    const unpacked = readmeFigure(/MB packed, ([\d.]+) MB unpacked/);
    const now = { packed: pack.size / 1e6, unpacked: pack.unpackedSize / 1e6 };
    expect(near(packed, RESULTS.pack.packedMB), `README ${packed} MB vs bench result ${RESULTS.pack.packedMB} MB`).toBe(true);
    expect(near(unpacked, RESULTS.pack.unpackedMB), `README ${unpacked} MB vs bench result ${RESULTS.pack.unpackedMB} MB`).toBe(true);
    expect(near(packed, now.packed), `README ${packed} MB packed vs measured ${now.packed.toFixed(2)} MB`).toBe(true);
    expect(near(unpacked, now.unpacked), `README ${unpacked} MB unpacked vs measured ${now.unpacked.toFixed(2)} MB`).toBe(true);
  });

  it("browser bundle: the largest one-surface normalizer + accumulator, gzip -9: README = bench result = measured now (±10 %)", async () => {
    const pkg = join(ROOT, "dist/pkg/");
    let largest = 0;
    for (const surface of Object.keys(RESULTS.browserBundle)) {
      const r = await build({
        stdin: {
          contents: `import { createNormalizer } from ${JSON.stringify(`${pkg}surfaces/${surface}.js`)};
import { createAccumulator } from ${JSON.stringify(`${pkg}accumulator.js`)};
const n = createNormalizer(), acc = createAccumulator();
globalThis.onLine = (line) => { for (const e of n.pushLine(line)) acc.apply(e); return acc.getSession(); };`,
          resolveDir: ROOT,
          loader: "js",
        },
        bundle: true, minify: true, format: "esm", platform: "browser", write: false, logLevel: "error",
      });
      largest = Math.max(largest, gzipSync(r.outputFiles[0].contents, { level: 9 }).length / 1024);
    }
    const readme = readmeFigure(/with the accumulator, ≤ ([\d.]+) KB gzip in a browser bundle/);
    expect(near(readme, RESULTS.browserBundleLargest.gzipKB), `README ${readme} KB vs bench result ${RESULTS.browserBundleLargest.gzipKB} KB`).toBe(true);
    expect(near(readme, largest), `README ${readme} KB vs measured ${largest.toFixed(1)} KB`).toBe(true);
  }, 120_000);

  it("import times: README = the committed bench result (±10 %; timed by npm run bench, never here)", () => {
    const root = readmeFigure(/\| `agentnorm` \|[^\n]*import ≈ ([\d.]+) ms CPU/);
    const acc = readmeFigure(/\| `agentnorm\/accumulator` \|[^\n]*import ≈ ([\d.]+) ms CPU/);
    expect(near(root, RESULTS.importCpuMs.agentnorm), `README ${root} ms vs bench ${RESULTS.importCpuMs.agentnorm} ms`).toBe(true);
    expect(near(acc, RESULTS.importCpuMs["agentnorm/accumulator"]), `README ${acc} ms vs bench ${RESULTS.importCpuMs["agentnorm/accumulator"]} ms`).toBe(true);
  });

  it("peers (bench --peers): every ratio in the README = the committed full run, bench/results/peers.json (±10 %; never timed here)", () => {
    const PEERS = JSON.parse(readFileSync(join(ROOT, "bench/results/peers.json"), "utf8")).rows as Record<string, any>[];
    const row = (f: (r: Record<string, any>) => boolean, what: string) => { const r = PEERS.find(f); expect(r, `bench/results/peers.json: ${what}`).toBeDefined(); return r!; };
    for (const [label, key] of [["Codex app-server lines", "codex"], ["opencode `/event` payloads", "opencode"], ["Claude SDK messages", "claude"]] as const) {
      const m = new RegExp(`\\| ${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} \\|[^|]*\\| ([\\d.]+) \\| ([\\d.]+) \\| ([\\d.]+) \\|`).exec(README);
      expect(m, `README: the peers row of ${label}`).not.toBeNull();
      const [whole, inMemory, bound] = [Number(m![1]), Number(m![2]), Number(m![3])];
      const w = row((r) => r.peer === key && !r.bound && !r.inMemory, `${key} whole job`).ratio;
      const i = row((r) => r.peer === key && r.inMemory, `${key} in memory`).ratio;
      const b = row((r) => r.peer === key && r.bound, `${key} bound`).ratio;
      expect(near(whole, w), `README ${label} whole job ${whole} vs bench ${w}`).toBe(true);
      expect(near(inMemory, i), `README ${label} in memory ${inMemory} vs bench ${i}`).toBe(true);
      expect(near(bound, b), `README ${label} bound ${bound} vs bench ${b}`).toBe(true);
    }
    const agui = /\| render accumulation, chunks of whole threads \|[^|]*\| ([\d.]+) \|/.exec(README);
    expect(agui, "README: the AG-UI row").not.toBeNull();
    expect(near(Number(agui![1]), row((r) => r.peer === "agui" && !r.contrast, "agui").ratio)).toBe(true);
    const floors = /Floor ratios \(JSON\.parse[\s\S]*?median\s+([\d.]+),\s+lowest\s+([\d.]+)/.exec(README);
    expect(floors, "README: the floor ratios").not.toBeNull();
    const f = row((r) => r.floors !== undefined, "floors");
    expect(near(Number(floors![1]), f.median) && near(Number(floors![2]), f.min), `README floors ${floors![1]} / ${floors![2]} vs bench ${f.median} / ${f.min}`).toBe(true);
    const cli = /parse \+ stringify\s+floor\s+of\s+the\s+same\s+lines:\s+median\s+([\d.]+)×,\s+at\s+most\s+([\d.]+)×/.exec(README);
    expect(cli, "README: the CLI path ratios").not.toBeNull();
    const c = PEERS.filter((r) => r.cli !== undefined).map((r) => r.ratio as number).sort((a, b) => a - b);
    expect(c.length).toBeGreaterThan(0);
    expect(near(Number(cli![1]), c[Math.floor(c.length / 2)]!) && near(Number(cli![2]), c[c.length - 1]!), `README CLI ${cli![1]} / ${cli![2]} vs bench ${c[Math.floor(c.length / 2)]} / ${c[c.length - 1]}`).toBe(true);
  });

  it("large streams (view): the README's row = the committed bench result (±10 %; bench/view-large.ts, never timed here)", () => {
    const VIEW = JSON.parse(readFileSync(join(ROOT, "bench/results/view.json"), "utf8"));
    const row = /\| ([\d.]+) MB, ([\d,]+) lines, ([\d,]+) turns \| 16 MB \(default\) \| (\d+) MB \(`--max-old-space-size=\d+`\) \| ([\d.]+) s \| (\d+) MB \| ([\d.]+) MB, the last ([\d,]+) turns \|/.exec(README);
    expect(row, "README: the Large streams table's row").not.toBeNull();
    const n = (i: number) => Number(row![i]!.replace(/,/g, ""));
    const pairs: [string, number, number][] = [
      ["input MB", n(1), VIEW.input.mb], ["lines", n(2), VIEW.input.lines], ["turns", n(3), VIEW.input.turns], ["heap limit", n(4), VIEW.heapLimitMb],
      ["time", n(5), VIEW.seconds], ["peak RSS", n(6), VIEW.peakRssMb], ["page MB", n(7), VIEW.pageMb], ["turns shown", n(8), VIEW.turnsShown],
    ];
    for (const [what, readme, bench] of pairs) expect(near(readme, bench), `README ${what} ${readme} vs bench ${bench}`).toBe(true);
  });
});

/** Markdown outside fenced code blocks. */
const prose = (md: string) => md.replace(/```[\s\S]*?```/g, "");
const REPO_DIRS = /^(src|test|examples|mappings|bench|fixtures|generator|tools|scripts|schemas|generated)\//;

describe("shipped documents link only to what ships, or to the repository", () => {
  const shipped = () => new Set(pack.files.map((f) => f.path));
  const docs = () => [...shipped()].filter((f) => f.endsWith(".md")).sort();
  /** The longest prefix of a repository path that exists (a glob or placeholder in the rest). */
  const existing = (p: string): string | undefined => {
    let t = p.split("#")[0].replace(/\/+$/, "");
    while (t && !existsSync(join(ROOT, t))) t = t.includes("/") ? t.slice(0, t.lastIndexOf("/")) : "";
    return t || undefined;
  };

  it("the package ships its README, CHANGELOG and docs", () => {
    expect(docs()).toEqual(expect.arrayContaining(["README.md", "CHANGELOG.md", "docs/accumulator.md"]));
  });

  it("every relative link resolves to a file the package holds; every repository link to a path that exists", () => {
    const bad: string[] = [];
    for (const d of docs()) {
      for (const m of prose(readFileSync(join(ROOT, d), "utf8")).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const url = m[1];
        if (url.startsWith("#") || url.startsWith("mailto:")) continue;
        if (/^https?:/.test(url)) {
          if (url.startsWith(`${REPO}/`)) {
            const p = /^https:\/\/github\.com\/agentnorm\/agentnorm\/(?:blob|tree)\/main\/(.+)$/.exec(url.split("#")[0]);
            if (p && !existsSync(join(ROOT, p[1]))) bad.push(`${d}: ${url} (no such path in the repository)`);
          }
          continue;
        }
        const target = normalize(join(dirname(d), url.split("#")[0]));
        if (!shipped().has(target) && ![...shipped()].some((f) => f.startsWith(`${target}/`))) bad.push(`${d}: ${url} (not in the package)`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("a repository path named in backticks is a link to the repository unless the package holds it", () => {
    const bad: string[] = [];
    for (const d of docs()) {
      for (const m of prose(readFileSync(join(ROOT, d), "utf8")).matchAll(/(\[)?`([^`\s]+)`(\]\()?/g)) {
        const [, open, path, close] = m;
        if (!REPO_DIRS.test(path) || (open && close)) continue;
        const p = existing(path);
        if (p && !shipped().has(p)) bad.push(`${d}: \`${path}\``);
      }
    }
    expect(bad).toEqual([]);
  });
});
