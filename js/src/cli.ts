#!/usr/bin/env node
/**
 * `tarneeb-js verify LOG… [--json] [--key PEM | --keys FILE] [--root HEX] [--receipt FILE]
 * [--server-seed HEX]`: the verdicts, one JSON array for all logs with --json; exit 0 every
 * log clean, 1 findings, 2 a log not read (or a bad option, key, keys file or receipt).
 * Without --key or --keys, the user's keys file is read if there is one, as `tarneeb verify`
 * reads it (`keys.toml` in tarneeb's config directory, `~/.config/tarneeb` on Linux).
 */
import { type Dirent, type PathLike, type Stats, closeSync, constants, existsSync, fstatSync, openSync, readFileSync, readSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type Bytes, fromHex } from "./text/bytes.js";
import { KeyFileError, keysFromBytes, publicKeyFromPem } from "./verify/keys.js";
import { grouped, jsonShown, shown } from "./text/names.js";
import { Tally, verdictLines } from "./verify/people.js";
import { MAX_RECEIPT_BYTES, ReceiptError, readReceipt } from "./verify/receipt.js";
import { type Options } from "./verify/replay.js";
import { DEFAULT_LIMITS, type Limits } from "./text/stream.js";
import { type VerdictJson, exitCode, verifyBytes } from "./verify/verify.js";
import { jsonFormFile, startsAsJson } from "./log/jsonform.js";
import { errnoWords } from "./text/errno.js";

const USAGE = "usage: tarneeb-js verify LOG... [--json] [--key PUBLIC_KEY_PEM] [--keys KEYS_TOML] [--root HEX] [--receipt FILE] [--server-seed HEX] [--require-proof] [--max-bytes N] [--max-records N] [--max-hands N]";

/** The user's keys file, where `tarneeb verify` looks for it (platformdirs' user config dir). */
function defaultKeysPath(): string {
  if (process.platform === "win32") return join(process.env.APPDATA ?? join(homedir(), "AppData", "Roaming"), "tarneeb", "keys.toml");
  if (process.platform === "darwin") return join(homedir(), "Library", "Application Support", "tarneeb", "keys.toml");
  const base = process.env.XDG_CONFIG_HOME?.trim() ? process.env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base!, "tarneeb", "keys.toml");
}

/** Why an operation on a file failed, in the words `tarneeb verify` uses (`e.strerror`). */
function strerror(e: unknown): string {
  return e instanceof FileRefused ? e.message : errnoWords(e);
}

/** A file refused without reading it (what is not a regular file, or is too large). */
class FileRefused extends Error {
  constructor(message: string, readonly tooLarge = false) {
    super(message);
  }
}


/** What a path is when it is not a regular file, in `open_regular`'s words; null for a regular file. */
function special(st: Stats): string | null {
  if (st.isFile()) return null;
  const what = st.isFIFO() ? "a FIFO (named pipe)" : st.isCharacterDevice() ? "a character device"
    : st.isBlockDevice() ? "a block device" : st.isSocket() ? "a socket" : st.isDirectory() ? "a directory"
      : "not a regular file";
  return `${what}, not a regular file: refused without reading it`;
}

/**
 * The regular file at `path`, open for reading, with its size: anything else (a FIFO no one
 * writes to, which would wait forever; a device, which may never end) is refused without
 * being opened for reading, and a file that took its place as it was opened is refused too.
 */
function openRegular(path: PathLike): { fd: number; size: number } {
  const bad = special(statSync(path));
  if (bad !== null) throw new FileRefused(bad);
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  try {
    const st = fstatSync(fd);
    const again = special(st);
    if (again !== null) throw new FileRefused(again);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** At most `most` bytes from the open file `fd` (fewer at its end). */
function readUpTo(fd: number, most: number): Uint8Array {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < most) {
    const buf = Buffer.alloc(Math.min(most - total, 1 << 20));
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);  // a non-blocking pipe: wait for it
      continue;
    }
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    total += n;
  }
  return new Uint8Array(Buffer.concat(chunks, total));
}

/** The bytes of a regular file of at most `most` bytes (`read_small_file`): a larger one is refused unread. */
function readSmall(path: PathLike, most: number): Uint8Array {
  if (statSync(path).isDirectory()) throw new FileRefused("it is a directory");
  const { fd, size } = openRegular(path);
  try {
    if (size > most) throw new FileRefused(`${grouped(size)} bytes, more than the ${grouped(most)} it may hold: refused without reading it`, true);
    const data = readUpTo(fd, most + 1);
    if (data.length > most) throw new FileRefused(`more than the ${grouped(most)} bytes it may hold`, true);
    return data;
  } finally {
    closeSync(fd);
  }
}

