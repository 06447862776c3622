"""Whom a dashboard connection counts against (the per-visitor connection cap)."""

from __future__ import annotations

import pytest
from rookery.web._http import _visitor


@pytest.mark.parametrize(
    ("peer", "visitor"),
    [
        (("127.0.0.2", 40000), "127.0.0.2"),
        (("::ffff:10.1.2.3", 40000, 0, 0), "10.1.2.3"),  # an IPv4 client of a dual-stack socket
        (("2001:db8:1:2:aaaa::1", 40000, 0, 0), "2001:db8:1:2::/64"),
        (("2001:db8:1:2:ffff:ffff:ffff:fffe", 1, 0, 0), "2001:db8:1:2::/64"),  # the same host
        (("fe80::1%eth0", 40000, 0, 2), "fe80::/64"),
    ],
)
def test_a_visitor_is_an_ipv4_address_or_an_ipv6_64(peer: tuple[object, ...], visitor: str) -> None:
    assert _visitor(peer) == visitor


def test_two_ipv6_networks_are_two_visitors() -> None:
    assert _visitor(("2001:db8:1:2::1", 1, 0, 0)) != _visitor(("2001:db8:1:3::1", 1, 0, 0))
