"""The tournament processor: the pairing and standings cores composed over each tournament's
ordered command stream, which holds the organisers' and arbiters' commands and, forwarded by the
game processor, its games' starts, results and penalties (:data:`services.system.PROCESS_CORES`)."""
