import { fileURLToPath } from "node:url";
import { expand, loadCorpus } from "./corpus.js";
const root = fileURLToPath(new URL("../", import.meta.url));
const corpus = loadCorpus(root, "claude-sdk", ((r: any) => r.dir === "in") as never)!;
const lines = expand(corpus, 100000);
const u = lines.filter((l) => l !== "" && JSON.parse(l).type === undefined);
console.log(u.length, lines.filter(l=>l==="").length); console.log(u.slice(0, 3).map(l => l.slice(0, 300)).join("\n"));
