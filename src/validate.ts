/**
 * Checking values against the canonical event schema, apart from the normalizer (import `agentnorm/validate`):
 * a type guard with typed errors, and parseEvent for events read back from JSON (a file, a socket, postMessage).
 */
import type { CanonicalEvent } from "../generated/canonical.gen.js";
import { validateCanonicalEvent as generated } from "../generated/validators/canonical-event.gen.js";
import { AgentnormError, ERROR_CODES } from "./errors.js";

/** One reason a value is not a canonical event (the first one found: the check stops there). */
export interface CanonicalValidationError {
  /** JSON Pointer to the offending value ("" for the event itself), e.g. "/payload/streamKind". */
  instancePath: string;
  /** JSON Pointer into the canonical schema (agentnorm/schema.json) of the rule that failed. */
  schemaPath: string;
  /** The JSON Schema keyword that failed: "required", "type", "enum", "const", "pattern", "additionalProperties", … */
  keyword: string;
  /** The keyword's parameters (e.g. { missingProperty } for "required", { allowedValues } for "enum"). */
  params: Record<string, unknown>;
  /** A short English reason, e.g. "must have required property 'type'". */
  message?: string;
}

/** A type guard: is this value a canonical event? After a false result `errors` says why (after true: null). */
export interface CanonicalEventValidator {
  /** A value already typed as an event: a plain check (no narrowing, so a false result does not make it `never`). */
  <T extends CanonicalEvent>(value: T): boolean;
  (value: unknown): value is CanonicalEvent;
  errors?: CanonicalValidationError[] | null;
}

/** Checks a value against the canonical event schema (generated code; no dependency on a schema library). */
export const validateCanonicalEvent: CanonicalEventValidator = generated as unknown as CanonicalEventValidator;

/** Is this value a canonical event? A type guard; `validateCanonicalEvent.errors` says why not. */
export function isCanonicalEvent(value: unknown): value is CanonicalEvent {
  return validateCanonicalEvent(value);
}

/** The value given to parseEvent is not a canonical event (`code` "invalid_json" or "invalid_event"). */
export class InvalidEventError extends AgentnormError {
  static override readonly brand: string = "InvalidEventError";
  /** What the schema check found (empty for "invalid_json"). */
  readonly errors: readonly CanonicalValidationError[];
  constructor(code: typeof ERROR_CODES.INVALID_JSON | typeof ERROR_CODES.INVALID_EVENT, message: string, errors: readonly CanonicalValidationError[] = []) {
    super(code, message);
    this.name = "InvalidEventError";
    this.errors = errors;
  }
}

/**
 * One canonical event from JSON text (an NDJSON line) or from an already parsed value, checked against the
 * schema and typed: no casts needed. Throws InvalidEventError when it is not one.
 */
export function parseEvent(input: string | unknown): CanonicalEvent {
  let value: unknown = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new InvalidEventError(ERROR_CODES.INVALID_JSON, `parseEvent: not JSON (${(err as Error).message})`);
    }
  }
  if (!validateCanonicalEvent(value)) {
    const errors = validateCanonicalEvent.errors ?? [];
    const first = errors[0];
    throw new InvalidEventError(ERROR_CODES.INVALID_EVENT, `parseEvent: not a canonical event: ${first ? `${first.instancePath || "/"} ${first.message ?? first.keyword}` : "schema mismatch"}`, errors);
  }
  return value;
}
