"""The small parts: the bounded capture, the line splitter, the health poller (against real sockets)."""

from __future__ import annotations

import http.server
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from crashdoc.errors import InputError
from crashdoc.watch.capture import Capture
from crashdoc.watch.health import HealthPoller, check_url, probe
from crashdoc.watch.splitter import LineSplitter
from tests.support.net import free_port


def test_capture_keeps_everything_while_small() -> None:
    cap = Capture(head=100, segment=50)
    data = b"".join(b"line %d\n" % i for i in range(20))
    for i in range(0, len(data), 7):
        cap.write(data[i:i + 7])
    with cap.stream() as s:
        assert s.read() == data
    assert cap.dropped == 0
    cap.close()


def test_capture_keeps_head_and_tail_and_says_what_it_dropped() -> None:
    cap = Capture(head=64, segment=64)
    lines = [b"line %04d\n" % i for i in range(200)]  # 2000 bytes
    for ln in lines:
        cap.write(ln)
    with cap.stream() as s:
        got = s.read()
    assert cap.dropped > 0 and cap.total == 2000
    assert got.startswith(b"".join(lines[:6]))  # the head
    assert got.endswith(b"".join(lines[-6:]))  # the tail
    assert b"bytes of this attempt's output were not kept" in got
    after_note = got.split(b"were not kept]\n", 1)[1]
    assert after_note.startswith(b"line ")  # the tail starts at a whole line
    assert len(got) < 64 * 3 + 200
    cap.reset()
    cap.write(b"new attempt\n")
    with cap.stream() as s:
        assert s.read() == b"new attempt\n"
    cap.close()


# --- splitter -------------------------------------------------------------------------------------------------


def test_splitter_lines_progress_and_endless_lines() -> None:
    sp = LineSplitter(max_line=50)
    assert sp.feed(b"one\ntw") == [b"one"]
    assert sp.feed(b"o\n") == [b"two"]
    assert sp.feed(b"\rLoading:  10%") == []
    assert sp.progress_update() is None  # the piece after the last \r may be incomplete
    assert sp.feed(b"\rLoading:  50%\r") == []
    assert sp.progress_update() == b"Loading:  50%"
    assert sp.progress_update() is None  # once per piece
    assert sp.feed(b"Loading: 100%\n") == [b"\rLoading:  10%\rLoading:  50%\rLoading: 100%"]
    assert sp.feed(b"x" * 120) == [b"x" * 50]
    assert sp.feed(b"yyy\nlast") == []  # the rest of the endless line is dropped
    assert sp.flush() == b"last"


# --- health -----------------------------------------------------------------------------------------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    code = 503

    def do_GET(self) -> None:
        self.send_response(_Handler.code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}/health"
    srv.shutdown()
    srv.server_close()


def test_probe_answers(server: str) -> None:
    _Handler.code = 503
    assert probe(server, 2) == (False, "HTTP 503")
    _Handler.code = 200
    assert probe(server, 2) == (True, "HTTP 200")


def test_probe_refused_and_silent() -> None:
    assert probe(f"http://127.0.0.1:{free_port()}/health", 1) == (False, "connection refused")
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(5)  # accepts (the kernel does) but never answers
    try:
        up, detail = probe(f"http://127.0.0.1:{silent.getsockname()[1]}/health", 0.5)
        assert not up and detail == "no answer within 0.5 s"
    finally:
        silent.close()


def test_poller_tracks_up_and_down(server: str) -> None:
    _Handler.code = 503
    poller = HealthPoller(server, interval=0.05).start()
    try:
        deadline = time.time() + 5
        while poller.state is None and time.time() < deadline:
            time.sleep(0.02)
        assert poller.state is not None and not poller.state.up and not poller.state.ever_up
        _Handler.code = 200
        while not (poller.state and poller.state.up) and time.time() < deadline:
            time.sleep(0.02)
        assert poller.state.up and poller.down_for() == 0.0
        _Handler.code = 500
        while poller.state.up and time.time() < deadline:
            time.sleep(0.02)
        assert not poller.state.up and poller.state.ever_up and poller.down_for() >= 0.0
    finally:
        poller.stop()


@pytest.mark.parametrize("url", ["localhost:8000/health", "ftp://x/health", "http:///health"])
def test_bad_health_url(url: str) -> None:
    with pytest.raises(InputError):
        check_url(url)
