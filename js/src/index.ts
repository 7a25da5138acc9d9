/** tarneeb-js: a second, independent verifier of tarneeb match logs. */
export { verifyBytes, exitCode, type VerdictJson } from "./verify.js";
export { parseLog, LogError, type ParsedLog, type Header, type HandRecord } from "./records.js";
export { Deriver, serverCommitment, clientCommitment, matchBinding, verifyInclusion, seasonHeadMessage } from "./derive.js";
export { PRESETS, rulesFromMap, type RuleSet } from "./rules.js";
export { Match, Phase } from "./engine.js";
export { DEFAULT_LIMITS, type Limits } from "./stream.js";
export type { Finding, Options } from "./replay.js";
