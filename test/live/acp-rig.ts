/**
 * The ACP agents' rig for the live tests: each pinned agent (scripts/test-live.mjs installs them) started the way its
 * recorder starts it (fixtures/record/recorders/*-acp.ts), offline against the scripted model server, as a
 * connect() preset (`agent: "opencode-acp"`, …) or, for the ones run through Node, the `{ acp: { command, args } }`
 * form.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startModelServer, type ModelServer } from "../../fixtures/record/model-server.ts";
import { makeSandbox } from "../../fixtures/record/sandbox.ts";
import type { Scenario } from "../../fixtures/record/scenario.ts";
import { opencodeBinary, opencodeConfig } from "../../fixtures/record/recorders/opencode.ts";
import { writeCodexHome } from "../../fixtures/record/recorders/codex-app-server.ts";
import { claudeOfflineEnv } from "../../fixtures/record/recorders/claude-sdk.ts";
import { openaiChat } from "../../fixtures/record/adapters/openai-chat.ts";
import { openaiResponses } from "../../fixtures/record/adapters/openai-responses.ts";
import { gemini } from "../../fixtures/record/adapters/gemini.ts";
import { anthropicMessages } from "../../fixtures/record/adapters/anthropic-messages.ts";
import { qwenEntry, qwenOffline } from "../../fixtures/record/recorders/qwen-acp.ts";
import { copilotBinary, copilotOfflineEnv } from "../../fixtures/record/recorders/copilot-acp.ts";
import { clineBinary, clineOffline, stopHubDaemons } from "../../fixtures/record/recorders/cline-acp.ts";
import { FAKE_KEY } from "../../fixtures/record/recorder.ts";
import type { ConnectOptions } from "../../src/live/index.ts";
import { installed, type Rig } from "./rig.ts";

export const ACP_AGENTS = ["opencode-acp", "codex-acp", "gemini", "claude-code-acp", "claude-agent-acp", "qwen-acp", "copilot-acp", "cline-acp"] as const;
export type AcpTestAgent = (typeof ACP_AGENTS)[number];

/** The install record scripts/test-live.mjs keeps for `agent` (opencode-acp shares opencode's install). */
export function acpInstalled(agent: AcpTestAgent) {
  return installed(agent === "opencode-acp" ? "opencode" : agent);
}

/** Why `agent` cannot run here (a missing system tool), or undefined. */
export function acpPrerequisite(agent: AcpTestAgent): string | undefined {
  if (agent === "codex-acp") {
    try { execFileSync("bwrap", ["--ro-bind", "/", "/", "true"], { stdio: "ignore" }); } catch {
      return "codex-acp needs a working bubblewrap (`bwrap`; Debian: apt-get install -y bubblewrap)";
    }
  }
  return undefined;
}

function onlyEnv(env: Record<string, string>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) out[k] = undefined;
  return { ...out, ...env };
}

