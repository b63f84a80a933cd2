/**
 * Process supervision for the live layer: every agent runs in its own process group (so a stop reaches the
 * agent's own children too), an exit by code or by signal is an exit, and a stop always ends with the process
 * gone: stdin closed → grace → SIGTERM to the group → SIGKILL to the group → the exit awaited.
 *
 * Node only. No shell: the command and its arguments are passed as they are.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants, readdirSync, readFileSync, statSync } from "node:fs";
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

/**
 * The lifeline script: a background subshell blocks reading fd 3 (our end of a pipe) and kills its process group
 * when the read returns (we are gone); the shell then closes fd 3 for the agent and becomes it (exec: same pid).
 * The agent's command and arguments are passed as "$@" (no shell parsing of them).
 */
const LIFELINE = '(read -r _ <&3; kill -KILL 0) </dev/null >/dev/null 2>&1 & exec 3<&-; exec "$@"';

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
    // The lifeline (POSIX): the child starts as `sh`, which leaves a watcher on an extra pipe (fd 3) in the group and
    // execs the agent (same pid). If we die — even by SIGKILL, which runs no handler — the pipe's end closes, the
    // watcher's read returns, and it SIGKILLs the whole group: a killed host leaves no agent behind.
    const lifeline = process.platform !== "win32";
    const [cmd, argv] = lifeline ? ["/bin/sh", ["-c", LIFELINE, "agentnorm-lifeline", command, ...args]] : [command, [...args]];
    this.proc = spawn(cmd, argv, { cwd: opts.cwd, env, detached: true, stdio: [opts.stdin ? "pipe" : "ignore", "pipe", "pipe", ...(lifeline ? (["pipe"] as const) : [])], windowsHide: true });
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
      // The exit counts once its output is read to the end ('close': what it printed before dying is delivered
      // first), or 2 s after the exit when something outside its group keeps a pipe open.
      let settle: NodeJS.Timeout | undefined;
      let info: ExitInfo | undefined;
      const done = () => {
        if (!info || this.exitInfo) return;
        if (settle) clearTimeout(settle);
        resolve((this.exitInfo = info));
      };
      this.proc.on("exit", (code, signal) => {
        void spawnError;
        info = { code, signal, how: this.stopping ? "stopped" : "exited" };
        // what is left of its group (the lifeline's watcher, grandchildren) goes with it
        if (this.proc.pid !== undefined && process.platform !== "win32") { try { process.kill(-this.proc.pid, "SIGKILL"); } catch { /* none left */ } }
        settle = setTimeout(done, 2000);
      });
      this.proc.on("close", () => done());
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
    if (pid !== undefined && process.platform !== "win32") {
      try { process.kill(-pid, "SIGKILL"); } catch { /* no group left */ }
      await groupGone(pid, 3000);
    }
    return this.exited;
  }
}

/** The live (not zombie) processes of process group `pgid` (Linux: from /proc; elsewhere: undefined). */
export function groupMembers(pgid: number): number[] | undefined {
  if (process.platform !== "linux") return undefined;
  const out: number[] = [];
  let dirs: string[];
  try { dirs = readdirSync("/proc"); } catch { return undefined; }
  for (const d of dirs) {
    if (d.charCodeAt(0) > 57) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      // f[0] state, f[1] ppid, f[2] pgrp
      if (Number(f[2]) === pgid && f[0] !== "Z" && f[0] !== "X") out.push(Number(d));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** Resolves once group `pgid` has no live process (Linux; elsewhere at once), or after `ms`. */
async function groupGone(pgid: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  for (let wait = 5; ; wait = Math.min(wait * 2, 100)) {
    const left = groupMembers(pgid);
    if (!left || left.length === 0 || Date.now() > until) return;
    try { process.kill(-pgid, "SIGKILL"); } catch { return; }
    await new Promise((r) => setTimeout(r, wait));
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
