/**
 * Redaction (src/capture/redact.ts) and the redaction audit: a seeded corpus of secrets placed in
 * payloads of every capture stage, at varying depths and keys, driven through capture (and sanitize); the
 * written bytes must contain none of them.
 */
import { rng } from "./support/secret-classes.js";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CAPTURE_STAGES, createCaptureWriter, readCapture, serializeRecords } from "../src/capture/capture.js";
import { createRedactor, isSecretKey } from "../src/capture/redact.js";
import { capturingNormalizer, sanitizeCapture } from "../src/capture/replay.js";
import { unwrapCaptureLine } from "../src/capture/unwrap.js";
import { createNormalizer, type CanonicalEvent } from "../src/normalize/normalizer.js";
import { counterIds, steppingClock } from "../src/normalize/ids.js";

describe("redactor", () => {
  it("replaces secrets by shape inside text and lists each redaction with path and kind, never the value", () => {
    const r = createRedactor();
    const key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2";
    const out = r.redact({ msg: `export OPENAI_API_KEY=${key} and go`, list: ["x", `Authorization: Bearer abcdefghijklmnop.qrs`] }, "/payload");
    expect(out.value).toEqual({ msg: "export OPENAI_API_KEY=<REDACTED:api_key> and go", list: ["x", "Authorization: <REDACTED:bearer>"] });
    expect(out.redactions).toEqual([{ path: "/payload/msg", kind: "api_key" }, { path: "/payload/list/1", kind: "bearer" }]);
    expect(JSON.stringify(out.redactions)).not.toContain("A1b2");
  });

  it("a bare `key` holding a kebab-case name (a notification's key) is kept; any other value under it is not", () => {
    const r = createRedactor();
    const out = r.redact({ a: { key: "stop-hook-error" }, b: { key: "hunter2" }, c: { key: "sk-abcdefgh" }, d: { keys: "one-two" }, e: { apiKey: "stop-hook-error" } });
    expect(out.value).toEqual({ a: { key: "stop-hook-error" }, b: { key: "<REDACTED:secret_field>" }, c: { key: "<REDACTED:secret_field>" }, d: { keys: "one-two" }, e: { apiKey: "<REDACTED:secret_field>" } });
  });

  it("redacts string values of secret-named fields but keeps numbers (token counts) and metadata-named fields", () => {
    const r = createRedactor();
    const out = r.redact({ usage: { input_tokens: 12, output_tokens: 3 }, apiKey: "plain-opaque-value", apiKeySource: "user", max_tokens: 100, nested: { client_secret: "opaque-2-value", headers: { Cookie: "sid=opaque3value" } } });
    expect(out.value).toEqual({ usage: { input_tokens: 12, output_tokens: 3 }, apiKey: "<REDACTED:secret_field>", apiKeySource: "user", max_tokens: 100, nested: { client_secret: "<REDACTED:secret_field>", headers: { Cookie: "<REDACTED:secret_field>" } } });
    expect(out.redactions.map((x) => x.path)).toEqual(["/apiKey", "/nested/client_secret", "/nested/headers/Cookie"]);
  });

  it("key words are matched as words: monkey and keyboard are not keys, x-api-key and refreshToken are", () => {
    expect(["monkey", "keyboard", "tokenizer", "author", "input_tokens_count", "apiKeySource"].filter(isSecretKey)).toEqual([]);
    expect(["x-api-key", "refreshToken", "access_token", "password", "Authorization", "set-cookie", "AWS_SECRET_ACCESS_KEY", "privateKey"].every(isSecretKey)).toBe(true);
  });

  it("env maps (objects and [{name, value}] lists) keep names, lose values", () => {
    const r = createRedactor();
    const out = r.redact({ env: { PATH: "/usr/bin", DB_URL: "postgres://u:p@h/db" }, mcp: { environment: [{ name: "X", value: "opaque-val-1" }] } });
    expect(out.value).toEqual({ env: { PATH: "<REDACTED:env>", DB_URL: "<REDACTED:env>" }, mcp: { environment: [{ name: "X", value: "<REDACTED:env>" }] } });
  });

  it("home, project and temp paths become <HOME>, <PROJECT>, <TMP> (longest first); unknown user homes too", () => {
    const r = createRedactor({ home: "/home/alice", project: "/home/alice/code/app", tmp: "/tmp" });
    const out = r.redact(["/home/alice/code/app/src/x.ts", "/home/alice/.codex", "/tmp/build-1/a", "cd /Users/bob/x && ls C:\\Users\\carol\\y", "/sandbox/home/kept"]);
    expect(out.value).toEqual(["<PROJECT>/src/x.ts", "<HOME>/.codex", "<TMP>/build-1/a", "cd <HOME>/x && ls <HOME>\\y", "/sandbox/home/kept"]);
    expect(out.redactions.map((x) => x.kind)).toEqual(["project_path", "home_path", "tmp_path", "home_path"]);
  });

  it("cuts huge strings, keeping the original length", () => {
    const r = createRedactor({ maxString: 100 });
    const out = r.redact({ output: "x".repeat(1000) });
    expect((out.value as any).output).toBe("x".repeat(100) + "…<TRUNCATED:1000>");
    expect(out.redactions).toEqual([{ path: "/output", kind: "truncated", length: 1000 }]);
  });

  it("nesting thousands deep: no stack overflow; the part below maxDepth is replaced and reported, so a secret down there cannot leak", () => {
    const secret = "opaque-deep-secret-value-123";
    const text = "[".repeat(20000) + JSON.stringify({ password: secret, note: "sk-ant-api03-" + "d".repeat(40) }) + "]".repeat(20000);
    const w = createCaptureWriter({ provider: "codex", captureId: "deep", clock: () => 0 });
    let out = "";
    for (const stage of CAPTURE_STAGES) out += w.line(stage, "x", JSON.parse(text));
    expect(out).not.toContain(secret);
    expect(out).not.toContain("dddddddd");
    const back = readCapture(out);
    expect(back.errors).toEqual([]);
    for (const r of back.records) expect(r.redactions).toEqual([{ path: "/payload" + "/0".repeat(257), kind: "truncated" }]);
  });

  it("auth calls: the params of the request and the result of its response are wiped", () => {
    const r = createRedactor();
    const req = r.redact({ id: 7, method: "account/chatgptAuthTokens/refresh", params: { reason: "unauthorized", previousAccountId: "acct_1" } });
    const res = r.redact({ id: 7, result: { accessToken: "opaque-access-1", chatgptAccountId: "acct_opaque_9", chatgptPlanType: "pro" } });
    const other = r.redact({ id: 8, result: { text: "kept value" } });
    expect(req.value).toEqual({ id: 7, method: "account/chatgptAuthTokens/refresh", params: { reason: "<REDACTED:auth_payload>", previousAccountId: "<REDACTED:auth_payload>" } });
    expect(res.value).toEqual({ id: 7, result: { accessToken: "<REDACTED:auth_payload>", chatgptAccountId: "<REDACTED:auth_payload>", chatgptPlanType: "<REDACTED:auth_payload>" } });
    expect(other.value).toEqual({ id: 8, result: { text: "kept value" } });
  });

  it("a secret removed by name is scrubbed where it reappears later (e.g. copied into a canonical event)", () => {
    const r = createRedactor();
    r.redact({ params: { token: "opaque-token-123456" } });
    expect(r.redact({ payload: { text: "using opaque-token-123456 now" } }).value).toEqual({ payload: { text: "using <REDACTED:secret_field> now" } });
  });

  it("is deterministic and idempotent: same input, same output; redacting output again changes nothing", () => {
    const input = { a: "sk-ant-api03-" + "z".repeat(40), env: { K: "v".repeat(10) }, p: "/home/zed/x", password: "hunter2hunter2" };
    const a = createRedactor({ home: "/home/zed" }).redact(input);
    const b = createRedactor({ home: "/home/zed" }).redact(input);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const again = createRedactor({ home: "/home/zed" }).redact(a.value);
    expect(again.value).toEqual(a.value);
    expect(again.redactions).toEqual([]);
  });
});

