"""Domain values and folds several services use (no I/O, no service imports).

:mod:`.results`: result codes and TRF result letters with their points (the only points
tables); :mod:`.record`: the tournament record, a pure fold of a tournament's events that
pairing, standings, the gateway's tournament views and the TRF export read.
"""
