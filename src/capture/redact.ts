/**
 * Redaction for capture logs. On by default in every capture writer.
 *
 * What it replaces (never the names around it, never anything outside string values and object keys):
 *  - secrets by shape, anywhere in a string: OpenAI/Anthropic `sk-…`, AWS `AKIA…`/`ASIA…`, GitHub `ghp_…`/`gho_…`/
 *    `github_pat_…`, Slack `xox?-…`, Google `AIza…`, Stripe, Hugging Face, GitLab, npm tokens, `Bearer …`/`Basic …`
 *    credentials, JWT-looking strings, PEM/OpenSSH/PGP private keys, `NAME_TOKEN=value` / `password=x` assignments;
 *  - secrets in free text: `Cookie:` / `Set-Cookie:` / `Authorization:` (and API-key / auth-token) header values,
 *    credentials in URLs (`scheme://user:pass@host` → `scheme://user:<REDACTED:url_credentials>@host`), `.netrc`
 *    `password` entries and `.pgpass` lines (`host:port:db:user:password`);
 *  - JSON inside strings (a tool result that is a JSON document, a legacy `[MARKER] {json}` line): parsed, redacted
 *    as a structure (so key names count), and written back;
 *  - secrets by name: every string under a key whose words include token/secret/key/password/authorization/
 *    cookie/credential/session-cookie names (numbers and booleans stay: `input_tokens: 12` is usage, not a secret);
 *  - auth payloads: params and results of JSON-RPC calls whose method names auth/login/token/credential
 *    (e.g. Codex's account/chatgptAuthTokens/refresh), matched to their response by id;
 *  - env maps: values under env/environment keys (object maps and [{name, value}] lists), names kept;
 *  - paths: the home, project and temp directories given (and any /home/<user>, /Users/<user>, C:\Users\<user>)
 *    → `<HOME>`, `<PROJECT>`, `<TMP>`;
 *  - huge strings: cut to `maxString` characters, the original length kept in the marker and the redaction.
 * Every secret removed by name is remembered for the rest of the capture and scrubbed wherever it reappears
 * (normalized events copy provider values into fields whose names no longer say "token").
 *
 * Deterministic (same input + options + history → same output), uses no Node APIs, and never assigns
 * `__proto__`: output objects get their keys with defineProperty, so a payload key "__proto__" stays data.
 */

import {
  dirPattern, HOME_NAME, IS_MARK, isPersonalName, isSecretKey, MARK, scrubText, Txt,
  type RedactionKind, type TextState, type Tok,
} from "./redact-text.js";

export { isSecretKey, looksRandom } from "./redact-text.js";
export type { RedactionKind, Tok } from "./redact-text.js";

/** One redaction: where (a JSON Pointer into the capture envelope) and what kind; never the secret itself. */
export interface Redaction {
  path: string;
  kind: RedactionKind;
  /** truncated: the original length in characters. */
  length?: number;
}

export interface RedactOptions {
  /** The user's home directory (→ `<HOME>`; a /home/NAME or /Users/NAME home also makes NAME a known login name). */
  home?: string;
  /** The project / working directory (→ `<PROJECT>`). */
  project?: string;
  /** The temp directory (→ `<TMP>`). */
  tmp?: string;
  /** The user's login name(s) (→ `<USER>` wherever they appear as a word; common account names are ignored). */
  user?: string | string[];
  /** Strings longer than this are cut (default 65536 characters). */
  maxString?: number;
  /** Objects/arrays nested deeper than this are replaced by "<TRUNCATED:depth>" (default 256; no stack overflow). */
  maxDepth?: number;
  /** Extra literal secrets to scrub (e.g. the API key the host knows it passed to the agent). */
  secrets?: string[];
}

