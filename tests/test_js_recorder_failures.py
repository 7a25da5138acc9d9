"""The Node recorder when the disk fails it (the Python one's: tests/test_recorder_failures.py).

A write that stops part-way through a value (a full disk: a short write, then an error) is
cut off the file, and the writer is broken from then on: it writes nothing more, and says
so. An ``fsync`` that fails (an I/O error; the system may have dropped the bytes, and the
next ``fsync`` would say nothing of them) breaks it too: later appends throw, and
``waitDurable`` rejects — a waiter is not left waiting forever.
"""

from __future__ import annotations

import json
import resource
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.js_build import DIST, built

# node SCRIPT DIST CASE DIR: prints one line of JSON
SCRIPT = r"""
import fs, { openSync, readFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
const [dist, which, dir] = process.argv.slice(2);
const { MatchRecorder, LogWriter } = await import(pathToFileURL(join(dist, "server.js")).href);
const code = (e) => e?.name === "LogWriteError" ? "LogWriteError" : (e?.code ?? String(e));

function failNextFsync() {  // the next fsync fails with EIO, then they succeed again
  const sync = fs.fsyncSync, async = fs.fsync;
  let fail = true;
  const eio = () => Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
  fs.fsyncSync = (fd) => { if (fail) { fail = false; throw eio(); } return sync(fd); };
  fs.fsync = (fd, cb) => {
    if (fail) { fail = false; return process.nextTick(cb, eio()); }
    return async(fd, cb);
  };
  syncBuiltinESMExports();
}

const out = {};
if (which === "torn") {  // run under RLIMIT_FSIZE 1,024 bytes
  const path = join(dir, "m.tlog");
  const rec = MatchRecorder.create({ path, rules: "eram41", seats: ["A", "B", "C", "D"],
    matchId: new Uint8Array(8), firstDealer: 0, durability: "fsync" });
  const step = (i) => {
    const k = i % 54;
    if (k === 0) return rec.deal({ dealer: Math.floor(i / 54) % 4 });
    if (k === 53) {
      return rec.claim({ totals: [0, 0, 0, 0], tricks: [13, 0, 0, 0], scores: [1, 1, 1, 1],
        trump: 0 });
    }
    return rec.play({ card: k - 1 });
  };
  let i = 0;
  try { for (; i < 5000; i++) step(i); } catch (e) { out.first = code(e); }
  out.acknowledged = rec.writer.size;
  out.file = readFileSync(path).length;
  out.whole = Buffer.compare(readFileSync(path), Buffer.from(rec.writer.signedBytes)) === 0;
  try { step(i); out.again = "written"; } catch (e) { out.again = code(e); }
} else if (which === "header") {  // run under RLIMIT_FSIZE 100 bytes
  const path = join(dir, "m.tlog");
  try {
    MatchRecorder.create({ path, rules: "eram41", seats: ["A", "B", "C", "D"],
      matchId: new Uint8Array(8), firstDealer: 0 });
    out.first = "written";
  } catch (e) { out.first = code(e); }
  out.exists = fs.existsSync(path);
} else if (which === "fsync") {
  const w = new LogWriter(openSync(join(dir, "w.tlog"), "w"), "fsync");
  w.append(Uint8Array.of(0x41));
  failNextFsync();
  try { w.append(Uint8Array.of(0x42)); out.first = "written"; } catch (e) { out.first = code(e); }
  try { w.append(Uint8Array.of(0x43)); out.again = "written"; } catch (e) { out.again = code(e); }
  out.wait = await w.waitDurable(0).then((v) => String(v), code);
  out.durable = w.durableSize;
} else if (which === "group") {
  const w = new LogWriter(openSync(join(dir, "w.tlog"), "w"), "group:60000");
  w.append(Uint8Array.of(0x41));
  clearTimeout(w.timer); w.timer = null;  // the background sync runs when this says
  const waiting = w.waitDurable();  // no timeout
  failNextFsync();
  w.timedSync();  // it fails
  out.wait = await waiting.then((v) => String(v), code);  // unsettled: node exits 13
  try { w.append(Uint8Array.of(0x42)); out.again = "written"; } catch (e) { out.again = code(e); }
  out.durable = w.durableSize;
}
process.stdout.write(JSON.stringify(out) + "\n");
"""


@pytest.fixture(scope="module")
def node() -> str:
    return built("server.js")


