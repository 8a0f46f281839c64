"""Where a delivery may connect: the webhooks process's HTTP transport, which checks every
connection's addresses against the target policy (:class:`shared.webhooks.TargetPolicy`).

The gateway checked the subscription's host at registration, but a name is resolved again at
each connection, and its owner may have changed what it resolves to since (DNS rebinding: a
public address at registration, 169.254.169.254 or 127.0.0.1 at delivery). So the transport
resolves the host itself, refuses the connection when an address is not allowed
(:class:`ForbiddenTarget`, an ``httpx.ConnectError`` to the caller: the attempt is logged
with its reason and retried like any unanswered one), and connects to the addresses it
checked, never resolving the name a second time. TLS still verifies the certificate against
the URL's host name (httpcore's ``server_hostname`` is the origin's host, not the address).
Environment proxies (``HTTP_PROXY``...) are not used: a proxy would resolve the name itself.
"""
from __future__ import annotations

import ssl
import typing

import certifi
import httpcore
import httpx

from shared.webhooks import TargetPolicy, resolve


class ForbiddenTarget(httpcore.ConnectError):
    """A connection refused by the target policy: the message starts ``forbidden-address:``."""


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend (``inner``, default AnyIO) with :class:`TargetPolicy`
    ``policy`` checked on each TCP connection's resolved addresses (see the module doc)."""

    def __init__(self, policy: TargetPolicy, inner: httpcore.AsyncNetworkBackend | None = None) -> None:
        self.policy = policy
        self.inner = inner or httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: typing.Iterable[typing.Any] | None = None,
                          ) -> httpcore.AsyncNetworkStream:
        """A stream to the first of ``host``'s checked addresses that answers. Raises
        :class:`ForbiddenTarget` when the policy refuses one of them, ``httpcore.ConnectError``
        when the name does not resolve or no address answers."""
        addresses = await resolve(host, port, timeout_s=timeout or 5.0)
        if not addresses:
            raise httpcore.ConnectError(f"{host} does not resolve")
        why = self.policy.refusal(host, addresses)
        if why is not None:
            raise ForbiddenTarget(f"forbidden-address: {why}")
        failed: Exception | None = None
        for ip in addresses:
            try:
                return await self.inner.connect_tcp(str(ip), port, timeout=timeout, local_address=local_address,
                                                    socket_options=socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as e:
                failed = e
        raise failed  # type: ignore[misc]  (addresses is not empty)

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: typing.Iterable[typing.Any] | None = None,
                                  ) -> httpcore.AsyncNetworkStream:
        """Never a webhook target."""
        raise ForbiddenTarget("forbidden-address: a Unix socket is no webhook target")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def guarded_transport(policy: TargetPolicy) -> httpx.AsyncHTTPTransport:
    """An httpx transport connecting only where ``policy`` allows (:class:`GuardedBackend`),
    with httpx's default TLS verification (certifi's CAs) and pool limits, no proxies."""
    transport = httpx.AsyncHTTPTransport(trust_env=False)
    limits = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
    # httpx takes no network backend: its pool (the attribute its requests go through) is
    # replaced by httpcore's own pool built with one (httpcore's public constructor)
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=ssl.create_default_context(cafile=certifi.where()),
        max_connections=limits.max_connections, max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry, network_backend=GuardedBackend(policy))
    return transport
