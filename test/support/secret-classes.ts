/**
 * The secret classes of issue 31 (and the classes redaction covered before), each as a generator of planted
 * secrets in the texts they appear in — several spellings per class, random values from a seeded PRNG, so a rule
 * tuned to one example fails. Used by test/redact-classes.test.ts (capture + sanitize, every stage) and by
 * docs/capture.md's table (every class names its test).
 */
import type { RedactOptions } from "../../src/capture/redact.js";

/** mulberry32: a small seeded PRNG, so the corpus is the same on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const AN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
export const B64U = AN + "-_";
export const LOWER = "abcdefghijklmnopqrstuvwxyz";

export interface Gen {
  r: () => number;
  pick(alphabet: string, n: number): string;
  one<T>(xs: T[]): T;
  /** A password-like value: letters, digits and a symbol (never a plain word). */
  password(): string;
  /** A login name nobody else has: `u` + lower-case letters. */
  login(): string;
  b64(s: string): string;
}

export function gen(seed: number): Gen {
  const r = rng(seed);
  const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(r() * alphabet.length)]).join("");
  return {
    r,
    pick,
    one: (xs) => xs[Math.floor(r() * xs.length)],
    password: () => `${pick(AN, 6)}${pick("!%^*+", 1)}${pick(AN, 5)}${pick("0123456789", 2)}`,
    login: () => `u${pick(LOWER, 7)}`,
    b64: (s) => btoa(s),
  };
}

/** One planted secret: the text it sits in, the values that must not appear, the words that must stay. */
export interface Planted {
  text: string;
  secrets: string[];
  keep: string[];
}

export interface SecretClass {
  /** The class, as docs/capture.md lists it. */
  name: string;
  /** Redaction options the class needs (a login name known to the host). */
  options?: (g: Gen) => RedactOptions;
  make(g: Gen): Planted;
}

const sas = (g: Gen) => encodeURIComponent(btoa(g.pick(AN, 32)));

