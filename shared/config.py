"""The deployment's settings, read from the environment (``ARBITER_<NAME>``) in one place
(pydantic-settings) and printed by ``arbiter config``.

There is no default secret: without ``ARBITER_ADMIN_TOKEN`` or ``ARBITER_JWT_SECRET`` the
gateway's arbiter endpoints are open, so a gateway that has neither refuses to listen beyond the
loopback interface (:func:`require_for_address`); with ``ARBITER_JWT_SECRET`` every write needs a
bearer token or the admin token (:mod:`services.gateway.identity`); without
``ARBITER_SNAPSHOT_KEY`` a process's snapshots serve only itself (:mod:`shared.sealing`);
without ``ARBITER_SIGNING_KEY`` a game or tournament process signs its checkpoints with a key of
its own that it logs (loopback only: beyond it, it refuses to start) (:mod:`shared.signing`);
without ``ARBITER_WEBHOOK_KEY`` webhook secrets are derived from a key drawn by the process
(in-process use only: the webhooks process refuses to listen beyond loopback) (:mod:`shared.webhooks`).
"""
from __future__ import annotations

import ipaddress
import re
import secrets
import unicodedata

from limits import RateLimitItem, parse_many
from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.errors import TransportError

ENV_PREFIX = "ARBITER_"


class ConfigError(TransportError):
    """A setting in the environment that cannot be used: the message names the variable."""


#: The fewest characters of a JWT secret, and of an admin token on a gateway beyond loopback.
MIN_TOKEN_CHARS = 32


