"""The record kinds of a log (the first field of each record, FORMAT.md), and the word a
header holds in its 13th field when the log is dealt blind: shared by the records of
every log (:mod:`tarneeb.replay.log.records`) and those of blind dealing
(:mod:`tarneeb.replay.log.blind`), which is loaded only for a log dealt blind.

>>> HEADER, DEAL, END, SIGNATURE, CLAIMS, BLIND, PROOF, KEYS
(0, 1, 2, 3, 4, 5, 6, 7)
"""

HEADER, DEAL, END, SIGNATURE, CLAIMS = 0, 1, 2, 3, 4
BLIND, PROOF, KEYS = 5, 6, 7  # blind dealing's records
DEALING_BLIND = "blind"  # the header's 13th field in a log dealt blind

__all__ = ["BLIND", "CLAIMS", "DEAL", "DEALING_BLIND", "END", "HEADER", "KEYS", "PROOF",
           "SIGNATURE"]
