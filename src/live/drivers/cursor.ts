/**
 * Cursor CLI (`cursor-agent`): one process per turn — `cursor-agent --print --output-format stream-json
 * --stream-partial-output --resume <chat id> <prompt>` — whose stdout lines are the cursor-cli surface. The chat
 * id comes from `cursor-agent create-chat` (or the `resume` option) and carries the conversation from turn to turn.
 *
 * What the format has not, the driver does not pretend: no requests to answer (a print run asks nothing; its
 * approvals are the CLI's own flags, e.g. `--force` in `args`), no native interrupt (cancel() stops the turn's
 * process; the session then ends the turn as interrupted, with a warning), no history to read (load() is refused).
 * A turn's process that ends without its `result` line is a crash of the agent (restart: "on-demand" goes on with the
 * same chat on the next prompt).
 */
import { startChild, describeExit, type Child, type ExitInfo } from "../process.js";
import { LiveError, LIVE_ERROR_CODES } from "../errors.js";
import type { Driver, DriverFactory, DriverHost, Frame, RequestAnswer, ResolvedOptions } from "../types.js";

class CursorDriver implements Driver {
  private turn: { child: Child; sawResult: boolean; stopping: boolean } | undefined;
  private paused = false;
  private exitedResolve!: (x: ExitInfo) => void;
  readonly exited = new Promise<ExitInfo>((r) => (this.exitedResolve = r));

  constructor(private readonly host: DriverHost, private readonly o: ResolvedOptions) {}

  get pid() { return this.turn?.child.pid; }

  async start(resume: string | undefined): Promise<string> {
    if (resume) return resume;
    // a new chat: its id, printed by `cursor-agent create-chat`
    const child = await startChild(this.o.bin, ["create-chat"], { cwd: this.o.cwd, env: this.o.env, onStderr: (l) => this.host.log(l) });
    let out = "";
    child.proc.stdout!.setEncoding("utf8").on("data", (d: string) => { out += d; });
    const x = await child.exited;
    const id = out.trim().split("\n").pop()?.trim() ?? "";
    if (x.code !== 0 || !id) throw new LiveError(LIVE_ERROR_CODES.START_FAILED, `cursor-agent create-chat ${describeExit(x)}${id ? "" : " and printed no chat id"}${child.tail() ? `: ${child.tail().trim().split("\n").slice(-2).join(" | ")}` : ""}`);
    return id;
  }

  async prompt(chatId: string, text: string): Promise<void> {
    const args = ["--print", "--output-format", "stream-json", "--stream-partial-output", "--resume", chatId, ...(this.o.model ? ["--model", this.o.model] : []), ...(this.o.args ?? []), text];
    const child = await startChild(this.o.bin, args, { cwd: this.o.cwd, env: this.o.env, onStderr: (l) => this.host.log(l) });
    const turn = { child, sawResult: false, stopping: false };
    this.turn = turn;
    const out = child.proc.stdout!;
    out.setEncoding("utf8");
    if (this.paused) out.pause();
    let buf = "";
    out.on("data", (d: string) => {
      buf += d;
      let i: number;
      while ((i = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (!line) continue;
        let msg: unknown = line;
        try { msg = JSON.parse(line); } catch { /* reported by the normalizer as not JSON */ }
        if ((msg as { type?: unknown })?.type === "result") turn.sawResult = true;
        this.host.frame({ dir: "in", message: msg });
      }
    });
    void child.exited.then((x) => {
      if (this.turn === turn) this.turn = undefined;
      // ended without its result, and not because we stopped it: the agent failed
      if (!turn.sawResult && !turn.stopping) this.exitedResolve({ ...x, how: "exited" });
    });
  }

  /** The model of the coming turns (`--model`; the session keeps it in its options). */
  async setModel(): Promise<void> {}

  async interrupt(): Promise<void> {
    const t = this.turn;
    if (!t) return;
    t.stopping = true;
    t.child.signal("SIGINT");
  }

  async send(answer: RequestAnswer): Promise<void> {
    throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, `cursor-agent --print asks no questions; nothing to answer (${answer.kind})`);
  }

  async history(): Promise<{ surface: string; frames: Frame[] }> {
    throw new LiveError(LIVE_ERROR_CODES.AGENT_ERROR, "cursor-agent: the CLI offers no way to read a chat's history; load() is not supported for this agent");
  }

  pause(): void { this.paused = true; this.turn?.child.proc.stdout?.pause(); }
  resume(): void { this.paused = false; this.turn?.child.proc.stdout?.resume(); }

  async stop(graceMs: number): Promise<ExitInfo> {
    const t = this.turn;
    if (!t) return { code: 0, signal: null, how: "stopped" };
    t.stopping = true;
    return t.child.stop(0, Math.max(graceMs, 500));
  }
}

export const cursorDriver: DriverFactory = {
  agent: "cursor",
  surface: "cursor-cli",
  provider: "cursor",
  command: "cursor-agent",
  create: (host, o) => new CursorDriver(host, o),
};
