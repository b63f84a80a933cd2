/**
 * Helpers of the codex tables: provider logic that is not a table (Codex: item titles and command output chunks).
 * Every exported function is callable from a table as `{ $helper: NAME, args: [...] }` (codegen checks the name and
 * the argument count, and reports helpers no table calls). Pure; never throw on provider data; undefined when there is
 * nothing to say.
 */

/** A short human title for a provider item: the command, the changed paths, the tool, the query… */
export function itemTitle(item: unknown): string | undefined {
  if (!item || typeof item !== "object") return undefined;
  const it = item as Record<string, any>;
  if (typeof it.command === "string") return clip(it.command);
  if (Array.isArray(it.command)) return clip(it.command.filter((x: unknown) => typeof x === "string").map(shellQuote).join(" "));
  if (Array.isArray(it.changes)) {
    const paths = it.changes.map((c: any) => c?.path).filter((p: unknown): p is string => typeof p === "string");
    if (paths.length) return clip(paths.join(", "));
  }
  if (typeof it.server === "string" && typeof it.tool === "string") return `${it.server}.${it.tool}`;
  if (typeof it.tool === "string") return it.tool;
  if (typeof it.query === "string") return clip(it.query);
  if (typeof it.path === "string") return clip(it.path);
  return undefined;
}

/** POSIX shell quoting of one argv element (as Codex shows a command: argv ["bash","-lc","cat a b"] → bash -lc 'cat a b'). */
function shellQuote(arg: string): string {
  if (arg !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return "'" + arg.replace(/'/g, `'"'"'`) + "'";
}

function clip(s: string, n = 160): string {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

/**
 * Command output chunks as text. Codex EventMsg `exec_command_output_delta.chunk` is base64 in some versions
 * and a byte array in others; plain strings that are not base64 pass through. Invalid UTF-8 becomes U+FFFD.
 */
export function decodeChunk(chunk: unknown): string | undefined {
  if (Array.isArray(chunk)) {
    if (!chunk.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return undefined;
    return new TextDecoder("utf-8").decode(Uint8Array.from(chunk as number[]));
  }
  if (typeof chunk !== "string") return undefined;
  if (chunk.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(chunk)) return chunk;
  try {
    const bin = atob(chunk);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new TextDecoder("utf-8").decode(bytes);
  } catch {
    return chunk;
  }
}
