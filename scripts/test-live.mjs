#!/usr/bin/env node
/**
 * npm run test:live — the live drivers against the real, pinned agents, offline.
 *
 * 1. Installs the pinned agents (Codex 0.171.0, opencode 1.18.33, Claude Code 2.1.337 alone and with the Agent SDK
 *    0.3.337; the ACP agents Codex ACP 0.16.0, Gemini CLI 0.61.0, Claude Code ACP 0.16.2, Claude Agent ACP 0.23.1,
 *    Qwen Code 0.24.4, GitHub Copilot CLI 1.0.102, Cline 3.0.65)
 *    into the record cache
 *    (~/.cache/agentnorm-record or $AGENTNORM_RECORD_CACHE) — the only step that uses the network. An agent whose
 *    install fails is recorded with the reason; its tests then skip visibly, saying why.
 * 2. Runs the live tests (vitest.live.config.ts) inside a loopback-only network namespace (`unshare -n`): the
 *    agents reach only the scripted model server on 127.0.0.1.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const CACHE = process.env.AGENTNORM_RECORD_CACHE ?? join(homedir(), ".cache", "agentnorm-record");
// Claude Code: the native CLI binary package the Agent SDK depends on (driver claude: the CLI's stdio stream-json
// protocol, no SDK); 0.3.337 is Claude Code 2.1.337. Driver claude-sdk: the SDK with it. opencode-acp (test/live/acp.test.ts)
// runs opencode's install.
const AGENTS = {
  codex: ["@openai/codex@0.171.0"],
  opencode: ["opencode-ai@1.18.33"],
  claude: ["@anthropic-ai/claude-agent-sdk-linux-x64@0.3.337"],
  "codex-acp": ["@zed-industries/codex-acp@0.16.0"],
  gemini: ["@google/gemini-cli@0.61.0"],
  "claude-code-acp": ["@zed-industries/claude-code-acp@0.16.2"],
  "claude-agent-acp": ["@zed-industries/claude-agent-acp@0.23.1"],
  "qwen-acp": ["@qwen-code/qwen-code@0.24.4"],
  "copilot-acp": ["@github/copilot@1.0.102"],
  "cline-acp": ["cline@3.0.65"],
  // the Agent SDK itself (driver claude-sdk: the host's optional peer dependency), with its native Claude Code
  "claude-sdk": ["@anthropic-ai/claude-agent-sdk@0.3.337", "@anthropic-ai/claude-agent-sdk-linux-x64@0.3.337"],
};

/** The same folder naming as fixtures/record/sandbox.ts installPinned (the recorder and the tests share installs). */
function install(specs) {
  const dir = join(CACHE, [...specs].sort().join("+").replace(/[^A-Za-z0-9@.+-]/g, "_"));
  const stamp = join(dir, ".installed-" + specs.join("+").replace(/[^A-Za-z0-9@.+-]/g, "_"));
  if (existsSync(stamp)) return dir;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "live-agents", private: true }));
  process.stderr.write(`test:live: installing ${specs.join(", ")} into ${dir} …\n`);
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", ...specs], { cwd: dir, stdio: ["ignore", "ignore", "inherit"], timeout: 600_000 });
  writeFileSync(stamp, new Date().toISOString());
  return dir;
}

const record = {};
for (const [agent, specs] of Object.entries(AGENTS)) {
  try {
    record[agent] = { dir: install(specs) };
  } catch (e) {
    record[agent] = { error: `npm install ${specs.join(" ")} failed: ${String(e?.message ?? e).split("\n")[0]}` };
    process.stderr.write(`test:live: ${agent}: ${record[agent].error} — its tests will be skipped\n`);
  }
}
mkdirSync(CACHE, { recursive: true });
writeFileSync(join(CACHE, "live-install.json"), JSON.stringify(record, null, 2));

const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const args = [vitest, "run", "--config", "vitest.live.config.ts", ...process.argv.slice(2)];
// this run's install record also goes in the environment: another run sharing the cache (another worktree) may
// rewrite live-install.json meanwhile
const env = { ...process.env, AGENTNORM_LIVE_NETNS: "1", AGENTNORM_RECORD_CACHE: CACHE, AGENTNORM_LIVE_INSTALLED: JSON.stringify(record) };
let r;
if (process.platform === "linux" && spawnSync("unshare", ["-n", "true"]).status === 0) {
  r = spawnSync("unshare", ["-n", "--", "sh", "-c", 'ip link set lo up 2>/dev/null || true; exec "$@"', "sh", process.execPath, ...args], { stdio: "inherit", env, cwd: root });
} else {
  process.stderr.write("test:live: no network namespace here (unshare -n needs root or user namespaces): the live tests are skipped\n");
  r = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...env, AGENTNORM_LIVE_NETNS: "0" }, cwd: root });
}
process.exit(r.status ?? 1);
