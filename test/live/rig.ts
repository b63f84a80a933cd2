/**
 * The live tests' rig: the pinned real agents (installed by scripts/test-live.mjs into the record cache), a fresh
 * sandbox (HOME, XDG dirs, a git work dir), the scripted model server on 127.0.0.1 for a scenario, and the
 * connect() options that point the agent at it. Runs only inside the loopback-only network namespace that
 * scripts/test-live.mjs makes (AGENTNORM_LIVE_NETNS=1).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startModelServer, type ModelServer } from "../../fixtures/record/model-server.ts";
import { makeSandbox, type Sandbox, CACHE } from "../../fixtures/record/sandbox.ts";
import { loadScenarios, type Scenario } from "../../fixtures/record/scenario.ts";
import { codexBinary, codexEnv, writeCodexHome, CODEX_PACKAGES } from "../../fixtures/record/recorders/codex-app-server.ts";
import { opencodeBinary, opencodeConfig, OPENCODE_PACKAGE } from "../../fixtures/record/recorders/opencode.ts";
import { openaiResponses } from "../../fixtures/record/adapters/openai-responses.ts";
import { openaiChat } from "../../fixtures/record/adapters/openai-chat.ts";
import { anthropicMessages } from "../../fixtures/record/adapters/anthropic-messages.ts";
import { claudeOfflineEnv } from "../../fixtures/record/recorders/claude-sdk.ts";
import { FAKE_KEY } from "../../fixtures/record/recorder.ts";
import type { ConnectOptions, LiveAgentName } from "../../src/live/index.ts";
import { groupMembers as liveGroupMembers } from "../../src/live/process.ts";

export const IN_NETNS = process.env.AGENTNORM_LIVE_NETNS === "1";

/** Where scripts/test-live.mjs installed each agent (or why it could not). */
export interface Installed { dir?: string; error?: string }
export function installed(agent: LiveAgentName): Installed {
  // this run's record (scripts/test-live.mjs), else the cache's last one
  if (process.env.AGENTNORM_LIVE_INSTALLED) return (JSON.parse(process.env.AGENTNORM_LIVE_INSTALLED) as Record<string, Installed>)[agent] ?? { error: `no install record for ${agent}` };
  const file = join(CACHE, "live-install.json");
  const given = process.env.AGENTNORM_LIVE_INSTALLED;
  if (!given && !existsSync(file)) return { error: "scripts/test-live.mjs did not run (no live-install.json in the cache)" };
  const all = JSON.parse(given ?? readFileSync(file, "utf8")) as Record<string, Installed>;
  return all[agent] ?? { error: `no install record for ${agent}` };
}
/** Claude Code 2.1.337: the native CLI of the Agent SDK's platform package (the SDK itself is not needed). */
export const CLAUDE_PACKAGE = "@anthropic-ai/claude-agent-sdk-linux-x64@0.3.337";
/** The pinned installs of the agents test:live runs for real (cursor-agent is not on npm: its tests use a stand-in, test/live-cursor.test.ts). */
export const PACKAGES: Partial<Record<LiveAgentName, string[]>> = { codex: CODEX_PACKAGES, opencode: [OPENCODE_PACKAGE], claude: [CLAUDE_PACKAGE], "claude-sdk": ["@anthropic-ai/claude-agent-sdk@0.3.337", CLAUDE_PACKAGE] };

/** The Agent SDK's entry module in an install (package.json exports "." / main), as a file path. */
export function claudeSdkEntry(dir: string): string {
  const pkgDir = join(dir, "node_modules", "@anthropic-ai", "claude-agent-sdk");
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  const dot = pkg.exports?.["."];
  const entry = typeof dot === "string" ? dot : dot?.import ?? dot?.default ?? pkg.main ?? "sdk.mjs";
  return join(pkgDir, typeof entry === "string" ? entry : entry.default);
}

/** The `claude` executable in an install of CLAUDE_PACKAGE. */
export function claudeBinary(dir: string): string {
  return join(dir, "node_modules", "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude");
}

