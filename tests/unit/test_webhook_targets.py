"""Webhook targets (issue 12 follow-up, server-side request forgery): which addresses are not
public (the ``ipaddress`` properties of the IANA special-purpose registries, RFC 6890), what
``ARBITER_WEBHOOK_ALLOW_HOSTS`` lets through, and the delivery transport refusing a connection
to a forbidden address whatever the name resolved to at registration."""
from __future__ import annotations

import ipaddress

import httpx
import pytest

from services.webhooks.targets import guarded_transport
from shared.config import parse_hosts
from shared.webhooks import TargetPolicy, not_public, resolve

ip = ipaddress.ip_address


@pytest.mark.parametrize("address,what", [
    ("169.254.169.254", "link-local"),  # the cloud metadata service (AWS, GCP, Azure)
    ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"),
    ("10.0.0.5", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"), ("fc00::1", "private"),
    ("fe80::1", "link-local"), ("::ffff:169.254.169.254", "link-local"), ("::ffff:10.1.1.1", "private"),
    ("0.0.0.0", "unspecified"), ("::", "unspecified"), ("224.0.0.1", "multicast"), ("ff02::1", "multicast"),
    ("100.100.100.200", "not global"),  # shared address space 100.64.0.0/10: a cloud's metadata
    ("2002:7f00:1::", "loopback"), ("2002:a9fe:a9fe::1", "link-local"),  # 6to4 (RFC 3056): the IPv4 inside
    ("2002:5db8:d822::", None),  # 6to4 of 93.184.216.34, public
    ("93.184.216.34", None), ("8.8.8.8", None), ("2606:4700::1111", None),
])
def test_what_an_address_is(address, what):
    assert not_public(ip(address)) == what


def test_the_operator_allows_by_network_or_by_name():
    names, nets = parse_hosts(" 127.0.0.1 ,10.0.0.0/8, Hooks.Internal., [::1]")
    assert names == {"hooks.internal"}
    assert nets == (ipaddress.ip_network("127.0.0.1/32"), ipaddress.ip_network("10.0.0.0/8"),
                    ipaddress.ip_network("::1/128"))
    policy = TargetPolicy(names, nets)
    assert policy.refusal("10.9.8.7", [ip("10.9.8.7")]) is None
    assert policy.refusal("HOOKS.internal", [ip("192.168.0.9")]) is None
    assert policy.refusal("::ffff:127.0.0.1", [ip("::ffff:127.0.0.1")]) is None  # judged as IPv4
    assert policy.refusal("127.0.0.2", [ip("127.0.0.2")]).startswith("127.0.0.2 is loopback: ")
    assert policy.refusal("mixed.example", [ip("93.184.216.34"), ip("192.168.0.9")]).startswith(
        "mixed.example resolves to 192.168.0.9, which is private: ")  # any address refused
    assert TargetPolicy().refusal("tv.example", []) is None  # nothing resolved: the process decides
    with pytest.raises(ValueError, match="'not a host!' is not a host name"):
        parse_hosts("10.0.0.0/8,not a host!")


async def test_resolve_takes_a_literal_as_it_is_and_a_numeric_form_as_the_system_does():
    assert await resolve("[::1]") == [ip("::1")]
    assert await resolve("2130706433") == [ip("127.0.0.1")]  # what a connection would reach
    assert await resolve("0x7f.1") == [ip("127.0.0.1")]
    assert await resolve("no-such-host.invalid") == []  # RFC 6761: never resolves


@pytest.mark.parametrize("url", ["http://127.0.0.1:9/x", "http://169.254.169.254/latest/meta-data/",
                                 "http://2130706433:9/x", "http://[::1]:9/x"])
async def test_the_delivery_transport_refuses_a_forbidden_address_before_connecting(url):
    async with httpx.AsyncClient(transport=guarded_transport(TargetPolicy()), trust_env=False) as client:
        with pytest.raises(httpx.ConnectError, match="^forbidden-address: .* is (loopback|link-local): "):
            await client.post(url, content=b"{}")
