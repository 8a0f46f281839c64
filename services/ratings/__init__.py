"""Ratings: FIDE rating changes of a rated event (:mod:`.fide`) and Glicko-2 for online rating
pools (:mod:`.glicko`), both pure; :mod:`.report` turns a parsed TRF into each player's line of
``arbiter ratings``."""
