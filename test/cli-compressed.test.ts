/**
 * Binary input named by its first bytes: each compressed format a log is kept in gets its name and the command that
 * reads it; other binary data (and a name that needs quoting) as before. The CLI's rows are in cli-table.test.ts.
 */
import { describe, expect, it } from "vitest";
import { binaryInputMessage } from "../src/cli/commands/util.js";

const bytes = (...b: number[]) => Uint8Array.from([...b, 0x00, 0x01, 0x02]);

describe("binaryInputMessage", () => {
  it.each([
    ["gzip", bytes(0x1f, 0x8b, 0x08), "gzip -dc"],
    ["zstd", bytes(0x28, 0xb5, 0x2f, 0xfd), "zstd -dc"],
    ["xz", bytes(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00), "xz -dc"],
    ["bzip2", bytes(0x42, 0x5a, 0x68, 0x39), "bzip2 -dc"],
    ["zip", bytes(0x50, 0x4b, 0x03, 0x04), "unzip -p"],
  ])("%s: names it and how to read it", (name, first, tool) => {
    expect(binaryInputMessage(first, "log.x", "render")).toBe(`${name}-compressed data, not NDJSON text (decompress it first: ${tool} log.x | agentnorm render -)`);
  });
  it("other binary data, or too few bytes to tell: binary data", () => {
    expect(binaryInputMessage(bytes(0x89, 0x50, 0x4e, 0x47), "a.png", "view")).toBe("binary data, not NDJSON text");
    expect(binaryInputMessage(Uint8Array.from([0x1f]), "a", "view")).toBe("binary data, not NDJSON text");
    expect(binaryInputMessage(undefined, "a", "view")).toBe("binary data, not NDJSON text");
  });
  it("stdin is FILE; a name with spaces or quotes is one shell word", () => {
    expect(binaryInputMessage(bytes(0x1f, 0x8b), "-", "normalize")).toContain("gzip -dc FILE | agentnorm normalize -");
    expect(binaryInputMessage(bytes(0x1f, 0x8b), undefined, "normalize")).toContain("gzip -dc FILE |");
    expect(binaryInputMessage(bytes(0x1f, 0x8b), "my log's.gz", "verify")).toContain(`gzip -dc 'my log'\\''s.gz' | agentnorm verify -`);
  });
});
