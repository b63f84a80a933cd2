/**
 * examples/jvm-bridge/BridgeHost.java against the real, pinned Codex through `agentnorm bridge` (dist/pkg/cli.js,
 * `npm run build` first), offline: the JVM host sends the approval scenario's prompt, allows both commands, prints
 * the turn, closes the bridge and exits 0. Waits only on the java process's end (bounded by the test's timeout).
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { installed, IN_NETNS, rig, scenario, type Rig } from "./rig.ts";

const ROOT = resolve(import.meta.dirname, "../..");
const CLI = join(ROOT, "dist", "pkg", "cli.js");
const HOST = join(ROOT, "examples", "jvm-bridge", "BridgeHost.java");

/** The first `name` on PATH, or undefined. */
function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const f = join(dir, name);
    if (dir && existsSync(f)) return f;
  }
  return undefined;
}

const java = onPath("java");
const inst = installed("codex");
const skip = !java ? "java is not on PATH"
  : !IN_NETNS ? "not inside the test:live network namespace (run npm run test:live)"
  : inst.error ?? (!existsSync(CLI) ? `${CLI} is missing (npm run build)` : undefined);
if (skip) console.warn(`[live] jvm bridge host: skipped — ${skip}`);
const suite = skip ? describe.skip : describe;

/** The rig's environment for a child process: `undefined` removes a variable; java and node go on PATH. */
function childEnv(r: Rig): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(r.options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  env.PATH = [dirname(java!), dirname(process.execPath), env.PATH].filter(Boolean).join(delimiter);
  return env;
}

function run(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolvePromise({ code, signal, stdout, stderr }));
  });
}

suite("live jvm bridge host (codex)", () => {
  it("BridgeHost.java: prompt → two permissions allowed → text → turn completed → close, exit 0", async () => {
    const sc = scenario("approval", { approvals: ["allow", "allow"] });
    const r = await rig("codex", sc);
    try {
      const t0 = performance.now();
      const res = await run(java!, [
        HOST, "--prompt", sc.prompts[0], "--decision", "allow_once", "--",
        process.execPath, CLI, "bridge", "--agent", "codex", "--cwd", r.sandbox.work, "--bin", r.options.bin!,
      ], { cwd: r.sandbox.work, env: childEnv(r) });
      const ms = Math.round(performance.now() - t0);
      const why = `exit ${res.code} (${res.signal}) after ${ms} ms\n--- stdout\n${res.stdout}\n--- stderr\n${res.stderr}`;
      expect(res.code, why).toBe(0);
      const lines = res.stdout.split("\n");
      expect(lines.filter((l) => l.startsWith("permission: ")), why).toEqual([
        expect.stringMatching(/echo hello > notes\.txt.* → allow_once$/),
        expect.stringMatching(/rm README\.md.* → allow_once$/),
      ]);
      expect(res.stdout, why).toContain("I created notes.txt.");
      expect(lines, why).toContain("turn: completed");
      expect(res.stderr, why).toMatch(/bridge ready: .*"type":"ready"/);
      expect(res.stderr, why).toMatch(/bridge exit: .*"type":"exit","code":0/);
      expect(res.stderr, why).not.toContain("protocol error");
      expect(existsSync(join(r.sandbox.work, "notes.txt")), "the first allowed command ran").toBe(true);
      expect(existsSync(join(r.sandbox.work, "README.md")), "the second allowed command ran").toBe(false);
    } finally {
      await r.dispose();
    }
  });
});
