"""Token revocation at the gateway (issue 12 item 1): ``POST /tokens/revocations``.

A token is revoked by showing it (``token``: the administrator any, its holder his own, an
organiser the player and arbiter tokens of his events) or, by the administrator alone, by its
``jti``. The revocation is a :class:`~contracts.messages.RevokeToken` on the log (stream
``identity.commands.<instance>``), folded by every gateway's read model
(:class:`~services.gateway.identity.Revocations`): from then on the token is 401
``token-revoked`` at every gateway, a restarted one too. Nothing else changes.
"""
from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.messages import IDENTITY, RevokeToken
from services.gateway import bounds, identity
from services.gateway.errors import HTTPError
from services.gateway.identity import Principal


class RevokeBody(BaseModel):
    """Exactly one of ``token`` (the bearer token itself, expired or not) and ``jti`` (its id
    claim: the administrator only), and why (``reason``)."""

    model_config = ConfigDict(extra="forbid")
    token: str | None = Field(default=None, min_length=1, max_length=identity.MAX_TOKEN_CHARS)
    jti: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_\-]{1,64}$")
    reason: bounds.TEXT = Field(default="", max_length=500)

    @model_validator(mode="after")
    def _one(self) -> RevokeBody:
        if (self.token is None) == (self.jti is None):
            raise ValueError("give exactly one of token and jti")
        return self


def _target(secret: str, body: RevokeBody, p: Principal, now_s: int, on_refused: Any) -> Principal:
    """The token to revoke: the one shown (read with ``secret``, expired or not; a forged or
    malformed one is 422 ``token-unreadable``, its refusal code handed to ``on_refused`` first:
    a guess counts as a failed authentication), or by ``jti`` alone (administrator only:
    403 ``admins-only``; expiring at the longest lifetime from ``now_s``)."""
    if body.token is not None:
        try:
            return identity.read_token(secret, body.token, expired_ok=True)
        except identity.AuthError as e:
            on_refused(e.code)
            raise HTTPError(422, f"the token to revoke is not one of this gateway's: {e.detail}",
                            code="token-unreadable") from None
    if p.role != "admin":
        raise identity.AuthError(403, "admins-only", "only the administrator revokes a token by its "
                                                     "jti alone; others show the token")
    return Principal("unknown", "unknown", jti=body.jti, exp=now_s + identity.MAX_TTL_S)


def revocation_router(gateway: Any, context: Any) -> APIRouter:
    """A router with ``POST /tokens/revocations``; ``gateway`` the dependency giving the gateway
    (its ``caller``, ``send``, read model and ``jwt_secret``), ``context`` the command-context
    dependency."""
    router = APIRouter(tags=["identity"])

    @router.post("/tokens/revocations")
    async def revoke_token(body: RevokeBody, request: Request, ctx: Any = context, gw: Any = gateway) -> dict:
        """Revoke a bearer token (see the module's docstring). Answer ``{"jti", "sub", "role",
        "expires_at_s", "command_id", "stream", "seq"}`` (``sub``/``role`` null when revoked by
        jti). 409 ``identity-off`` without ARBITER_JWT_SECRET, 409 ``already-revoked``, 422
        ``token-unreadable``, 401, 403 ``not-your-token`` / ``admins-only``; nothing written."""
        if gw.jwt_secret is None:
            raise HTTPError(409, "identity is off (ARBITER_JWT_SECRET is not set): no tokens to revoke",
                            code="identity-off")
        p = gw.caller(ctx)
        target = _target(gw.jwt_secret, body, p, int(time.time()),
                         lambda code: gw.rates.count_auth_failure(request.scope, code))
        if gw.rm.revoked.revoked(target.jti):
            raise HTTPError(409, f"token {target.jti} is already revoked", code="already-revoked")
        creators = {t: (v.created_by if (v := gw.rm.tournament(t)) else None) for t in target.events}
        identity.may_revoke(p, target, creators)
        known = target.role != "unknown"
        payload = RevokeToken(jti=target.jti, sub=target.sub if known else None,
                              role=target.role if known else None, expires_at_s=target.exp,
                              reason=body.reason)
        cmd, _ = await gw.send(payload, IDENTITY, identity.revoker_actor(p), at_ms=None, wait=False)
        return {"jti": target.jti, "sub": payload.sub, "role": payload.role,
                "expires_at_s": target.exp, "command_id": str(cmd.event_id), "stream": cmd.stream,
                "seq": cmd.seq}

    return router
