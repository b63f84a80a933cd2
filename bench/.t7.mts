import { fileURLToPath } from "node:url";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { expand, loadCorpus } from "./corpus.js";
const root = fileURLToPath(new URL("../", import.meta.url));
const corpus = loadCorpus(root, "claude-sdk", ((r: any) => r.dir === "in") as never)!;
const lines = expand(corpus, 100000);
const msgs = lines.map((l) => JSON.parse(l)).filter((m) => m.type === "system" && m.subtype === "init");
console.log(msgs.length, "inits;", new Set(msgs.map(m=>m.session_id)).size, "sessions");
for (let r = 0; r < 8; r++) {
  const n = createNormalizer({ surface: "claude-sdk" });
  const t = process.hrtime.bigint();
  let ev = 0;
  for (const m of msgs) ev += n.push(m).length;
  console.log((Number(process.hrtime.bigint() - t) / 1000 / msgs.length).toFixed(2), "µs/init", ev / msgs.length);
}
console.log(n2());
function n2() { const n = createNormalizer({ surface: "claude-sdk" }); return n.push(msgs[0]).map(e => e.type + " " + JSON.stringify(e).length); }