export async function acpRig(agent: AcpTestAgent, s: Scenario, extra: Partial<ConnectOptions> = {}): Promise<Rig> {
  const inst = acpInstalled(agent);
  if (!inst.dir) throw new Error(`${agent} is not installed: ${inst.error}`);
  const dir = inst.dir;
  const sandbox = makeSandbox(`live-${agent}-${s.name}`, s.files);
  const stderr: string[] = [];
  let server: ModelServer;
  let options: ConnectOptions;
  if (agent === "opencode-acp") {
    server = await startModelServer(s, [openaiChat]);
    writeFileSync(join(sandbox.work, "opencode.json"), JSON.stringify(opencodeConfig(), null, 2) + "\n");
    execFileSync("git", ["add", "opencode.json"], { cwd: sandbox.work, env: sandbox.env, stdio: "ignore" });
    execFileSync("git", ["commit", "-q", "-m", "opencode config"], { cwd: sandbox.work, env: sandbox.env, stdio: "ignore" });
    options = {
      agent, bin: opencodeBinary(dir), cwd: sandbox.work,
      env: onlyEnv({
        ...sandbox.env,
        OPENCODE_DISABLE_MODELS_FETCH: "1", OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
        OPENCODE_DISABLE_DEFAULT_PLUGINS: "1", OPENCODE_DISABLE_SHARE: "1", OPENCODE_DISABLE_CLAUDE_CODE: "1",
        OPENCODE_DISABLE_EXTERNAL_SKILLS: "1", OPENCODE_DISABLE_EMBEDDED_WEB_UI: "1",
        AGENTNORM_MODEL_BASE_URL: `${server.url}/v1`,
      }),
    };
  } else if (agent === "codex-acp") {
    openaiResponses.configure({ files: s.files, escalateShell: !!s.approvals?.length });
    server = await startModelServer(s, [openaiResponses]);
    const bin = join(dir, "node_modules", "@zed-industries", `codex-acp-${process.platform}-${process.arch}`, "bin", "codex-acp");
    if (!existsSync(bin)) throw new Error(`codex-acp: ${bin} not found`);
    // bubblewrap execs the sandbox helper `codex-linux-sandbox` by name: a link to codex-acp first on PATH
    const helpers = join(sandbox.root, "bin");
    mkdirSync(helpers, { recursive: true });
    symlinkSync(bin, join(helpers, "codex-linux-sandbox"));
    const codexHome = writeCodexHome(sandbox.home, server.url);
    options = { agent, bin, cwd: sandbox.work, env: onlyEnv({ ...sandbox.env, PATH: `${helpers}:${sandbox.env.PATH}`, CODEX_HOME: codexHome, MOCK_API_KEY: FAKE_KEY, RUST_LOG: "error" }) };
  } else if (agent === "gemini") {
    gemini.configure({ work: sandbox.work });
    server = await startModelServer(s, [gemini]);
    const gdir = join(sandbox.home, ".gemini");
    mkdirSync(gdir, { recursive: true });
    writeFileSync(join(gdir, "settings.json"), JSON.stringify({
      general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: 1 },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      security: { auth: { selectedType: "gemini-api-key" } },
    }, null, 2) + "\n");
    // the bundle is a script: the driver runs a `.js` bin with this Node
    options = {
      agent, bin: join(dir, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js"), args: ["--model", "gemini-2.5-pro"], cwd: sandbox.work,
      env: onlyEnv({ ...sandbox.env, GEMINI_API_KEY: FAKE_KEY, GOOGLE_GEMINI_BASE_URL: server.url, GEMINI_CLI_NO_RELAUNCH: "true", GEMINI_CLI_TRUST_WORKSPACE: "true", GEMINI_TELEMETRY_ENABLED: "false", NO_COLOR: "1" }),
    };
  } else if (agent === "qwen-acp") {
    server = await startModelServer(s, [openaiChat]);
    // the preset, its bin a script (run with this Node); settings and environment as the recorder's
    options = { agent, bin: qwenEntry(dir), cwd: sandbox.work, env: onlyEnv(qwenOffline(sandbox.home, server.url, sandbox.env)) };
  } else if (agent === "copilot-acp") {
    server = await startModelServer(s, [openaiChat]);
    // the preset with the native binary; its BYOK mode (no GitHub login), as the recorder's
    options = { agent, bin: copilotBinary(dir), cwd: sandbox.work, env: onlyEnv(copilotOfflineEnv(server.url, sandbox.env)) };
  } else if (agent === "cline-acp") {
    server = await startModelServer(s, [openaiChat]);
    // the preset with the native binary; its openai-compatible provider (no Cline sign-in), as the recorder's
    options = { agent, bin: clineBinary(dir), cwd: sandbox.work, env: onlyEnv(clineOffline(sandbox.home, server.url, sandbox.env)) };
  } else if (agent === "claude-agent-acp") {
    server = await startModelServer(s, [anthropicMessages]);
    const tmp = join(sandbox.root, "tmp");
    mkdirSync(tmp, { recursive: true });
    // the preset, its bin a script (run with this Node)
    options = {
      agent, bin: join(dir, "node_modules", "@zed-industries", "claude-agent-acp", "dist", "index.js"), cwd: sandbox.work,
      env: onlyEnv({ ...sandbox.env, ...claudeOfflineEnv(server.url), CLAUDE_CODE_TMPDIR: tmp, TMPDIR: tmp }),
    };
  } else {
    server = await startModelServer(s, [anthropicMessages]);
    const tmp = join(sandbox.root, "tmp");
    mkdirSync(tmp, { recursive: true });
    // the generic form: any ACP agent by its command line
    options = {
      agent: { acp: { command: process.execPath, args: [join(dir, "node_modules", "@zed-industries", "claude-code-acp", "dist", "index.js")] } }, cwd: sandbox.work,
      env: onlyEnv({ ...sandbox.env, ...claudeOfflineEnv(server.url), CLAUDE_CODE_TMPDIR: tmp, TMPDIR: tmp }),
    };
  }
  options = { ...options, onStderr: (l) => { stderr.push(l); if (stderr.length > 200) stderr.shift(); }, timeouts: { startMs: 60_000, requestMs: 30_000, interruptGraceMs: 5_000 }, ...extra };
  return {
    sandbox, server, options, stderr,
    async dispose() {
      // the preset runs Cline's sessions in its own process (local backend): no hub daemon may outlive it
      const hubs = agent === "cline-acp" ? await stopHubDaemons(sandbox.root) : [];
      await server.close();
      rmSync(sandbox.root, { recursive: true, force: true });
      if (hubs.length) throw new Error(`cline-acp: ${hubs.length} hub daemon(s) outlived the agent (stopped: ${hubs.join(", ")})`);
    },
  };
}
