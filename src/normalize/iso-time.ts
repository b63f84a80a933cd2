/**
 * Date.prototype.toISOString for a time in ms, without a Date per call: the day's "YYYY-MM-DDT" is kept from the last
 * time converted, and the time of day is written from integer arithmetic (UTC days are 86,400,000 ms long in
 * ECMAScript time). For 0 ≤ ms < 253402300800000 (years 1970–9999), the same text as new Date(ms).toISOString().
 */
const DAY = 86_400_000;
let dayStart = NaN;
let dayPrefix = "";

export function isoTime(ms: number): string {
  let t = Math.trunc(ms) - dayStart;
  if (!(t >= 0 && t < DAY)) {
    const whole = Math.trunc(ms);
    dayStart = whole - (whole % DAY);
    dayPrefix = new Date(dayStart).toISOString().slice(0, 11);
    t = whole - dayStart;
  }
  const h = (t / 3_600_000) | 0;
  t -= h * 3_600_000;
  const m = (t / 60_000) | 0;
  t -= m * 60_000;
  const s = (t / 1000) | 0;
  t -= s * 1000;
  return `${dayPrefix}${h < 10 ? "0" : ""}${h}:${m < 10 ? "0" : ""}${m}:${s < 10 ? "0" : ""}${s}.${t < 10 ? "00" : t < 100 ? "0" : ""}${t}Z`;
}
