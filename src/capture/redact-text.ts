/**
 * The text rules of capture redaction (src/capture/redact.ts holds the redactor that walks values and keeps the
 * state these rules read: literal secrets, login names, directories). Every rule is general — a shape, a name, a
 * context, entropy, a decoding — never a list of example values. In order:
 *
 *  1. literal secrets already seen (values removed by name earlier in the capture, the host's own keys);
 *  2. shapes: provider keys and tokens by their documented prefixes and formats (OpenAI, Anthropic, AWS, GitHub,
 *     GitLab, Slack, Google, Stripe incl. `whsec_`, SendGrid `SG.x.y`, Telegram bot tokens `123456:AA…`, Twilio,
 *     npm, PyPI, Docker Hub, Hugging Face, HashiCorp, DigitalOcean, Shopify, Atlassian, …), JWTs, bearer/basic
 *     credentials, private key blocks;
 *  3. webhook URLs (Slack, Discord, Teams, Zapier) and secret-named URL query parameters (`sig=`, `token=`, `key=`);
 *  4. headers (`Cookie:`, `Authorization:` …), URL credentials (the password may contain `@`), `.netrc`, `.pgpass`;
 *  5. passwords given as command flags: `--password X` and every secret-named long flag, `curl -u user:pass`,
 *     `mysql -pX`, `sshpass -p X`, `docker login -p X`, `redis-cli -a X`, `sqlcmd -P X`, `ldapsearch -w X`,
 *     `zip -P X`, `7z -pX`, `openssl -passin pass:X`, `htpasswd -b f u X`, `echo X | … --password-stdin`,
 *     `kubectl create secret … --from-literal=k=X`, `config set NAME X`;
 *  6. Kubernetes Secret manifests: the values under `data:` / `stringData:`;
 *  7. assignments: `NAME=value`, `name: value`, `"name": "value"` whose name is secret-like (a broad word rule:
 *     *_KEY, *_PASS, *_SALT, *_WH, auth, …) unless the value is code (`getToken()`, `os.environ[…]`, `null`), a
 *     reference (`$VAR`) or prose; and, whatever the name (unless it names an id or hash), a value that looks random
 *     (entropy, character-class mix; hex hashes and UUIDs excluded);
 *  8. base64 blobs that decode to text holding a secret (or to a `user:password` pair): re-encoded redacted;
 *  9. home, project and temp directories (also JSON-escaped `\/home\/u`, `C:\\\\Users\\\\u`, after ANSI colours);
 * 10. the user's login name: known names (given, or seen in a home path, `USER=`, `uid=…(name)`, `whoami` output,
 *     `ls -l` owners) anywhere as a word, and `ssh user@host`-style command arguments → `<USER>`.
 *
 * Each rule runs on a `Txt`, which can track where every output character came from (streamed text is redacted
 * across delta boundaries with that map: src/capture/stream-redact.ts). No Node APIs.
 */

export type RedactionKind =
  | "api_key" | "bearer" | "jwt" | "private_key" | "assignment" | "secret_field" | "auth_payload" | "env"
  | "home_path" | "project_path" | "tmp_path" | "known_secret" | "truncated"
  | "header" | "url_credentials" | "netrc" | "pgpass"
  | "webhook" | "url_query" | "command_flag" | "k8s_secret" | "entropy" | "base64" | "user_name" | "password_hash" | "jwk";

export const MARK = (kind: RedactionKind): string => `<REDACTED:${kind}>`;
export const USER_MARK = "<USER>";
/** Strings that are already a marker are left alone (sanitizing a capture twice changes nothing). */
export const IS_MARK = /^<(REDACTED:[a-z0-9_]+|HOME|PROJECT|TMP|USER)>$/;

// ── tracked text ──────────────────────────────────────────────────────────────────────────────────────────

/** A run of output text and the span of the input it stands for ([a, b)); `mark`: a replacement. */
export interface Tok { text: string; a: number; b: number; mark: boolean }

interface Edit { start: number; end: number; text: string }

/**
 * A string being redacted. `sub` replaces matches; when tracking, each replacement (trimmed to the part that
 * changed) becomes a `mark` token covering the input it replaced, so the caller can tell which input characters
 * each output character comes from.
 */
export class Txt {
  s: string;
  toks: Tok[] | undefined;
  readonly kinds = new Set<RedactionKind>();
  constructor(s: string, track = false) {
    this.s = s;
    this.toks = track ? [{ text: s, a: 0, b: s.length, mark: false }] : undefined;
  }
  /** Replace each match of the global `re` by what `fn` returns (undefined: keep the match). */
  sub(re: RegExp, fn: (m: string[], offset: number, s: string) => string | undefined): void {
    re.lastIndex = 0;
    const edits: Edit[] | undefined = this.toks ? [] : undefined;
    const src = this.s;
    let changed = false;
    const out = src.replace(re, (...args: unknown[]) => {
      const hasGroups = typeof args[args.length - 1] === "object" && args[args.length - 1] !== null;
      const n = args.length - (hasGroups ? 3 : 2);
      const off = args[n] as number;
      const m = args.slice(0, n) as string[];
      const r = fn(m, off, src);
      if (r === undefined || r === m[0]) return m[0];
      changed = true;
      if (edits) {
        const whole = m[0];
        let p = 0;
        const lim = Math.min(whole.length, r.length);
        while (p < lim && whole.charCodeAt(p) === r.charCodeAt(p)) p++;
        let q = 0;
        while (q < lim - p && whole.charCodeAt(whole.length - 1 - q) === r.charCodeAt(r.length - 1 - q)) q++;
        edits.push({ start: off + p, end: off + whole.length - q, text: r.slice(p, r.length - q) });
      }
      return r;
    });
    if (!changed) return;
    this.s = out;
    if (edits && this.toks) this.toks = applyEdits(this.toks, edits);
  }
}

function applyEdits(toks: Tok[], edits: Edit[]): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  let pos = 0; // where toks[i] starts in the current text
  const copy = (from: number, to: number) => {
    while (from < to && i < toks.length) {
      const t = toks[i];
      const end = pos + t.text.length;
      if (end <= from) { pos = end; i++; continue; }
      const lo = from - pos;
      const hi = Math.min(to, end) - pos;
      out.push(t.mark ? { text: t.text.slice(lo, hi), a: t.a, b: t.b, mark: true } : { text: t.text.slice(lo, hi), a: t.a + lo, b: t.a + hi, mark: false });
      from = pos + hi;
      if (from >= end) { pos = end; i++; }
    }
  };
  let cur = 0;
  for (const e of edits) {
    copy(cur, e.start);
    let a = Infinity;
    let b = -Infinity;
    let from = e.start;
    while (from < e.end && i < toks.length) {
      const t = toks[i];
      const end = pos + t.text.length;
      if (end <= from) { pos = end; i++; continue; }
      const lo = from - pos;
      const hi = Math.min(e.end, end) - pos;
      if (t.mark) { a = Math.min(a, t.a); b = Math.max(b, t.b); } else { a = Math.min(a, t.a + lo); b = Math.max(b, t.a + hi); }
      from = pos + hi;
      if (from >= end) { pos = end; i++; }
    }
    if (a === Infinity) {
      // an insertion: at the input position of the character after it
      let j = i;
      while (j < toks.length && toks[j].text.length === 0) j++;
      const t = toks[j];
      const at = t ? (t.mark ? t.a : t.a + (e.start - pos)) : (toks.length ? toks[toks.length - 1].b : 0);
      a = b = at;
    }
    out.push({ text: e.text, a, b, mark: true });
    cur = e.end;
  }
  copy(cur, Infinity);
  return out;
}