export function scenario(name: string, patch: Partial<Scenario> = {}): Scenario {
  const s = loadScenarios().find((x) => x.name === name);
  if (!s) throw new Error(`no scenario ${name}`);
  return { ...s, ...patch };
}

export interface Rig {
  sandbox: Sandbox;
  server: ModelServer;
  options: ConnectOptions;
  stderr: string[];
  dispose(): Promise<void>;
}

/** A sandbox + model server for `s`, and the connect() options for `agent` against them. */
export async function rig(agent: LiveAgentName, s: Scenario, extra: Partial<ConnectOptions> = {}): Promise<Rig> {
  const inst = installed(agent);
  if (!inst.dir) throw new Error(`${agent} is not installed: ${inst.error}`);
  const sandbox = makeSandbox(`live-${agent}-${s.name}`, s.files);
  const stderr: string[] = [];
  let server: ModelServer;
  let options: ConnectOptions;
  if (agent === "codex") {
    openaiResponses.configure({ files: s.files, escalateShell: !!s.approvals?.length });
    server = await startModelServer(s, [openaiResponses]);
    const codexHome = writeCodexHome(sandbox.home, server.url, { requestUserInput: true });
    const bin = codexBinary(inst.dir);
    options = { agent, bin, cwd: sandbox.work, env: { ...onlyEnv(codexEnv(sandbox.env, codexHome, bin)) } };
  } else if (agent === "claude" || agent === "claude-sdk") {
    server = await startModelServer(s, [anthropicMessages]);
    const tmp = join(sandbox.root, "tmp");
    mkdirSync(tmp, { recursive: true });
    const env = onlyEnv({ ...sandbox.env, ...claudeOfflineEnv(server.url), CLAUDE_CODE_TMPDIR: tmp });
    // claude-sdk: the pinned SDK given as the module (the repository's own devDependency is another version); it
    // finds its native Claude Code itself (no bin)
    options = agent === "claude"
      ? { agent, bin: claudeBinary(inst.dir), cwd: sandbox.work, model: "claude-sonnet-4-6", env }
      : { agent, claudeSdk: { module: await import(pathToFileURL(claudeSdkEntry(inst.dir)).href) }, cwd: sandbox.work, model: "claude-sonnet-4-6", env };
  } else {
    server = await startModelServer(s, [openaiChat]);
    const bin = opencodeBinary(inst.dir);
    writeFileSync(join(sandbox.work, "opencode.json"), JSON.stringify(opencodeConfig(), null, 2) + "\n");
    execFileSync("git", ["add", "opencode.json"], { cwd: sandbox.work, env: sandbox.env, stdio: "ignore" });
    execFileSync("git", ["commit", "-q", "-m", "opencode config"], { cwd: sandbox.work, env: sandbox.env, stdio: "ignore" });
    options = {
      agent, bin, cwd: sandbox.work,
      env: onlyEnv({
        ...sandbox.env,
        OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1", OPENCODE_DISABLE_SHARE: "1", OPENCODE_DISABLE_CLAUDE_CODE: "1",
        OPENCODE_DISABLE_EXTERNAL_SKILLS: "1", OPENCODE_DISABLE_EMBEDDED_WEB_UI: "1",
        AGENTNORM_MODEL_BASE_URL: `${server.url}/v1`,
      }),
    };
  }
  void FAKE_KEY;
  options = { ...options, onStderr: (l) => { stderr.push(l); if (stderr.length > 200) stderr.shift(); }, timeouts: { startMs: 60_000, requestMs: 20_000, interruptGraceMs: 5_000 }, ...extra };
  return {
    sandbox, server, options, stderr,
    async dispose() {
      await server.close();
      rmSync(sandbox.root, { recursive: true, force: true });
    },
  };
}

/**
 * The agent's environment is built from scratch (connect() merges options.env over ours: every variable of ours that
 * the sandbox does not set is removed).
 */
function onlyEnv(env: Record<string, string>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) out[k] = undefined;
  return { ...out, ...env };
}

/** Processes whose process group is `pgid` (from /proc): the survivors of a stop. */
export function groupMembers(pgid: number): number[] {
  return liveGroupMembers(pgid) ?? [];
}
