/**
 * A verdict and its findings (docs/FORMAT.md "What a verifier proves"): each finding names
 * its kind, the hand (the deal number, from 0), the trick (1–13), the seat, the card and
 * the byte offset where the log departs from the rules or the protocol.
 */

export interface Finding {
  kind: string;
  message: string;
  hand: number | null;
  trick: number | null;
  seat: number | null;
  card: string | null;
  offset: number | null;
}

export interface Verdict {
  findings: Finding[];
  notes: string[];
  hands: number;
  played: number;
  dealsProven: boolean;
  recorded: number;
  notReplayed: number[];
  keyId: string | null;
  keyPinned: boolean;
  signatureVerified: boolean;
  signature: "absent" | "weak-key" | "broken" | null;
  checkedTo: number | null;
  ending: string | null;
  /** the platform's reason `ending` ends with, as the end record gives it */
  reason: string | null;
  /** the platform the user's keys name for the key, and the scripts of its letters */
  signer: string | null;
  signerScripts: string[];
  /** the rule paths the match went through */
  paths: Record<string, number>;
}

export type Where = Partial<Pick<Finding, "hand" | "trick" | "seat" | "card" | "offset">>;

export function add(v: Verdict, kind: string, message: string, where: Where = {}): void {
  v.findings.push({ kind, message, hand: null, trick: null, seat: null, card: null, offset: null, ...where });
}

/** The teams' names in findings. */
export const TEAMS = ["team 0+2", "team 1+3"];
