/** tarneeb-js: a second, independent verifier of tarneeb match logs. */
export { verifyBytes, exitCode, type VerdictJson } from "./verify/verify.js";
export { waitingFor, waitingStep } from "./log/blindrecords.js";
export { parseLog, LogError, type ParsedLog, type Header, type HandRecord } from "./log/records.js";
export { Deriver, serverCommitment, clientCommitment, matchBinding, verifyInclusion, seasonHeadMessage } from "./protocol/derive.js";
export { PRESETS, rulesFromMap, trumpForDeal, type RuleSet } from "./rules/rules.js";
export { BID, Match, PASS, Phase, TRUMP, cardName, describe, legalActions, type Hand } from "./rules/engine.js";
export { DEFAULT_LIMITS, type Limits } from "./text/stream.js";
export type { Finding, Options } from "./verify/replay.js";
export { checkPlatformNames, nameKeys, nameProblem, nameScripts, skeleton } from "./text/names.js";
export { KeyFileError, parseKeys, publicKeyFromPem } from "./verify/keys.js";
export { ReceiptError, readReceipt, receiptMismatches, type Receipt, type SignedReceipt } from "./verify/receipt.js";
