import { createNormalizer } from "../src/normalize/normalizer.js";
const n = createNormalizer({ surface: "claude-sdk" });
const m = {"toolName":"Bash","input":{"command":"rm README.md","description":"Run: rm README.md"},"options":{"suggestions":[{"type":"addDirectories","directories":["/sandbox/work"],"destination":"session"}],"blockedPath":"/sandbox/work/README.md","toolUseID":"toolu_1"}};
for (let i = 0; i < 200000; i++) n.push({ ...m, options: { ...m.options, toolUseID: "t" + i } });