// ── names ─────────────────────────────────────────────────────────────────────────────────────────────────

/** Words (camelCase, snake_case, kebab-case split, lower-cased) that mark a key's string values as secret. */
const SECRET_WORDS = new Set([
  "token", "tokens", "secret", "secrets", "key", "keys", "apikey", "password", "passwd", "passphrase", "passcode", "pwd",
  "authorization", "cookie", "cookies", "credential", "credentials", "creds", "jwt", "bearer", "otp", "sid",
  "salt", "pepper", "webhook", "mnemonic", "hmac", "privkey", "passin", "passout", "storepass", "keypass",
  "srcstorepass", "deststorepass", "srckeypass", "destkeypass",
]);
/** Words that mark a secret only as the last word (or the whole name): DB_PASS, docker's "auth", SLACK_WH, GH_PAT. */
const SECRET_LAST = new Set(["pass", "pw", "auth", "wh", "pat", "dsn", "sig", "signing"]);
/** Keys that hold metadata about secrets, not secrets: a token *count*, a key's *source*, *type* or *name*. */
const META_LAST = new Set([
  "source", "type", "types", "name", "names", "count", "limit", "limits", "usage", "mode", "kind", "length", "present",
  "set", "configured", "status", "required", "expires", "expiry", "expiration", "hint", "helper", "url", "uri", "path",
  "file", "env", "stdin", "prompt", "cmd", "command", "method", "provider", "scheme", "strategy", "flow", "endpoint",
  "enabled", "disabled", "timeout", "ttl", "at", "time", "date", "ms", "seconds", "budget", "estimate", "index",
  "policy", "dir", "directory", "format", "algorithm", "alg", "size", "bits", "level", "field", "fields", "label",
]);
const META_FIRST = new Set(["max", "min", "num", "total", "input", "output", "cached", "reasoning", "cache", "context", "no", "skip", "ask", "has", "is", "use", "show", "hide", "allow", "require", "requires"]);
/** A joined name ending so (identitytoken, dbpassword, clientsecret) is secret too. */
const SECRET_SUFFIX = /(?:token|secret|password|passwd|passphrase|apikey|credentials?)$/;

export function words(key: string): string[] {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
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
  if (key.length > 120) return false;
  const w = words(key);
  if (!w.length) return false;
  const last = w[w.length - 1];
  if (w.length > 1 && (META_LAST.has(last) || META_FIRST.has(w[0]))) return false;
  if (w.length === 1 && w[0] === "tokenizer") return false;
  if (w.some((x) => SECRET_WORDS.has(x))) return true;
  if (SECRET_LAST.has(last)) return true;
  const joined = w.join("");
  return SECRET_SUFFIX.test(joined) || /apikey|accesskey|privatekey|secretkey|clientsecret|refreshtoken|accesstoken|idtoken|sessionkey|setcookie|authtoken|connectionstring|connstr/.test(joined);
}

/** The last word names an identifier, hash or version: its value is not judged by entropy. */
const ID_LAST = new Set([
  "id", "ids", "uuid", "guid", "sha", "sha1", "sha256", "sha512", "md5", "hash", "digest", "checksum", "commit", "rev",
  "revision", "version", "etag", "nonce", "trace", "span", "request", "ref", "tag", "name", "path", "file", "dir", "url",
  "uri", "host", "image", "model", "slug", "cursor", "fingerprint", "integrity", "signature", "ulid", "oid", "head",
]);
function idLikeName(name: string): boolean {
  const w = words(name);
  return w.length > 0 && (ID_LAST.has(w[w.length - 1]) || /id$/.test(w[w.length - 1]) && /[a-z]Id$|ID$/.test(name));
}

// ── value predicates ──────────────────────────────────────────────────────────────────────────────────────

const UUID_ONLY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) { const p = n / s.length; h -= p * Math.log2(p); }
  return h;
}

/**
 * A long random token: 20–1024 characters of a token alphabet, not hex (hashes) nor a UUID, letters mixed with
 * digits or symbols, ≥ 3.5 bits of entropy per character, the character class changing often (random strings switch
 * between lower/upper/digit about every other character, identifiers rarely), and one part (between `-_.~`)
 * of ≥ 16 characters that mixes classes (so `claude-sonnet-4-5-20250929` and `my_var_name_2` stay).
 */
export function looksRandom(v: string): boolean {
  if (v.length < 20 || v.length > 1024) return false;
  if (!/^[A-Za-z0-9+/=_.~-]+$/.test(v)) return false;
  if (/^[0-9a-f]+$/i.test(v) || UUID_ONLY.test(v)) return false;
  if (/^(?:\.{0,2}|~)\//.test(v) || v.includes("//")) return false; // a path or URL
  let lower = 0, upper = 0, digit = 0, trans = 0, prev = -1;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    const cls = c >= 97 && c <= 122 ? 0 : c >= 65 && c <= 90 ? 1 : c >= 48 && c <= 57 ? 2 : 3;
    if (cls === 0) lower++; else if (cls === 1) upper++; else if (cls === 2) digit++;
    if (prev >= 0 && cls !== prev) trans++;
    prev = cls;
  }
  if ((lower > 0 ? 1 : 0) + (upper > 0 ? 1 : 0) + (digit > 0 ? 1 : 0) < 2) return false;
  if (digit === 0 && !/[+/]/.test(v)) return false;
  if (trans / (v.length - 1) < 0.3) return false;
  if (entropy(v) < 3.5) return false;
  // mostly words (camelCase, snake_case): an identifier
  let wordy = 0;
  for (const m of v.matchAll(/[A-Z]?[a-z]{3,}/g)) wordy += m[0].length;
  if (wordy >= v.length * 0.6) return false;
  return v.split(/[-_.~]/).some((p) => p.length >= 16 && Number(/[a-z]/.test(p)) + Number(/[A-Z]/.test(p)) + Number(/[0-9]/.test(p)) >= 2);
}

