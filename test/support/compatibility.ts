/** The compatibility matrix as it is committed and shipped once (generated/compatibility.json). */
import { readFileSync } from "node:fs";
import type { Compatibility } from "../../src/model/matrix.js";

export const COMPATIBILITY: Compatibility = JSON.parse(readFileSync(new URL("../../generated/compatibility.json", import.meta.url), "utf8"));
