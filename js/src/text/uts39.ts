/**
 * The UTS #39 table both verifiers read (audit/uts39.txt, copied into data/names.ts by
 * js/scripts/tables.py; the Python verifier parses the same lines in tarneeb.audit.uts39):
 * Identifier_Status Allowed (the General Security Profile), each other code point's
 * Identifier_Type, the default-ignorable code points, the elongation marks (Joining_Type
 * Join_Causing less the zero-width joiner: the Arabic tatweel …) and the skeleton's
 * prototypes (confusables.txt, with the project's additions such as d → cl).
 */
import { UTS39 } from "../data/names.js";

/** The Identifier_Type values, in the order of the table's bits. */
export const TYPES = ["Not_Character", "Deprecated", "Default_Ignorable", "Not_NFKC", "Not_XID", "Exclusion", "Obsolete",
  "Technical", "Uncommon_Use", "Limited_Use", "Inclusion", "Recommended"];

interface Runs { starts: number[]; values: number[] }

interface Table {
  version: string;
  allowed: Runs;
  types: Runs;
  ignorable: Runs;
  elongation: Runs;
  prototypes: Map<number, string>;
}

let table: Table | null = null;

function decodeRuns(text: string): Runs {
  const starts: number[] = [];
  const values: number[] = [];
  let at = 0;
  for (const row of text.split(",")) {
    const [n, v] = row.split(".") as [string, string];
    starts.push(at);
    values.push(parseInt(v, 36));
    at += parseInt(n, 36);
  }
  return { starts, values };
}

function load(): Table {
  if (table) return table;
  const fields = new Map<string, string>();
  for (const line of UTS39.split("\n")) {
    if (line && !line.startsWith("#")) {
      const i = line.indexOf(" ");
      fields.set(line.slice(0, i), line.slice(i + 1));
    }
  }
  const prototypes = new Map<number, string>();
  let prev = 0;
  for (const row of fields.get("prototypes")!.split(",")) {
    const [delta, to] = row.split(":") as [string, string];
    prev += parseInt(delta, 36);
    prototypes.set(prev, String.fromCodePoint(...to.split(".").filter((x) => x).map((x) => parseInt(x, 36))));
  }
  table = {
    version: fields.get("version")!, allowed: decodeRuns(fields.get("allowed")!), types: decodeRuns(fields.get("types")!),
    ignorable: decodeRuns(fields.get("ignorable")!), elongation: decodeRuns(fields.get("elongation")!), prototypes,
  };
  return table;
}

function at(runs: Runs, cp: number): number {
  let lo = 0;
  let hi = runs.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (runs.starts[mid]! <= cp) lo = mid;
    else hi = mid - 1;
  }
  return runs.values[lo]!;
}

/** Identifier_Status = Allowed. */
export const allowed = (cp: number): boolean => at(load().allowed, cp) === 1;
/** Default_Ignorable_Code_Point. */
export const ignorable = (cp: number): boolean => at(load().ignorable, cp) === 1;
/** An elongation mark (Joining_Type Join_Causing, the zero-width joiner excepted). */
export const elongation = (cp: number): boolean => at(load().elongation, cp) === 1;
/** The Identifier_Type values of a code point that is not Allowed. */
export function types(cp: number): string[] {
  const bits = at(load().types, cp);
  return TYPES.filter((_, i) => (bits >> i) & 1);
}
/** The skeleton's prototype of a code point ("" for one the skeleton removes), or undefined. */
export const prototype = (cp: number): string | undefined => load().prototypes.get(cp);
/** The Unicode version of the table. */
export const version = (): string => load().version;
