/** File listing the generator and the maintainer scripts (tools/) share. */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** Every file below `dir` (none when it does not exist), as paths relative to `base`. */
export function listFiles(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? listFiles(p, base) : [relative(base, p)];
  });
}
