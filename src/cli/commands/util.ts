/** Shared CLI plumbing: argument parsing, line reading, back-pressured stdout writes. */
import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";

export class UsageError extends Error {}

export interface Flags { _: string[]; [k: string]: string | boolean | string[] }

export function parseArgs(argv: string[], spec: Record<string, "bool" | "value">): Flags {
  const out: Flags = { _: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-" || !a.startsWith("-")) { out._.push(a); continue; }
    if (a === "--") { out._.push(...argv.slice(i + 1)); break; }
    const [name, inline] = a.replace(/^--?/, "").split(/=(.*)/s, 2);
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown option ${a}`);
    if (kind === "bool") out[name] = true;
    else {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageError(`option --${name} needs a value`);
      out[name] = v;
    }
  }
  return out;
}

/**
 * Stopping on a signal (SIGINT / SIGTERM / SIGHUP): the commands stop reading at the next line, write what they have
 * (whole lines only: every write is a batch of complete lines, and pending writes are flushed), and exit 128+n.
 * A second signal exits at once.
 */
const SIGNALS: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };
let stopSignal: NodeJS.Signals | undefined;
let wake: (() => void) | undefined;
const stopped = new Promise<void>((res) => { wake = res; });
export function handleSignals(): void {
  for (const sig of Object.keys(SIGNALS) as NodeJS.Signals[]) {
    process.on(sig, () => {
      if (stopSignal) process.exit(128 + SIGNALS[stopSignal]!);
      stopSignal = sig;
      wake?.();
    });
  }
}
/** The signal that asked the command to stop, if any. */
export const stopRequested = (): NodeJS.Signals | undefined => stopSignal;
/** Exit code for a stop: 128 + the signal's number. */
export const stopExitCode = (): number => 128 + (stopSignal ? SIGNALS[stopSignal]! : 0);
/** Resolves when everything written to stdout so far has been handed to the OS. */
export function flushStdout(): Promise<void> {
  return new Promise((res) => process.stdout.write("", () => res()));
}

export async function* readLines(file: string | undefined): AsyncGenerator<string> {
  const input = !file || file === "-" ? process.stdin : createReadStream(file);
  const rl = createInterface({ input, crlfDelay: Infinity });
  const failed = new Promise<never>((_, reject) => input.once("error", reject));
  const it = rl[Symbol.asyncIterator]();
  for (;;) {
    if (stopSignal) { rl.close(); return; }
    const r = await Promise.race([it.next(), failed, stopped.then(() => ({ done: true as const, value: undefined }))]);
    if (r.done) { if (stopSignal) rl.close(); return; }
    yield r.value;
  }
}

export function write(s: string): Promise<void> | void {
  if (!process.stdout.write(s)) return new Promise((res) => process.stdout.once("drain", () => res()));
}
