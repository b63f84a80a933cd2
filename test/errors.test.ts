/** The public API's error classes: stable codes, and instanceof by brand (so it holds across bundled copies). */
import { describe, expect, it } from "vitest";
import { AgentnormError, AnswerError, ERROR_CODES, InvalidOptionError, UnknownSurfaceError } from "../src/errors.js";
import { InvalidEventError, parseEvent } from "../src/validate.js";
import { createNormalizer } from "../src/normalize/normalizer.js";
import { createAccumulator } from "../src/render/accumulator.js";
import { answerRequest } from "../src/answer/answer.js";

const codeOf = (f: () => unknown) => { try { f(); } catch (e) { return e; } throw new Error("did not throw"); };

describe("errors", () => {
  it("each public failure throws its class with a stable code", () => {
    const unknown = codeOf(() => createNormalizer({ surface: "nope" })) as UnknownSurfaceError;
    expect(unknown).toBeInstanceOf(UnknownSurfaceError);
    expect(unknown).toBeInstanceOf(AgentnormError);
    expect(unknown).toBeInstanceOf(Error);
    expect(unknown).toMatchObject({ code: "unknown_surface", surface: "nope", name: "UnknownSurfaceError" });
    expect(unknown.knownSurfaces).toContain("codex-app-server");
    expect(codeOf(() => createAccumulator({ retainTurns: NaN }))).toMatchObject({ code: ERROR_CODES.INVALID_OPTION, option: "retainTurns" });
    const notRequest = codeOf(() => answerRequest({ type: "turn.started", provider: "codex", payload: {} } as never, { decision: "allow_once" }));
    expect(notRequest).toBeInstanceOf(AnswerError);
    expect(notRequest).toMatchObject({ code: "not_a_request" });
    expect(codeOf(() => parseEvent("{"))).toMatchObject({ code: "invalid_json" });
    const invalid = codeOf(() => parseEvent({ type: "thread.started" })) as InvalidEventError;
    expect(invalid).toBeInstanceOf(InvalidEventError);
    expect(invalid.code).toBe("invalid_event");
    expect(invalid.errors.length).toBeGreaterThan(0);
    expect(invalid.errors[0]).toHaveProperty("instancePath");
  });

  it("instanceof compares brands: a subclass is not an instance of a sibling; plain errors are not agentnorm errors", () => {
    const e = new InvalidOptionError("x", "bad x");
    expect(e instanceof InvalidOptionError).toBe(true);
    expect(e instanceof AgentnormError).toBe(true);
    expect(e instanceof UnknownSurfaceError).toBe(false);
    expect(new Error("x") instanceof AgentnormError).toBe(false);
    expect((null as unknown as object) instanceof AgentnormError).toBe(false);
    // a copy of the class (another bundle) with the same brand recognises it
    const foreign = Object.assign(Object.create(Error.prototype), { [Symbol.for("agentnorm.error.brands")]: ["InvalidOptionError", "AgentnormError"] });
    expect(foreign instanceof InvalidOptionError).toBe(true);
    expect(foreign instanceof AnswerError).toBe(false);
  });

  it("every code is distinct", () => {
    const codes = Object.values(ERROR_CODES);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