/** `$VAR`, `${VAR}`, `$(cmd)`, `%VAR%`, `<placeholder>`, `***`: a reference to a secret, not one. */
function isReference(v: string): boolean {
  return /^\$[A-Za-z_{(]/.test(v) || /^%[A-Za-z_][A-Za-z0-9_]*%$/.test(v) || /^<[^>]*>$/.test(v) || /^\*+$/.test(v) || /^\{\{.*\}\}$/.test(v);
}

const CODE_WORDS = new Set([
  "null", "none", "nil", "true", "false", "undefined", "await", "new", "this", "self", "os", "process", "env", "function",
  "lambda", "input", "getpass", "prompt", "str", "string", "int", "number", "bool", "boolean", "any", "object", "bytes",
  "optional", "required", "typeof", "secrets", "config", "settings", "options", "opts", "args", "params", "props",
  "request", "req", "response", "res", "ctx", "context", "os.getenv", "getenv", "environ", "void", "const", "let", "var",
  "def", "return", "if", "else", "not", "and", "or", "is", "in", "unknown", "never", "readonly", "public", "private",
  "static", "async", "yield", "from", "import", "export", "default", "type", "interface", "class", "struct", "enum",
]);

/** An unquoted value that is code: a call, an index, a member path, a keyword or type (`getToken()`, `os.environ[…]`, `str`). */
function isCodeValue(v: string, colon: boolean): boolean {
  if (CODE_WORDS.has(v.toLowerCase())) return true;
  if (/^[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*[([]/.test(v)) return true;
  if (/^[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)+[;,)]?$/.test(v) && !/\d/.test(v.split(/\.|::|->/)[0])) return true;
  if (colon && /^[A-Z][a-z]+(?:[A-Z][a-z]*)+(?:<.*>)?$/.test(v)) return true; // a type annotation: `key: KeyObject`
  return false;
}

const PROSE = new Set([
  "option", "options", "flag", "flags", "argument", "arguments", "arg", "args", "parameter", "param", "switch", "is", "to",
  "and", "or", "the", "a", "an", "with", "for", "when", "if", "value", "values", "instead", "which", "that", "in", "on",
  "as", "from", "of", "was", "are", "be", "not", "only", "will", "can", "must", "should", "also", "has", "have", "then",
  "so", "here", "there", "this", "it", "you", "your", "we", "they", "see", "set", "use", "used", "using", "required",
  "missing", "invalid", "expired", "empty", "none", "yes", "no", "ok", "example", "below", "above", "field", "header",
  "string", "env", "file", "variable", "stored", "provided", "given", "needed", "needs", "prompt", "prompts",
]);
function isProse(v: string): boolean {
  return PROSE.has(v.toLowerCase());
}

/** A lower-case word that is not evidently random: prose after a weak name (`key: value`, `the key is`). */
function isPlainWord(v: string): boolean {
  return /^[a-z]+$/.test(v) || /^[A-Z][a-z]+$/.test(v);
}

// ── base64 ────────────────────────────────────────────────────────────────────────────────────────────────

const B64_MAX = 1 << 20;

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** A base64 / base64url token → its text when it decodes to printable UTF-8, else undefined. */
export function decodeBase64Text(tok: string): string | undefined {
  if (tok.length < 12 || tok.length > B64_MAX) return undefined;
  // not base64: hex (hashes), a UUID, both alphabets at once
  if (/^[0-9a-f-]+$/i.test(tok) || (/[-_]/.test(tok) && /[+/]/.test(tok))) return undefined;
  let s = tok.replace(/-/g, "+").replace(/_/g, "/");
  const pad = s.indexOf("=");
  if (pad >= 0 && (s.length % 4 !== 0 || !/^=+$/.test(s.slice(pad)))) return undefined;
  if (s.length % 4 === 1) return undefined;
  while (s.length % 4) s += "=";
  let bin: string;
  try { bin = atob(s); } catch { return undefined; }
  // printable text only: no control bytes but tab/newline/CR, mostly ASCII (checked on the bytes before decoding)
  let ascii = 0;
  // SASL PLAIN (SMTP/IMAP `AUTH PLAIN …`): authzid NUL user NUL password
  const sasl = /^[^\0]{0,128}\0[^\0]{1,128}\0[^\0]{1,256}$/.test(bin);
  for (let i = 0; i < bin.length; i++) {
    const c = bin.charCodeAt(i);
    if (c === 0 && sasl) { ascii++; continue; }
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 127) return undefined;
    if (c < 128) ascii++;
  }
  if (ascii < bin.length * 0.9) return undefined;
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  let text: string;
  try { text = UTF8.decode(bytes); } catch { return undefined; }
  for (let i = 0; i < text.length; i++) { const c = text.charCodeAt(i); if (c >= 0x80 && c < 0xa0) return undefined; }
  return text;
}

function encodeBase64Like(text: string, like: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = "";
  for (let i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
  let s = btoa(bin);
  if (/[-_]/.test(like)) s = s.replace(/\+/g, "-").replace(/\//g, "_");
  if (!like.endsWith("=")) s = s.replace(/=+$/, "");
  return s;
}

// ── login names ───────────────────────────────────────────────────────────────────────────────────────────

/** Account names that are not a person's: never learned as the user's login name, never redacted as one. */
const NOT_PERSONAL = new Set([
  "root", "daemon", "bin", "sys", "sync", "games", "man", "lp", "mail", "news", "uucp", "proxy", "www-data", "backup",
  "list", "irc", "gnats", "nobody", "nogroup", "messagebus", "syslog", "_apt", "uuidd", "tcpdump", "sshd", "landscape",
  "pollinate", "lxd", "docker", "admin", "administrator", "user", "users", "guest", "public", "default", "shared",
  "staff", "wheel", "everyone", "ubuntu", "debian", "centos", "fedora", "ec2-user", "azureuser", "opc", "runner",
  "vagrant", "node", "app", "dev", "developer", "test", "tester", "ci", "build", "builder", "jenkins", "gitlab-runner",
  "github", "git", "codespace", "codespaces", "vscode", "coder", "home", "work", "workspace", "project", "projects",
  "local", "owner", "student", "demo", "sandbox", "agent", "claude", "codex", "opencode", "cursor", "bot", "system",
  "service", "deploy", "ops", "operator", "data", "postgres", "mysql", "redis", "mongodb", "nginx", "apache", "http",
  "ftp", "tmp", "temp", "all", "none", "null", "undefined", "true", "false", "unknown", "redacted", "linuxbrew",
  "homebrew", "brew", "www", "web", "server", "host", "container", "the", "and", "you", "your", "name", "username",
  "login", "main", "master", "src", "lib", "etc", "var", "opt", "usr", "mnt", "media", "srv", "run", "snap", "dir",
  "new", "old", "api", "apps", "svc", "worker", "job", "jobs", "prod", "staging", "live", "mac", "macbook", "pc",
  "laptop", "desktop", "me", "my", "our", "his", "her", "its", "key", "keys", "token", "secret", "header", "env", "jwt",
  "bearer", "netrc", "pgpass", "webhook", "entropy", "base64", "sudo", "adm", "plugdev", "dialout", "cdrom", "lpadmin",
  "sambashare", "video", "audio", "input", "render", "kvm", "libvirt", "netdev", "floppy", "tape", "dip", "operator",
  "utmp", "tty", "disk", "kmem", "shadow", "crontab", "ssh", "ssl-cert", "developers", "everyone", "domain users",
]);
const LOGIN_NAME = /^[a-z_][a-z0-9._-]{2,31}$/i;
export function isPersonalName(n: string): boolean {
  return LOGIN_NAME.test(n) && !NOT_PERSONAL.has(n.toLowerCase()) && !n.toLowerCase().startsWith("systemd") && !/^_/.test(n) && !/^\d/.test(n) && !/^[0-9a-f]{8,}$/i.test(n);
}

// ── the rules ─────────────────────────────────────────────────────────────────────────────────────────────

type Shape = [RedactionKind, RegExp, ((m: string) => boolean)?];
const mixed = (s: string) => /[a-z]/.test(s) && /[A-Z]/.test(s);
const SHAPES: Shape[] = [
  ["private_key", /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g],
  ["private_key", /PuTTY-User-Key-File-\d+:[\s\S]{0,4096}?Private-Lines:\s*\d+(?:(?:\r?\n|\\[rn])+[A-Za-z0-9+/=]+)+/g],
  ["jwt", /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
  // crypt(3) / bcrypt / argon2 password hashes (/etc/shadow, htpasswd, database dumps)
  ["password_hash", /\$(?:2[abxy]?|apr1|1|5|6|y|gy|7|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha\d+)?)\$[./A-Za-z0-9$=,+-]{20,}/g],
  // the credential must look like one (a digit, a symbol or mixed case): "token rotation" is prose
  ["bearer", /\b(?:Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, (m) => { const c = m.replace(/^\S+\s+/, ""); return /[0-9._~+/=-]/.test(c) || mixed(c); }],
  ["api_key", /\bsk-ant-[A-Za-z0-9_-]{8,}/g],
  ["api_key", /\bsk-(?:proj-|svcacct-|admin-|or-v1-)?[A-Za-z0-9_-]{16,}/g],
  ["api_key", /\bsess-[A-Za-z0-9]{30,}/g],
  ["api_key", /\b(?:sk|rk|pk)_(?:live|test|prod)_[A-Za-z0-9]{10,}/g],
  ["api_key", /\bwhsec_[A-Za-z0-9+/=_-]{16,}/g],
  ["api_key", /\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/g],
  ["api_key", /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|APKA|ABIA|ACCA)[0-9A-Z]{16}\b/g],
  ["api_key", /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g],
  ["api_key", /\bgithub_pat_[A-Za-z0-9_]{20,}/g],
  ["api_key", /\bgl(?:pat|dt|rt|ptt|soat|cbt|ft|imt|oas|agent|ffct)-[A-Za-z0-9_-]{16,}/g],
  ["api_key", /\bGR1348941[A-Za-z0-9_-]{20,}/g],
  ["api_key", /\bxox[abprsoec]-[A-Za-z0-9-]{10,}/g],
  ["api_key", /\bxapp-\d-[A-Za-z0-9-]{20,}/g],
  ["api_key", /\bAIza[0-9A-Za-z_-]{30,}/g],
  ["api_key", /\bGOCSPX-[A-Za-z0-9_-]{20,}/g],
  ["api_key", /\bya29\.[A-Za-z0-9_-]{20,}/g],
  ["api_key", /(?<![A-Za-z0-9])1\/\/0[A-Za-z0-9_-]{30,}/g],
  ["api_key", /\bhf_[A-Za-z0-9]{30,}/g],
  ["api_key", /\bnpm_[A-Za-z0-9]{30,}/g],
  ["api_key", /\bpypi-AgE[A-Za-z0-9_-]{40,}/g],
  ["api_key", /\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}/g],
  ["api_key", /\bgsk_[A-Za-z0-9]{30,}/g],
  ["api_key", /\bxai-[A-Za-z0-9]{30,}/g],
  ["api_key", /\bpplx-[A-Za-z0-9]{30,}/g],
  ["api_key", /\br8_[A-Za-z0-9]{30,}/g],
  ["api_key", /\blsv2_(?:pt|sk)_[A-Za-z0-9_]{30,}/g],
  ["api_key", /\blin_(?:api|oauth)_[A-Za-z0-9]{30,}/g],
  ["api_key", /\b(?:ntn|secret)_[A-Za-z0-9]{40,}\b/g, mixed],
  ["api_key", /\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}/g],
  ["api_key", /\bATATT3[A-Za-z0-9_=-]{40,}/g],
  ["api_key", /\bdo[opr]_v1_[a-f0-9]{64}/g],
  ["api_key", /\bdapi[a-f0-9]{32}(?:-\d)?\b/g],
  ["api_key", /\bsq0(?:atp|csp)-[A-Za-z0-9_-]{20,}/g],
  ["api_key", /\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{20,}/g],
  ["api_key", /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}/g],
  ["api_key", /\bsntr[ysu]_[A-Za-z0-9+/=_-]{30,}/g],
  ["api_key", /\bNRAK-[A-Z0-9]{27}/g],
  ["api_key", /\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{30,}/g],
  ["api_key", /\bpul-[a-f0-9]{40}/g],
  ["api_key", /\b[a-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}/g],
  ["api_key", /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/g],
  ["api_key", /\bAGE-SECRET-KEY-1[0-9A-Z]{58}/g],
  ["api_key", /\bsbp_[a-f0-9]{40}/g],
  ["api_key", /\bsb_secret_[A-Za-z0-9_-]{20,}/g],
  ["api_key", /\bops_[A-Za-z0-9_-]{40,}/g],
  ["api_key", /\bHRKU-[A-Za-z0-9_-]{30,}/g],
  ["api_key", /\bgl(?:c|sa)_[A-Za-z0-9+/=_-]{30,}/g],
  ["api_key", /\bkey-[0-9a-zA-Z]{32}\b/g, (m) => /\d/.test(m) && /[a-z]/i.test(m.slice(4))],
  ["api_key", /\b[0-9a-f]{32}-us\d{1,2}\b/g],
  ["api_key", /\bSK[0-9a-fA-F]{32}\b/g],
  ["api_key", /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g],
  ["api_key", /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b/g, (m) => mixed(m) && /\d/.test(m)],
  ["api_key", /\b[ps]k\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g],
  ["api_key", /\bEAA[A-Za-z0-9]{80,}/g],
  ["api_key", /\bA{20,}[A-Za-z0-9%]{30,}/g],
  // Telegram bot token: the bot's numeric id, a colon, ~35 random characters (`123456789:AAH…`), also in /bot<token>/ URLs
  ["api_key", /(?<![A-Za-z0-9_])(?:bot)?\d{6,12}:[A-Za-z0-9_-]{30,}(?![A-Za-z0-9_-])/g, (m) => mixed(m.slice(m.indexOf(":")))],
];
/** A superset of what SHAPES can match, tested first (one scan instead of sixty for plain strings). */
const SHAPE_HINT = /sk-|sess-|[srp]k_|whsec_|A[KSGIRNBCP][A-Z]A|AKIA|gh[pousr]_|github_pat_|gl[a-z]{1,6}[-_]|GR1348941|xox|xapp-|AIza|GOCSPX|ya29\.|1\/\/0|hf_|npm_|pypi-|dckr_|gsk_|xai-|pplx-|r8_|lsv2_|lin_|ntn_|secret_|shp|ATATT|_v1_|dapi|sq0|pscale_|PMAK-|sntr|NRAK-|dp\.|pul-|atlasv1|hv[sbr]\.|AGE-SECRET|sbp_|sb_secret|ops_|HRKU-|key-|-us\d|SK[0-9a-fA-F]{8}|\dQ~|\.[A-Za-z0-9_-]{6}\.|k\.eyJ|EAA|AAAAAAAAAA|SG\.|\d{6}:|eyJ|bearer|basic|token|PRIVATE KEY|PuTTY|\$[0-9a-z-]{1,12}\$/i;

const WEBHOOK = /((?:https?:\/\/)?(?:hooks\.slack\.com\/(?:services|workflows|triggers|actions)\/|(?:[a-z0-9-]+\.)?discord(?:app)?\.com\/api\/webhooks\/|[a-z0-9-]+\.webhook\.office\.com\/webhookb2\/|outlook\.office\.com\/webhook\/|hooks\.zapier\.com\/hooks\/catch\/|maker\.ifttt\.com\/trigger\/[^\s/"'<>\\]+\/with\/key\/))(?!<REDACTED:)([^\s"'<>\\)\]]+)/gi;
const URL_QUERY = /([?&])([A-Za-z][A-Za-z0-9_.\-[\]]{0,63})=(?!<REDACTED:)([^&#\s"'<>\\]+)/g;
const QUERY_SECRET = /^(?:sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|sas|code_verifier|client_secret|private_token|access_token|apikey|api_key|key|token|password|passwd|pwd|secret)$/i;

/**
 * Free-text secrets. Values end at a line end, a quote or a backslash (the start of an escape: the text may be JSON
 * inside a string, where a newline is the two characters `\n`). A header written as a JSON member (`"Cookie": "…"`)
 * ends at its closing quote.
 */
const HEADER = /\b((?:Set-)?Cookie|(?:Proxy-)?Authorization|X-Api-Key|Api-Key|X-Auth-Token|X-Amz-Security-Token|Private-Token|X-Goog-Api-Key|X-Access-Token|X-Vault-Token|Ocp-Apim-Subscription-Key)(\\*["']?\s*:\s*(\\*["'])?)(?!\s|<REDACTED:)([^\r\n\\]+)/gi;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]{0,31}:\/\/)([^\s/:@"'<>\\]{0,256}):(?!<REDACTED:)([^\s/?#"'<>\\]{0,256}[^\s/?#@"'<>\\])@(?=[^\s/@"'<>\\?#]+(?:[:/?#\s"'<>\\]|$))/gi;
/** `user:pass@host.tld` without a scheme (impacket, some CLIs): the host must look like a host name or address. */
const BARE_CREDENTIALS = /(?<![A-Za-z0-9_.:/@-])([A-Za-z_][A-Za-z0-9._\\-]{0,63}):(?!<REDACTED:)([^\s/:@"'<>\\]{3,128})@(?=(?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}\b|\d{1,3}(?:\.\d{1,3}){3}\b)/g;
const NETRC = /\b((?:machine\s+[^\s"'\\]+|default)(?:\s+(?:login|account)\s+[^\s"'\\]+)*\s+password\s+)(?!<REDACTED:)([^\s"'\\]+)/g;
const NETRC_LINE = /((?:^|\n|\\n)[+ -]?[ \t]*password[ \t]+)(?!<REDACTED:|[=:])([^\s"'\\]+)/g;
const PGPASS = /((?:^|\n|\\n)[+ -]?[^\s:"'\\]+:(?:\d+|\*):[^\s:"'\\]+:[^\s:"'\\]+:)(?!<REDACTED:)([^\s"'\\]+)(?=$|\r|\n|\\[rn])/g;
const FREE_HINT = /cookie|authori[sz]ation|api-key|auth-token|security-token|private-token|access-token|vault-token|subscription-key|:\/\/|password|:(?:\d+|\*):|@/i;

/** A flag's value: a quoted string or a word. */
const VAL = String.raw`("[^"\r\n\\]*"|'[^'\r\n\\]*'|[^\s"'|;&<>()\\]+)`;
/** The rest of the command line before a flag (same line, same command). */
const CMDLINE = String.raw`\b[^\n|;&]{0,256}?[ \t]`;
const cmdFlag = (cmds: string, flag: string, attached: boolean) =>
  new RegExp(String.raw`(\b(?:${cmds})${CMDLINE}${flag}${attached ? "" : String.raw`[ \t]*`})${attached ? String.raw`(?=[^\s-])` : ""}${VAL}`, "g");
const COMMAND_FLAGS: RegExp[] = [
  cmdFlag(String.raw`mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlpump|mysqlsh|mysqlbinlog|mariadb(?:-dump|-admin|-import|-show|-check)?|mycli`, "-p", true),
  cmdFlag("sshpass", "-p", false),
  cmdFlag("curl|wget|http|https|xh", "-b", false),
  cmdFlag(String.raw`(?:docker|podman|nerdctl|buildah|skopeo|finch|oras|cosign|helm(?:[ \t]+registry)?|crane(?:[ \t]+auth)?|regctl(?:[ \t]+registry)?)[ \t]+login`, "-p", false),
  cmdFlag("redis-cli|valkey-cli|keydb-cli", "-a", false),
  cmdFlag("mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|mongostat|mongotop", "-p", false),
  cmdFlag("sqlcmd|bcp|osql|isql", "-P", false),
  cmdFlag("ldapsearch|ldapadd|ldapmodify|ldapdelete|ldapwhoami|ldappasswd|ldapcompare|ldapmodrdn", "-w", false),
  cmdFlag("zip|unzip|zipcloak|funzip", "-P", false),
  cmdFlag("7z|7za|7zr|rar|unrar", "-p", true),
  cmdFlag(String.raw`gh[ \t]+secret[ \t]+set`, "(?:-b|--body)(?:=|[ \\t]+)", false),
  // `-u user -p pass` (psexec, mongo, registry logins written the other way round)
  new RegExp(String.raw`((?:^|[ \t])-u[ \t]*["']?[^\s"']+["']?[ \t]+-p[ \t]*)${VAL}`, "g"),
];
/** `--password X`, `--password=X`, `-storepass X`, `-passin pass:X`: every flag whose name is secret-like. */
const LONG_FLAG = new RegExp(String.raw`(?<![\w-])(--?[A-Za-z][A-Za-z0-9_-]*[A-Za-z0-9])(=|[ \t]+)(?!-)${VAL}`, "g");
/** `curl -u user:pass`, `--user user:pass`, `smbclient -U user%pass`: the part after the separator. */
const USER_PASS = new RegExp(String.raw`((?:\b(?:curl|http|https|xh|wget|httpie|grpcurl|hurl|smbclient|rpcclient|smbmap|smbget)${CMDLINE}(?:-u|-U|-a)|(?<![\w-])(?:--user|--proxy-user|--auth|--basic-auth|--http-user))(?:=|[ \t]*)(["']?)[^\s:%"']+[:%])(?!<REDACTED:)([^\s"']+)(?=\2)`, "g");
const HTPASSWD = /(\bhtpasswd[ \t]+(-[A-Za-z]+[ \t]+)+)((?:[^\s-][^\s]*[ \t]+){1,2})(?!<REDACTED:)([^\s"'|;&]+)/g;
const ECHO_STDIN = /(\b(?:echo|printf)[ \t]+(?:-[ne][ \t]+)?(?:'%s'[ \t]+|"%s"[ \t]+)?(["']?))(?!<REDACTED:)([^\s"'|]+)(?=\2[ \t]*\|[^\n|]{0,256}(?:--password-stdin|--token-stdin|passwd --stdin|chpasswd))/g;
const FROM_LITERAL = /(--from-literal=[^=\s"']+=)(["']?)(?!<REDACTED:)([^\s"']+)/g;
const CONFIG_SET = /(\b(?:(?:config(?:ure)?|secrets?|credentials?)[ \t]+set|(?:git|poetry|npm|pnpm|yarn|pip|conda|bundle|composer|gcloud[ \t]+config)[ \t]+(?:config|set))(?:[ \t]+--?[A-Za-z][\w-]*)*[ \t]+)([^\s=]+)([ \t]+)(["']?)(?!<REDACTED:)([^\s"'|;&]+)/g;
const FLAG_HINT = /-[A-Za-z]|htpasswd|stdin|config|secret|credential|auth/;

/** Kubernetes Secret manifests in text: the values under `data:` / `stringData:` (indented `key: value` lines). */
const K8S_BLOCK = /((?:^|\n|\\n)([ \t]*)(?:data|stringData):[ \t]*(?:\r?\n|\\n))((?:\2[ \t]+[^\n\\]*(?:\\[^n][^\n\\]*)*(?:\r?\n|\\n|$))+)/g;
const K8S_LINE = /([ \t]+["']?[^\s:"']+["']?[ \t]*:[ \t]*(?:[|>][-+]?[ \t]*)?["']?)(?!<REDACTED:)([^\s"'\\]+)/g;

/** `NAME=value`, `name: value`, `"name": "value"`, `name := value`, `name => value`. */
const ASSIGNMENT = /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]{0,80})(\\{0,8}["']?[ \t]*(?::=|=>|=|:)[ \t]*)(?:(\\{0,8}["'])([^"'\\\r\n]{0,512})(?=\\{0,8}["'])|([^\s"'&,;}\])\\<>]+))/g;
/** Names whose value is secret whatever it looks like (the narrow rule of before: any value of 3+ characters). */
const STRONG_NAME = /token|secret|passw(?:or)?d|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth/i;

const B64_TOKEN = /(?<![A-Za-z0-9+/=_-])(?=[A-Za-z0-9+/_-]{0,4096}[A-Z])(?=[A-Za-z0-9+/_-]{0,4096}[a-z0-9+/])[A-Za-z0-9+/_-]{12,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const CRED_PAIR = /^([^\s:{}"'[\],<>]{1,128}):(\S{1,256})$/;

const USER_ASSIGN = /(?<![A-Za-z0-9_])((?:USER|LOGNAME|USERNAME|SUDO_USER|LOGIN_USER|GIT_AUTHOR_NAME|GIT_COMMITTER_NAME)[ \t]*[=:][ \t]*\\*["']?)([A-Za-z_][A-Za-z0-9._-]{0,31})(?![A-Za-z0-9_])/g;
const ID_LINE = /\buid=\d+\([^)\n]{0,64}\)[^\n\\]{0,512}/g;
const ID_NAME = /(\d+\()([^)\s]+)(\))/g;
const LS_LINE = /((?:^|\n|\\n|\r)[ \t]*[-dlcbpsD][rwxsStTl-]{9}[@+.]?[ \t]+\d+[ \t]+)([^\s\\]+)([ \t]+)([^\s\\]+)(?=[ \t]+\d)/g;
const SSH_USER = /(\b(?:ssh|scp|sftp|rsync|mosh|ssh-copy-id|autossh|sshfs|ssh-keyscan|rsh|telnet)\b[^\n|;&]{0,256}?[ \t]["']?)([A-Za-z_][A-Za-z0-9._-]{0,31})(?=@[A-Za-z0-9[])/g;
const SSH_L = /(\b(?:ssh|autossh|mosh)\b[^\n|;&]{0,256}?[ \t]-l[ \t]*)([A-Za-z_][A-Za-z0-9._-]{0,31})(?![A-Za-z0-9_])/g;
const WHOAMI = /(\bwhoami\b[^\n\\]{0,256}(?:\r?\n|\\n)(?:[^\n\\]{0,256}\$[ \t]*(?:\r?\n|\\n))?[ \t]*(?:[A-Za-z0-9-]{1,63}\\{1,2})?)([a-z_][a-z0-9._-]{2,31})(?=[ \t]*(?:\r?\n|\\[nr]|$))/g;

/** What the text rules read and grow: the redactor's state. */
export interface TextState {
  /** Literal secrets seen before (longest first), with their kind. */
  knownRe(): RegExp | undefined;
  knownKind(s: string): RedactionKind;
  learn(s: string, kind: RedactionKind): void;
  /** Login names known or learned (case-insensitive, whole word). */
  namesRe(): RegExp | undefined;
  learnName(n: string): void;
  dirs: { re: RegExp; mark: string; kind: RedactionKind; needle: string }[];
  /** Redact a decoded base64 text (no tracking, one level deeper). */
  scrubInner(s: string): string;
  /** Nesting of base64 decoding (no more than two levels). */
  depth: number;
}

const ANSI_OR_ESCAPE_BEFORE = String.raw`(?:(?<![A-Za-z0-9_.~-])|(?<=\\[nrtbf])|(?<=\x1b\[[0-9;]*m)|(?<=\\u001b\[[0-9;]*m)|(?<=\\x1b\[[0-9;]*m))`;
/** A home directory's user name, in any spelling (plain, JSON-escaped slashes, doubled backslashes). */
export const HOME_NAME = new RegExp(String.raw`${ANSI_OR_ESCAPE_BEFORE}(?:\\*\/(?:home|Users)\\*\/|[A-Za-z]:\\{1,8}Users\\{1,8})(?!<)([^/\\\s"'\`:;,)\]}<>]+)`, "g");
const GENERIC_HOME = new RegExp(String.raw`${ANSI_OR_ESCAPE_BEFORE}(?:\\*\/home\\*\/|\\*\/Users\\*\/|[A-Za-z]:\\{1,8}Users\\{1,8})(?!<)[^/\\\s"'\`:;,)\]}<>]+`, "g");

/** A directory as a pattern: each separator may be written escaped (`\/`, `\\`), as JSON text and JSON-in-JSON do. */
export function dirPattern(dir: string): RegExp {
  const parts = dir.split(/[/\\]+/);
  const sep = String.raw`(?:\\*[/\\])+`;
  const lead = /^[/\\]/.test(dir) ? sep : "";
  const body = parts.filter((p, i) => p !== "" || i > 0).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join(sep);
  return new RegExp(`${ANSI_OR_ESCAPE_BEFORE}${lead}${body}(?=$|\\\\|[/"'\\s:;,)\\]}])`, "g");
}

/** Run every text rule over `t`, in order. */
export function scrubText(t: Txt, st: TextState): void {
  const kinds = t.kinds;
  // login names seen in home paths: learned before anything is replaced
  if (/home|Users/.test(t.s)) {
    HOME_NAME.lastIndex = 0;
    for (let m = HOME_NAME.exec(t.s); m; m = HOME_NAME.exec(t.s)) st.learnName(m[1]);
  }
  const known = st.knownRe();
  if (known) t.sub(known, (m) => { kinds.add("known_secret"); return MARK(st.knownKind(m[0])); });

  if (SHAPE_HINT.test(t.s)) {
    for (const [kind, re, check] of SHAPES) {
      re.lastIndex = 0;
      if (!re.test(t.s)) continue;
      t.sub(re, (m) => {
        if (check && !check(m[0])) return undefined;
        kinds.add(kind);
        return MARK(kind);
      });
    }
  }
  if (t.s.includes("hook") || t.s.includes("ifttt")) t.sub(WEBHOOK, (m) => { kinds.add("webhook"); st.learn(m[2], "webhook"); return m[1] + MARK("webhook"); });
  if (t.s.includes("=") && /[?&]/.test(t.s)) {
    t.sub(URL_QUERY, (m) => {
      const [, sep, name, val] = m;
      if (!(QUERY_SECRET.test(name) || isSecretKey(name)) || val.length < 3 || (/^\d+$/.test(val) && val.length < 6) || isReference(val)) return undefined;
      kinds.add("url_query");
      st.learn(decodeURIComponentSafe(val), "url_query");
      return `${sep}${name}=${MARK("url_query")}`;
    });
  }
  if (FREE_HINT.test(t.s)) {
    t.sub(HEADER, (m) => {
      const [, name, sep, quote, val] = m;
      let v = val;
      let rest = "";
      if (quote) { // a JSON member: the value ends at its closing quote
        const close = v.indexOf(quote.slice(-1) === "'" ? "'" : '"');
        if (close >= 0) { rest = v.slice(close); v = v.slice(0, close); }
      }
      if (!v || v.startsWith("<REDACTED:")) return undefined;
      kinds.add("header");
      st.learn(v.trim(), "header");
      return `${name}${sep}${MARK("header")}${rest}`;
    });
    t.sub(URL_CREDENTIALS, (m) => { kinds.add("url_credentials"); st.learn(m[3], "url_credentials"); return `${m[1]}${m[2]}:${MARK("url_credentials")}@`; });
    t.sub(BARE_CREDENTIALS, (m) => {
      if (/^\d+$/.test(m[2]) || isReference(m[2])) return undefined;
      kinds.add("url_credentials");
      st.learn(m[2], "url_credentials");
      return `${m[1]}:${MARK("url_credentials")}`;
    });
    for (const re of [NETRC, NETRC_LINE]) t.sub(re, (m) => { kinds.add("netrc"); st.learn(m[2], "netrc"); return m[1] + MARK("netrc"); });
    t.sub(PGPASS, (m) => { kinds.add("pgpass"); st.learn(m[2], "pgpass"); return m[1] + MARK("pgpass"); });
  }
  if (FLAG_HINT.test(t.s)) scrubFlags(t, st);
  if (/kind["']?\s*:\s*["']?Secret\b/.test(t.s) && /data/.test(t.s)) {
    t.sub(K8S_BLOCK, (m) => {
      let changed = false;
      K8S_LINE.lastIndex = 0;
      const block = m[3].replace(K8S_LINE, (w, head: string, val: string) => { changed = true; st.learn(val, "k8s_secret"); return head + MARK("k8s_secret"); });
      if (!changed) return undefined;
      kinds.add("k8s_secret");
      return m[1] + block;
    });
  }
  if (/[=:]/.test(t.s)) scrubAssignments(t, st);
  if (st.depth < 2 && /[A-Za-z0-9+/_-]{12}/.test(t.s)) {
    t.sub(B64_TOKEN, (m) => {
      const text = decodeBase64Text(m[0]);
      if (text === undefined) return undefined;
      let red: string;
      const pair = CRED_PAIR.exec(text);
      if (text.includes("\0")) red = text.slice(0, text.lastIndexOf("\0") + 1) + MARK("base64");
      else if (pair && !/^\d+$/.test(pair[2]) && !IS_MARK.test(pair[2]) && !/^https?$/i.test(pair[1]) && !/^\/\//.test(pair[2])) red = `${pair[1]}:${MARK("base64")}`;
      else {
        red = st.scrubInner(text);
        if (red === text) return undefined;
      }
      kinds.add("base64");
      return encodeBase64Like(red, m[0]);
    });
  }
  for (const d of st.dirs) {
    if (!t.s.includes(d.needle)) continue;
    t.sub(d.re, () => { kinds.add(d.kind); return d.mark; });
  }
  if (/home|Users/.test(t.s)) t.sub(GENERIC_HOME, () => { kinds.add("home_path"); return "<HOME>"; });
  scrubLoginNames(t, st);
}

function decodeURIComponentSafe(s: string): string {
  try { return decodeURIComponent(s); } catch { return s; }
}

function unquote(v: string): { q: string; v: string } {
  const q = v[0] === '"' || v[0] === "'" ? v[0] : "";
  return q ? { q, v: v.slice(1, -1) } : { q: "", v };
}

function flagValueOk(v: string): boolean {
  return v.length > 0 && !v.startsWith("<REDACTED:") && !IS_MARK.test(v) && !isReference(v) && !v.startsWith("-");
}

function scrubFlags(t: Txt, st: TextState): void {
  const kinds = t.kinds;
  const flag = (head: string, raw: string): string | undefined => {
    const { q, v } = unquote(raw);
    if (!flagValueOk(v)) return undefined;
    kinds.add("command_flag");
    st.learn(v, "command_flag");
    return `${head}${q}${MARK("command_flag")}${q}`;
  };
  for (const re of COMMAND_FLAGS) {
    re.lastIndex = 0;
    if (re.test(t.s)) t.sub(re, (m) => flag(m[1], m[2]));
  }
  if (t.s.includes("-")) {
    t.sub(LONG_FLAG, (m) => {
      const [, name, sep, raw] = m;
      const bare = name.replace(/^-+/, "");
      if (bare.length < 2 || !isSecretKey(bare)) return undefined;
      const { q, v } = unquote(raw);
      if (!flagValueOk(v)) return undefined;
      if (sep !== "=" && !q && PROSE.has(v.toLowerCase())) return undefined;
      const w = words(bare);
      // a key/cert flag often names a file: `--key server.key`, `--private-key ~/.ssh/id`
      if (w.includes("key") && !w.includes("api") && /^(?:[~.]?\/|[A-Za-z]:\\)|\.(?:pem|key|crt|cer|p12|pfx|json|txt|asc|gpg|pub)$/i.test(v)) return undefined;
      // openssl -passin pass:X | env:VAR | file:path | fd:N | stdin
      let val = v;
      let pre = "";
      if (/^(?:pass):/.test(v)) { pre = "pass:"; val = v.slice(5); } else if (/^(?:env|file|fd):|^stdin$/.test(v) && /^pass(?:in|out)?$|^passphrase$/.test(bare)) return undefined;
      if (!val || isReference(val)) return undefined;
      kinds.add("command_flag");
      st.learn(val, "command_flag");
      return `${name}${sep}${q}${pre}${MARK("command_flag")}${q}`;
    });
  }
  t.sub(USER_PASS, (m) => {
    const v = m[3];
    if (/^\d+$/.test(v) || isReference(v) || v.startsWith("<REDACTED:")) return undefined;
    kinds.add("command_flag");
    st.learn(v, "command_flag");
    return m[1] + MARK("command_flag");
  });
  if (t.s.includes("htpasswd")) t.sub(HTPASSWD, (m) => {
    const flags = m[2];
    const positional = m[3].trim().split(/[ \t]+/).length;
    if (!/b/.test(flags) || positional !== (/n/.test(flags) ? 1 : 2)) return undefined;
    kinds.add("command_flag");
    return m[1] + m[3] + MARK("command_flag");
  });
  if (t.s.includes("stdin") || t.s.includes("chpasswd")) t.sub(ECHO_STDIN, (m) => (isReference(m[3]) ? undefined : (kinds.add("command_flag"), st.learn(m[3], "command_flag"), m[1] + MARK("command_flag"))));
  if (t.s.includes("--from-literal")) t.sub(FROM_LITERAL, (m) => (isReference(m[3]) ? undefined : (kinds.add("command_flag"), st.learn(m[3], "command_flag"), m[1] + m[2] + MARK("command_flag"))));
  if (/config|secret|credential|auth/.test(t.s)) t.sub(CONFIG_SET, (m) => {
    const [, head, name, sp, q, v] = m;
    if (!isSecretKey(name.replace(/^.*[/:]/, "")) && !isSecretKey(name) || !flagValueOk(v) || v.length < 3) return undefined;
    kinds.add("command_flag");
    st.learn(v, "command_flag");
    return `${head}${name}${sp}${q}${MARK("command_flag")}`;
  });
}

function scrubAssignments(t: Txt, st: TextState): void {
  const kinds = t.kinds;
  t.sub(ASSIGNMENT, (m) => {
    const [, name, sep, quote, qv, bv] = m;
    const quoted = quote !== undefined;
    const val = quoted ? qv : bv;
    if (!val || val.startsWith("<REDACTED:") || IS_MARK.test(val) || isReference(val)) return undefined;
    // `token == x`, `key => value` in code: a comparison or an arrow, not an assignment
    if (!quoted && (val.startsWith("=") || val.startsWith(">"))) return undefined;
    // `https://…`, `C:\…`, times and ratios are not assignments
    if (!quoted && sep.trim() === ":" && (val.startsWith("//") || /^\d/.test(name))) return undefined;
    const head = `${name}${sep}${quoted ? quote : ""}`;
    if (isSecretKey(name)) {
      const strong = STRONG_NAME.test(name);
      if (val.length < 3 || (/^\d+$/.test(val) && val.length < 6)) return undefined;
      if (!quoted && isCodeValue(val, sep.trim().endsWith(":"))) return undefined;
      if (!quoted && sep.trim() !== "=" && isProse(val)) return undefined;
      // a weak name in prose (`the key: value`, `Pass: yes`): only a value that is not a plain word
      const nameIsIdentifier = /[_.-]|[a-z][A-Z]|^[A-Z0-9_]+$/.test(name) || quoted || sep.includes('"') || sep.includes("'");
      if (!strong && !nameIsIdentifier && isPlainWord(val)) return undefined;
      kinds.add("assignment");
      st.learn(val, "assignment");
      return head + MARK("assignment");
    }
    if (!idLikeName(name) && looksRandom(val)) {
      kinds.add("entropy");
      st.learn(val, "entropy");
      return head + MARK("entropy");
    }
    return undefined;
  });
}

function scrubLoginNames(t: Txt, st: TextState): void {
  const kinds = t.kinds;
  const user = (n: string, learn: boolean): string | undefined => {
    if (!isPersonalName(n)) return undefined;
    if (learn && /^[a-z_][a-z0-9._-]*$/.test(n)) st.learnName(n);
    kinds.add("user_name");
    return USER_MARK;
  };
  if (/USER|LOGNAME|_NAME/.test(t.s)) t.sub(USER_ASSIGN, (m) => { const r = user(m[2], true); return r && m[1] + r; });
  if (t.s.includes("uid=")) {
    t.sub(ID_LINE, (m) => {
      let first = true;
      let changed = false;
      const out = m[0].replace(ID_NAME, (w, a: string, n: string, b: string) => {
        const r = user(n, first); // the first name is the user's (uid=…), the rest groups
        first = false;
        if (!r) return w;
        changed = true;
        return a + r + b;
      });
      return changed ? out : undefined;
    });
  }
  if (/[rwx-]{9}/.test(t.s)) t.sub(LS_LINE, (m) => {
    const o = user(m[2], true);
    const g = isPersonalName(m[4]) ? (kinds.add("user_name"), USER_MARK) : undefined;
    if (!o && !g) return undefined;
    return `${m[1]}${o ?? m[2]}${m[3]}${g ?? m[4]}`;
  });
  if (t.s.includes("@")) t.sub(SSH_USER, (m) => { const r = user(m[2], false); return r && m[1] + r; });
  if (t.s.includes("-l")) t.sub(SSH_L, (m) => { const r = user(m[2], false); return r && m[1] + r; });
  if (t.s.includes("whoami")) t.sub(WHOAMI, (m) => { const r = user(m[2], true); return r && m[1] + r; });
  const names = st.namesRe();
  if (names) t.sub(names, () => { kinds.add("user_name"); return USER_MARK; });
}