/** The most bytes a key, keys or receipt file given on the command line may hold (1 MiB), as `tarneeb verify`. */
const SMALL_FILE_BYTES = 1024 * 1024;

/** A key or keys file's bytes, or the Python verifier's words for why it cannot be read. */
function readFor(path: Arg, what: string): Uint8Array {
  try {
    return readSmall(path.raw, SMALL_FILE_BYTES);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") fail(`${path.name}: cannot read ${what}: no such file`);
    fail(`${path.name}: cannot read ${what}: ${strerror(e)}`);
  }
}

/** A command-line argument: its bytes as given (a file name need not be UTF-8) and its text. */
interface Arg {
  raw: Buffer;
  /** the bytes read as UTF-8, each byte that is not UTF-8 as U+DC80-U+DCFF (Python's surrogateescape) */
  name: string;
}

/** `data` read as UTF-8 as Python reads a file name: a byte that starts no whole, valid sequence becomes U+DC00 + byte. */
function surrogateEscape(data: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    // decoded below, sequence by sequence
  }
  let out = "";
  let i = 0;
  const cont = (j: number, lo = 0x80, hi = 0xbf) => j < data.length && data[j]! >= lo && data[j]! <= hi;
  while (i < data.length) {
    const b = data[i]!;
    let n = 0;
    if (b < 0x80) n = 1;
    else if (b >= 0xc2 && b <= 0xdf) n = cont(i + 1) ? 2 : 0;
    else if (b >= 0xe0 && b <= 0xef) {
      const [lo, hi] = b === 0xe0 ? [0xa0, 0xbf] : b === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
      n = cont(i + 1, lo, hi) && cont(i + 2) ? 3 : 0;
    } else if (b >= 0xf0 && b <= 0xf4) {
      const [lo, hi] = b === 0xf0 ? [0x90, 0xbf] : b === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
      n = cont(i + 1, lo, hi) && cont(i + 2) && cont(i + 3) ? 4 : 0;
    }
    if (n === 0) {
      out += String.fromCharCode(0xdc00 + b);
      i++;
    } else {
      out += new TextDecoder().decode(data.subarray(i, i + n));
      i += n;
    }
  }
  return out;
}

/** An undecodable byte of a file name as `tarneeb verify` shows it: `\xff`, not `\udcff`. */
const bytesShown = (text: string): string => text.replace(/[\udc80-\udcff]/g, (c) => `\\x${(c.charCodeAt(0) - 0xdc00).toString(16).padStart(2, "0")}`);

/**
 * The command's arguments as bytes: on Linux from /proc/self/cmdline (Node decodes argv as
 * UTF-8, replacing what is not, so a file whose name is not UTF-8 could not be named),
 * checked against process.argv; elsewhere, process.argv's text.
 */
function rawArgs(args: string[]): Arg[] {
  let raws: Buffer[] | null = null;
  if (process.platform === "linux") {
    try {
      const all = readFileSync("/proc/self/cmdline");
      const parts: Buffer[] = [];
      let start = 0;
      for (let i = 0; i < all.length; i++) if (all[i] === 0) { parts.push(all.subarray(start, i)); start = i + 1; }
      const tail = parts.slice(parts.length - args.length);
      if (parts.length >= args.length && tail.every((b, i) => b.toString("utf8") === args[i])) raws = tail;
    } catch {
      raws = null;
    }
  }
  return args.map((a, i) => {
    const raw = raws ? raws[i]! : Buffer.from(a, "utf8");
    return { raw, name: surrogateEscape(raw) };
  });
}

const argOf = (text: string): Arg => ({ raw: Buffer.from(text, "utf8"), name: text });

/** `parse_hex` of the Python verifier: 0x allowed, surrounding spaces ignored, an exact length. */
function parseHex(text: string, what: string, length: number): Bytes {
  let t = text.trim();
  if (t.startsWith("0x") || t.startsWith("0X")) t = t.slice(2);
  if (t.length % 2) fail(`${what}: not hex (${t.length} hex digits; hex needs an even number)`);
  let raw: Bytes;
  try {
    if (!/^[0-9a-fA-F]*$/.test(t)) throw new Error();
    raw = fromHex(t);
  } catch {
    fail(`${what}: not hex (use the digits 0-9 and a-f)`);
  }
  if (raw.length !== length) fail(`${what}: ${raw.length} byte${raw.length === 1 ? "" : "s"} (${t.length} hex digits); it must be ${length} bytes (${2 * length} hex digits)`);
  return raw;
}

