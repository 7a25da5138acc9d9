/**
 * Why an operation on a file failed, in the C library's words (Python's `strerror`, which the
 * Python commands and recorder say), not libuv's.
 */

// errno's words as the C library says them
const STRERROR: Record<string, string> = {
  ENOENT: "No such file or directory", EACCES: "Permission denied", EPERM: "Operation not permitted",
  EISDIR: "Is a directory", ENOTDIR: "Not a directory", ELOOP: "Too many levels of symbolic links",
  ENAMETOOLONG: "File name too long", EIO: "Input/output error", ENXIO: "No such device or address",
  EMFILE: "Too many open files", ENFILE: "Too many open files in system", ENOMEM: "Cannot allocate memory",
  EINVAL: "Invalid argument", EAGAIN: "Resource temporarily unavailable", EBADF: "Bad file descriptor",
  EOVERFLOW: "Value too large for defined data type", ENODEV: "No such device", ESTALE: "Stale file handle",
};

/** The words of a failed file operation's error (`ENOENT` → `No such file or directory`). */
export function errnoWords(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  if (err.code !== undefined && STRERROR[err.code] !== undefined) return STRERROR[err.code]!;
  const m = /^[A-Z0-9_]+: ([^,]*)/.exec(err.message ?? "");
  const words = m ? m[1]! : String(err.message ?? e);
  return words.charAt(0).toUpperCase() + words.slice(1);
}
