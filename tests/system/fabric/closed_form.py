# SPDX-License-Identifier: BSD-3-Clause
"""The alpha-beta model of an all-reduce on an idle fabric, as lib/gen's
engines run it (lib/gen/ibex_gen_coll.c), for the virtual-clock tests
(test_fabric_virtual.sh, test_fabric_virtual_ranks.sh).

Rank r begins step s when its input of step s-1 has arrived (its sends
complete at once: they fit the NIC's TX ring); a chunk goes as frames of
at most PAYLOAD bytes, back to back; every hop is store-and-forward at its
link's rate, and a link carries one frame at a time. A path is a list of
(link, delay ps): the link's key (any hashable) and its propagation delay
plus the latency of the switch that sends on it.
"""
import math

HDR = 54 + 24 + 4       # Ethernet, IPv4, UDP, BTH; the generator's trailer; ICRC
PAYLOAD = 1514 - HDR    # --mtu 1514 (lib/gen/ibex_gen_frame.h)


def wire_ps(L, rate):
    """The wire's occupancy by a frame of L bytes: preamble, FCS and gap too."""
    return (max(L, 60) + 24) * 8 * 1e12 / rate


def lastbit_ps(L, rate):
    """First bit sent to last bit arrived, the gap left out."""
    return (max(L, 60) + 12) * 8 * 1e12 / rate


def frames(nb):
    """The frame lengths of a chunk of nb bytes."""
    n = max(1, math.ceil(nb / PAYLOAD))
    return [HDR + p for p in [PAYLOAD] * (n - 1) + [nb - PAYLOAD * (n - 1)]]


def ring_steps(n, S):
    """Per step, per rank: (peer, bytes) of a ring all-reduce of S bytes."""
    return [[((r + 1) % n, S // n) for r in range(n)]] * (2 * (n - 1))


def hd_steps(n, S):
    """The same of halving-doubling (n a power of two)."""
    lg = n.bit_length() - 1
    return ([[(r ^ (n >> (k + 1)), S >> (k + 1)) for r in range(n)]
             for k in range(lg)] +
            [[(r ^ (1 << k), (S // n) << k) for r in range(n)]
             for k in range(lg)])


def completion_us(steps, n, rate, path):
    """When the last rank has its result, in us."""
    free, begin = {}, [0.0] * n
    for st in steps:
        arrive = [0.0] * n
        for r, (peer, nb) in enumerate(st):
            for L in frames(nb):
                t = begin[r]
                for link, d in path(r, peer):
                    start = max(t, free.get(link, 0.0))
                    free[link] = start + wire_ps(L, rate)
                    t = start + lastbit_ps(L, rate) + d
                arrive[peer] = max(arrive[peer], t)
        begin = [max(b, a) for b, a in zip(begin, arrive)]
    return max(begin) / 1e6