// ── the audit ────────────────────────────────────────────────────────────────────────────────────────────


interface Secret { kind: string; value: string; /** Placement: "text" = shape-detectable anywhere; otherwise only where its context marks it. */ where: "text" | "field" | "env" | "auth" | "cookie" | "path" }

function corpus(seed: number, perKind: number) {
  const r = rng(seed);
  const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join("");
  const AN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const B64U = AN + "-_";
  const UP = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const HEX = "0123456789abcdef";
  const b64url = (s: string) => btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const makers: [string, Secret["where"], () => string][] = [
    ["openai", "text", () => `sk-proj-${pick(B64U, 48)}`],
    ["openai-legacy", "text", () => `sk-${pick(AN, 48)}`],
    ["anthropic", "text", () => `sk-ant-api03-${pick(B64U, 93)}AA`],
    ["aws-access-key", "text", () => `AKIA${pick(UP, 16)}`],
    ["github-pat", "text", () => `ghp_${pick(AN, 36)}`],
    ["github-oauth", "text", () => `gho_${pick(AN, 36)}`],
    ["github-fine-grained", "text", () => `github_pat_${pick(AN, 22)}_${pick(AN, 59)}`],
    ["slack", "text", () => `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 13)}-${pick(AN, 24)}`],
    ["google", "text", () => `AIza${pick(B64U, 35)}`],
    ["stripe", "text", () => `sk_live_${pick(AN, 24)}`],
    ["huggingface", "text", () => `hf_${pick(AN, 34)}`],
    ["gitlab", "text", () => `glpat-${pick(B64U, 20)}`],
    ["npm", "text", () => `npm_${pick(AN, 36)}`],
    ["groq", "text", () => `gsk_${pick(AN, 52)}`],
    ["bearer", "text", () => `Bearer ${pick(AN + "._-", 40)}`],
    ["jwt", "text", () => `${b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }))}.${b64url(JSON.stringify({ sub: pick(AN, 10), exp: 1700000000 + Math.floor(r() * 1e6) }))}.${pick(B64U, 43)}`],
    ["private-key", "text", () => `-----BEGIN RSA PRIVATE KEY-----\nMII${pick(AN + "+/", 60)}\n${pick(AN + "+/", 60)}\n-----END RSA PRIVATE KEY-----`],
    // Opaque values: only their context marks them (a key name, an env map, an auth call, a cookie header).
    ["opaque-field", "field", () => `${pick(HEX, 32)}`],
    ["password", "field", () => `${pick(AN, 14)}!`],
    ["aws-secret", "field", () => pick(AN + "+/", 40)],
    ["env-value", "env", () => pick(AN, 24)],
    ["auth-refresh-token", "auth", () => `${pick(HEX, 8)}.${pick(AN, 40)}`],
    ["cookie", "cookie", () => `${pick(AN, 32)}`],
    ["home-user", "path", () => `u${pick("abcdefghijklmnopqrstuvwxyz", 9)}`],
  ];
  const secrets: Secret[] = [];
  for (const [kind, where, make] of makers) for (let i = 0; i < perKind; i++) secrets.push({ kind, where, value: make() });
  return { secrets, r };
}