/** One line on stderr and exit 2: whatever the message holds from input (a file name, an
 * option) is shown escaped, a line break too, so it can neither break the line nor forge one. */
function fail(message: string): never {
  throw new Failed(`tarneeb-js: error: ${shown(bytesShown(message))}`);
}

/** The command ended by `fail`: its line is written, and the exit code set, where `main`'s
 * promise settles; not with process.exit(), which drops what a slow reader has not yet taken
 * of a long line (a piped stderr takes 64 KiB at once). */
class Failed extends Error {}

const SEE_HELP = "(see 'tarneeb-js verify --help')";

const STDIO = "-";
const STDIN_NAME = "<stdin>";
const STDIN_CLOSED = "standard input is closed (<&-): there is nothing to read as -; give a file";

/** Every `*.tlog` under the directory `dir` as `tarneeb verify` finds them (`logs_under`): a
 * directory's own logs by name, then each subdirectory's, by name; links to directories not followed. */
function logsUnder(dir: Arg, out: Arg[]): void {
  let entries: Dirent<Buffer>[];
  try {
    entries = readdirSync(dir.raw, { withFileTypes: true, encoding: "buffer" });
  } catch (e) {
    fail(`${dir.name}: cannot list: ${strerror(e)}`);
  }
  const named = entries.map((d) => ({ d, name: surrogateEscape(d.name) }));
  // by code point, as Python sorts names
  const byName = (x: { name: string }, y: { name: string }) => {
    const a = [...x.name], b = [...y.name];
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = a[i]!.codePointAt(0)! - b[i]!.codePointAt(0)!;
      if (d) return d;
    }
    return a.length - b.length;
  };
  named.sort(byName);
  const join = (e: { d: Dirent<Buffer>; name: string }): Arg => ({
    raw: Buffer.concat([dir.raw, dir.raw.at(-1) === 0x2f ? Buffer.alloc(0) : Buffer.from("/"), e.d.name]),
    name: `${dir.name}${dir.name.endsWith("/") ? "" : "/"}${e.name}`,
  });
  const isDir = (e: { d: Dirent<Buffer> }): boolean => {
    if (e.d.isDirectory()) return true;
    if (!e.d.isSymbolicLink()) return false;
    try {  // a link to a directory is listed with the directories (and not followed), as os.walk does
      return statSync(join(e as { d: Dirent<Buffer>; name: string }).raw).isDirectory();
    } catch {
      return false;
    }
  };
  const dirs = named.filter(isDir);
  for (const e of named) if (!dirs.includes(e) && e.name.endsWith(".tlog")) out.push(join(e));
  for (const e of dirs) if (!e.d.isSymbolicLink()) logsUnder(join(e), out);
}

/** The logs an argument names: a directory's logs (none: the command ends), else the path itself. */
function expand(path: Arg): Arg[] {
  if (path.name === STDIO) return [path];
  let dir = false;
  try {
    dir = statSync(path.raw).isDirectory();
  } catch {
    // a path that does not exist is reported as unreadable below
  }
  if (!dir) return [path];
  const found: Arg[] = [];
  logsUnder(path, found);
  if (!found.length) fail(`${path.name}: no *.tlog match logs in this directory or its subdirectories`);
  return found;
}

/** The bytes of a log (`-`: standard input), at most one past the cap; or the line saying why not. */
function readLog(path: Arg, limits: Limits): { data: Uint8Array } | { error: string } {
  const name = path.name === STDIO ? STDIN_NAME : path.name;
  const over = (what: string, at: number) => ({ error: `${name}: byte ${at}: ${what}: over the max_bytes cap of ${grouped(limits.maxBytes)}; raise it with --max-bytes` });
  let fd: number;
  let size: number | null;
  let close = true;
  try {
    if (path.name === STDIO) {
      let st: Stats;
      try {
        st = fstatSync(0);
      } catch {
        fail(STDIN_CLOSED);
      }
      fd = 0;
      close = false;
      size = st.isFile() ? st.size : null;
    } else ({ fd, size } = openRegular(path.raw));
  } catch (e) {
    if (e instanceof Failed) throw e;
    return { error: `${name}: cannot read: ${strerror(e)}` };
  }
  try {
    if (size !== null && size > limits.maxBytes) return over(`the log is ${grouped(size)} bytes`, 0);
    const data = readUpTo(fd, Math.min(limits.maxBytes, size ?? limits.maxBytes) + 1);
    if (data.length > limits.maxBytes) return over("the log is longer", limits.maxBytes);
    return { data };
  } catch (e) {
    return { error: `${name}: cannot read: ${strerror(e)}` };
  } finally {
    if (close) closeSync(fd);
  }
}

