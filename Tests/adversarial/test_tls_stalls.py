"""Stalled TLS connections are closed within their bounds and count toward --max-connections (issue 25,
item 7); HTTP/2 connections honour --idle-timeout (item 8)."""

import struct
import tempfile
import time

from harness import (
    Server, client_hello, connect, parse_response, read_all_until_closed, read_until_closed, tls_args, tls_connect, typed_error,
)

# A bound under test plus this much for a loaded machine.
SLACK = 6


def test_stalled_tls_connections_are_closed_within_their_timeouts():
    with tempfile.TemporaryDirectory() as data, Server(
        *tls_args(data), "--handshake-timeout", "2", "--header-timeout", "2", "--idle-timeout", "300"
    ) as server:
        started = time.monotonic()
        silent = connect(server)
        half = connect(server)
        half.sendall(client_hello()[:40])
        # Each closed by the handshake timeout: nothing, or half a ClientHello, never a finished handshake.
        for (data_, closed), name in zip(read_all_until_closed([silent, half], timeout=2 + SLACK), ("silent", "half a ClientHello")):
            assert closed, f"a {name} connection was still open after {time.monotonic() - started:.1f} s"
        silent.close()
        half.close()

        # Handshaken over HTTP/1.1 without a request: the header timeout answers 408 over TLS.
        started = time.monotonic()
        http1 = tls_connect(server, ["http/1.1"])
        answer, closed = read_until_closed(http1, timeout=2 + SLACK)
        assert closed, f"a handshaken HTTP/1.1 connection without a request was open after {time.monotonic() - started:.1f} s"
        status, headers, body = parse_response(answer)
        assert status == 408 and typed_error(body)["status"] == 408, answer
        http1.close()

        # Handshaken over HTTP/2 without a stream: closed (no stream to answer on).
        started = time.monotonic()
        h2 = tls_connect(server, ["h2"])
        assert h2.selected_alpn_protocol() == "h2"
        _, closed = read_until_closed(h2, timeout=2 + SLACK)
        assert closed, f"a handshaken HTTP/2 connection without a request was open after {time.monotonic() - started:.1f} s"
        h2.close()


def test_tls_connections_count_toward_max_connections():
    with tempfile.TemporaryDirectory() as data, Server(
        *tls_args(data), "--max-connections", "4", "--handshake-timeout", "60", "--header-timeout", "60"
    ) as server:
        held = [tls_connect(server, ["http/1.1"]) for _ in range(4)]
        # Beyond the cap a TLS connection is closed before its handshake.
        extra = connect(server)
        received, closed = read_all_until_closed([extra], timeout=5)[0]
        assert closed and received == b"", f"a connection beyond the cap got {received[:80]!r} (closed: {closed})"
        extra.close()
        # Freeing a place lets a new one through.
        held.pop().close()
        deadline = time.monotonic() + 10
        while True:
            try:
                fresh = tls_connect(server, ["http/1.1"])
                fresh.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                answer, _ = read_until_closed(fresh, timeout=5)
                fresh.close()
                if answer.startswith(b"HTTP/1.1 200"):
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "no TLS connection was admitted after one of the held ones closed"
            time.sleep(0.1)
        for sock in held:
            sock.close()


def _frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def _frame_types(data: bytes) -> list[tuple[int, int]]:
    """(type, stream) of every whole HTTP/2 frame in `data`."""
    frames, offset = [], 0
    while offset + 9 <= len(data):
        length = int.from_bytes(data[offset:offset + 3], "big")
        frames.append((data[offset + 3], int.from_bytes(data[offset + 5:offset + 9], "big") & 0x7FFFFFFF))
        offset += 9 + length
    return frames


# The client preface and an empty SETTINGS frame, then GET /healthz (HPACK: :method GET, :scheme https,
# :path and :authority as literals with indexed names).
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + _frame(0x4, 0, 0)
HEALTHZ = b"\x82\x87\x04\x08/healthz\x01\x09localhost"


def _answered(sock, received: bytearray, stream: int, timeout: float) -> bool:
    """Reads into `received` (everything the connection sent) until the response HEADERS of `stream`
    arrive (True), or the connection closes or `timeout` passes (False)."""
    deadline = time.monotonic() + timeout
    while (0x1, stream) not in _frame_types(bytes(received)):
        if time.monotonic() >= deadline:
            return False
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, OSError):
            return False
        if not chunk:
            return False
        received += chunk
    return True


def test_http2_requests_are_served_past_the_header_timeout():
    # The header timeout ends with the first request: a connection in use outlives it.
    header = 2
    with tempfile.TemporaryDirectory() as data, Server(*tls_args(data), "--header-timeout", str(header), "--idle-timeout", "60") as server:
        h2 = tls_connect(server, ["h2"])
        received = bytearray()
        h2.sendall(PREFACE + _frame(0x1, 0x5, 1, HEALTHZ))
        assert _answered(h2, received, 1, timeout=SLACK), "no answer to the first request"
        time.sleep(header + 1)
        h2.sendall(_frame(0x1, 0x5, 3, HEALTHZ))
        assert _answered(h2, received, 3, timeout=SLACK), f"the connection did not answer a request {header + 1} s after its first (--header-timeout {header})"
        h2.close()


def test_http2_connections_close_after_the_idle_timeout():
    # After --idle-timeout without streams the server sends a GOAWAY and a PING; this client never
    # answers the PING (a real one would, and be closed at once), so the shutdown timeout ends it.
    idle, shutdown = 2, 2
    with tempfile.TemporaryDirectory() as data, Server(
        *tls_args(data), "--idle-timeout", str(idle), "--shutdown-timeout", str(shutdown), "--header-timeout", "60"
    ) as server:
        h2 = tls_connect(server, ["h2"])
        assert h2.selected_alpn_protocol() == "h2"
        h2.sendall(PREFACE + _frame(0x1, 0x5, 1, HEALTHZ))
        started = time.monotonic()
        received, closed = read_until_closed(h2, timeout=idle + shutdown + SLACK)
        h2.close()
        assert (0x1, 1) in _frame_types(received), "no response HEADERS on stream 1"
        assert closed, f"an idle HTTP/2 connection was still open {time.monotonic() - started:.1f} s after its request (--idle-timeout {idle}, --shutdown-timeout {shutdown})"
        assert (0x7, 0) in _frame_types(received), "the server closed without a GOAWAY"