class Settings(BaseSettings):
    """Every setting of an Arbiter process (environment variable ``ARBITER_`` + the upper-case
    field name; units in the names: seconds ``_s``, milliseconds ``_ms``)."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, frozen=True, extra="ignore")

    bus: str = Field("kafka://127.0.0.1:19092", description="Kafka of up / serve (kafka://HOST:PORT)")
    admin_token: SecretStr | None = Field(None, min_length=1, description="the administrator's token "
                                        "(X-Arbiter-Token; at least 32 characters beyond loopback)")
    jwt_secret: SecretStr | None = Field(None, description="signs bearer tokens (at least 32 "
                                         "letters, digits, punctuation or symbols); roles "
                                         "enforced; unset: loopback only")
    snapshot_key: SecretStr | None = Field(None, min_length=1, description="seals snapshots; same in every process")
    snapshot_key_previous: SecretStr | None = Field(None, min_length=1, description="the key "
                                                    "before a rotation: still opens snapshots")
    signing_key: SecretStr | None = Field(None, min_length=1, description="Ed25519 private key "
                                          "(base64, 32 bytes) signing checkpoints; unset: loopback only")
    verify_keys: str | None = Field(None, min_length=1, description="Ed25519 public keys (base64, "
                                    "comma-separated) the audit trusts for checkpoints")
    webhook_key: SecretStr | None = Field(None, min_length=1, description="derives each webhook "
                                          "subscription's signing secret; same in the gateway and "
                                          "the webhooks process; unset: loopback only")
    webhook_max_attempts: int = Field(8, ge=1, le=100, description="webhooks: attempts of a "
                                      "message before the subscription is marked failing")
    webhook_backoff_ms: int = Field(1000, ge=1, le=3_600_000, description="webhooks: the first "
                                    "retry's delay, ms (doubled at each retry, at most 1 h)")
    webhook_allow_hosts: str = Field("", max_length=2000, description="webhooks: targets "
                                     "allowed although not public (loopback, private, link-local, "
                                     "reserved...): host names, addresses or networks (CIDR), "
                                     "comma-separated ('' none: only public addresses)")
    checkpoint_every: int = Field(64, ge=1, le=1_000_000,
                                  description="an aggregate's events between signed checkpoints")
    instance_id: str | None = Field(None, min_length=1, max_length=200, description="group member id (default name-host-port)")
    load_snapshots: bool = Field(True, description="restore from snapshots (0: replay)")
    snapshot_every_s: float = Field(30.0, gt=0, allow_inf_nan=False,
                                    description="a partition's snapshots, every s")
    gateway_snapshot_every_s: float = Field(60.0, gt=0, allow_inf_nan=False,
                                            description="the read model's snapshots, every s")
    commit_interval_ms: int = Field(10, ge=1, le=10_000,
                                    description="transaction interval, ms")
    restarts: int = Field(0, ge=0, description="restarts so far (set by arbiter up)")
    rate_principal: str = Field("50/second;2000/minute", max_length=200, description="gateway: "
                                "writes per authenticated principal ('' none; admin never limited)")
    rate_game: str = Field("10/second;300/minute", max_length=200, description="gateway: "
                           "commands per game and actor, arbiters' not counted ('' none)")
    rate_auth_failures: str = Field("10/minute", max_length=200, description="gateway: failed "
                                    "authentications (a token that does not verify, a wrong admin "
                                    "token) per client address, then 429 ('' none)")
    rate_storage: str = Field("memory://", min_length=1, description="gateway: the rate "
                              "counters' storage (limits URI; memory: per process)")
    max_body_bytes: int = Field(1_000_000, ge=1024, le=100_000_000,
                                description="gateway: largest request body, bytes (413 above)")
    cors_origins: str = Field("", max_length=2000, description="gateway: origins browsers may "
                              "call from, comma-separated ('*' any; '' CORS off)")
    trusted_proxies: str = Field("", max_length=2000, description="gateway: the proxies in "
                                 "front (IP addresses or CIDR networks, comma-separated) whose "
                                 "X-Forwarded-For names the client ('' none: the connecting "
                                 "address is the client)")

    @field_validator("jwt_secret")
    @classmethod
    def _secret_length(cls, v: SecretStr | None) -> SecretStr | None:
        # letters, digits, punctuation, symbols: blanks and invisible characters count nothing
        if v is not None and (n := sum(1 for c in v.get_secret_value()
                                       if unicodedata.category(c)[0] in "LNPS")) < MIN_TOKEN_CHARS:
            raise ValueError(f"must have at least 32 letters, digits, punctuation marks or symbols "
                             f"(`openssl rand -hex 32` makes 64), not {n}")
        return v

    @field_validator("rate_principal", "rate_game", "rate_auth_failures")
    @classmethod
    def _rates(cls, v: str) -> str:
        parse_rates(v)
        return v

    @field_validator("webhook_allow_hosts")
    @classmethod
    def _hosts(cls, v: str) -> str:
        parse_hosts(v)
        return v

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies(cls, v: str) -> str:
        parse_networks(v)
        return v


def parse_rates(text: str) -> list[RateLimitItem]:
    """The rates of ``text`` in the ``limits`` library's syntax (``"10/second;300/minute"``:
    each must allow a request; ``""``: none). Raises ``ValueError`` naming the text when it is
    not that syntax."""
    if not text.strip():
        return []
    try:
        return list(parse_many(text))
    except ValueError:
        raise ValueError(f"{text!r} is not a list of rates such as '10/second;300/minute'") from None


#: An ``ARBITER_WEBHOOK_ALLOW_HOSTS`` entry that is a host name (RFC 1123 labels).
_HOST_NAME = re.compile(r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$")
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_hosts(text: str) -> tuple[frozenset[str], tuple[IPNetwork, ...]]:
    """The host names (lower case, no trailing dot) and the networks of ``text``, a
    comma-separated list of host names, IP addresses (one-address networks) and networks in
    CIDR notation (``"127.0.0.1, 10.0.0.0/8, hooks.internal"``; ``""``: none). Raises
    ``ValueError`` naming an entry that is none of them."""
    names, nets = set(), []
    for entry in (e.strip().lower().rstrip(".") for e in text.split(",")):
        if not entry:
            continue
        try:
            nets.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
        except ValueError:
            if not _HOST_NAME.match(entry):
                raise ValueError(f"{entry[:80]!r} is not a host name, an IP address or a network "
                                 "such as 10.0.0.0/8") from None
            names.add(entry)
    return frozenset(names), tuple(nets)


def parse_networks(text: str) -> tuple[IPNetwork, ...]:
    """The networks of ``text``, a comma-separated list of IP addresses and networks in CIDR
    notation (``"10.0.0.0/8, 192.0.2.7"``; ``""``: none). Raises ``ValueError`` naming an entry
    that is neither (a host name included: a proxy is known by its address)."""
    names, nets = parse_hosts(text)
    if names:
        raise ValueError(f"{sorted(names)[0][:80]!r} is not an IP address or a network such as 10.0.0.0/8")
    return nets


def settings() -> Settings:
    """The settings as the environment gives them now. Raises :class:`ConfigError` naming each
    variable that cannot be used and why."""
    try:
        return Settings()
    except ValidationError as e:
        raise ConfigError("; ".join(
            f"{ENV_PREFIX}{str(err['loc'][0]).upper()}: {err['msg']}" for err in e.errors())) from None


_drawn: dict[str, bytes] = {}


def key_or_drawn(name: str) -> tuple[bytes, bool]:
    """The secret setting ``name`` (a :class:`Settings` field such as ``snapshot_key``) as
    UTF-8 bytes, or a 32-byte random key drawn once for it in this process; and whether it was
    drawn (the process then says so: no other process shares it)."""
    value = getattr(settings(), name)
    if value is not None:
        return value.get_secret_value().encode(), False
    if name not in _drawn:
        _drawn[name] = secrets.token_bytes(32)
    return _drawn[name], True


def is_loopback(host: str) -> bool:
    """True for an address of the loopback interface (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_for_address(service: str, host: str, s: Settings) -> None:
    """Refuse (``ConfigError``) to serve the gateway beyond loopback without a JWT secret
    (identity on: without it the players' and organisers' routes act for whoever they name,
    whatever the admin token), or with an admin token under :data:`MIN_TOKEN_CHARS` characters
    (guessable); and a game or tournament process beyond loopback without
    ``ARBITER_SIGNING_KEY``: its checkpoints would be signed by a key drawn at start, which no
    auditor was given."""
    if service in ("game", "tournament") and s.signing_key is None and not is_loopback(host):
        raise ConfigError(f"the {service} process does not listen on {host} without "
                          f"{ENV_PREFIX}SIGNING_KEY: it signs the log's checkpoints, and a key of its "
                          "own would be one no auditor trusts (make one with `arbiter signing-key`, "
                          "or listen on 127.0.0.1)")
    if service == "webhooks" and s.webhook_key is None and not is_loopback(host):
        raise ConfigError(f"the webhooks process does not listen on {host} without "
                          f"{ENV_PREFIX}WEBHOOK_KEY: the signing secrets the gateway hands out "
                          "are derived from it, and a key of its own would sign what no "
                          "integrator can verify (set it, the same for every gateway, or listen "
                          "on 127.0.0.1)")
    if service != "gateway" or is_loopback(host):
        return
    if s.jwt_secret is None:
        raise ConfigError(f"the gateway does not listen on {host} without {ENV_PREFIX}JWT_SECRET: "
                          "without identity its players' and organisers' routes act for whoever "
                          f"they name, and an admin token guards only the arbiters' (set it, at "
                          f"least {MIN_TOKEN_CHARS} characters, or listen on 127.0.0.1)")
    if s.admin_token is not None and len(s.admin_token.get_secret_value().strip()) < MIN_TOKEN_CHARS:
        raise ConfigError(f"the gateway does not listen on {host} with an {ENV_PREFIX}ADMIN_TOKEN of "
                          f"fewer than {MIN_TOKEN_CHARS} characters: anyone who reaches it could "
                          "guess it (make a longer one, or listen on 127.0.0.1)")


def describe(s: Settings) -> list[tuple[str, str, str]]:
    """(variable, value, description) per setting, secrets shown only as set or not set."""
    out = []
    for name, field in Settings.model_fields.items():
        v = getattr(s, name)
        shown = ("set" if v is not None else "not set") if isinstance(v, SecretStr) or \
            field.annotation == SecretStr | None else str(v)
        out.append((f"{ENV_PREFIX}{name.upper()}", shown, field.description or ""))
    return out