/** A whole number as the Python command takes one for --max-bytes and the like (spaces, `_`, a `.0` allowed). */
function wholeOption(text: string): number | null {
  const m = /^[ \t\n\r\v\f]*([+-]?[0-9]+(?:_[0-9]+)*)(?:\.0*)?[ \t\n\r\v\f]*$/.exec(text);
  return m ? Number(m[1]!.replace(/_/g, "")) : null;
}

async function main(args: Arg[]): Promise<number> {
  const argv = args.map((a) => a.name);
  if (argv[0] === "--help" || argv[0] === "-h" || (argv[0] === "verify" && (argv.includes("--help") || argv.includes("-h")))) {
    process.stdout.write(`${USAGE}\n\nVerify tarneeb logs: exit 0 every log clean, 1 findings, 2 a log not read or bad input.\n`);
    return 0;
  }
  if (argv[0] !== "verify") fail(USAGE);
  const opts: Options = {};
  const limits: Limits = { ...DEFAULT_LIMITS };
  let json = false;
  let keyPath: Arg | null = null;
  let keysPath: Arg | null = null;
  let receiptPath: Arg | null = null;
  let seedHex: string | null = null;
  let rootHex: string | null = null;
  const paths: Arg[] = [];
  let onlyLogs = false;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    if (onlyLogs || arg.name === STDIO || !arg.name.startsWith("-")) {
      paths.push(...expand(arg));
      continue;
    }
    if (arg.name === "--") {
      onlyLogs = true;
      continue;
    }
    // --option=value, as `tarneeb verify` takes it too
    const eq = arg.name.startsWith("--") ? arg.name.indexOf("=") : -1;
    const a = eq < 0 ? arg.name : arg.name.slice(0, eq);
    const given: Arg | null = eq < 0 ? null : { raw: arg.raw.subarray(Buffer.byteLength(a) + 1), name: arg.name.slice(eq + 1) };
    const value = (): Arg => given ?? args[++i] ?? fail(`${a} needs a value`);
    const flag = () => {
      if (given !== null) fail(`${a} takes no value ${SEE_HELP}`);
    };
    if (a === "--json") (flag(), json = true);
    else if (a === "--require-proof") (flag(), opts.requireProof = true);
    else if (a === "--key") keyPath = value();
    else if (a === "--keys") keysPath = value();
    else if (a === "--receipt") receiptPath = value();
    else if (a === "--server-seed") seedHex = value().name;
    else if (a === "--root") rootHex = value().name;
    else if (a === "--max-bytes" || a === "--max-records" || a === "--max-hands") {
      const n = wholeOption(value().name);
      if (n === null || n < 1) fail(`${a} must be a whole number of at least 1`);
      const m = Math.min(n, Number.MAX_SAFE_INTEGER);
      if (a === "--max-bytes") limits.maxBytes = m;
      else if (a === "--max-records") limits.maxRecords = m;
      else limits.maxHands = m;
    } else fail(`unknown option ${a} ${SEE_HELP}`);
  }
  if (!paths.length) fail(USAGE);
  if (keyPath !== null && keysPath !== null) { // (one was taken, the other said nothing)
    fail("--key and --keys both given: pin one key (--key) or the platforms of a keys file (--keys), not both (a log signed by the one would not be checked against the other)");
  }
  // in the order `tarneeb verify` reads them, so the first bad one is the one named
  if (seedHex !== null) opts.serverSeed = parseHex(seedHex, "server seed", 32);
  if (keyPath !== null) {
    const data = readFor(keyPath, "public key file");
    try {
      opts.publicKey = publicKeyFromPem(new TextDecoder().decode(data), keyPath.name);
    } catch (e) {
      if (!(e instanceof KeyFileError)) throw e;
      if (new TextDecoder().decode(data.subarray(0, 64 * 1024)).includes("PRIVATE KEY-----")) {
        const name = keyPath.name;
        const pub = name.replace(/(\.[^./\\]*)?$/, (ext) => `.pub${ext}`);
        fail(existsSync(pub) ? `${name}: a private key; --key pins the platform's public key: give ${pub} (tarneeb keygen wrote it beside the private key)`
          : `${name}: a private key; --key pins the platform's public key: make it with 'tarneeb pubkey ${name} > ${pub}' and give that`);
      }
      fail(e.message);
    }
  }
  const keysFile = keysPath ?? argOf(defaultKeysPath());
  let keysExist = false;
  try {
    keysExist = statSync(keysFile.raw).isFile();
  } catch {
    keysExist = false;
  }
  if (keysPath !== null || keysExist) {
    try {
      opts.keys = keysFromBytes(readFor(keysFile, "keys file"), keysFile.name);
    } catch (e) {
      if (e instanceof KeyFileError) fail(e.message);
      throw e;
    }
  }
  if (rootHex !== null) opts.root = parseHex(rootHex, "season root", 32);
  if (receiptPath !== null) {
    let data: Uint8Array;
    try {
      data = readSmall(receiptPath.raw, MAX_RECEIPT_BYTES);
    } catch (e) {
      fail(`${receiptPath.name}: cannot read: ${strerror(e)}`);
    }
    try {
      opts.receipts = [await readReceipt(data, receiptPath.name)];
    } catch (e) {
      if (e instanceof ReceiptError) fail(e.message);
      throw e;
    }
    if (paths.length !== 1) fail(`--receipt is the receipt of one match: give one LOG, not ${paths.length}`);
  }
  const verdicts: VerdictJson[] = [];
  for (const path of paths) {
    const name = path.name === STDIO ? STDIN_NAME : path.name;
    const read = readLog(path, limits);
    if ("error" in read) verdicts.push({ ...(await verifyBytes(new Uint8Array(0), name, opts, limits)), error: read.error });
    else verdicts.push(await jsonFormInstead(await verifyBytes(read.data, name, opts, limits), path, read.data, opts, limits));
  }
  if (json) process.stdout.write(jsonShown(JSON.stringify(verdicts, null, 1)) + "\n");
  else if (verdicts.length > 1) {
    // many logs: a short line each, the hints they share once, and the count (as tarneeb verify)
    const tally = new Tally();
    const lines = verdicts.map((v) => tally.add({ ...v, path: bytesShown(v.path), error: v.error === null ? null : bytesShown(v.error) }));
    process.stdout.write([...lines, ...tally.close()].map((l) => `${l}\n`).join(""));
  } else {
    for (const v of verdicts) {
      const { lines, error } = verdictLines({ ...v, path: bytesShown(v.path), error: v.error === null ? null : bytesShown(v.error) });
      process.stdout.write(lines.map((l) => `${l}\n`).join(""));
      if (error !== null) process.stderr.write(`tarneeb-js: error: ${error}\n`);
    }
  }
  return exitCode(verdicts);
}