export interface Redactor {
  /** Redact a value; `base` is the JSON Pointer the value sits at (e.g. "/payload"). */
  redact(value: unknown, base?: string): { value: unknown; redactions: Redaction[] };
  /**
   * Redact streamed text with a map: the text rules only (no JSON parsing, no cut), and for every output token the
   * input span it stands for (src/capture/stream-redact.ts splits it back over the deltas the text came in).
   */
  redactTracked(text: string): { text: string; tokens: Tok[]; kinds: RedactionKind[] };
  /** Learn login names from home paths anywhere in a value, without redacting (sanitize reads a capture first). */
  learnNames(value: unknown): void;
}

/** A JSON document inside a string, or a legacy marker line `[MARKER] {json}`. */
const NESTED_JSON = /^(?:(\[[A-Z_]+\] )["{[]|[{[])/;
const MAX_NESTED_JSON = 4 * 1024 * 1024;
const ENV_KEYS = /^(?:env|environment|env_?vars?|environment_?variables?)$/i;
const AUTH_METHOD = /(?:^|[/._-])(?:auth|login|logout|token|tokens|credential|credentials|oauth)(?:$|[/._-])|Auth|Token|Login|Credential/;
/** A command that prints the login name: its output (a lone word next to it) is the name. */
const WHOAMI_COMMAND = /^(?:(?:\/usr)?\/bin\/)?(?:(?:ba|z|fi)?sh\s+-l?c\s+["']?)?(?:whoami|id\s+-un|logname|echo\s+"?\$\{?(?:USER|LOGNAME)\}?"?)["']?\s*$/;

/** A bare `key` / `keys` field holding a kebab-case name (`stop-hook-error`: lower-case words joined by hyphens) names
 *  something, it is not a credential; any other value under such a key is still treated as one. */
const KEBAB_NAME = /^[a-z]{3,}(?:-[a-z]{3,})+$/;
function isNameUnderBareKey(key: string, value: unknown): boolean {
  return typeof value === "string" && (key === "key" || key === "keys") && KEBAB_NAME.test(value);
}

function escapePointer(k: string): string {
  return k.replace(/~/g, "~0").replace(/\//g, "~1");
}

function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const JWK_PRIVATE = new Set(["d", "p", "q", "dp", "dq", "qi", "k"]);
const MAX_KNOWN = 4096;
const MEMO_MAX = 8192;
const MEMO_MAX_LENGTH = 2048;
const MAX_NAMES = 64;

export function createRedactor(options: RedactOptions = {}): Redactor {
  const maxString = options.maxString ?? 65536;
  const maxDepth = options.maxDepth ?? 256;
  // Longest first: the project usually lives under home, tmp sometimes too.
  const candidates: [string | undefined, string, RedactionKind][] = [[options.project, "<PROJECT>", "project_path"], [options.tmp, "<TMP>", "tmp_path"], [options.home, "<HOME>", "home_path"]];
  const dirs = candidates
    .filter((d): d is [string, string, RedactionKind] => typeof d[0] === "string" && d[0].replace(/[/\\]+$/, "").length > 1)
    .map(([dir, mark, kind]) => [dir.replace(/[/\\]+$/, ""), mark, kind] as const)
    .sort((a, b) => b[0].length - a[0].length)
    .map(([dir, mark, kind]) => ({ re: dirPattern(dir), mark, kind, needle: dir.split(/[/\\]+/).filter(Boolean).pop() ?? dir }));
  /** Secrets removed by name, scrubbed wherever they reappear. Insertion-ordered, bounded. */
  const known = new Map<string, RedactionKind>();
  let knownRe: RegExp | undefined;
  /** Text results by string, while nothing new is known (strings repeat: ids, types, paths). */
  const memo = new Map<string, { s: string; kinds: RedactionKind[] }>();
  /** Bumped whenever something new is known (the memo is then cleared). */
  let version = 0;
  const learn = (s: string, kind: RedactionKind) => {
    if (s.length < 8 || IS_MARK.test(s) || s.includes("<REDACTED:") || known.has(s)) return;
    if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
    known.set(s, kind);
    knownRe = undefined;
    memo.clear();
    version++;
  };
  for (const s of options.secrets ?? []) if (s) { known.set(s, "known_secret"); }
  /** The user's login names: given, or learned from home paths / USER= / whoami output / ls -l owners. */
  const names = new Set<string>();
  let namesRe: RegExp | undefined;
  const learnName = (n: string) => {
    const k = n.toLowerCase();
    if (names.has(k) || names.size >= MAX_NAMES || !isPersonalName(n)) return;
    names.add(k);
    namesRe = undefined;
    memo.clear();
    version++;
  };
  for (const u of typeof options.user === "string" ? [options.user] : options.user ?? []) learnName(u);
  const homeName = /^(?:\/home\/|\/Users\/|[A-Za-z]:\\Users\\)([^/\\]+)$/.exec(options.home?.replace(/[/\\]+$/, "") ?? "");
  if (homeName) learnName(homeName[1]);
  /** JSON-RPC ids of auth calls whose response is still to come. */
  const authCalls = new Set<string>();
  let depth = 0;
  const state: TextState = {
    knownRe: () => (known.size ? (knownRe ??= new RegExp([...known.keys()].sort((a, b) => b.length - a.length).map(escapeRe).join("|"), "g")) : undefined),
    knownKind: (s) => known.get(s) ?? "known_secret",
    learn,
    namesRe: () => (names.size ? (namesRe ??= new RegExp(`(?<![A-Za-z0-9_])(?<!<REDACTED:)(?:${[...names].sort((a, b) => b.length - a.length).map(escapeRe).join("|")})(?![A-Za-z0-9_])`, "gi")) : undefined),
    learnName,
    dirs,
    depth: 0,
    scrubInner: (s) => {
      depth++;
      state.depth = depth;
      try {
        const t = new Txt(s);
        scrubText(t, state);
        return t.s;
      } finally {
        depth--;
        state.depth = depth;
      }
    },
  };
  /** Login names in home paths anywhere in a value (no redaction). */
  const learnNamesIn = (v: unknown, d: number) => {
    if (typeof v === "string") {
      if (!/home|Users/.test(v)) return;
      const re = new RegExp(HOME_NAME.source, "g");
      for (let m = re.exec(v); m; m = re.exec(v)) learnName(m[1]);
    } else if (v && typeof v === "object" && d < 64) {
      for (const k of Object.keys(v)) { learnNamesIn(k, d + 1); learnNamesIn((v as Record<string, unknown>)[k], d + 1); }
    }
  };

  return {
    learnNames: (v) => learnNamesIn(v, 0),
    redactTracked(text) {
      const t = new Txt(text, true);
      scrubText(t, state);
      return { text: t.s, tokens: t.toks!, kinds: [...t.kinds] };
    },
    redact(value, base = "") {
      let redactions: Redaction[] = [];
      let nesting = 0;
      const note = (path: string, kind: RedactionKind, length?: number) => {
        redactions.push(length === undefined ? { path, kind } : { path, kind, length });
      };

      let baseDepth = 0;
      for (let i = 0; i < base.length; i++) if (base.charCodeAt(i) === 47) baseDepth++;
      /** Too deep to walk safely: the subtree is replaced (and reported), so nothing unchecked is written. */
      const tooDeep = (v: unknown, path: string): boolean => {
        if (!v || typeof v !== "object") return false;
        let n = -baseDepth;
        for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47 && ++n > maxDepth) break;
        if (n <= maxDepth) return false;
        note(path, "truncated");
        return true;
      };
      /** Scrub one string; the kinds found go to `path` (for an object key: the path under the scrubbed key). */
      const scrub = (s: string): { s: string; kinds: Set<RedactionKind>; length?: number } => {
        if (IS_MARK.test(s)) return { s, kinds: new Set() };
        if (s.length <= MAX_NESTED_JSON && nesting < 8) {
          const m = NESTED_JSON.exec(s);
          if (m) {
            const prefix = m[1] ?? "";
            let parsed: unknown;
            let ok = true;
            try { parsed = JSON.parse(s.slice(prefix.length)); } catch { ok = false; }
            if (ok && parsed !== null && (typeof parsed === "object" || (prefix && typeof parsed === "string"))) {
              const kinds = new Set<RedactionKind>();
              const inner: Redaction[] = [];
              const saved = redactions;
              redactions = inner;
              nesting++;
              let v: unknown;
              try { v = walk(parsed, "", ""); } finally { nesting--; redactions = saved; }
              for (const r of inner) kinds.add(r.kind);
              if (inner.length) s = prefix + JSON.stringify(v);
              // the text between the JSON values is nothing: done (the text rules ran inside)
              if (s.length > maxString) {
                const length = s.length;
                return { s: `${s.slice(0, maxString)}…<TRUNCATED:${length}>`, kinds, length };
              }
              return { s, kinds };
            }
          }
        }
        if (s.length <= MEMO_MAX_LENGTH) {
          const hit = memo.get(s);
          if (hit) return { s: hit.s, kinds: new Set(hit.kinds) };
        }
        const t = new Txt(s);
        const v0 = version;
        scrubText(t, state);
        if (t.s.length > maxString) {
          const length = t.s.length;
          return { s: `${t.s.slice(0, maxString)}…<TRUNCATED:${length}>`, kinds: t.kinds, length };
        }
        // (not when this string taught something new: the memo was just cleared for it)
        if (s.length <= MEMO_MAX_LENGTH && v0 === version) {
          if (memo.size >= MEMO_MAX) memo.clear();
          memo.set(s, { s: t.s, kinds: [...t.kinds] });
        }
        return { s: t.s, kinds: t.kinds };
      };
      const str = (s: string, path: string): string => {
        const r = scrub(s);
        for (const k of r.kinds) note(path, k);
        if (r.length !== undefined) note(path, "truncated", r.length);
        return r.s;
      };
      /** An object key: scrubbed like a string, reported at the (scrubbed) key's own path. */
      const keyOf = (k: string, path: string): string => {
        const r = scrub(k);
        const p = `${path}/${escapePointer(r.s)}`;
        for (const kind of r.kinds) note(p, kind);
        if (r.length !== undefined) note(p, "truncated", r.length);
        return r.s;
      };

      /** Everything under this value is a secret (key-named field, auth payload): strings → markers. */
      const wipe = (v: unknown, path: string, kind: RedactionKind): unknown => {
        if (tooDeep(v, path)) return "<TRUNCATED:depth>";
        if (typeof v === "string") {
          if (IS_MARK.test(v) || v === "") return v;
          learn(v, kind);
          note(path, kind);
          return MARK(kind);
        }
        if (Array.isArray(v)) return v.map((x, i) => wipe(x, `${path}/${i}`, kind));
        if (v && typeof v === "object") {
          const out: Record<string, unknown> = {};
          for (const k of Object.keys(v)) {
            const rk = keyOf(k, path);
            setOwn(out, rk, wipe((v as Record<string, unknown>)[k], `${path}/${escapePointer(rk)}`, kind));
          }
          return out;
        }
        return v;
      };

      const env = (v: unknown, path: string): unknown => {
        if (tooDeep(v, path)) return "<TRUNCATED:depth>";
        if (Array.isArray(v)) {
          return v.map((x, i) => {
            if (x && typeof x === "object" && !Array.isArray(x) && "value" in x) {
              const out: Record<string, unknown> = {};
              for (const k of Object.keys(x)) {
                const rk = keyOf(k, `${path}/${i}`);
                const p = `${path}/${i}/${escapePointer(rk)}`;
                setOwn(out, rk, k === "value" ? wipe((x as any)[k], p, "env") : walk((x as any)[k], p, k));
              }
              return out;
            }
            return typeof x === "string" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(x) ? `${x.slice(0, x.indexOf("="))}=${wipe(x.slice(x.indexOf("=") + 1), `${path}/${i}`, "env")}` : walk(x, `${path}/${i}`, "");
          });
        }
        if (v && typeof v === "object") {
          const out: Record<string, unknown> = {};
          for (const k of Object.keys(v)) {
            const rk = keyOf(k, path);
            setOwn(out, rk, wipe((v as Record<string, unknown>)[k], `${path}/${escapePointer(rk)}`, "env"));
          }
          return out;
        }
        return walk(v, path, "");
      };

      /** The login name printed by a whoami-like command next to it (`{command: "whoami", output: "alice\n"}`). */
      const whoamiOutputs = (o: Record<string, unknown>) => {
        const vals = Object.keys(o).map((k) => o[k]);
        const isCmd = (x: unknown) => (typeof x === "string" && WHOAMI_COMMAND.test(x.trim())) || (Array.isArray(x) && x.length > 0 && x.every((y) => typeof y === "string") && WHOAMI_COMMAND.test(x.slice(-1)[0].trim()) && x.length <= 3);
        if (!vals.some(isCmd)) return;
        for (const x of vals) if (typeof x === "string" && /^\s*[a-z_][a-z0-9._-]{2,31}\s*$/.test(x) && !WHOAMI_COMMAND.test(x.trim())) learnName(x.trim());
      };

      const walk = (v: unknown, path: string, key: string): unknown => {
        if (tooDeep(v, path)) return "<TRUNCATED:depth>";
        if (typeof v === "string") return str(v, path);
        if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}/${i}`, key));
        if (!v || typeof v !== "object") return v;
        const o = v as Record<string, unknown>;
        // Auth calls: params of the request and the result of its response.
        let authResult = false;
        if (typeof o.method === "string" && AUTH_METHOD.test(o.method)) {
          if (o.id !== undefined && o.id !== null) authCalls.add(String(o.id));
        } else if (o.id !== undefined && o.id !== null && ("result" in o || "error" in o) && typeof o.method !== "string" && authCalls.has(String(o.id))) {
          authCalls.delete(String(o.id));
          authResult = true;
        }
        const authRequest = typeof o.method === "string" && AUTH_METHOD.test(o.method);
        // A Kubernetes Secret (kubectl get secret -o json): every value under data / stringData.
        const k8sSecret = o.kind === "Secret" && (typeof o.data === "object" || typeof o.stringData === "object");
        // A JSON Web Key: its private members (RSA d p q dp dq qi, EC/OKP d, symmetric k)
        const jwk = typeof o.kty === "string" && /^(?:RSA|EC|OKP|oct)$/.test(o.kty);
        whoamiOutputs(o);
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(o)) {
          const rk = keyOf(k, path);
          const p = `${path}/${escapePointer(rk)}`;
          const x = o[k];
          let y: unknown;
          if ((authRequest && k === "params") || (authResult && k === "result")) y = wipe(x, p, "auth_payload");
          else if (k8sSecret && (k === "data" || k === "stringData") && x !== null && typeof x === "object") y = wipe(x, p, "k8s_secret");
          else if (jwk && typeof x === "string" && JWK_PRIVATE.has(k)) y = wipe(x, p, "jwk");
          else if (isSecretKey(k) && !isNameUnderBareKey(k, x) && (typeof x === "string" || (x !== null && typeof x === "object"))) y = wipeStrings(x, p);
          else if (ENV_KEYS.test(k)) y = env(x, p);
          else y = walk(x, p, k);
          setOwn(out, rk, y);
        }
        return out;
      };

      /** Under a secret-named key: strings go, numbers/booleans (counts, flags) stay, nested keys still checked. */
      const wipeStrings = (v: unknown, path: string): unknown => {
        if (tooDeep(v, path)) return "<TRUNCATED:depth>";
        if (typeof v === "string") return wipe(v, path, "secret_field");
        if (Array.isArray(v)) return v.map((x, i) => wipeStrings(x, `${path}/${i}`));
        if (v && typeof v === "object") {
          const out: Record<string, unknown> = {};
          for (const k of Object.keys(v)) {
            const rk = keyOf(k, path);
            setOwn(out, rk, wipeStrings((v as Record<string, unknown>)[k], `${path}/${escapePointer(rk)}`));
          }
          return out;
        }
        return v;
      };

      const out = walk(value, base, "");
      return { value: out, redactions };
    },
  };
}
