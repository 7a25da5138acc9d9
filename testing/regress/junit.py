"""A ``regress`` run as JUnit XML, the report format CI systems read (``--junit-xml``).

One ``testcase`` per match log: a disagreement is a ``failure`` (its ``type`` the
disagreement's kind, its ``message`` the line ``regress`` prints, hands and seats counted
from 1, its text the fields of ``--json``, from 0), an engine that raised, looped or
answered garbage an ``error``, an unreadable log an ``error`` too, a log that did not
verify clean ``skipped``.

>>> from tarneeb.testing.regress.report import MatchReport, RegressRun
>>> xml = junit_xml(RegressRun([MatchReport("a.tlog", "agree", "eram41", 17, 900)], 0.5),
...                 "mypkg:make")
>>> print(xml.decode().splitlines()[1])
<testsuites name="tarneeb regress" tests="1" failures="0" errors="0" skipped="0" time="0.500">
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from tarneeb.audit.encoding import shown
from tarneeb.testing.regress.report import MatchReport, RegressRun

# what XML 1.0 has no place for even as a character reference, once shown() has escaped
# the control characters and the lone surrogates
_NOT_XML = re.compile("[\ufffe\uffff]")


def _text(text: str) -> str:
    """``text`` as XML 1.0 can hold it and a CI page shows it, on one line: :func:`shown`
    (a control character, a newline, a bidi override, a lone surrogate escaped, as
    ``regress`` prints them), and the two characters XML refuses escaped too. An engine's
    answers and messages, a log's file name, are from outside.

    >>> print(_text("a\\x01b\\ufffe\\nc"))
    a\\x01b\\ufffe\\nc
    """
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", shown(text))


def _case(report: MatchReport, engine: str) -> ET.Element:
    case = ET.Element("testcase", classname=_text(f"tarneeb.regress.{report.rules or 'unknown'}"),
                      name=_text(report.name), time=f"{report.seconds:.3f}")
    if report.status in ("disagree", "engine-failure"):
        first = report.first
        tag = "failure" if report.status == "disagree" else "error"
        kind = first.kind if first is not None else report.status
        child = ET.SubElement(case, tag, message=_text(report.line()), type=_text(kind))
        if first is not None:  # the message counts from 1, the fields from 0 as --json does
            child.text = "the fields as in --json (hands and seats from 0):\n" + "\n".join(
                f"{k}: {_text(str(v))}" for k, v in first.to_json().items() if v is not None) \
                + f"\nengine under test: {_text(engine)}"
    elif report.status == "unreadable":
        ET.SubElement(case, "error", message=_text(report.line()), type="unreadable")
    elif report.status == "skipped":
        ET.SubElement(case, "skipped", message=_text(report.reason or "the log is not clean"))
    return case


def junit_xml(run: RegressRun, engine: str) -> bytes:
    """The JUnit XML report of ``run`` (``engine`` names the engine under test)."""
    counts = {"tests": len(run.reports),
              "failures": run.count("disagree"),
              "errors": run.count("engine-failure") + run.count("unreadable"),
              "skipped": run.count("skipped")}
    attrs = {k: str(v) for k, v in counts.items()}
    seconds = f"{run.seconds:.3f}"
    root = ET.Element("testsuites", {"name": "tarneeb regress", **attrs, "time": seconds})
    suite = ET.SubElement(root, "testsuite", {"name": _text(f"regress {engine}"), **attrs,
                                              "time": seconds})
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="engine", value=_text(engine))
    for report in run.reports:
        suite.append(_case(report, engine))
    ET.indent(root)
    xml: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return xml + b"\n"


__all__ = ["junit_xml"]
