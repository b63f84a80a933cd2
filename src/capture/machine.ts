/**
 * What redaction should know of this machine (Node only): the home directory, the project directory, the temp
 * directory and the login name(s) — the CLI's capture and a live session's capture log use the same.
 */
import { homedir, tmpdir, userInfo } from "node:os";
import type { RedactOptions } from "./redact.js";

export function machineRedactOptions(project: string = process.cwd()): RedactOptions {
  const users: string[] = [];
  try { users.push(userInfo().username); } catch { /* no passwd entry (a container): the environment's name, if any */ }
  for (const k of ["USER", "LOGNAME", "USERNAME"]) { const v = process.env[k]; if (v && !users.includes(v)) users.push(v); }
  return { home: homedir(), project, tmp: tmpdir(), user: users };
}