export const SECRET_CLASSES: SecretClass[] = [
  {
    name: "Stripe webhook secret `whsec_…`",
    make: (g) => {
      const v = `whsec_${g.pick(AN, 32)}`;
      return g.one([
        { text: `> Ready! Your webhook signing secret is ${v} (^C to quit)`, secrets: [v.slice(6)], keep: ["Ready!"] },
        { text: `const endpointSecret = '${v}';`, secrets: [v.slice(6)], keep: ["endpointSecret"] },
        { text: `stripe listen --forward-to localhost:4242/webhook\n${v}\n`, secrets: [v.slice(6)], keep: ["stripe listen"] },
      ]);
    },
  },
  {
    name: "SendGrid key `SG.x.y`",
    make: (g) => {
      const v = `SG.${g.pick(B64U, 22)}.${g.pick(B64U, 43)}`;
      return g.one([
        { text: `sg = SendGridAPIClient("${v}")`, secrets: [v.slice(3)], keep: ["SendGridAPIClient"] },
        { text: `using the key ${v} for mail`, secrets: [v.slice(3)], keep: ["for mail"] },
      ]);
    },
  },
  {
    name: "Telegram bot token `123456789:AA…`",
    make: (g) => {
      const v = `${g.pick("123456789", 1)}${g.pick("0123456789", 8 + Math.floor(g.r() * 2))}:AA${g.pick(B64U, 33)}`;
      const secret = v.slice(v.indexOf(":") + 1);
      return g.one([
        { text: `curl https://api.telegram.org/bot${v}/getMe`, secrets: [secret], keep: ["api.telegram.org", "/getMe"] },
        { text: `bot = Bot(token="${v}")`, secrets: [secret], keep: ["Bot("] },
        { text: `Your bot token is ${v} — keep it secret.`, secrets: [secret], keep: ["keep it secret"] },
      ]);
    },
  },
  {
    name: "Azure storage `AccountKey=…`",
    make: (g) => {
      const v = btoa(g.pick(AN, 64));
      return { text: `DefaultEndpointsProtocol=https;AccountName=acct${g.pick(LOWER, 5)};AccountKey=${v};EndpointSuffix=core.windows.net`, secrets: [v], keep: ["EndpointSuffix=core.windows.net", "AccountName=acct"] };
    },
  },
  {
    name: "Azure SAS `sig=…`",
    make: (g) => {
      const v = sas(g);
      return g.one([
        { text: `https://acct.blob.core.windows.net/c/b.txt?sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacup&se=2026-01-01T00:00:00Z&spr=https&sig=${v}`, secrets: [v], keep: ["acct.blob.core.windows.net/c/b.txt"] },
        { text: `SAS token: sv=2022-11-02&sr=c&sp=rl&sig=${v}&se=2026-01-01`, secrets: [v], keep: ["sr=c"] },
      ]);
    },
  },
  {
    name: "password as a command flag: `curl -u user:pass`",
    make: (g) => {
      const p = g.password();
      return g.one([
        { text: `curl -u admin:${p} https://api.example.com/v1/items`, secrets: [p], keep: ["curl -u admin:"] },
        { text: `curl -sS --user "deploy:${p}" -X POST https://ci.example.com/build`, secrets: [p], keep: ["--user", "ci.example.com"] },
        { text: `curl -fsSL -uadmin:${p} https://x.example.com`, secrets: [p], keep: ["curl -fsSL"] },
      ]);
    },
  },
  {
    name: "password as a command flag: `mysql -pPASS`",
    make: (g) => {
      const p = g.password().replace(/[!%^*+]/g, "_");
      return g.one([
        { text: `mysql -h db.internal -u root -p${p} app < dump.sql`, secrets: [p], keep: ["mysql -h db.internal"] },
        { text: `mysqldump -uadmin -p${p} --single-transaction app > app.sql`, secrets: [p], keep: ["--single-transaction"] },
        { text: `mysql --user=app --password=${p} app`, secrets: [p], keep: ["--user=app"] },
      ]);
    },
  },
  {
    name: "password as a command flag: `sshpass -p PASS`",
    make: (g) => {
      const p = g.password();
      return g.one([
        { text: `sshpass -p '${p}' ssh -o StrictHostKeyChecking=no deploy@10.0.0.5`, secrets: [p], keep: ["StrictHostKeyChecking"] },
        { text: `sshpass -p ${p} scp build.tgz deploy@host:/srv`, secrets: [p], keep: ["build.tgz"] },
      ]);
    },
  },
  {
    name: "password as a command flag: `docker login -p PASS` / `--password PASS`",
    make: (g) => {
      const p = g.password().replace(/[!%^*+]/g, "-");
      return g.one([
        { text: `docker login -u bob -p ${p} registry.example.com`, secrets: [p], keep: ["registry.example.com"] },
        { text: `docker login --username bob --password ${p} ghcr.io`, secrets: [p], keep: ["ghcr.io"] },
        { text: `podman login -p ${p} -u bob quay.io`, secrets: [p], keep: ["quay.io"] },
        { text: `echo "${p}" | docker login --username bob --password-stdin`, secrets: [p], keep: ["--password-stdin"] },
      ]);
    },
  },
  {
    name: "env / config name `*_PASS`",
    make: (g) => {
      const p = g.password();
      const name = g.one(["SMTP_PASS", "DB_PASS", "REDIS_PASS", "MAIL_PASS"]);
      return g.one([
        { text: `${name}=${p}\nPORT=8080`, secrets: [p], keep: [`${name}=`, "PORT=8080"] },
        { text: `export ${name}="${p}"`, secrets: [p], keep: [`export ${name}`] },
        { text: `${name.toLowerCase()}: ${p}\nhost: db`, secrets: [p], keep: ["host: db"] },
      ]);
    },
  },
  {
    name: "env / config name `*_KEY` (e.g. `MAIL_KEY`)",
    make: (g) => {
      const v = g.pick(AN, 20 + Math.floor(g.r() * 12));
      const name = g.one(["MAIL_KEY", "LICENSE_KEY", "SIGNING_KEY", "MAPS_KEY"]);
      return g.one([
        { text: `${name}=${v}`, secrets: [v], keep: [`${name}=`] },
        { text: `  ${name.toLowerCase()}: "${v}"`, secrets: [v], keep: [name.toLowerCase()] },
      ]);
    },
  },
  {
    name: "env / config name `*_SALT`",
    make: (g) => {
      const v = g.pick(AN + "!@#$%^&*", 32);
      return { text: `${g.one(["APP_SALT", "PASSWORD_SALT", "AUTH_SALT"])}='${v}'`, secrets: [v], keep: ["_SALT="] };
    },
  },
  {
    name: "env / config name `*_WH` (webhook)",
    make: (g) => {
      const v = g.pick(AN, 24);
      return { text: `${g.one(["SLACK_WH", "DEPLOY_WH", "ALERTS_WH"])}=https://hooks.example.com/t/${v}`, secrets: [v], keep: ["_WH="] };
    },
  },
  {
    name: "JSON key `auth` (Docker config.json)",
    make: (g) => {
      const cred = `${g.login()}:${g.password()}`;
      const v = btoa(cred);
      return g.one([
        { text: JSON.stringify({ auths: { "https://index.docker.io/v1/": { auth: v } } }, null, 2), secrets: [v, cred.split(":")[1]], keep: ["index.docker.io"] },
        { text: `cat ~/.docker/config.json\n{\n  "auths": {\n    "registry.example.com": {\n      "auth": "${v}"\n` /* cut off */, secrets: [v], keep: ["registry.example.com"] },
      ]);
    },
  },
  {
    name: "broader name rule (`*_PAT`, `*_DSN`, `*_SIG`, `hmacSecret`, `connectionString`)",
    make: (g) => {
      const v = g.pick(AN, 24);
      return g.one([
        { text: `GH_PAT=${v}`, secrets: [v], keep: ["GH_PAT="] },
        { text: `SENTRY_DSN=https://${v}@o1.ingest.sentry.io/42`, secrets: [v], keep: ["SENTRY_DSN="] },
        { text: `{"apiSig": "${v}", "region": "eu"}`, secrets: [v], keep: ["region"] },
        { text: `hmacSecret: ${v}`, secrets: [v], keep: ["hmacSecret"] },
        { text: `"connectionString": "Server=db;Database=app;User Id=sa;Password=${v};"`, secrets: [v], keep: ["connectionString"] },
      ]);
    },
  },
  {
    name: "entropy rule: a long random value in an assignment, whatever its name",
    make: (g) => {
      let v = g.pick(AN, 28 + Math.floor(g.r() * 20));
      if (!/\d/.test(v)) v += "7";
      const name = g.one(["BUILD_CONFIG", "FOO", "X_UPSTREAM_HANDLE", "widget_opts"]);
      return g.one([
        { text: `${name}=${v}`, secrets: [v], keep: [`${name}=`] },
        { text: `${name}: "${v}"`, secrets: [v], keep: [name] },
      ]);
    },
  },
  {
    name: "URL password containing `@`",
    make: (g) => {
      const p = `${g.pick(AN, 5)}@${g.pick(AN, 6)}${g.one(["", "@x9"])}`;
      return g.one([
        { text: `DATABASE_URL=postgres://app:${p}@db.internal:5432/app`, secrets: [p, p.slice(p.indexOf("@") + 1)], keep: ["db.internal:5432/app"] },
        { text: `git clone https://bob:${p}@git.example.com/team/repo.git`, secrets: [p, p.slice(p.indexOf("@") + 1)], keep: ["git.example.com/team/repo.git"] },
        { text: `mongodb+srv://admin:${p}@cluster0.ab12c.mongodb.net/?retryWrites=true`, secrets: [p, p.slice(p.indexOf("@") + 1)], keep: ["cluster0.ab12c.mongodb.net"] },
      ]);
    },
  },
  {
    name: "base64: a Docker `auth` / Basic credential blob",
    make: (g) => {
      const p = g.password();
      const v = btoa(`${g.login()}:${p}`);
      return g.one([
        { text: `echo ${v} | base64 -d`, secrets: [v, p], keep: ["base64 -d"] },
        { text: `credentials (base64): ${v}`, secrets: [v, p], keep: ["credentials"] },
      ]);
    },
  },
  {
    name: "base64: Kubernetes Secret `data:` values",
    make: (g) => {
      // keys that do not say "secret": only the manifest does
      const url = btoa(`postgres://app:${g.password()}@db:5432/app`);
      const conf = btoa(`endpoint: https://api.example.com\nclient: ${g.pick(AN, 24)}\n`);
      const user = btoa(g.login());
      const yaml = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: app-${g.pick(LOWER, 4)}\ntype: Opaque\ndata:\n  username: ${user}\n  db-url: ${url}\n  settings.yaml: ${conf}\n`;
      return g.one([
        { text: yaml, secrets: [url, conf, user], keep: ["kind: Secret", "type: Opaque", "db-url:"] },
        { text: JSON.stringify({ apiVersion: "v1", kind: "Secret", metadata: { name: "app" }, data: { username: user, "db-url": url, "settings.yaml": conf } }, null, 2), secrets: [url, conf, user], keep: ["metadata", "db-url"] },
      ]);
    },
  },
  {
    name: "base64 of a known key shape",
    make: (g) => {
      const key = g.one([`sk-ant-api03-${g.pick(B64U, 60)}`, `ghp_${g.pick(AN, 36)}`, `AKIA${g.pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`]);
      const v = btoa(`${key}\n`);
      return { text: `the secret value (base64) is ${v} in the manifest`, secrets: [v, key], keep: ["in the manifest"] };
    },
  },
  {
    name: "login name outside the home path (known to the host)",
    options: () => ({}),
    make: (g) => {
      const u = g.login();
      return g.one([
        { text: `$ whoami\n${u}\n`, secrets: [u], keep: ["whoami"] },
        { text: `USER=${u}\nSHELL=/bin/bash`, secrets: [u], keep: ["SHELL=/bin/bash"] },
        { text: `total 8\n-rw-r--r--  1 ${u} ${u}  220 Jan  1 10:00 .bashrc\ndrwxr-xr-x  2 root root 4096 Jan  1 10:00 bin`, secrets: [u], keep: [".bashrc", "root root"] },
        { text: `ssh ${u}@build-01.example.com 'uptime'`, secrets: [u], keep: ["build-01.example.com"] },
        { text: `uid=1000(${u}) gid=1000(${u}) groups=1000(${u}),27(sudo)`, secrets: [u], keep: ["27(sudo)"] },
        { text: `PS C:\\> whoami\ndesktop-7k2\\${u}\n`, secrets: [u], keep: ["desktop-7k2"] },
      ]);
    },
  },
  {
    name: "password hashes (`$6$…`, `$2y$…`, `$apr1$…`, `$argon2id$…`)",
    make: (g) => {
      const salt = g.pick(AN, 8);
      const h = g.one([`$6$${salt}$${g.pick(AN + "./", 86)}`, `$2y$10$${g.pick(AN + "./", 53)}`, `$apr1$${salt}$${g.pick(AN + "./", 22)}`, `$argon2id$v=19$m=65536,t=3,p=4$${g.pick(AN, 22)}$${g.pick(AN, 43)}`]);
      const secret = h.slice(h.lastIndexOf("$") + 1);
      return g.one([
        { text: `${g.login()}:${h}:19000:0:99999:7:::`, secrets: [secret], keep: [":19000:0:99999:7:::"] },
        { text: `INSERT INTO users (name, hash) VALUES ('bob', '${h}');`, secrets: [secret], keep: ["INSERT INTO users"] },
      ]);
    },
  },
  {
    name: "JWK private key members",
    make: (g) => {
      const d = g.pick(B64U, 86);
      return g.one([
        { text: JSON.stringify({ kty: "EC", crv: "P-256", x: g.pick(B64U, 43), y: g.pick(B64U, 43), d, kid: "k1" }, null, 2), secrets: [d], keep: ["P-256"] },
        { text: `cat signing.jwk\n${JSON.stringify({ kty: "OKP", crv: "Ed25519", x: g.pick(B64U, 43), d })}`, secrets: [d], keep: ["Ed25519"] },
      ]);
    },
  },
  {
    name: "cookie as a command flag: `curl -b`",
    make: (g) => {
      const v = g.pick(AN, 32);
      return { text: `curl -sS -b "sessionid=${v}" https://app.example.com/api/me`, secrets: [v], keep: ["app.example.com/api/me"] };
    },
  },
  {
    name: "SASL PLAIN blob (`AUTH PLAIN …`)",
    make: (g) => {
      const p = g.password();
      const v = btoa(`\0${g.login()}\0${p}`);
      return { text: `C: AUTH PLAIN ${v}\nS: 235 2.7.0 Authentication successful`, secrets: [v, p], keep: ["235 2.7.0"] };
    },
  },
  {
    name: "Slack webhook URL in free text",
    make: (g) => {
      const path = `T${g.pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10)}/B${g.pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10)}/${g.pick(AN, 24)}`;
      return { text: `Posting the alert to https://hooks.slack.com/services/${path} now.`, secrets: [path, path.split("/")[2]], keep: ["hooks.slack.com", "now."] };
    },
  },
  {
    name: "home path inside an escaped JSON string (`/home/<user>/…/.env\\\\n`)",
    make: (g) => {
      const u = g.login();
      return g.one([
        { text: JSON.stringify({ output: JSON.stringify({ stdout: `/home/${u}/app/.env\n` }) }), secrets: [u], keep: ["app/.env"] },
        { text: `{"path":"\\/home\\/${u}\\/app\\/.env\\n"}`, secrets: [u], keep: [".env"] },
        { text: `"C:\\\\\\\\Users\\\\\\\\${u}\\\\\\\\repo\\\\\\\\.env"`, secrets: [u], keep: ["repo"] },
        { text: `\u001b[01;34m/home/${u}/app\u001b[0m\n`, secrets: [u], keep: ["app"] },
      ]);
    },
  },
];

/**
 * The login-name class in its three ways of being known: given by the host (`user`), seen earlier in a home path,
 * or not known at all (only its context — `USER=`, `uid=…(name)`, `whoami`, `ls -l`, `ssh name@host` — says so).
 */
export const LOGIN_KNOWN = ["given", "home path seen first", "context only"] as const;
