/**
 * Validates every line of every fixtures/codex-app-server/*.ndjson stream
 * against the vendored upstream Codex app-server JSON Schemas (0.171.0), and
 * checks that each stream is internally consistent (ids, deltas, snapshots).
 *
 * Message classification (the wire format has no "jsonrpc" field):
 *   {method, id, params}  request   -> ClientRequest.json or ServerRequest.json (by method)
 *   {method, params}      notification -> ServerNotification.json or ClientNotification.json
 *   {id, result|error}    response  -> the *Response schema of the pending request it answers
 */
import { describe, it, expect } from "vitest";
import Ajv from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SCHEMA_DIR = join(ROOT, "schemas/upstream/codex-app-server/0.171.0");
const FIXTURE_DIR = join(ROOT, "fixtures/codex-app-server");
const BUNDLES = ["codex_app_server_protocol.schemas.json", "codex_app_server_protocol.v2.schemas.json"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Schema = JsonObject & { definitions?: Record<string, JsonObject>; oneOf?: JsonObject[] };
type Direction = "client" | "server";

// ---------------------------------------------------------------------------
// ajv setup
// ---------------------------------------------------------------------------

// ajv is CommonJS: depending on module resolution the default import is the class
// itself or the module object carrying it on `.default`.
type AjvClass = typeof import("ajv").default;
const AjvCtor: AjvClass =
  (Ajv as unknown as { default?: AjvClass }).default ?? (Ajv as unknown as AjvClass);

const ajv = new AjvCtor({ strict: false, allowUnionTypes: true, allErrors: true });

// The schemas are generated from Rust types and annotate integers with their Rust width.
const intRange = (min: number, max: number) => ({
  type: "number" as const,
  validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
});
ajv.addFormat("int32", intRange(-(2 ** 31), 2 ** 31 - 1));
ajv.addFormat("uint8", intRange(0, 2 ** 8 - 1));
ajv.addFormat("uint16", intRange(0, 2 ** 16 - 1));
ajv.addFormat("uint32", intRange(0, 2 ** 32 - 1));
ajv.addFormat("int64", intRange(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
ajv.addFormat("uint64", intRange(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat("uint", intRange(0, Number.MAX_SAFE_INTEGER));
ajv.addFormat("double", { type: "number", validate: (n: number) => Number.isFinite(n) });

const schemaCache = new Map<string, Schema>();
function loadSchema(rel: string): Schema {
  let schema = schemaCache.get(rel);
  if (!schema) {
    schema = JSON.parse(readFileSync(join(SCHEMA_DIR, rel), "utf8")) as Schema;
    schemaCache.set(rel, schema);
  }
  return schema;
}

const validatorCache = new Map<string, ValidateFunction>();
function cached(key: string, make: () => ValidateFunction): ValidateFunction {
  let v = validatorCache.get(key);
  if (!v) {
    v = make();
    validatorCache.set(key, v);
  }
  return v;
}

/** Validator for a whole per-file schema, e.g. "ServerNotification.json" or "v2/ThreadReadResponse.json". */
function fileValidator(rel: string): ValidateFunction {
  return cached(`file:${rel}`, () => ajv.compile(loadSchema(rel)));
}

/** Validator for the oneOf branch of a message-union file whose `method` is `method` (for narrower error text). */
function branchValidator(rel: string, method: string): ValidateFunction | undefined {
  const schema = loadSchema(rel);
  const branch = (schema.oneOf ?? []).find((b) => methodOf(b) === method);
  if (!branch) return undefined;
  return cached(`branch:${rel}:${method}`, () => ajv.compile({ ...branch, definitions: schema.definitions }));
}

let bundlesAdded = false;
/** Validator for a definition of one of the bundled schema files, or undefined if no bundle defines it. */
function bundleDefinitionValidator(name: string): ValidateFunction | undefined {
  if (!bundlesAdded) {
    for (const bundle of BUNDLES) ajv.addSchema(loadSchema(bundle), bundle.replace(/\.json$/, ""));
    bundlesAdded = true;
  }
  for (const bundle of BUNDLES) {
    if (loadSchema(bundle).definitions?.[name]) {
      const key = `${bundle.replace(/\.json$/, "")}#/definitions/${name}`;
      return cached(`bundle:${key}`, () => ajv.getSchema(key) ?? ajv.compile({ $ref: key }));
    }
  }
  return undefined;
}

/** The *Response schema answering a request whose params are `$ref`'d as `<X>Params`. */
function responseValidator(paramsRef: string | undefined): { name: string; validate: ValidateFunction } | undefined {
  if (!paramsRef?.endsWith("Params")) return undefined;
  const name = paramsRef.replace(/Params$/, "Response");
  for (const rel of [`${name}.json`, `v1/${name}.json`, `v2/${name}.json`]) {
    if (existsSync(join(SCHEMA_DIR, rel))) return { name: rel, validate: fileValidator(rel) };
  }
  const fromBundle = bundleDefinitionValidator(name);
  return fromBundle ? { name: `definitions/${name}`, validate: fromBundle } : undefined;
}

function methodOf(branch: JsonObject): string | undefined {
  const props = branch.properties as JsonObject | undefined;
  const method = props?.method as JsonObject | undefined;
  const values = method?.enum as string[] | undefined;
  return values?.[0];
}

/** method -> name of the params definition ($ref), for a message-union file. */
function methodTable(rel: string): Map<string, string | undefined> {
  const table = new Map<string, string | undefined>();
  for (const branch of loadSchema(rel).oneOf ?? []) {
    const method = methodOf(branch);
    if (!method) continue;
    const params = (branch.properties as JsonObject).params as JsonObject | undefined;
    const ref = typeof params?.$ref === "string" ? params.$ref.split("/").pop() : undefined;
    table.set(method, ref);
  }
  return table;
}

const CLIENT_REQUESTS = methodTable("ClientRequest.json");
const SERVER_REQUESTS = methodTable("ServerRequest.json");
const SERVER_NOTIFICATIONS = methodTable("ServerNotification.json");
const CLIENT_NOTIFICATIONS = methodTable("ClientNotification.json");

/**
 * Drops the noise of tagged unions (ThreadItem, UserInput, …): errors coming from a oneOf/anyOf
 * branch whose `type` discriminator did not match are irrelevant to what is actually wrong.
 */
function relevantErrors(errors: ErrorObject[]): ErrorObject[] {
  const mismatched = errors
    .filter((e) => e.keyword === "enum" && /\/(oneOf|anyOf)\/\d+\/properties\/type\/enum$/.test(e.schemaPath))
    .map((e) => ({
      branch: e.schemaPath.replace(/\/properties\/type\/enum$/, "/"),
      instance: e.instancePath.replace(/\/type$/, ""),
    }));
  const kept = errors.filter(
    (e) =>
      !mismatched.some(
        (m) =>
          (e.schemaPath + "/").startsWith(m.branch) &&
          (e.instancePath === m.instance || e.instancePath.startsWith(m.instance + "/")),
      ),
  );
  return kept.length ? kept : errors;
}

function errorText(errors: ErrorObject[] | null | undefined, max = 12): string {
  if (!errors?.length) return "(no ajv errors reported)";
  errors = relevantErrors(errors);
  const shown = errors.slice(0, max).map((e) => {
    const params = Object.keys(e.params ?? {}).length ? ` ${JSON.stringify(e.params)}` : "";
    return `${e.instancePath || "/"} ${e.message ?? e.keyword}${params}`;
  });
  const more = errors.length > max ? `; … ${errors.length - max} more` : "";
  return shown.join("; ") + more;
}

// ---------------------------------------------------------------------------
// fixtures
// ---------------------------------------------------------------------------

interface Line {
  no: number;
  msg: JsonObject;
}

const fixtureFiles = existsSync(FIXTURE_DIR)
  ? readdirSync(FIXTURE_DIR)
      .filter((f) => f.endsWith(".ndjson"))
      .sort()
  : [];

function readLines(file: string): { lines: Line[]; failures: string[] } {
  const lines: Line[] = [];
  const failures: string[] = [];
  readFileSync(join(FIXTURE_DIR, file), "utf8")
    .split("\n")
    .forEach((raw, i) => {
      if (raw.trim() === "") return;
      try {
        const msg = JSON.parse(raw) as Json;
        if (msg === null || typeof msg !== "object" || Array.isArray(msg)) {
          failures.push(`${file}:${i + 1}: not a JSON object`);
        } else {
          lines.push({ no: i + 1, msg });
        }
      } catch (err) {
        failures.push(`${file}:${i + 1}: invalid JSON: ${(err as Error).message}`);
      }
    });
  return { lines, failures };
}

function isRequestId(id: Json | undefined): id is string | number {
  return typeof id === "string" || typeof id === "number";
}

interface Pending {
  method: string;
  paramsRef: string | undefined;
  line: number;
}

function schemaFailures(file: string): string[] {
  const { lines, failures } = readLines(file);
  const pending = new Map<string, Pending>();
  const key = (dir: Direction, id: string | number) => `${dir}:${JSON.stringify(id)}`;

  for (const { no, msg } of lines) {
    const at = `${file}:${no}`;
    if ("jsonrpc" in msg) failures.push(`${at}: unexpected "jsonrpc" field (codex app-server omits it)`);
    const method = typeof msg.method === "string" ? msg.method : undefined;

    if (method !== undefined && "id" in msg) {
      // request, client -> server or server -> client
      const dir: Direction | undefined = CLIENT_REQUESTS.has(method)
        ? "client"
        : SERVER_REQUESTS.has(method)
          ? "server"
          : undefined;
      if (!dir) {
        failures.push(`${at}: ${method}: not a method of ClientRequest.json or ServerRequest.json`);
        continue;
      }
      const rel = dir === "client" ? "ClientRequest.json" : "ServerRequest.json";
      const validate = fileValidator(rel);
      if (!validate(msg)) {
        const narrow = branchValidator(rel, method);
        const errors = narrow && !narrow(msg) ? narrow.errors : validate.errors;
        failures.push(`${at}: ${method} (${rel}): ${errorText(errors)}`);
      }
      if (!isRequestId(msg.id)) {
        failures.push(`${at}: ${method}: request id must be a string or an integer`);
        continue;
      }
      const other: Direction = dir === "client" ? "server" : "client";
      if (pending.has(key(dir, msg.id))) {
        failures.push(`${at}: ${method}: ${dir} request id ${JSON.stringify(msg.id)} is already pending`);
      }
      if (pending.has(key(other, msg.id))) {
        failures.push(
          `${at}: ${method}: id ${JSON.stringify(msg.id)} is also pending as a ${other} request; responses would be ambiguous`,
        );
      }
      const table = dir === "client" ? CLIENT_REQUESTS : SERVER_REQUESTS;
      pending.set(key(dir, msg.id), { method, paramsRef: table.get(method), line: no });
    } else if (method !== undefined) {
      // notification
      if (SERVER_NOTIFICATIONS.has(method)) {
        const { emittedAtMs, ...rest } = msg;
        if (emittedAtMs !== undefined && !Number.isInteger(emittedAtMs)) {
          failures.push(`${at}: ${method}: emittedAtMs must be an integer (ms since epoch)`);
        }
        const validate = fileValidator("ServerNotification.json");
        if (!validate(rest)) {
          const narrow = branchValidator("ServerNotification.json", method);
          const errors = narrow && !narrow(rest) ? narrow.errors : validate.errors;
          failures.push(`${at}: ${method} (ServerNotification.json): ${errorText(errors)}`);
        }
      } else if (CLIENT_NOTIFICATIONS.has(method)) {
        const validate = fileValidator("ClientNotification.json");
        if (!validate(msg)) failures.push(`${at}: ${method} (ClientNotification.json): ${errorText(validate.errors)}`);
      } else {
        failures.push(`${at}: ${method}: not a method of ServerNotification.json or ClientNotification.json`);
      }
    } else if ("id" in msg && ("result" in msg || "error" in msg)) {
      // response to an earlier request
      if (!isRequestId(msg.id)) {
        failures.push(`${at}: response id must be a string or an integer`);
        continue;
      }
      const id = msg.id;
      const candidates = (["client", "server"] as const).filter((d) => pending.has(key(d, id)));
      if (candidates.length !== 1) {
        failures.push(
          candidates.length === 0
            ? `${at}: response id ${JSON.stringify(id)} answers no pending request`
            : `${at}: response id ${JSON.stringify(id)} is ambiguous (pending in both directions)`,
        );
        continue;
      }
      const dir = candidates[0]!;
      const req = pending.get(key(dir, id))!;
      pending.delete(key(dir, id));
      const label = `response to ${req.method} (line ${req.line})`;
      if ("error" in msg) {
        const validate = fileValidator("JSONRPCErrorError.json");
        if (!validate(msg.error)) failures.push(`${at}: ${label} error (JSONRPCErrorError.json): ${errorText(validate.errors)}`);
        continue;
      }
      const response = responseValidator(req.paramsRef);
      if (!response) {
        failures.push(`${at}: ${label}: no *Response schema found for params ${req.paramsRef ?? "(none)"}`);
        continue;
      }
      if (!response.validate(msg.result)) {
        failures.push(`${at}: ${label} (${response.name}): ${errorText(response.validate.errors)}`);
      }
    } else {
      failures.push(`${at}: neither a request, a notification nor a response: ${JSON.stringify(msg).slice(0, 120)}`);
    }
  }

  for (const [k, req] of pending) failures.push(`${file}:${req.line}: ${req.method} (${k}) never got a response`);
  return failures;
}

// ---------------------------------------------------------------------------
// internal consistency (ids, deltas, snapshots)
// ---------------------------------------------------------------------------

const asObj = (v: Json | undefined): JsonObject =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? v : {};
const asStr = (v: Json | undefined): string | undefined => (typeof v === "string" ? v : undefined);

/** Notifications whose params.itemId must name an item that is started and not yet completed. */
const ITEM_DELTAS: Record<string, string> = {
  "item/agentMessage/delta": "agentMessage",
  "item/reasoning/summaryPartAdded": "reasoning",
  "item/reasoning/summaryTextDelta": "reasoning",
  "item/reasoning/textDelta": "reasoning",
  "item/commandExecution/outputDelta": "commandExecution",
  "item/fileChange/patchUpdated": "fileChange",
  "item/mcpToolCall/progress": "mcpToolCall",
};
/** Server requests whose item must be in progress (param holding the item id, item type). */
const ITEM_REQUESTS: Record<string, [string, string]> = {
  "item/commandExecution/requestApproval": ["itemId", "commandExecution"],
  "item/fileChange/requestApproval": ["itemId", "fileChange"],
  "item/tool/call": ["callId", "dynamicToolCall"],
};

function stripLifecycle(item: JsonObject): JsonObject {
  const { startedAtMs: _s, completedAtMs: _c, ...rest } = item;
  return rest;
}

function consistencyFailures(file: string): string[] {
  const { lines, failures } = readLines(file);
  const threads = new Set<string>();
  const turns = new Map<string, { status: string; completedItems: JsonObject[]; final?: JsonObject }>();
  const open = new Map<string, { type: string; turnId: string }>(); // in-progress items
  const streamed = new Map<string, string>(); // itemId[/summaryIndex] -> concatenated deltas
  const serverRequests = new Map<string, { answered: boolean; resolved: boolean }>();
  const clientRequests = new Map<string, string>(); // id -> method (pending)
  let lastEmitted = 0;

  for (const { no, msg } of lines) {
    const at = `${file}:${no}`;
    const method = asStr(msg.method);
    const params = asObj(msg.params);
    const threadId = asStr(params.threadId);
    const turnId = asStr(params.turnId);

    if (typeof msg.emittedAtMs === "number") {
      if (msg.emittedAtMs < lastEmitted) failures.push(`${at}: emittedAtMs goes backwards`);
      lastEmitted = msg.emittedAtMs;
    }
    if (threadId !== undefined && method !== "thread/start" && !threads.has(threadId)) {
      failures.push(`${at}: ${method}: unknown threadId ${threadId}`);
    }
    if (turnId !== undefined && method !== undefined && !turns.has(turnId)) {
      failures.push(`${at}: ${method}: unknown turnId ${turnId}`);
    }

    if (method !== undefined && "id" in msg) {
      const id = JSON.stringify(msg.id);
      if (SERVER_REQUESTS.has(method)) {
        serverRequests.set(id, { answered: false, resolved: false });
        const spec = ITEM_REQUESTS[method];
        if (spec) {
          const itemId = asStr(params[spec[0]]) ?? "";
          const item = open.get(itemId);
          if (!item || item.type !== spec[1] || item.turnId !== turnId) {
            failures.push(`${at}: ${method}: ${spec[0]} ${itemId} is not an in-progress ${spec[1]} item of turn ${turnId}`);
          }
        }
      } else {
        clientRequests.set(id, method);
      }
      continue;
    }

    if (method === undefined) {
      // response: client answers to server requests are matched by id when not a pending client request
      const id = JSON.stringify(msg.id);
      const clientMethod = clientRequests.get(id);
      if (clientMethod !== undefined) {
        clientRequests.delete(id);
        const result = asObj(msg.result);
        if (clientMethod === "thread/start") threads.add(asStr(asObj(result.thread).id) ?? "");
        if (clientMethod === "turn/start") {
          turns.set(asStr(asObj(result.turn).id) ?? "", { status: "inProgress", completedItems: [] });
        }
        if (clientMethod === "thread/read") {
          for (const turn of (asObj(result.thread).turns as Json[] | undefined) ?? []) {
            const t = asObj(turn);
            const known = turns.get(asStr(t.id) ?? "");
            if (!known) {
              failures.push(`${at}: thread/read returned unknown turn ${asStr(t.id)}`);
              continue;
            }
            if (t.status !== known.status) failures.push(`${at}: thread/read turn ${asStr(t.id)} status ${String(t.status)} != ${known.status}`);
            const items = ((t.items as Json[] | undefined) ?? []).map((i) => stripLifecycle(asObj(i)));
            if (!isDeepStrictEqual(items, known.completedItems.map(stripLifecycle))) {
              failures.push(`${at}: thread/read items of turn ${asStr(t.id)} differ from the item/completed payloads`);
            }
          }
        }
      } else if (serverRequests.has(id)) {
        serverRequests.get(id)!.answered = true;
      } else {
        failures.push(`${at}: response id ${id} matches no request`);
      }
      continue;
    }

    switch (method) {
      case "thread/started":
        threads.add(asStr(asObj(params.thread).id) ?? "");
        break;
      case "turn/started":
      case "turn/completed": {
        const turn = asObj(params.turn);
        const id = asStr(turn.id) ?? "";
        if (!turns.has(id)) {
          if (method === "turn/completed") failures.push(`${at}: turn/completed for a turn that never started`);
          turns.set(id, { status: "inProgress", completedItems: [] });
        }
        if (method === "turn/completed") {
          const t = turns.get(id)!;
          t.status = asStr(turn.status) ?? "";
          for (const [itemId, item] of open) {
            if (item.turnId === id) failures.push(`${at}: turn completed while item ${itemId} is still in progress`);
          }
        }
        break;
      }
      case "item/started": {
        const item = asObj(params.item);
        const id = asStr(item.id) ?? "";
        if (open.has(id)) failures.push(`${at}: item ${id} started twice`);
        open.set(id, { type: asStr(item.type) ?? "", turnId: turnId ?? "" });
        break;
      }
      case "item/completed": {
        const item = asObj(params.item);
        const id = asStr(item.id) ?? "";
        const started = open.get(id);
        if (!started) failures.push(`${at}: item/completed for ${id} without a matching item/started`);
        else if (started.type !== item.type || started.turnId !== turnId) {
          failures.push(`${at}: item/completed ${id} does not match its item/started (type/turn)`);
        }
        open.delete(id);
        turns.get(turnId ?? "")?.completedItems.push(item);
        if (item.type === "agentMessage" && streamed.has(id) && item.text !== streamed.get(id)) {
          failures.push(`${at}: agentMessage text differs from the concatenated deltas`);
        }
        if (item.type === "commandExecution" && streamed.has(id) && item.aggregatedOutput !== streamed.get(id)) {
          failures.push(`${at}: aggregatedOutput differs from the concatenated outputDelta chunks`);
        }
        if (item.type === "reasoning") {
          ((item.summary as Json[] | undefined) ?? []).forEach((part, i) => {
            const deltas = streamed.get(`${id}/${i}`);
            if (deltas !== undefined && part !== deltas) {
              failures.push(`${at}: reasoning summary[${i}] differs from the concatenated summaryTextDelta chunks`);
            }
          });
        }
        break;
      }
      case "serverRequest/resolved": {
        const req = serverRequests.get(JSON.stringify(params.requestId));
        if (!req?.answered || req.resolved) {
          failures.push(`${at}: serverRequest/resolved for request ${JSON.stringify(params.requestId)} that is not answered or already resolved`);
        } else {
          req.resolved = true;
        }
        break;
      }
      default: {
        const type = ITEM_DELTAS[method];
        if (!type) break;
        const itemId = asStr(params.itemId) ?? "";
        const item = open.get(itemId);
        if (!item || item.type !== type || item.turnId !== turnId) {
          failures.push(`${at}: ${method}: itemId ${itemId} is not an in-progress ${type} item of turn ${turnId}`);
        }
        const delta = asStr(params.delta);
        if (delta !== undefined) {
          const k = "summaryIndex" in params ? `${itemId}/${String(params.summaryIndex)}` : itemId;
          streamed.set(k, (streamed.get(k) ?? "") + delta);
        }
      }
    }
  }

  for (const [id, req] of serverRequests) {
    if (!req.answered || !req.resolved) failures.push(`${file}: server request ${id} was not answered and resolved`);
  }
  for (const [id, method] of clientRequests) failures.push(`${file}: client request ${id} (${method}) got no response`);
  for (const [itemId] of open) failures.push(`${file}: item ${itemId} never completed`);
  return failures;
}

// ---------------------------------------------------------------------------

describe("codex app-server fixtures vs upstream 0.171.0 JSON Schema", () => {
  it("has fixture streams to check", () => {
    expect(fixtureFiles.length).toBeGreaterThan(0);
  });

  for (const file of fixtureFiles) {
    it(`${file}: every line validates against the upstream schema`, () => {
      expect(schemaFailures(file)).toEqual([]);
    });

    it(`${file}: ids, deltas and snapshots are internally consistent`, () => {
      expect(consistencyFailures(file)).toEqual([]);
    });
  }
});
