/**
 * `npx tsx bench/profile.ts <surface> [lines] [--prof]`: push already-parsed recorded messages of one surface through
 * createNormalizer (the in-memory row of bench --peers, ours only) and print the time per line; with --prof, write a
 * CPU profile to /tmp/prof. A tool for finding where the time goes, not a figure.
 */
import { fileURLToPath } from "node:url";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { expand, loadCorpus } from "./corpus.js";

const root = fileURLToPath(new URL("../", import.meta.url));
const surface = process.argv[2] ?? "claude-sdk";
const n = Number(process.argv[3] ?? 200_000);
const keep = surface === "claude-sdk" ? (r: { dir?: string }) => r.dir === "in" : surface === "opencode" ? (r: { channel?: string }) => r.channel === "event" : () => true;
const corpus = loadCorpus(root, surface, keep as never);
if (!corpus) throw new Error("no corpus for " + surface);
const lines = expand(corpus, n);
const msgs = lines.map((l) => (l === "" ? undefined : JSON.parse(l)));
let events = 0;
const run = () => {
  const norm = createNormalizer({ surface });
  const t = process.cpuUsage();
  for (let i = 0; i < msgs.length; i += 1000) {
    for (let j = i; j < Math.min(i + 1000, msgs.length); j++) events += norm.push(msgs[j]).length;
  }
  const u = process.cpuUsage(t);
  return (u.user + u.system) / 1000;
};
for (let r = 0; r < 5; r++) {
  events = 0;
  const ms = run();
  process.stderr.write(`${surface}: ${msgs.length} lines, ${events} events, ${ms.toFixed(0)} ms cpu, ${(ms * 1000 / msgs.length).toFixed(2)} µs/line\n`);
}