/** A file that is no tarneeb log but starts as a JSON object: the verdict of the log its
 *  JSON form (`tarneeb export`) gives, as `tarneeb verify` and the page read it; a JSON
 *  document that is no JSON log is unreadable, both failures said. */
async function jsonFormInstead(v: VerdictJson, path: Arg, data: Uint8Array, opts: Options, limits: Limits): Promise<VerdictJson> {
  if (v.error === null || !v.error.includes("not a tarneeb log") || !startsAsJson(data)) return v;
  let bytes: Uint8Array;
  try {
    bytes = jsonFormFile(data, limits);
  } catch (e) {
    return { ...v, error: `${v.error}; nor a log's JSON form: ${(e as Error).message}` };
  }
  return verifyBytes(bytes, v.path, opts, limits);
}

// a reader that went away (`| head`): what is left to write is dropped, and the exit code
// stays the verdict's, as the Python command does; no unhandled 'error' event
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE" && e.code !== "ERR_STREAM_DESTROYED") throw e;
  });
}

// exitCode, not exit(): a piped stdout is written out before the process ends
main(rawArgs(process.argv.slice(2))).then((code) => {
  process.exitCode = code;
}, (e: unknown) => {
  process.stderr.write(e instanceof Failed ? `${e.message}\n` : `tarneeb-js: error: ${shown((e as Error).message)}\n`);
  process.exitCode = 2;
});
