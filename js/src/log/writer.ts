/**
 * Writing a log as the match goes (Node): every value of docs/FORMAT.md appended to a file
 * the moment it happens, with a chosen durability. What "written" means:
 *
 * - `"flush"`: each append is handed to the operating system (`write`) before it returns:
 *   it survives the server process dying, even by SIGKILL; not a power loss;
 * - `"fsync"`: each append is on the disk (`fsync`) before it returns: it survives a power
 *   loss too;
 * - `"group:MS"`: each append is handed to the system before it returns, and while
 *   anything is unsynced an `fsync` runs (on Node's thread pool, the event loop goes on)
 *   at most every MS milliseconds; an append made after that time syncs before it returns.
 *   {@link LogWriter.waitDurable} resolves once an `fsync` that covers everything appended
 *   so far has returned.
 *
 * A value counts as *durable* once an `fsync` that started after it was handed to the
 * system has returned: never before.
 *
 * A write or an `fsync` that fails (a full disk, an I/O error) throws, and the writer is
 * broken from then on: every later append, sync or wait throws {@link LogWriteError}. After a
 * failed `fsync` the system may have dropped the bytes it could not write back, and a later
 * `fsync` would say nothing of them; a failed write may have left part of a value, which is
 * cut off the file at once, so the file stays a log of whole values. Only the file tells what
 * it holds: the server takes it up again (`MatchRecorder.resume`). The bytes are those of the Python `LogWriter`: the
 * canonical msgpack encoding (shortest integers, `bin` for bytes, `str` for text, maps in
 * insertion order) is what `@msgpack/msgpack`'s `encode` writes by default.
 */
