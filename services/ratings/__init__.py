"""Ratings: FIDE rating changes of a rated event (:mod:`.fide`), Glicko-2 for online rating
pools (:mod:`.glicko`), both pure; :mod:`.report` reads a TRF for ``arbiter ratings``."""
