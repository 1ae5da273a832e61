"""Timestamps as the tools print them, cached per second (generation writes millions of lines).

Every time is an integer of microseconds since the epoch, UTC. A `Stamp` formats the whole-second part
with strftime once per new second; the fraction, where a format has one, is appended per line.
"""

from __future__ import annotations

import time

SEC = 1_000_000


class Stamp:
    """One strftime format, cached for the last second asked for."""

    __slots__ = ("fmt", "s", "v")

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.s = -1
        self.v = ""

    def __call__(self, us: int) -> str:
        s = us // SEC
        if s != self.s:
            self.s = s
            self.v = time.strftime(self.fmt, time.gmtime(s))
        return self.v


class Clocks:
    """All the formats one log needs; each has its own cache (a line mixes an outer and an inner time)."""

    def __init__(self) -> None:
        self.short = Stamp("%b %d %H:%M:%S")               # journalctl -o short / short-precise
        self.iso = Stamp("%Y-%m-%dT%H:%M:%S+0000")        # journalctl -o short-iso (systemd 252)
        self.rfc = Stamp("%Y-%m-%dT%H:%M:%S")             # docker / CRI RFC3339Nano, TGI
        self.vllm = Stamp("%m-%d %H:%M:%S")               # vLLM logger
        self.sgl = Stamp("%Y-%m-%d %H:%M:%S")             # SGLang logger
        self.glog = Stamp("%m%d %H:%M:%S")                # torch c10 [W1124 05:12:33.123456789 ...]
        self.tgi = Stamp("%Y-%m-%dT%H:%M:%S")

    def precise(self, us: int) -> str:
        """`Nov 24 05:12:33.123456`"""
        return f"{self.short(us)}.{us % SEC:06d}"

    def nano(self, us: int) -> str:
        """RFC3339Nano as Go prints it (trailing zeros of the fraction dropped): docker json-file, CRI."""
        ns = (us % SEC) * 1000 + (us * 7919) % 1000
        frac = f"{ns:09d}".rstrip("0")
        return f"{self.rfc(us)}.{frac}Z" if frac else f"{self.rfc(us)}Z"

    def tgi_ts(self, us: int) -> str:
        """TGI (tracing-subscriber): `2024-05-14T09:00:00.123456Z`."""
        return f"{self.tgi(us)}.{us % SEC:06d}Z"

    def c10(self, us: int) -> str:
        """torch c10 log time: `1124 05:12:33.123456789`."""
        return f"{self.glog(us)}.{(us % SEC) * 1000 + (us * 31) % 1000:09d}"


def epoch_us(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0) -> int:
    """UTC wall time as microseconds since the epoch."""
    import calendar

    return calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0)) * SEC
