/**
 * The records of a log as values (docs/FORMAT.md): the header, a hand (its deal record,
 * moves and claims), the end record, and a whole log read. Types only, so that the
 * reader (records.ts) and the field checks (fields.ts) share them without importing
 * each other.
 */
import { type BlindTranscript, type RevealedKeys } from "./blindrecords.js";
import { type Bytes } from "../text/bytes.js";
import { type RuleSet } from "../rules/rules.js";

export interface Batch { index: number; size: number; path: Bytes[]; root: Bytes; headSignature: Bytes }

export interface Header {
  rules: RuleSet;
  rulesMap: Record<string, unknown>;
  seats: { name: string; computer: boolean }[];
  matchId: Bytes;
  serverCommitment: Bytes | null;
  batch: Batch | null;
  clientCommitments: Bytes[] | null;
  clientSeeds: Bytes[] | null;
  firstDealer: number;
  publicKey: Bytes | null;
  blind: boolean;
}

export interface HandRecord {
  dealNumber: number;
  dealer: number;
  revealed: number | null;
  deal: { masks: number[]; thirteenth: number | null } | null;
  calls: [number, number][];
  trump: number | null;
  plays: number[];
  timer: bigint;
  tricks: number[] | null;
  scores: number[] | null;
  totals: number[] | null;
  closed: boolean;
  offset: number;
  /** a log dealt blind: the hand's blind record and its play proofs */
  blind?: BlindTranscript | null;
}

export interface EndRecord {
  winner: number | null;
  serverSeed: Bytes | null;
  abandoned: { cause: string; seat: number | null; reason: string } | null;
}

export interface Cut { offset: number; message: string; unreadable: boolean }

export interface ParsedLog {
  header: Header;
  hands: HandRecord[];
  end: EndRecord | null;
  endOffset: number | null;
  signature: Bytes | null;
  signatureOffset: number | null;
  signedBytes: Bytes;
  cut: Cut | null;
  size: number;
  zeroTail: number;
  /** the byte after each value (each move its own; a blind record goes with its deal record, a proof record with its card), in order */
  ends: number[];
  /** a log dealt blind: its keys records */
  keys: RevealedKeys[];
}
