/**
 * Process supervision for the live layer: every agent runs in its own process group (so a stop reaches the
 * agent's own children too), an exit by code or by signal is an exit, and a stop always ends with the process
 * gone: stdin closed → grace → SIGTERM to the group → SIGKILL to the group → the exit awaited.
 *
 * Node only. No shell: the command and its arguments are passed as they are.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { LiveError, LIVE_ERROR_CODES } from "./errors.js";

/** How a child ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** "stopped": we stopped it (close()); "exited": it ended by itself or was killed by someone else. */
  how: "stopped" | "exited";
}

export interface SpawnOptions {
  cwd?: string;
  env: Record<string, string | undefined>;
  /** Log sink for stderr lines (the tail is also kept for error messages). */
  onStderr?: (line: string) => void;
  /** Pipe stdin (JSON-RPC over stdio) or not (a server). */
  stdin?: boolean;
}

/** The absolute path of `name` on PATH (or `name` itself when it has a slash); undefined when not found. */
export function findOnPath(name: string, env: Record<string, string | undefined> = process.env): string | undefined {
  const exe = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (name.includes("/") || isAbsolute(name)) return exe(name) ? name : undefined;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    if (exe(p)) return p;
  }
  return undefined;
}

/** A supervised child: its own process group, its exit as a promise that never rejects. */
export class Child {
  readonly proc: ChildProcess;
  readonly exited: Promise<ExitInfo>;
  private stopping = false;
  private tailText = "";
  private exitInfo: ExitInfo | undefined;

  constructor(readonly command: string, readonly args: readonly string[], opts: SpawnOptions) {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.env)) if (v !== undefined) env[k] = v;
    // detached: a new process group led by the child (a signal to -pid reaches all of it); we never unref it.
    this.proc = spawn(command, [...args], { cwd: opts.cwd, env, detached: true, stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe"], windowsHide: true });
    let partial = "";
    this.proc.stderr!.setEncoding("utf8");
    this.proc.stderr!.on("data", (d: string) => {
      this.tailText = (this.tailText + d).slice(-4000);
      if (!opts.onStderr) return;
      partial += d;
      let i: number;
      while ((i = partial.indexOf("\n")) >= 0) {
        opts.onStderr(partial.slice(0, i));
        partial = partial.slice(i + 1);
      }
      if (partial.length > 64_000) { opts.onStderr(partial); partial = ""; }
    });
    this.exited = new Promise<ExitInfo>((resolve) => {
      let spawnError: Error | undefined;
      this.proc.on("error", (err) => {
        spawnError = err;
        // spawn failure (ENOENT, EACCES): no "exit" follows
        if (this.proc.pid === undefined) resolve((this.exitInfo = { code: null, signal: null, how: "exited" }));
      });
      this.proc.on("exit", (code, signal) => {
        void spawnError;
        resolve((this.exitInfo = { code, signal, how: this.stopping ? "stopped" : "exited" }));
      });
    });
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }
  /** Has it ended (by code or by signal)? */
  get ended(): boolean {
    return this.exitInfo !== undefined;
  }
  get exit(): ExitInfo | undefined {
    return this.exitInfo;
  }
  /** The last 4,000 characters of its stderr (for error messages). */
  tail(): string {
    return this.tailText;
  }

  /** A signal to the whole process group (falls back to the child alone where groups are not available). */
  signal(sig: NodeJS.Signals): void {
    if (this.ended || this.proc.pid === undefined) return;
    try {
      if (process.platform === "win32") this.proc.kill(sig);
      else process.kill(-this.proc.pid, sig);
    } catch {
      try { this.proc.kill(sig); } catch { /* already gone */ }
    }
  }

  /**
   * Stop it: stdin closed (an agent on stdio ends by itself on EOF), `graceMs` to exit, SIGTERM to the group,
   * `termMs` more, SIGKILL to the group. Resolves when it has exited. Also SIGKILLs what is left of the group after a
   * clean exit of the leader (grandchildren that ignored the EOF).
   */
  async stop(graceMs = 2000, termMs = 2000): Promise<ExitInfo> {
    this.stopping = true;
    const pid = this.proc.pid;
    try { this.proc.stdin?.end(); } catch { /* closed */ }
    const wait = (ms: number) => new Promise<boolean>((r) => {
      if (this.ended) return r(true);
      const t = setTimeout(() => r(false), ms);
      void this.exited.then(() => { clearTimeout(t); r(true); });
    });
    if (!(await wait(graceMs))) {
      this.signal("SIGTERM");
      if (!(await wait(termMs))) {
        this.signal("SIGKILL");
        await this.exited;
      }
    }
    // the leader is gone; its group may not be (a grandchild that ignored SIGTERM or kept running)
    if (pid !== undefined && process.platform !== "win32") { try { process.kill(-pid, "SIGKILL"); } catch { /* no group left */ } }
    return this.exited;
  }
}

/** Start `command` supervised; rejects with AGENT_NOT_FOUND when it cannot be started at all. */
export async function startChild(command: string, args: readonly string[], opts: SpawnOptions): Promise<Child> {
  const child = new Child(command, args, opts);
  await new Promise<void>((resolve, reject) => {
    child.proc.once("spawn", () => resolve());
    child.proc.once("error", (err) => reject(new LiveError(LIVE_ERROR_CODES.START_FAILED, `cannot start ${command}: ${(err as Error).message}`, { cause: err })));
  });
  return child;
}

/** "exited with code 1" / "killed by SIGKILL". */
export function describeExit(e: ExitInfo): string {
  return e.signal ? `killed by ${e.signal}` : `exited with code ${e.code}`;
}

/**
 * Exit when the process that started us is gone (a bridge whose host died): polls the parent pid, because an
 * orphan is re-parented (to 1 or a subreaper) and no signal says so. Returns a stop function.
 */
export function watchParent(onGone: () => void, everyMs = 1000, parentPid = process.ppid): () => void {
  const t = setInterval(() => {
    let gone = process.ppid !== parentPid;
    if (!gone) { try { process.kill(parentPid, 0); } catch { gone = true; } }
    if (gone) { clearInterval(t); onGone(); }
  }, everyMs);
  t.unref();
  return () => clearInterval(t);
}
