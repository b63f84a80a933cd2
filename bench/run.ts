/**
 * `npm run bench [-- options]`: the package bench (import cost, bundle sizes), the normalize bench (throughput,
 * floors, accumulator, open items, memory) and the sessions bench (listing 1,000 stored sessions; the heap while
 * opening a 10 MB and a 100 MB session file), each in a fresh
 * Node process; `npm run bench -- --peers`: agentnorm
 * side by side with hand-written peers, and the floor ratio of every surface (bench/peers.bench.ts). The method:
 * bench/README.md. Exit status: 1 when a target is missed.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = (f: string) => fileURLToPath(new URL(f, import.meta.url));
const args = process.argv.slice(2);
const run = (node: string[], file: string, rest: string[]): number => spawnSync(process.execPath, [...node, here(file), ...rest], { stdio: "inherit" }).status ?? 1;

let status = 0;
if (args.includes("--peers")) {
  status = run(["--max-old-space-size=8192"], "./peers.bench.js", args.filter((a) => a !== "--peers"));
} else {
  status = run([], "./package.bench.js", []) || status;
  status = run(["--expose-gc", "--max-old-space-size=8192"], "./normalize.bench.js", args) || status;
  status = run([], "./sessions.bench.js", args.filter((a) => a === "--rounds" || /^\d+$/.test(a))) || status;
  status = run(["--expose-gc"], "./sessions-memory.js", ["--mb", "10", "--mb", "100"]) || status;
  status = run([], "./view-large.js", []) || status;
}
process.exit(status);
