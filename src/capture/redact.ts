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

export type RedactionKind =
  | "api_key" | "bearer" | "jwt" | "private_key" | "assignment" | "secret_field" | "auth_payload" | "env"
  | "home_path" | "project_path" | "tmp_path" | "known_secret" | "truncated"
  | "header" | "url_credentials" | "netrc" | "pgpass";

/** One redaction: where (a JSON Pointer into the capture envelope) and what kind; never the secret itself. */
export interface Redaction {
  path: string;
  kind: RedactionKind;
  /** truncated: the original length in characters. */
  length?: number;
}

export interface RedactOptions {
  /** The user's home directory (→ `<HOME>`). */
  home?: string;
  /** The project / working directory (→ `<PROJECT>`). */
  project?: string;
  /** The temp directory (→ `<TMP>`). */
  tmp?: string;
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
}

const MARK = (kind: RedactionKind) => `<REDACTED:${kind}>`;
/** Strings that are already a marker are left alone (sanitizing a capture twice changes nothing). */
const IS_MARK = /^<(REDACTED:[a-z_]+|HOME|PROJECT|TMP)>$/;

const SHAPES: [RedactionKind, RegExp][] = [
  ["private_key", /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g],
  ["jwt", /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
  ["bearer", /\b(?:Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi],
  ["api_key", /\bsk-ant-[A-Za-z0-9_-]{8,}/g],
  ["api_key", /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}/g],
  ["api_key", /\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g],
  ["api_key", /\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g],
  ["api_key", /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g],
  ["api_key", /\bgithub_pat_[A-Za-z0-9_]{20,}/g],
  ["api_key", /\bglpat-[A-Za-z0-9_-]{16,}/g],
  ["api_key", /\bxox[abprsoe]-[A-Za-z0-9-]{10,}/g],
  ["api_key", /\bAIza[0-9A-Za-z_-]{30,}/g],
  ["api_key", /\bhf_[A-Za-z0-9]{30,}/g],
  ["api_key", /\bnpm_[A-Za-z0-9]{30,}/g],
  ["api_key", /\bgsk_[A-Za-z0-9]{30,}/g],
  ["api_key", /\bxai-[A-Za-z0-9]{30,}/g],
];
/** A superset of what SHAPES can match, tested first (one scan instead of sixteen for plain strings). */
const SHAPE_HINT = /sk-|[srp]k_|AKIA|ASIA|AGPA|AIDA|AROA|gh[pousr]_|github_pat_|glpat-|xox|AIza|hf_|npm_|gsk_|xai-|eyJ|bearer|basic|token|PRIVATE KEY/i;
/**
 * Free-text secrets. Values end at a line end, a quote or a backslash (the start of an escape: the text may be JSON
 * inside a string, where a newline is the two characters `\n`).
 */
const HEADER = /\b((?:Set-)?Cookie|(?:Proxy-)?Authorization|X-Api-Key|Api-Key|X-Auth-Token|X-Amz-Security-Token|Private-Token)(["']?\s*:\s*["']?)(?!\s|<REDACTED:)([^\r\n\\]+)/gi;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/:@"'<>\\]*):(?!<REDACTED:)([^\s/@"'<>\\]+)@/gi;
const NETRC = /\b((?:machine\s+[^\s"'\\]+|default)(?:\s+(?:login|account)\s+[^\s"'\\]+)*\s+password\s+)(?!<REDACTED:)([^\s"'\\]+)/g;
const NETRC_LINE = /((?:^|\n|\\n)[+ -]?[ \t]*password[ \t]+)(?!<REDACTED:)([^\s"'\\]+)/g;
const PGPASS = /((?:^|\n|\\n)[+ -]?[^\s:"'\\]+:(?:\d+|\*):[^\s:"'\\]+:[^\s:"'\\]+:)(?!<REDACTED:)([^\s"'\\]+)(?=$|\r|\n|\\[rn])/g;
const FREE_TEXT: [RedactionKind, RegExp, number][] = [["header", HEADER, 3], ["url_credentials", URL_CREDENTIALS, 3], ["netrc", NETRC, 2], ["netrc", NETRC_LINE, 2], ["pgpass", PGPASS, 2]];
/** A superset of what FREE_TEXT can match. */
const FREE_HINT = /cookie|authori[sz]ation|api-key|auth-token|security-token|private-token|:\/\/|password|:(?:\d+|\*):/i;
/** A JSON document inside a string, or a legacy marker line `[MARKER] {json}`. */
const NESTED_JSON = /^(?:(\[[A-Z_]+\] )["{[]|[{[])/;
const MAX_NESTED_JSON = 4 * 1024 * 1024;
/** A superset of what ASSIGNMENT can match. */
const ASSIGNMENT_HINT = /(?:token|secret|passw|key|credential|auth)[\s\S]*[=:]/i;
/** `OPENAI_API_KEY=value`, `password: value`, `"client_secret":"value"` inside free text: the value goes. */
const ASSIGNMENT = /\b([A-Za-z0-9_.-]{0,40}(?:token|secret|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth)[A-Za-z0-9_.-]{0,40})(["']?\s*[=:]\s*["']?)([^\s"'&,;}\\]{3,})/gi;

/** Words (camelCase, snake_case, kebab-case split, lower-cased) that mark a key's string values as secret. */
const SECRET_WORDS = new Set([
  "token", "tokens", "secret", "secrets", "key", "keys", "apikey", "password", "passwd", "passphrase", "pwd",
  "authorization", "cookie", "cookies", "credential", "credentials", "jwt", "bearer", "otp", "sid", "session_token",
]);
/** Keys that hold metadata about secrets, not secrets: a token *count*, a key's *source*, *type* or *name*. */
const META_LAST = new Set(["source", "type", "types", "name", "names", "count", "limit", "limits", "usage", "mode", "kind", "length", "present", "set", "configured", "status", "required", "expires", "expiry", "expiration", "hint", "helper", "url", "uri", "path", "file", "env"]);
const META_FIRST = new Set(["max", "min", "num", "total", "input", "output", "cached", "reasoning", "cache", "context"]);
const ENV_KEYS = /^(?:env|environment|env_?vars?|environment_?variables?)$/i;
const AUTH_METHOD = /(?:^|[/._-])(?:auth|login|logout|token|tokens|credential|credentials|oauth)(?:$|[/._-])|Auth|Token|Login|Credential/;

/** A bare `key` / `keys` field holding a kebab-case name (`stop-hook-error`: lower-case words joined by hyphens) names
 *  something, it is not a credential; any other value under such a key is still treated as one. */
const KEBAB_NAME = /^[a-z]{3,}(?:-[a-z]{3,})+$/;
function isNameUnderBareKey(key: string, value: unknown): boolean {
  return typeof value === "string" && (key === "key" || key === "keys") && KEBAB_NAME.test(value);
}

function words(key: string): string[] {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

const keyVerdicts = new Map<string, boolean>();

/** Whether a key's string values are secrets (by its words). Cached: keys repeat. */
export function isSecretKey(key: string): boolean {
  let v = keyVerdicts.get(key);
  if (v === undefined) {
    v = secretKeyWords(key);
    if (keyVerdicts.size >= 8192) keyVerdicts.clear();
    keyVerdicts.set(key, v);
  }
  return v;
}

function secretKeyWords(key: string): boolean {
  const w = words(key);
  if (w.length > 1 && (META_LAST.has(w[w.length - 1]) || META_FIRST.has(w[0]))) return false;
  if (w.length === 1 && w[0] === "tokenizer") return false;
  if (w.some((x) => SECRET_WORDS.has(x))) return true;
  const joined = w.join("");
  return /apikey|accesskey|privatekey|secretkey|clientsecret|refreshtoken|accesstoken|idtoken|sessionkey|setcookie/.test(joined);
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

const MAX_KNOWN = 4096;

export function createRedactor(options: RedactOptions = {}): Redactor {
  const maxString = options.maxString ?? 65536;
  const maxDepth = options.maxDepth ?? 256;
  // Longest first: the project usually lives under home, tmp sometimes too.
  const candidates: [string | undefined, string, RedactionKind][] = [[options.project, "<PROJECT>", "project_path"], [options.tmp, "<TMP>", "tmp_path"], [options.home, "<HOME>", "home_path"]];
  const dirs = candidates
    .filter((d): d is [string, string, RedactionKind] => typeof d[0] === "string" && d[0].length > 1)
    .map(([dir, mark, kind]) => [dir.replace(/[/\\]+$/, ""), mark, kind] as const)
    .sort((a, b) => b[0].length - a[0].length)
    .map(([dir, mark, kind]) => ({ dir, re: new RegExp(`${escapeRe(dir)}(?=$|[/\\\\"'\\s:;,)\\]}])`, "g"), mark, kind }));
  // (after a letter only when it is an escape: `\n/home/x` inside JSON text)
  const genericHome = /(?:(?<![A-Za-z0-9_.~-])|(?<=\\[nrt]))(?:\/home\/|\/Users\/|[A-Za-z]:\\{1,2}Users\\{1,2})(?!<)[^/\\\s"'`:;,)\]}]+/g;
  /** Secrets removed by name, scrubbed wherever they reappear. Insertion-ordered, bounded. */
  const known = new Map<string, RedactionKind>();
  let knownRe: RegExp | undefined;
  const learn = (s: string, kind: RedactionKind) => {
    if (s.length < 8 || IS_MARK.test(s) || known.has(s)) return;
    if (known.size >= MAX_KNOWN) known.delete(known.keys().next().value!);
    known.set(s, kind);
    knownRe = undefined;
  };
  for (const s of options.secrets ?? []) if (s) { known.set(s, "known_secret"); }
  /** JSON-RPC ids of auth calls whose response is still to come. */
  const authCalls = new Set<string>();

  return {
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
        const kinds = new Set<RedactionKind>();
        if (IS_MARK.test(s)) return { s, kinds };
        if (s.length <= MAX_NESTED_JSON && nesting < 8) {
          const m = NESTED_JSON.exec(s);
          if (m) {
            const prefix = m[1] ?? "";
            let parsed: unknown;
            let ok = true;
            try { parsed = JSON.parse(s.slice(prefix.length)); } catch { ok = false; }
            if (ok && parsed !== null && (typeof parsed === "object" || (prefix && typeof parsed === "string"))) {
              const inner: Redaction[] = [];
              const saved = redactions;
              redactions = inner;
              nesting++;
              let v: unknown;
              try { v = walk(parsed, "", ""); } finally { nesting--; redactions = saved; }
              for (const r of inner) kinds.add(r.kind);
              if (inner.length) s = prefix + JSON.stringify(v);
              // the text between the JSON values is nothing: done (the shapes below ran inside)
              if (s.length > maxString) {
                const length = s.length;
                return { s: `${s.slice(0, maxString)}…<TRUNCATED:${length}>`, kinds, length };
              }
              return { s, kinds };
            }
          }
        }
        if (known.size) {
          knownRe ??= new RegExp([...known.keys()].sort((a, b) => b.length - a.length).map(escapeRe).join("|"), "g");
          knownRe.lastIndex = 0;
          s = s.replace(knownRe, (m) => { kinds.add("known_secret"); return MARK(known.get(m) ?? "known_secret"); });
        }
        // Each group of patterns runs only when a cheap test says it could match (most strings are plain).
        if (SHAPE_HINT.test(s)) {
          for (const [kind, re] of SHAPES) {
            re.lastIndex = 0;
            if (re.test(s)) { re.lastIndex = 0; s = s.replace(re, () => { kinds.add(kind); return MARK(kind); }); }
          }
        }
        if (FREE_HINT.test(s)) {
          for (const [kind, re, group] of FREE_TEXT) {
            re.lastIndex = 0;
            if (!re.test(s)) continue;
            re.lastIndex = 0;
            s = s.replace(re, (...m: string[]) => {
              kinds.add(kind);
              learn(m[group], kind);
              if (kind === "url_credentials") return `${m[1]}${m[2]}:${MARK(kind)}@`;
              let out = "";
              for (let g = 1; g < group; g++) out += m[g];
              return out + MARK(kind);
            });
          }
        }
        if (ASSIGNMENT_HINT.test(s)) {
          ASSIGNMENT.lastIndex = 0;
          s = s.replace(ASSIGNMENT, (whole, name: string, sep: string, val: string) => {
            if (val.startsWith("<REDACTED:") || !isSecretKey(name) || (/^\d+$/.test(val) && val.length < 6)) return whole;
            kinds.add("assignment");
            learn(val, "assignment");
            return `${name}${sep}${MARK("assignment")}`;
          });
        }
        for (const d of dirs) {
          if (!s.includes(d.dir)) continue;
          d.re.lastIndex = 0;
          if (d.re.test(s)) { d.re.lastIndex = 0; s = s.replace(d.re, () => { kinds.add(d.kind); return d.mark; }); }
        }
        if (s.includes("/home/") || s.includes("/Users/") || s.includes("Users\\")) {
          genericHome.lastIndex = 0;
          if (genericHome.test(s)) { genericHome.lastIndex = 0; s = s.replace(genericHome, () => { kinds.add("home_path"); return "<HOME>"; }); }
        }
        if (s.length > maxString) {
          const length = s.length;
          return { s: `${s.slice(0, maxString)}…<TRUNCATED:${length}>`, kinds, length };
        }
        return { s, kinds };
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
        const out: Record<string, unknown> = {};
        for (const k of Object.keys(o)) {
          const rk = keyOf(k, path);
          const p = `${path}/${escapePointer(rk)}`;
          const x = o[k];
          let y: unknown;
          if ((authRequest && k === "params") || (authResult && k === "result")) y = wipe(x, p, "auth_payload");
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
