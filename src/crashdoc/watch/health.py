"""Polling a server's health endpoint from a background thread. Refused, timed out or non-2xx is "not up yet",
never an error: a server that is still loading its weights does not answer."""

from __future__ import annotations

import http.client
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from crashdoc.errors import InputError


@dataclass(frozen=True)
class HealthState:
    """The latest answer of the health endpoint."""

    up: bool
    detail: str
    """`HTTP 200`, `connection refused`, `no answer within 2 s`, `HTTP 503` ..."""
    checks: int
    since: float
    """Wall-clock time the endpoint entered this up/down state."""
    ever_up: bool


def check_url(url: str) -> str:
    """The URL, if crashdoc can poll it; otherwise a one-line error."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--health {url!r}: give an http:// or https:// URL, e.g. http://127.0.0.1:8000/health")
    return url


def probe(url: str, timeout: float) -> tuple[bool, str]:
    """One GET: (up, detail). Proxies from the environment are not used: health endpoints are local."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(urllib.request.Request(url, method="GET"), timeout=timeout) as resp:
            code = resp.getcode()
            return 200 <= code < 300, f"HTTP {code}"
    except urllib.error.HTTPError as exc:
        return False, f"HTTP {exc.code}"
    except urllib.error.URLError as exc:
        return False, _reason(exc.reason, timeout)
    except TimeoutError:
        return False, f"no answer within {timeout:g} s"
    except (http.client.HTTPException, ConnectionError, OSError) as exc:
        return False, _reason(exc, timeout)


def _reason(reason: object, timeout: float) -> str:
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused"
    if isinstance(reason, (socket.timeout, TimeoutError)):
        return f"no answer within {timeout:g} s"
    if isinstance(reason, socket.gaierror):
        return f"host name not found ({reason.strerror})"
    if isinstance(reason, http.client.RemoteDisconnected):
        return "connection closed without an answer"
    if isinstance(reason, OSError) and reason.strerror:
        return reason.strerror.lower()
    return str(reason) or type(reason).__name__


class HealthPoller:
    """GETs the URL every `interval` seconds in a daemon thread; `state` is the latest answer (None before)."""

    def __init__(self, url: str, interval: float = 1.0, timeout: float = 2.0) -> None:
        self.url = check_url(url)
        self.interval = interval
        self.timeout = timeout
        self.state: HealthState | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="crashdoc-health", daemon=True)

    def start(self) -> HealthPoller:
        """Begin polling."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop polling (the thread ends after its current request)."""
        self._stop.set()

    def _run(self) -> None:
        checks = 0
        while not self._stop.is_set():
            begin = time.monotonic()
            up, detail = probe(self.url, self.timeout)
            checks += 1
            old = self.state
            now = time.time()
            since = old.since if old is not None and old.up == up else now
            self.state = HealthState(up, detail, checks, since, up or bool(old and old.ever_up))
            self._stop.wait(max(self.interval - (time.monotonic() - begin), 0.05))

    def down_for(self, now: float | None = None) -> float:
        """Seconds the endpoint has been not up (0 while up or before the first answer)."""
        st = self.state
        if st is None or st.up:
            return 0.0
        return (time.time() if now is None else now) - st.since
