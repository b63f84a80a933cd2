/** The entity store's bounded memory (closed and only-named entities): two generations, never re-trimmed per entry. */
import { describe, expect, it } from "vitest";
import { Entity, EntityTable, Memory } from "../src/normalize/entities.js";

describe("Memory", () => {
  it("holds at most `limit` entries and always the most recent half of them", () => {
    const m = new Memory<number>(100);
    for (let i = 0; i < 10_000; i++) {
      m.set(`k${i}`, i);
      expect(m.size).toBeLessThanOrEqual(100);
      if (i % 997 === 0) for (let j = Math.max(0, i - 49); j <= i; j++) expect(m.get(`k${j}`)).toBe(j);
    }
    expect(m.has("k0")).toBe(false);
    expect(m.get("k9999")).toBe(9999);
  });

  it("a newer value of a key wins, delete forgets it in both generations, clear forgets everything", () => {
    const m = new Memory<string>(4);
    m.set("a", "1");
    m.set("b", "x"); // a and b move to the old generation
    m.set("a", "2");
    expect(m.get("a")).toBe("2");
    expect(m.size).toBe(2);
    m.delete("a");
    expect(m.has("a")).toBe(false);
    expect(m.get("b")).toBe("x");
    m.clear();
    expect(m.size).toBe(0);
  });

  it("the entity table remembers at most 1,024 closed entities of a role, the last 512 always", () => {
    const t = new EntityTable();
    for (let i = 0; i < 5000; i++) {
      const e = new Entity(`e${i}`, false, undefined, `p${i}`);
      t.remember(e.key!, e);
      e.open = true;
      t.opened(e);
      t.close(e.key!, e);
    }
    expect(t.live.size).toBe(0);
    for (let i = 5000 - 512; i < 5000; i++) expect(t.find(`p${i}`)?.id).toBe(`e${i}`);
    expect(t.find("p0")).toBeUndefined();
    expect(t.recent.size).toBeLessThanOrEqual(1024);
  });
});