import { closeSync, fstatSync, fsync, fsyncSync, ftruncateSync, openSync, writeSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { encode } from "@msgpack/msgpack";
import { type Bytes, concat } from "../text/bytes.js";

/** When an appended value counts as written: see the module's comment. */
export type DurabilityMode = "flush" | "fsync" | "group";
export interface Durability {
  mode: DurabilityMode;
  /** group commit: the longest time between two fsyncs while anything is unsynced */
  intervalMs: number;
}

/** A group commit's longest interval: a minute (past it, or not a number, it times no commit). */
export const MAX_GROUP_MS = 60_000;

const groupWords = (ms: unknown) => `a group commit needs an interval above 0 ms and at most 60,000 ms, not ${String(ms)}`;

/** A durability from its text form: `flush`, `fsync` or `group:MS`. */
export function parseDurability(text: string | Durability): Durability {
  if (typeof text !== "string") {
    const { mode, intervalMs } = (text ?? {}) as Partial<Durability>;
    if (mode !== "flush" && mode !== "fsync" && mode !== "group") throw new RangeError(`durability ${JSON.stringify(mode ?? text)}: give flush, fsync or group:MS`);
    if (mode !== "group") return { mode, intervalMs: 0 };
    if (typeof intervalMs !== "number" || !(intervalMs > 0 && intervalMs <= MAX_GROUP_MS)) throw new RangeError(groupWords(intervalMs));
    return { mode, intervalMs };
  }
  if (text === "flush" || text === "fsync") return { mode: text, intervalMs: 0 };
  if (text.startsWith("group:")) {
    const given = text.slice(6).replace(/^[ \t]+|[ \t]+$/g, "");
    // milliseconds in decimal digits (as the Python recorder reads them: not 1_000, 0x10
    // or 1e3), or inf and nan: out of range, said in the interval's words
    const special = /^[-+]?(?:inf(?:inity)?|nan)$/i.test(given);
    const ms = special ? Number.NaN : /^[0-9]+(?:\.[0-9]+)?$/.test(given) ? Number(given) : Number.NaN;
    if (special || !Number.isNaN(ms)) {
      if (ms > 0 && ms <= MAX_GROUP_MS) return { mode: "group", intervalMs: ms };
      throw new RangeError(groupWords(given));
    }
  }
  throw new RangeError(`durability ${JSON.stringify(text)}: give flush, fsync or group:MS`);
}

/** The bytes of one move (`code` with bit 7 set for a timer move): one byte, two past 127. */
export function encodeMove(code: number): Bytes {
  return code < 128 ? Uint8Array.of(code) : Uint8Array.of(0xcc, code);
}

/** The bytes of one record (an array starting with its type) in canonical msgpack. */
export function encodeValue(value: unknown): Bytes {
  return encode(value);
}

/**
 * A writer whose write or `fsync` failed writes nothing more: the file, not the writer, says
 * what the log holds (take it up again with `MatchRecorder.resume`). `cause` is the failure.
 */
export class LogWriteError extends Error {
  constructor(override readonly cause: Error) {
    super(`the log's writer failed (${cause.message}): nothing more is written to it; take the log up again from the file (MatchRecorder.resume)`);
    this.name = "LogWriteError";
  }
}

/**
 * Appends a log's values to a file descriptor. `written` is what the file already holds
 * (the signature covers it too). Every append returns the value's byte offset.
 */
export class LogWriter {
  readonly durability: Durability;
  private chunks: Bytes[] = [];
  private length = 0;
  private handed = 0; // bytes the operating system holds: what an fsync from now covers
  private synced = 0; // bytes an fsync that has returned covers
  private lastSync = 0; // when the last fsync returned (performance.now())
  private syncTook = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private syncing: Promise<void> | null = null;
  private waiters: { target: number; resolve: (v: boolean) => void; reject: (e: Error) => void }[] = [];
  private closed = false;
  private failure: Error | null = null;
  private base: number | null = null; // where the log starts in the file: a torn value is cut off there

  constructor(private fd: number, durability: Durability | string = "flush", written: Bytes = new Uint8Array(0)) {
    this.durability = parseDurability(durability);
    if (written.length) {
      this.chunks.push(written);
      this.length = this.handed = written.length;
    }
    try {
      this.base = fstatSync(fd).size - written.length; // appends go to the end of the file
    } catch {
      this.base = null;
    }
  }

  /** Mark the writer broken by `e` (waiters told); a value torn at `offset` is cut off the file. */
  private broken(e: Error, offset: number | null = null): void {
    if (this.failure === null) this.failure = e;
    const failure = new LogWriteError(this.failure);
    for (const w of this.waiters) w.reject(failure);
    this.waiters = [];
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (offset !== null && this.base !== null) {
      try {
        ftruncateSync(this.fd, this.base + offset);
      } catch {
        // the torn value stays: a reader (and resume) stops before it
      }
    }
  }

  private check(): void {
    if (this.failure) throw new LogWriteError(this.failure);
  }

  /** Append raw bytes (a whole value): written to the system, synced as the durability says. */
  append(raw: Bytes): number {
    if (this.closed) throw new Error("the log is closed");
    this.check();
    const offset = this.length;
    let at = 0;
    try {
      while (at < raw.length) at += writeSync(this.fd, raw, at, raw.length - at);
    } catch (e) { // a short write then an error: part of the value written
      this.broken(e as Error, offset);
      throw e;
    }
    this.chunks.push(raw);
    this.length += raw.length;
    this.handed = this.length;
    const { mode, intervalMs } = this.durability;
    if (mode === "flush") return offset;
    if (mode === "group") {
      // the next fsync to return about interval ms after the last one did
      const due = this.lastSync + intervalMs - Math.min(this.syncTook, intervalMs / 2) - performance.now();
      if (due > 0 || this.syncing !== null) {
        if (this.timer === null && this.syncing === null) {
          this.timer = setTimeout(() => this.timedSync(), Math.max(0, due));
        }
        return offset;
      }
    }
    this.fsyncNow();
    return offset;
  }

  /** Append one value: a move (a number) or a record (an array). */
  appendValue(value: number | unknown[]): number {
    return this.append(typeof value === "number" ? encodeMove(value) : encodeValue(value));
  }

  /** Every byte written, for the signature. */
  get signedBytes(): Bytes {
    if (this.chunks.length > 1) this.chunks = [concat(...this.chunks)];
    return this.chunks[0] ?? new Uint8Array(0);
  }

  get size(): number {
    return this.length;
  }

  /** How many bytes an fsync that has returned covers: they survive a power loss. */
  get durableSize(): number {
    return this.synced;
  }

  private covered(size: number, started: number): void {
    this.synced = Math.max(this.synced, size);
    this.lastSync = performance.now();
    this.syncTook = this.lastSync - started;
    this.waiters = this.waiters.filter((w) => {
      if (this.synced < w.target) return true;
      w.resolve(true);
      return false;
    });
  }

  private fsyncNow(): void {
    const size = this.handed;
    const started = performance.now();
    try {
      fsyncSync(this.fd);
    } catch (e) { // the system may have dropped what it could not write back
      this.broken(e as Error);
      throw e;
    }
    this.covered(size, started);
  }

  private timedSync(): void {
    this.timer = null;
    if (this.closed || this.failure || this.synced >= this.handed) return;
    const size = this.handed;
    const started = performance.now();
    this.syncing = new Promise<void>((done) => {
      fsync(this.fd, (err) => {
        this.syncing = null;
        if (err) this.broken(err);
        else if (!this.failure) this.covered(size, started);
        if (!this.closed && !this.failure && this.synced < this.handed && this.timer === null) {
          const due = this.lastSync + this.durability.intervalMs - Math.min(this.syncTook, this.durability.intervalMs / 2) - performance.now();
          this.timer = setTimeout(() => this.timedSync(), Math.max(0, due));
        }
        done();
      });
    });
  }

  /** Make everything appended so far durable now: fsync, in every durability. */
  sync(): void {
    if (this.closed) return;
    this.check();
    this.fsyncNow();
  }

  /**
   * Resolves `true` once everything appended so far is durable (an fsync that covers it
   * has returned), `false` when `timeoutMs` passed first. A flush-only writer syncs only in
   * {@link sync} (and at the signature): it answers at once. Rejects with
   * {@link LogWriteError} when a write or an `fsync` failed (the bytes may be lost).
   */
  waitDurable(timeoutMs?: number): Promise<boolean> {
    const target = this.handed;
    if (this.synced >= target) return Promise.resolve(true);
    if (this.failure) return Promise.reject(new LogWriteError(this.failure));
    if (this.durability.mode === "flush" || this.closed) return Promise.resolve(false);
    return new Promise((resolveWait, rejectWait) => {
      const waiter = { target, resolve: resolveWait, reject: rejectWait };
      this.waiters.push(waiter);
      if (timeoutMs !== undefined) {
        const t = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolveWait(this.synced >= target);
        }, timeoutMs);
        const settle = waiter.resolve, fail = waiter.reject;
        waiter.resolve = (v) => {
          clearTimeout(t);
          settle(v);
        };
        waiter.reject = (e) => {
          clearTimeout(t);
          fail(e);
        };
      }
    });
  }

  /** Sync what is pending (fsync and group modes), stop the timer, close the file. */
  close(): void {
    if (this.closed) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (!this.failure && this.durability.mode !== "flush" && this.synced < this.handed) this.fsyncNow();
    this.closed = true;
    for (const w of this.waiters) w.resolve(this.synced >= w.target);
    this.waiters = [];
    closeSync(this.fd);
  }
}

/** fsync the directory that holds `path`, so that a file just created there survives a power loss. */
export function syncDirectory(path: string): void {
  let fd: number;
  try {
    fd = openSync(dirname(resolve(path)), "r");
  } catch {
    return; // a system that cannot open a directory has nothing to sync
  }
  try {
    fsyncSync(fd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EINVAL" && code !== "ENOTSUP" && code !== "EISDIR" && code !== "EPERM") throw e;
  } finally {
    closeSync(fd);
  }
}
