/**
 * Builds what a viewer page embeds (ViewerData) from its input: a native recording (normalized here with
 * createNormalizer), a canonical NDJSON stream, or a capture file (NDJSON envelopes with a `stage`). The input is
 * read line by line (src/view/stream.ts: bounded, with a cap the page states); loadInput() takes a whole text.
 * No Node APIs: the caller reads the file.
 */
import { valueLines } from "../normalize/nesting.js";
import { VERSION } from "../version.js";
import { transcriptView } from "./transcript-view.js";
import { verifierProblems } from "./verifier.js";
import { createViewStream, runtimeProblems, type LoadedInput, type LoadOptions, type StreamOptions } from "./stream.js";
import type { TranscriptBlock, TranscriptView, ViewerData, ViewerProblem } from "./types.js";

export { createViewStream, detectInput, runtimeProblems, ViewerInputError, type InputKind, type LoadedInput, type LoadOptions, type StreamOptions, type ViewStream } from "./stream.js";

/**
 * The elements of a JSON-array input (one JSON document holding the messages), as the lines of an NDJSON input
 * (numbered 1…N), or undefined when `text` is not one JSON array. An element nesting deeper than MAX_NESTING becomes
 * a text that every reader reports as too deep (it is not serialized).
 */
export function arrayLines(text: string): string[] | undefined {
  if (!text.trimStart().replace(/^\uFEFF/, "").startsWith("[")) return undefined;
  let arr: unknown;
  try {
    arr = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return undefined;
  }
  return Array.isArray(arr) ? valueLines(arr) : undefined;
}

/** Read a whole input text into events and natives (NDJSON, or one JSON array). Throws ViewerInputError with a clear reason. */
export function loadInput(text: string, opts: StreamOptions = {}): LoadedInput {
  const s = createViewStream(opts);
  const elements = arrayLines(text);
  if (elements) elements.forEach((l, i) => s.line(l, i + 1));
  else {
    let n = 0;
    for (let at = 0; at <= text.length;) {
      const nl = text.indexOf("\n", at);
      const end = nl < 0 ? text.length : nl;
      s.line(text.slice(at, end), ++n);
      at = end + 1;
    }
  }
  return s.end();
}

/** Everything a page embeds. */
export function viewerData(loaded: LoadedInput, opts: LoadOptions = {}): ViewerData {
  const violations = verifierProblems(loaded.events, loaded.natives);
  // Native input is normalized here, so its createdAt are this run's clock: no durations from them.
  const transcript = transcriptView(loaded.events, { timed: loaded.kind !== "native" });
  // Turns left out before the page's first one: the page numbers its turns as the whole stream does.
  const offset = loaded.cut?.left.turns ?? 0;
  if (offset) for (const t of transcript.turns) t.index += offset;
  const provider = loaded.events.find((e) => typeof (e as any).provider === "string") as any;
  return {
    meta: {
      title: opts.title ?? "agentnorm view",
      input: loaded.kind,
      ...(loaded.surface ? { surface: loaded.surface } : {}),
      ...(provider ? { provider: provider.provider } : {}),
      generator: `agentnorm ${VERSION}`,
      verified: true,
      ...(loaded.capture ? { capture: loaded.capture } : {}),
      ...(loaded.cut ? { cut: loaded.cut } : {}),
    },
    events: loaded.events,
    natives: loaded.natives,
    transcript,
    problems: withCardProblems([...violations, ...runtimeProblems(loaded.events), ...loaded.problems, ...transcript.repairs.map((r) => ({ kind: "repair" as const, ...r }))], transcript),
  };
}

/**
 * The header counts what the transcript shows: a warning or error card (a provider's own warning, a failed hook, an
 * error the stream reports) whose event is not already counted as one is a problem of that kind too.
 */
function withCardProblems(problems: ViewerProblem[], transcript: TranscriptView): ViewerProblem[] {
  // an event counted already (as unknown, a warning, an error…) is not counted again
  const counted = new Set(problems.filter((p) => p.sequence !== undefined).map((p) => p.sequence));
  const extra: ViewerProblem[] = [];
  const walk = (bs: readonly TranscriptBlock[]) => {
    for (const b of bs) {
      const kind = b.kind === "notice" ? "warning" : b.kind === "error" ? "error" : undefined;
      if (kind && b.seqs.length && !b.seqs.some((s) => counted.has(s))) {
        extra.push({ kind, sequence: b.seqs[0], message: String(b.title ?? b.text ?? b.kind) });
        counted.add(b.seqs[0]);
      }
      if (b.children) walk(b.children);
    }
  };
  walk(transcript.preamble);
  for (const t of transcript.turns) walk(t.blocks);
  return [...problems, ...extra];
}