const FIELD_KEYS = ["api_key", "apiKey", "x-api-key", "client_secret", "password", "accessToken", "refresh_token", "AWS_SECRET_ACCESS_KEY", "sessionToken", "Authorization", "privateKey", "secret"];
const TEXT_KEYS = ["text", "delta", "output", "description", "note", "aggregatedOutput", "message", "command"];

/** Put `leaf` under `depth` levels of neutral keys, with arrays now and then. */
function nest(leaf: unknown, depth: number, r: () => number): unknown {
  let v = leaf;
  for (let d = 0; d < depth; d++) v = r() < 0.3 ? [0, v] : { [["data", "item", "params", "x", "meta", "content"][d % 6]]: v };
  return v;
}

/** One payload carrying the secret the way its kind appears in the wild. */
function carrier(s: Secret, i: number, r: () => number): unknown {
  const depth = i % 6;
  const tk = TEXT_KEYS[i % TEXT_KEYS.length];
  switch (s.where) {
    case "text": {
      const forms = [
        { [tk]: `here is it: ${s.value} ok` },
        { [tk]: s.value },
        { headers: { "X-Custom": s.value } },
        { [s.value.replace(/\n/g, " ").slice(0, 120)]: "used as a key" },
        { list: ["a", `${s.value}`, "b"] },
        { [tk]: `OPENAI_API_KEY=${s.value}\nHOME=/x` },
      ];
      return nest(forms[i % forms.length], depth, r);
    }
    case "field": return nest({ [FIELD_KEYS[i % FIELD_KEYS.length]]: s.value, other: "kept" }, depth, r);
    case "env": {
      const forms = [{ env: { MY_VAR: s.value } }, { environment: { DATABASE_PASSWORD: s.value } }, { env: [{ name: "X", value: s.value }] }, { env: [`X_CONFIG=${s.value}`] }];
      return nest(forms[i % forms.length], depth, r);
    }
    case "cookie": {
      const forms = [{ headers: { Cookie: `session=${s.value}` } }, { headers: { "set-cookie": [`sid=${s.value}; Path=/`] } }, { cookies: { sid: s.value } }];
      return nest(forms[i % forms.length], depth, r);
    }
    case "path": {
      const forms = [`/home/${s.value}/project/src/a.ts`, `/Users/${s.value}/Library/x`, `C:\\Users\\${s.value}\\AppData\\y`, `cd /home/${s.value} && ls`];
      return nest({ [tk]: forms[i % forms.length] }, depth, r);
    }
    case "auth": return undefined; // as a JSON-RPC exchange below
  }
}

