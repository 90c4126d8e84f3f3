"""Malformed and oversized requests, slowloris, idle floods, the connection cap (issue 16, item 7),
and the anonymous ops routes and refused WebSocket upgrades (item 12)."""

import socket
import time

from harness import Server, connect, parse_response, raw_exchange, read_all_until_closed, read_until_closed, typed_error, wait_until, websocket_handshake


def test_malformed_request_line_gets_400_and_close():
    with Server() as server:
        for garbage in (b"GARBAGE\r\n\r\n", b"GET\r\n\r\n", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40):
            data, closed = raw_exchange(server, garbage, timeout=5)
            assert closed, f"{garbage!r}: connection left open"
            status, _, body = parse_response(data)
            assert status == 400, data
            assert typed_error(body)["type"] == "BAD_REQUEST"
        # A parse error after a good request on a kept-alive connection: 400, then closed.
        data, closed = raw_exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n", timeout=5)
        assert closed and b"200 OK" in data and b"400 Bad Request" in data, data
        assert server.get("/healthz").status_code == 200


def test_oversized_headers_get_431_and_close():
    with Server() as server:
        data, closed = raw_exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 200_000 + b"\r\n\r\n")
        assert closed
        status, _, body = parse_response(data)
        assert status == 431, data
        assert typed_error(body)["status"] == 431
        many = b"".join(b"X-H%d: v\r\n" % i for i in range(2000))
        data, closed = raw_exchange(server, b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n")
        assert closed and parse_response(data)[0] in (400, 431), data[:200]


def test_slowloris_connections_are_closed_by_the_header_timeout():
    with Server("--header-timeout", "2", "--idle-timeout", "3") as server:
        # 300 connections trickling a request head one byte at a time, and 100 that finished one
        # request and then trickle the next (covered by the idle timeout).
        fresh = [connect(server) for _ in range(300)]
        kept = []
        for _ in range(100):
            sock = connect(server)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            kept.append(sock)
        request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
        open_ = set(range(400))
        deadline = time.monotonic() + 30
        index = 0
        while open_ and time.monotonic() < deadline and index < len(request):
            for n in list(open_):
                sock = fresh[n] if n < 300 else kept[n - 300]
                try:
                    sock.sendall(request[index:index + 1])
                except OSError:
                    open_.discard(n)
            index += 1
            # Reading also notices the close (the 408 answer or EOF).
            for n in list(open_):
                sock = fresh[n] if n < 300 else kept[n - 300]
                sock.setblocking(False)
                try:
                    while True:
                        chunk = sock.recv(65536)
                        if not chunk:
                            open_.discard(n)
                            break
                except BlockingIOError:
                    pass
                except OSError:
                    open_.discard(n)
                finally:
                    sock.setblocking(True)
            time.sleep(0.5)
        for sock in fresh + kept:
            sock.close()
        assert not open_, f"{len(open_)} slowloris connections were never closed"
        assert server.get("/healthz").status_code == 200


def test_idle_flood_is_capped_and_healthz_keeps_answering():
    with Server("--max-connections", "1500", "--header-timeout", "60") as server:
        idle = [connect(server) for _ in range(1400)]
        # Under the cap, /healthz answers while 1,400 idle connections are open.
        assert server.get("/healthz").status_code == 200
        # Beyond the cap, new connections get a clear 503 and are closed (not left in the backlog).
        extra = [connect(server) for _ in range(600)]
        refused = 0
        for data, closed in read_all_until_closed(extra, timeout=5):
            if closed and data.startswith(b"HTTP/1.1 503"):
                refused += 1
                status, headers, body = parse_response(data)
                assert headers.get("retry-after") == "1" and typed_error(body)["type"] == "UNAVAILABLE"
        assert refused >= 500, f"only {refused} of 600 connections beyond the cap were refused"
        for sock in extra:
            sock.close()
        # Freeing a few slots lets /healthz through again, at once.
        for sock in idle[:200]:
            sock.close()
        deadline = time.monotonic() + 10
        while server.get("/healthz").status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.get("/healthz").status_code == 200
        for sock in idle[200:]:
            sock.close()
        assert wait_until(lambda: server.open_fds() < 200, timeout=20), f"{server.open_fds()} descriptors still open after the flood"


def test_anonymous_ops_routes_ignore_malformed_credentials():
    with Server() as server:
        for path in ("/healthz", "/readyz", "/metrics", "/openapi.json"):
            for value in ("garbage", "Bearer", "Basic !!!", "Bearer unknown-token", "Negotiate abc"):
                response = server.get(path, headers={"Authorization": value})
                assert response.status_code == 200, (path, value, response.status_code, response.text[:200])
        # Everything else still refuses a malformed header.
        assert server.get("/agent/v1/queue", headers={"Authorization": "garbage"}).status_code == 401


def test_refused_websocket_upgrade_answers_a_typed_401():
    with Server() as server:
        for path, headers in (
            ("/mobile/v1/events", {}),
            ("/mobile/v1/events?token=not-a-token", {}),
            ("/agent/v1/events", {"Authorization": "Bearer not-a-token"}),
            ("/agent/v1/events?token=not-a-token", {}),
        ):
            data, closed = raw_exchange(server, websocket_handshake(path, server.port, headers), timeout=5)
            assert closed, path
            status, response_headers, body = parse_response(data)
            assert status == 401, (path, data[:300])
            assert response_headers.get("content-type", "").startswith("application/json")
            assert typed_error(body)["status"] == 401
        # An unknown path is a 404, not an empty 400.
        data, _ = raw_exchange(server, websocket_handshake("/no/such/socket", server.port), timeout=5)
        assert parse_response(data)[0] == 404, data[:300]
        # A good token still upgrades.
        token = server.start_visitor()
        with connect(server) as sock:
            sock.sendall(websocket_handshake(f"/mobile/v1/events?token={token}", server.port))
            sock.settimeout(5)
            assert sock.recv(12) == b"HTTP/1.1 101"
