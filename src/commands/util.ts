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

export async function* readLines(file: string | undefined): AsyncGenerator<string> {
  const input = !file || file === "-" ? process.stdin : createReadStream(file);
  const rl = createInterface({ input, crlfDelay: Infinity });
  const failed = new Promise<never>((_, reject) => input.once("error", reject));
  const it = rl[Symbol.asyncIterator]();
  for (;;) {
    const r = await Promise.race([it.next(), failed]);
    if (r.done) return;
    yield r.value;
  }
}

export function write(s: string): Promise<void> | void {
  if (!process.stdout.write(s)) return new Promise((res) => process.stdout.once("drain", () => res()));
}
