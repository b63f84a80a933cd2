/** isoTime writes what Date.prototype.toISOString writes, for every time of the range it takes. */
import { describe, expect, it } from "vitest";
import { isoTime } from "../src/normalize/iso-time.js";

describe("isoTime", () => {
  const same = (ms: number) => expect(isoTime(ms)).toBe(new Date(ms).toISOString());

  it("agrees with toISOString at the edges of days, hours, minutes, seconds and the range", () => {
    const day = 86_400_000;
    for (const base of [0, day, 1_700_000_000_000 - (1_700_000_000_000 % day), 951_782_400_000 /* 2000-02-29 */, 253_402_300_800_000 - day]) {
      for (const d of [0, 1, 9, 10, 99, 100, 999, 1000, 59_999, 60_000, 3_599_999, 3_600_000, day - 1]) same(base + d);
    }
    same(253_402_300_799_999); // 9999-12-31T23:59:59.999Z
  });

  it("agrees on fractional ms (truncated, as Date does) and going back and forth between days", () => {
    for (const ms of [1.5, 1_700_000_000_000.999, 1_699_999_999_999.001, 5, 1_700_000_000_000, 5]) same(ms);
  });

  it("agrees on 20,000 random times in any order", () => {
    let seed = 42;
    const rnd = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
    for (let i = 0; i < 20_000; i++) {
      const ms = i % 2 ? Math.floor(rnd() * 253_402_300_800_000) : 1_700_000_000_000 + Math.floor(rnd() * 3 * 86_400_000);
      same(ms);
    }
  });
});