/** The ways a secret's text can show up in the written bytes. */
function needles(s: Secret): string[] {
  const core = s.kind === "bearer" ? s.value.slice("Bearer ".length) : s.kind === "private-key" ? s.value.split("\n")[1] : s.kind === "home-user" ? s.value : s.value;
  return [...new Set([core, JSON.stringify(core).slice(1, -1)])];
}

describe("redaction audit", () => {
  const SEED = 20261130;
  const PER_KIND = 6;
  const { secrets, r } = corpus(SEED, PER_KIND);
  const home = `/srv/users/h${SEED}`;
  const project = `${home}/work/proj-${SEED}`;
  const tmp = `/var/tmp/t${SEED}`;
  const dirSecrets = [home, project, tmp];

  it("0 leaks: every secret of the seeded corpus, in every stage at varying depths and keys, is absent from the capture and the fixture", () => {
    const w = createCaptureWriter({ provider: "codex", source: "codex-app-server", captureId: "audit", clock: () => 0, redact: { home, project, tmp } });
    let text = "";
    let placements = 0;
    secrets.forEach((s, i) => {
      for (const stage of CAPTURE_STAGES) {
        if (s.where === "auth") {
          // An auth-refresh exchange: the server asks, the client answers with tokens.
          text += w.line(stage, "account/chatgptAuthTokens/refresh", { id: 100 + i, method: "account/chatgptAuthTokens/refresh", params: { reason: "unauthorized", previousAccountId: `acct-${s.value}` } });
          text += w.line(stage, "response", { id: 100 + i, result: { accessToken: s.value, chatgptAccountId: `acct_${i}`, chatgptPlanType: "pro" } });
          text += w.line(stage, "auth", nest({ refresh_token: s.value, id_token: s.value, token_type: "Bearer" }, i % 5, r));
          placements += 3;
          continue;
        }
        const payload = stage === "legacy_out" ? `[CHAT_EVENT] ${JSON.stringify(carrier(s, i, r))}` : carrier(s, i + CAPTURE_STAGES.indexOf(stage), r);
        text += w.line(stage, stage === "normalized_out" ? "content.delta" : "x", payload, { notes: i % 7 === 0 && s.where === "text" ? `seen ${s.value}` : undefined });
        placements++;
      }
    });
    // The host's own directories, in every stage.
    for (const stage of CAPTURE_STAGES) {
      text += w.line(stage, "x", { cwd: project, file: `${project}/src/index.ts`, home: `${home}/.config/x`, tmp: `${tmp}/build/out.log`, deep: nest({ out: `wrote ${tmp}/a and ${project}/b` }, 4, r) });
      placements++;
    }

    const fixture = serializeRecords(sanitizeCapture(readCapture(text).records, { redact: { home, project, tmp } }));
    const leaks: string[] = [];
    for (const s of secrets) for (const n of needles(s)) {
      if (text.includes(n)) leaks.push(`capture: ${s.kind}: …${n.slice(0, 6)}`);
      if (fixture.includes(n)) leaks.push(`fixture: ${s.kind}: …${n.slice(0, 6)}`);
    }
    for (const d of dirSecrets) if (text.includes(d) || fixture.includes(d)) leaks.push(`directory ${d}`);
    const tested = secrets.length + dirSecrets.length;
    console.log(`redaction audit: ${tested} secrets (${new Set(secrets.map((s) => s.kind)).size} kinds × ${PER_KIND} + 3 host directories), ${placements} placements across ${CAPTURE_STAGES.length} stages, ${leaks.length} leaks`);
    expect(leaks).toEqual([]);
    expect(tested).toBeGreaterThanOrEqual(140);
    // The capture is still a valid capture, and the redactions are listed.
    const back = readCapture(text);
    expect(back.errors).toEqual([]);
    expect(back.records.reduce((a, x) => a + x.redactions.length, 0)).toBeGreaterThanOrEqual(placements);
  });

  it("0 leaks through a real normalizer: secrets in a Codex app-server stream reach native_in, normalized_out (raw and canonical fields) and legacy_out redacted", () => {
    const fixture = readFileSync(fileURLToPath(new URL("../fixtures/codex-app-server/approval-session.ndjson", import.meta.url)), "utf8").split("\n").filter(Boolean);
    const inText = secrets.filter((s) => s.where === "text");
    const opaque = secrets.filter((s) => s.where === "field");
    let k = 0;
    // Seed secrets into the real stream: into streamed deltas and command output (they become canonical
    // content.delta text), and as extra secret-named params on every message (they ride along in raw).
    const lines = fixture.map((line, i) => {
      const m = JSON.parse(line);
      if (m.params && typeof m.params === "object") {
        if (typeof m.params.delta === "string") m.params.delta += ` ${inText[k++ % inText.length].value}`;
        m.params.extra = nest({ [FIELD_KEYS[i % FIELD_KEYS.length]]: opaque[i % opaque.length].value, note: `cwd /home/${secrets.find((s) => s.where === "path")!.value}/p` }, i % 4, r);
      }
      return JSON.stringify(m);
    });
    const n = createNormalizer({ surface: "codex-app-server", ids: counterIds(), clock: steppingClock(), includeRaw: true });
    const w = createCaptureWriter({ provider: "codex", source: "codex-app-server", captureId: "audit-2", clock: () => 0, redact: { home, project, tmp } });
    const legacy = (e: CanonicalEvent) => [`[CHAT_EVENT] ${JSON.stringify(e)}`];
    const c = capturingNormalizer(n, w, { surface: "codex-app-server", legacy });
    let text = "";
    const events: CanonicalEvent[] = [];
    for (const line of lines) {
      const { message, meta } = unwrapCaptureLine(JSON.parse(line));
      const out = c.push(message, meta);
      text += out.lines;
      events.push(...out.events);
    }
    text += c.end().lines;
    // The secrets did reach the canonical events (so the capture had to redact them there).
    const seeded = [...inText.slice(0, k), ...opaque];
    expect(events.some((e) => e.type === "content.delta" && inText.slice(0, k).some((s) => JSON.stringify(e.payload).includes(s.value)))).toBe(true);
    const leaks = seeded.flatMap(needles).filter((x) => text.includes(x));
    const stages = new Set(readCapture(text).records.map((x) => x.stage));
    console.log(`redaction audit (normalizer): ${seeded.length} secrets seeded into ${lines.length} Codex messages → ${events.length} events; ${leaks.length} leaks`);
    expect(stages).toEqual(new Set(CAPTURE_STAGES));
    expect(leaks).toEqual([]);
  });
});
