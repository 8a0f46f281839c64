"""Gateway: the HTTP face of Arbiter, sole writer of the command streams, read models and SSE.

``create_app(log, admin_token=..., now_ms=..., manage_log=True)`` (see :mod:`.app`) builds the
FastAPI app; :mod:`.readmodel` holds the pure projections (games, tournaments, PGN, crosstable).
"""
from services.gateway.app import create_app

__all__ = ["create_app"]
