/**
 * The recorder's lock on its log: one recorder per log file, held from creation or resume
 * until the log is signed or closed, dropped by the system when the process dies, however it
 * dies — the very lock of the Python recorder (`tarneeb.replay.server.filelock`), so a Node
 * and a Python recorder refuse each other too.
 *
 * That lock is `flock(2)`, exclusive, taken without waiting, and it belongs to the open file
 * (the open file description), not to a process. Node's core has no `flock`; util-linux's
 * `flock(1)` takes it on a descriptor it is given: the recorder's own descriptor of the log
 * is handed to a short-lived `flock -x -n -E 88 3` as its fd 3 (the same open file, not the
 * file opened again), which locks it and exits at once. The lock stays with the open file,
 * which only the recorder now holds: closing it (`sign`, `close`) drops the lock, and so
 * does the death of the Node process however it dies (SIGKILL too), before its parent can
 * see it dead. No child lives on, nothing keeps the event loop alive, and nothing is left to
 * clean up. The recorder's descriptors are close-on-exec (libuv), so a process the server
 * starts later does not keep the lock alive after it.
 *
 * Where no lock can be taken the recorder goes on without one, as the Python recorder does on
 * Windows: on Windows, without a util-linux `flock(1)` (macOS, a system without util-linux),
 * or on a file system that locks nothing. A platform there keeps to one recorder per log
 * itself (docs/PLATFORM.md, "One recorder per log").
 */
import { spawnSync } from "node:child_process";
import { shown } from "../text/names.js";

/** How {@link lockLog} went: locked; another recorder holds the lock; or no lock could be taken. */
export type LockOutcome = "locked" | "held" | "none";

/** `flock(1)`'s exit status when another holds the lock (`-E`): none of its own statuses. */
const CONFLICT = 88;

/** Where util-linux installs `flock(1)` (Debian: /usr/bin), then the PATH's. */
const COMMANDS = ["/usr/bin/flock", "/bin/flock", "flock"];

/** The `flock(1)` that ran, once one has (null: none found; undefined: not looked for yet). */
let found: string | null | undefined;

/**
 * Take the exclusive lock on the open file `fd` with the `flock(1)` at `command`, handed
 * the descriptor as its fd 3. "none": the command is not there or could not lock (not
 * util-linux's, a file system without locks); never throws.
 */
export function lockWith(fd: number, command: string): LockOutcome | "absent" {
  let run;
  try {
    run = spawnSync(command, ["-x", "-n", "-E", String(CONFLICT), "3"], {
      stdio: ["ignore", "ignore", "ignore", fd], timeout: 30_000, windowsHide: true,
    });
  } catch {
    return "none";
  }
  if (run.error !== undefined) {
    const code = (run.error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "EACCES" ? "absent" : "none";
  }
  if (run.status === 0) return "locked";
  return run.status === CONFLICT ? "held" : "none";
}

/**
 * Lock the log open as `fd` for as long as it stays open (the Python `lock_log`): "held"
 * when another recorder holds it — a server resumed while the one thought dead still writes:
 * both would write over each other and lose moves one of them acknowledged. "none": no lock
 * can be taken here (see the module's comment); the recorder goes on.
 */
export function lockLog(fd: number): LockOutcome {
  if (process.platform === "win32" || found === null) return "none";
  if (found !== undefined) {
    const outcome = lockWith(fd, found);
    return outcome === "absent" ? "none" : outcome;
  }
  for (const command of COMMANDS) {
    const outcome = lockWith(fd, command);
    if (outcome === "absent") continue;
    found = command;
    return outcome;
  }
  found = null;
  return "none";
}

/** Why a second recorder is refused a log another recorder holds (its lock): the Python `held`'s words. */
export function held(path: string): string {
  return `${shown(path)} is being written by another recorder (it holds the file's lock): one recorder per log`;
}
