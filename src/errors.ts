/**
 * The errors the public API throws, each with a stable `code` (match on `code`, not on the message text, which
 * may be reworded). Provider data never throws: push() / apply() report bad input as events or problems.
 */

/** Every code an AgentnormError can carry. Adding a code is not a breaking change; changing or removing one is. */
export const ERROR_CODES = {
  /** createNormalizer: the surface name is not one of SURFACE_NAMES (or a table dispatches to an unknown one). */
  UNKNOWN_SURFACE: "unknown_surface",
  /** An option has a value the API cannot use (e.g. createAccumulator({ retainTurns: NaN })). */
  INVALID_OPTION: "invalid_option",
  /** parseEvent: the text is not JSON. */
  INVALID_JSON: "invalid_json",
  /** parseEvent: the value does not match the canonical event schema (see the error's `errors`). */
  INVALID_EVENT: "invalid_event",
  /** answerRequest: the event given is not a request.opened event. */
  NOT_A_REQUEST: "not_a_request",
  /** answerRequest: the request lacks what its answer must name (its provider request id, its session). */
  INCOMPLETE_REQUEST: "incomplete_request",
  /** answerRequest: the decision matches none of the choices the request offers. */
  NO_MATCHING_CHOICE: "no_matching_choice",
  /** answerRequest: this provider's or request kind's answers are not built by agentnorm, or the request does not take this decision. */
  UNSUPPORTED_REQUEST: "unsupported_request",
  /** answerRequest: the reply lacks what the answer needs, or has it of the wrong type (e.g. `answered` without `answers`). */
  INVALID_REPLY: "invalid_reply",
  /** live: the request is no longer pending (answered, cancelled, or never opened in this session). */
  NOT_PENDING: "not_pending",
  /** live: the session is closed (close() was called, or the agent exited and no restart is allowed). */
  SESSION_CLOSED: "session_closed",
  /** live: the agent exited (or was killed) while the call was in flight. */
  AGENT_EXITED: "agent_exited",
  /** live: the agent could not be started (executable not found, a failed handshake, a server that never came up). */
  START_FAILED: "start_failed",
  /** live: the agent did not answer in time. */
  TIMEOUT: "timeout",
  /** live: the agent answered a call with an error (its JSON-RPC error or HTTP status is in the message and `detail`). */
  AGENT_ERROR: "agent_error",
  /** live: a turn is already running (prompt() while busy, on an agent that takes one turn at a time). */
  BUSY: "busy",
  /** live: the agent has no such setting or call (setMode / setModel on an agent without one, load() where there is no history). */
  UNSUPPORTED: "unsupported",
  /** sessions: no store holds the session named (openSession, `agentnorm sessions show`). */
  SESSION_NOT_FOUND: "session_not_found",
  /** sessions: the session's file or database cannot be read (gone, not readable, not the agent's format). */
  SESSION_UNREADABLE: "session_unreadable",
} as const;

export type AgentnormErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** Marks an agentnorm error with the brands of its class chain (a registered symbol: shared by every copy). */
const BRANDS = Symbol.for("agentnorm.error.brands");

/**
 * The base class of every error the public API throws. `instanceof` works across the package's entry points
 * (they are separate bundles, each with its own copy of these classes): it compares brands, not prototypes.
 */
export class AgentnormError extends Error {
  /** The class's stable name (minification renames classes; this does not change). */
  static readonly brand: string = "AgentnormError";
  readonly code: AgentnormErrorCode;
  constructor(code: AgentnormErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "AgentnormError";
    this.code = code;
    const brands: string[] = [];
    for (let c: unknown = new.target; typeof c === "function" && c !== Error; c = Object.getPrototypeOf(c)) {
      if (Object.hasOwn(c, "brand")) brands.push((c as unknown as { brand: string }).brand);
    }
    Object.defineProperty(this, BRANDS, { value: brands });
  }
  static [Symbol.hasInstance](value: unknown): boolean {
    const brands = value !== null && typeof value === "object" ? (value as { [BRANDS]?: unknown })[BRANDS] : undefined;
    return Array.isArray(brands) ? brands.includes(this.brand) : Function.prototype[Symbol.hasInstance].call(this, value);
  }
}

/** createNormalizer({ surface }) with a name no table defines. */
export class UnknownSurfaceError extends AgentnormError {
  static override readonly brand: string = "UnknownSurfaceError";
  readonly surface: string;
  readonly knownSurfaces: readonly string[];
  constructor(surface: string, knownSurfaces: readonly string[], message = `unknown surface "${surface}"; known surfaces: ${knownSurfaces.join(", ")}`) {
    super(ERROR_CODES.UNKNOWN_SURFACE, message);
    this.name = "UnknownSurfaceError";
    this.surface = surface;
    this.knownSurfaces = knownSurfaces;
  }
}

/** An option value the API cannot use. */
export class InvalidOptionError extends AgentnormError {
  static override readonly brand: string = "InvalidOptionError";
  readonly option: string;
  constructor(option: string, message: string) {
    super(ERROR_CODES.INVALID_OPTION, message);
    this.name = "InvalidOptionError";
    this.option = option;
  }
}

/** answerRequest could not build an answer for the request given (see `code`). */
export class AnswerError extends AgentnormError {
  static override readonly brand: string = "AnswerError";
  constructor(code: typeof ERROR_CODES.NOT_A_REQUEST | typeof ERROR_CODES.INCOMPLETE_REQUEST | typeof ERROR_CODES.NO_MATCHING_CHOICE | typeof ERROR_CODES.UNSUPPORTED_REQUEST | typeof ERROR_CODES.INVALID_REPLY, message: string) {
    super(code, message);
    this.name = "AnswerError";
  }
}

/** A live session's call failed (agentnorm/live): see `code`; `detail` holds the agent's own error when it sent one. */
export class LiveError extends AgentnormError {
  static override readonly brand: string = "LiveError";
  readonly detail?: unknown;
  constructor(code: AgentnormErrorCode, message: string, options?: { cause?: unknown; detail?: unknown }) {
    super(code, message, options);
    this.name = "LiveError";
    if (options?.detail !== undefined) this.detail = options.detail;
  }
}

/** A stored session could not be found or read (agentnorm/sessions): see `code`. The message is one line naming the file. */
export class SessionStoreError extends AgentnormError {
  static override readonly brand: string = "SessionStoreError";
  constructor(code: typeof ERROR_CODES.SESSION_NOT_FOUND | typeof ERROR_CODES.SESSION_UNREADABLE, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "SessionStoreError";
  }
}
