/**
 * Named helpers that mapping rows may call with `{ $helper: NAME, args: [...] }`, for the rare logic
 * that is not a table. Every exported function here is callable from YAML; codegen rejects other names.
 * Helpers are pure, never throw on provider data, and return undefined when they have nothing to say.
 */

/** A decision as a string: string decisions as they are; `{acceptWithExecpolicyAmendment: …}` → its key. */
export function decisionName(decision: unknown): string | undefined {
  if (typeof decision === "string") return decision;
  if (decision && typeof decision === "object" && !Array.isArray(decision)) {
    const keys = Object.keys(decision);
    if (keys.length === 1) return keys[0];
  }
  return undefined;
}

/** A string from a string or a list of strings (joined with blank lines). */
export function joinText(x: unknown): string | undefined {
  if (typeof x === "string") return x;
  if (Array.isArray(x)) {
    const parts = x.filter((p): p is string => typeof p === "string");
    return parts.length ? parts.join("\n\n") : undefined;
  }
  return undefined;
}

/** A short human title for a provider item: the command, the changed paths, the tool, the query… */
export function itemTitle(item: unknown): string | undefined {
  if (!item || typeof item !== "object") return undefined;
  const it = item as Record<string, any>;
  if (typeof it.command === "string") return clip(it.command);
  if (Array.isArray(it.command)) return clip(it.command.filter((x: unknown) => typeof x === "string").join(" "));
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

/** A string when the value is one (or a number), else undefined. */
export function str(x: unknown): string | undefined {
  return typeof x === "string" ? x : typeof x === "number" && Number.isFinite(x) ? String(x) : undefined;
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

/** A number when the value is a finite number (or a numeric string), else undefined. */
export function num(x: unknown): number | undefined {
  if (typeof x === "number" && Number.isFinite(x)) return x;
  if (typeof x === "string" && x.trim() !== "" && Number.isFinite(Number(x))) return Number(x);
  return undefined;
}

/** Plan steps as canonical {step, status}: from Codex/SDK todo items ({text, completed}) or plan items ({step, status}); [] when absent. */
export function planSteps(items: unknown): { step: string; status: "pending" | "inProgress" | "completed" }[] {
  if (!Array.isArray(items)) return [];
  const status = (s: unknown, done: unknown): "pending" | "inProgress" | "completed" =>
    done === true || s === "completed" ? "completed" : s === "in_progress" || s === "inProgress" ? "inProgress" : "pending";
  return items
    .filter((i) => i && typeof i === "object")
    .map((i: any) => ({ step: String(i.step ?? i.text ?? i.content ?? ""), status: status(i.status, i.completed) }));
}

/** A composite key: the parts joined with ":" (undefined when any part is missing). For ids keyed by several fields. */
export function joinKey(...parts: unknown[]): string | undefined {
  if (parts.some((p) => p === undefined || p === null || (typeof p !== "string" && typeof p !== "number"))) return undefined;
  return parts.map(String).join(":");
}

/** x + 1, counting from 0 when x is not a number (for counters kept in session variables). */
export function inc(x: unknown): number {
  return (typeof x === "number" && Number.isFinite(x) ? x : 0) + 1;
}
