/**
 * tarneeb-js/server: what a Node server needs to write a match's log (Node only: it writes
 * files). `import { MatchRecorder, MatchSeeds, generateSigningKey } from "tarneeb-js/server"`;
 * js/README.md walks through a whole match.
 */
export {
  MatchRecorder, RecorderError, parseCard, parseSuit, cardName, ABANDON_CAUSES, type ResumeOptions,
  type BlindDealTranscript, type RevealedKeysOptions,
  type MatchRecorderOptions, type DealOptions, type CallOptions, type TrumpOptions, type PlayOptions,
  type ClaimOptions, type FinishOptions, type AbandonOptions, type SeasonProof, type SeatInfo,
  type Card, type Suit, type AbandonCause,
} from "./recorder/recorder.js";
export {
  LogWriter, LogWriteError, parseDurability, encodeMove, encodeValue, syncDirectory, type Durability, type DurabilityMode,
} from "./log/writer.js";
export {
  MatchSeeds, randomBytes, newServerSeed, newClientSeed, newMatchId, generateSigningKey, privateKeyFromPem,
  privateKeyPem, rawPublicKey, publicKeyOf, publicKeyPem, signBytes, makeReceipt, type SigningKey, type Deal,
  type MatchSeedsOptions, type ReceiptOptions,
} from "./recorder/platform.js";
export { EngineServer, legalActions, PLANTED_BUGS, type PlantedBug } from "./engine-server.js";
