/** tarneeb-js: a second, independent verifier of tarneeb match logs. */
export { verifyBytes, exitCode, type VerdictJson } from "./verify.js";
export { waitingFor, waitingStep } from "./blind.js";
export { parseLog, LogError, type ParsedLog, type Header, type HandRecord } from "./records.js";
export { Deriver, serverCommitment, clientCommitment, matchBinding, verifyInclusion, seasonHeadMessage } from "./derive.js";
export { PRESETS, rulesFromMap, trumpForDeal, type RuleSet } from "./rules.js";
export { BID, Match, PASS, Phase, TRUMP, cardName, describe, legalActions, type Hand } from "./engine.js";
export { DEFAULT_LIMITS, type Limits } from "./stream.js";
export type { Finding, Options } from "./replay.js";
export { checkPlatformNames, nameKeys, nameProblem, nameScripts, skeleton } from "./names.js";
export { KeyFileError, parseKeys, publicKeyFromPem } from "./keys.js";
export { ReceiptError, readReceipt, receiptMismatches, type Receipt, type SignedReceipt } from "./receipt.js";