def _run(node: str, tmp_path: Path, case: str, limit: int | None = None) -> dict:
    script = tmp_path / "case.mjs"
    script.write_text(SCRIPT, encoding="utf-8")

    def limited() -> None:  # a full disk at byte `limit`: a short write, then EFBIG
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        if limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE,
                               (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    done = subprocess.run([node, str(script), str(DIST), case, str(tmp_path)],
                          capture_output=True, text=True, timeout=120,
                          preexec_fn=limited, restore_signals=False)
    assert done.returncode == 0, (done.returncode, done.stderr)
    result: dict = json.loads(done.stdout)
    return result


def test_a_write_torn_by_a_full_disk_is_cut_off_and_breaks_the_writer(
        node: str, tmp_path: Path) -> None:
    r = _run(node, tmp_path, "torn", limit=1024)
    assert r["first"] == "EFBIG"
    assert r["whole"] and r["file"] == r["acknowledged"] < 1024  # no torn value left
    assert r["again"] == "LogWriteError"


def test_after_a_failed_fsync_nothing_more_is_written(node: str, tmp_path: Path) -> None:
    r = _run(node, tmp_path, "fsync")
    assert r == {"first": "EIO", "again": "LogWriteError", "wait": "LogWriteError",
                 "durable": 1}


def test_a_failed_background_fsync_rejects_the_waiters(node: str, tmp_path: Path) -> None:
    r = _run(node, tmp_path, "group")
    assert r == {"wait": "LogWriteError", "again": "LogWriteError", "durable": 0}


def test_a_header_that_cannot_be_written_leaves_no_file(node: str, tmp_path: Path) -> None:
    """Nothing of the match was acknowledged: no torn or empty file is left to block a new
    start (a recorder never writes over a file, and resume cannot read a torn header)."""
    assert _run(node, tmp_path, "header", limit=100) == {"first": "EFBIG", "exists": False}


def _recorder_script(tmp_path: Path, body: str) -> Any:
    """What a script run with the Node recorder (``MatchRecorder``, ``RecorderError``; its
    directory ``process.argv[2]``, ``tmp_path``) writes as JSON."""
    node = built("server.js")
    script = ("import { join } from 'node:path'; import { pathToFileURL } from 'node:url';"
              "const { MatchRecorder, RecorderError } = await import(pathToFileURL(join("
              "process.argv[1], 'server.js')).href);" + body)
    done = subprocess.run([node, "--input-type=module", "-e", script, str(DIST), str(tmp_path)],
                          capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def test_a_value_refused_is_shown_with_its_control_characters_escaped(tmp_path: Path) -> None:
    """ESC, BEL and C1 in a value the Node recorder refuses (a dealer, a bid, a durability)
    reached the terminal raw in its error; escaped, as the Python recorder's repr does."""
    said = _recorder_script(tmp_path, (
        "const out = []; const base = { path: join(process.argv[2], 'm.tlog'), rules: "
        "'eram41', seats: ['A', 'B', 'C', 'D'], matchId: new Uint8Array(8), firstDealer: 0 };"
        "for (const over of [{ firstDealer: '\\x1b[31mred' }, { durability: "
        "'group:\\x1b[2J' }, { seats: ['A\\x9b', 'B', 'C', 'D'] }]) {"
        "  try { await MatchRecorder.create({ ...base, ...over }); out.push(null); }"
        "  catch (e) { out.push(e.message); } }"
        "process.stdout.write(JSON.stringify(out));"))
    assert all(m is not None for m in said), said
    assert not any(c in m for m in said for c in "\x1b\x07\x9b"), said
    assert "\\x1b[31mred" in said[0]


def test_a_call_given_no_options_is_a_recorder_error(tmp_path: Path) -> None:
    """A call given no options object (or a resume given no path, a sign given no key, a
    bid as a BigInt) threw TypeError from inside the Node recorder; a RecorderError now,
    as the Python recorder refuses a bad argument."""
    said = _recorder_script(tmp_path, (
        "const r = MatchRecorder.create({ path: join(process.argv[2], 'm.tlog'), rules: "
        "'classic', seats: ['A', 'B', 'C', 'D'], matchId: new Uint8Array(8), "
        "firstDealer: 0 });"
        "const out = [];"
        "for (const f of [() => r.deal(), () => r.call(), () => r.nameTrump(), "
        "() => r.play(), () => r.claim(), () => r.finish(), () => r.abandon(), "
        "() => MatchRecorder.resume(), () => MatchRecorder.resume({}), "
        "() => MatchRecorder.resume({ path: 5 })]) {"
        "  try { await f(); out.push('accepted'); }"
        "  catch (e) { out.push(e instanceof RecorderError ? 'refused' : e.name); } }"
        "r.deal({ dealer: 0 });"
        "try { r.call({ bid: 5n }); out.push('accepted'); }"
        "catch (e) { out.push(e instanceof RecorderError ? 'refused' : e.name); }"
        "r.abandon({ cause: 'disconnect', seat: 0, reason: 'x' });"
        "try { await r.sign(5); out.push('accepted'); }"
        "catch (e) { out.push(e instanceof RecorderError ? 'refused' : e.name); }"
        "process.stdout.write(JSON.stringify(out));"))
    assert said == ["refused"] * 12, said
