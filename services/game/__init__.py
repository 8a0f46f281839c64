"""The game processor: the validation, clock, adjudication and penalties cores composed over each
game's ordered command stream (:data:`services.system.PROCESS_CORES`). It has no core of its own:
each decision is taken by one of the four services' cores and written to that service's stream."""
