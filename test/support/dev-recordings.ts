/**
 * Where the shared third-party recordings live for the conformance tests: ../shared/recordings/dev beside the repo
 * (or $AGENTNORM_RECORDINGS_DIR, another dev/ folder). acceptance/ is reserved and refused. When a folder is
 * absent the tests skip, and say so on the console.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "vitest";

export const DEV_BASE = process.env.AGENTNORM_RECORDINGS_DIR ?? join(fileURLToPath(new URL("../../", import.meta.url)), "..", "shared", "recordings", "dev");
const forbidden = /(^|[\\/])acceptance([\\/]|$)/.test(DEV_BASE);

export interface DevFolder {
  dir: string;
  present: boolean;
  /** File names in the folder with one of the endings, sorted (none when absent). */
  list(...endings: string[]): string[];
}

/** A dev/ sub-folder; warns once (under `label`) when it can't be read. */
export function devFolder(folder: string, label = folder): DevFolder {
  const dir = join(DEV_BASE, folder);
  const present = !forbidden && existsSync(dir);
  if (forbidden) console.warn(`[conformance] ${label}: refusing to read ${DEV_BASE} (acceptance recordings are reserved) — conformance tests skipped`);
  else if (!present) console.warn(`[conformance] ${label}: recordings folder ${dir} is absent — conformance tests skipped`);
  return {
    dir,
    present,
    list: (...endings) => (present ? readdirSync(dir).filter((f) => endings.some((e) => f.endsWith(e))).sort() : []),
  };
}

/**
 * A conformance suite over a dev folder: runs `body` when the folder is present; otherwise the suite is skipped and
 * shows one skipped test naming the absent folder (a visible skip, never a silent pass).
 */
export function describeDev(title: string, present: boolean, dir: string, body: () => void): void {
  (present ? describe : describe.skip)(title, () => {
    if (!present) {
      it.skip(`recordings folder absent (${dir})`, () => {});
      return;
    }
    body();
  });
}
