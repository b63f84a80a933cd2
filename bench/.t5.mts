import { fileURLToPath } from "node:url";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { expand, loadCorpus } from "./corpus.js";
const root = fileURLToPath(new URL("../", import.meta.url));
const surface = process.argv[2] ?? "claude-sdk";
const keep = surface === "claude-sdk" ? (r: any) => r.dir === "in" : surface === "opencode" ? (r: any) => r.channel === "event" : () => true;
const corpus = loadCorpus(root, surface, keep as never)!;
const lines = expand(corpus, 100000);
const msgs = lines.map((l) => (l === "" ? undefined : JSON.parse(l)));
const key = (m: any) => surface === "opencode" ? m?.type : `${m?.type}${m?.subtype ? "/" + m.subtype : ""}${m?.event ? ":" + m.event.type + (m.event.delta ? "/" + m.event.delta.type : "") : ""}`;
const agg = new Map<string, { n: number; t: number; ev: number; bytes: number }>();
for (let r = 0; r < 3; r++) {
  const n = createNormalizer({ surface });
  for (const m of msgs) {
    const t = process.hrtime.bigint();
    const ev = n.push(m).length;
    const dt = Number(process.hrtime.bigint() - t);
    if (r < 2) continue;
    const k = key(m);
    const a = agg.get(k) ?? { n: 0, t: 0, ev: 0, bytes: 0 };
    a.n++; a.t += dt; a.ev += ev; a.bytes += JSON.stringify(m).length;
    agg.set(k, a);
  }
}
let tot = 0; for (const a of agg.values()) tot += a.t;
for (const [k, a] of [...agg].sort((x, y) => y[1].t - x[1].t).slice(0, 20)) console.log(k.padEnd(55), String(a.n).padStart(6), (a.t / a.n / 1000).toFixed(2).padStart(7), "µs", (100 * a.t / tot).toFixed(1).padStart(5) + "%", (a.ev / a.n).toFixed(2), "ev", Math.round(a.bytes / a.n), "B");
console.log("total µs/msg", (tot / msgs.length / 1000).toFixed(2));
