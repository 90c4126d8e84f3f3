"""Oversized WebSocket frames and messages are closed with 1009 at once; live sockets are capped per
client and per account, refused before the upgrade with a typed 429 (issue 25, item 15)."""

import asyncio
import time

from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import ConnectionClosed

from harness import Server, connect, parse_response, read_until_closed, typed_error, wait_until, websocket_handshake

MIB = 1024 * 1024
# A bound under test plus this much for a loaded machine.
SLACK = 6


async def _close_code_after(ws, send) -> int | None:
    """Runs `send`, then reads until the server closes; the close code the server sent, if any."""
    try:
        await send()
        while True:
            await ws.recv()
    except ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None


def _close_code(data: bytes) -> int | None:
    """The code of the first close frame among the server's (unmasked) frames in `data`."""
    offset = 0
    while offset + 2 <= len(data):
        first, length = data[offset], data[offset + 1] & 0x7F
        offset += 2
        if length in (126, 127):
            size = 2 if length == 126 else 8
            length = int.from_bytes(data[offset:offset + size], "big")
            offset += size
        payload = data[offset:offset + length]
        offset += length
        if first & 0x0F == 0x8:
            return int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
    return None


def _read_close_code(sock, timeout: float) -> int | None:
    """Reads the server's frames until its close frame (its code) or the end of the connection or `timeout` (None)."""
    received = b""
    deadline = time.monotonic() + timeout
    while _close_code(received) is None and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            chunk = sock.recv(65536)
        except (TimeoutError, OSError):
            break
        if not chunk:
            break
        received += chunk
    return _close_code(received)


def test_oversized_frames_are_closed_with_1009_every_time():
    # A client that writes the whole frame before it reads (a blocking socket): the server must answer
    # 1009 and close without resetting the connection under the frame, which would destroy the close
    # frame for clients that give up on the reset. 4 MiB is over the WebSocket frame bound (1 MiB),
    # 600 KiB under it but over the live socket's message bound (256 KiB + 4 KiB). A long heartbeat:
    # nothing else closes these sockets.
    with Server("--heartbeat-seconds", "300") as server:
        outcomes = []
        for size in [4 * MIB] * 5 + [600 * 1024] * 3:
            # FIN + binary, a 64-bit length, a zero mask (the payload goes as it is).
            frame = bytes([0x82, 0x80 | 127]) + size.to_bytes(8, "big") + b"\0\0\0\0" + b"\0" * size
            token = server.start_visitor()
            sock, refusal = _upgrade(server, token)
            assert sock, refusal
            try:
                sock.sendall(frame)
                reset = None
            except OSError as error:
                reset = type(error).__name__
            outcomes.append((_read_close_code(sock, timeout=SLACK), reset))
            sock.close()
        assert outcomes == [(1009, None)] * 8, f"(close code, error while sending) for 5 frames of 4 MiB, 3 of 600 KiB: {outcomes}"
        assert server.get("/healthz").status_code == 200


async def test_a_50_mib_fragmented_message_is_closed_with_1009_at_once():
    with Server("--heartbeat-seconds", "300") as server:
        token = server.start_visitor()
        async with ws_connect(server.ws_url(f"/mobile/v1/events?token={token}"), max_size=None, open_timeout=10) as ws:

            async def fragments():
                for _ in range(50 * 16):
                    yield b"\0" * (64 * 1024)

            started = time.monotonic()
            code = await asyncio.wait_for(_close_code_after(ws, lambda: ws.send(fragments())), timeout=SLACK)
            assert code == 1009, f"closed with {code} after {time.monotonic() - started:.1f} s"
        assert server.get("/healthz").status_code == 200


def _upgrade(server: Server, token: str):
    """A raw upgrade to the visitor's event socket: the open socket (after a 101) or the refusal."""
    sock = connect(server)
    sock.sendall(websocket_handshake(f"/mobile/v1/events?token={token}", server.port))
    sock.settimeout(10)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            break
        head += chunk
    if head.startswith(b"HTTP/1.1 101"):
        return sock, None
    rest, _ = read_until_closed(sock, timeout=5)
    sock.close()
    return None, head + rest


def test_live_sockets_are_capped_per_client_and_per_account():
    with Server("--max-live-per-client", "3", "--max-live-per-account", "5", "--heartbeat-seconds", "300") as server:
        first, second, third = server.start_visitor(), server.start_visitor(), server.start_visitor()
        held = []
        for _ in range(3):
            sock, refusal = _upgrade(server, first)
            assert sock, refusal
            held.append(sock)
        # One visitor's fourth socket is refused before the upgrade, with the typed body.
        sock, refusal = _upgrade(server, first)
        assert sock is None, "a fourth live socket of one client was upgraded"
        status, _, body = parse_response(refusal)
        assert status == 429 and typed_error(body)["type"] == "RATE_LIMITED", refusal
        assert "--max-live-per-client" in typed_error(body)["message"]
        # Another visitor of the account gets the account's rest, then the account is full.
        for _ in range(2):
            sock, refusal = _upgrade(server, second)
            assert sock, refusal
            held.append(sock)
        sock, refusal = _upgrade(server, third)
        assert sock is None and parse_response(refusal)[0] == 429 and b"--max-live-per-account" in refusal, refusal
        # Closing a socket gives its place back.
        held.pop(0).close()

        def reopened() -> bool:
            sock, _ = _upgrade(server, first)
            if sock:
                held.append(sock)
            return sock is not None

        assert wait_until(reopened, timeout=10), "a closed socket's place was not given back"
        for sock in held:
            sock.close()


def test_an_account_gets_a_quarter_of_the_connections_by_default():
    # 20 connections: without --max-live-per-account an account holds 5 live sockets, so the other
    # accounts (and /healthz) keep the rest.
    with Server("--max-connections", "20", "--max-live-per-client", "8", "--heartbeat-seconds", "300") as server:
        first, second = server.start_visitor(), server.start_visitor()
        held = []
        try:
            for token in [first] * 3 + [second] * 2:
                sock, refusal = _upgrade(server, token)
                assert sock, refusal
                held.append(sock)
            sock, refusal = _upgrade(server, second)
            assert sock is None, "a sixth socket of the account was upgraded"
            assert parse_response(refusal)[0] == 429 and b"--max-live-per-account" in refusal, refusal
        finally:
            for sock in held:
                sock.close()
