"""WebSocket clients that stop reading are closed even while a send is blocked on a full TCP buffer
(issue 16, item 11): the connection's send timeout closes them, and their memory is given back."""

import time

from harness import Server, open_silent_websocket, read_all_until_closed, wait_until


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_viewers_blocked_on_a_full_buffer_are_closed():
    # A long heartbeat, so only the send timeout can close them: the pings queue behind the blocked send.
    with Server("--send-timeout", "2", "--heartbeat-seconds", "600") as server:
        visitor, agent = server.start_visitor(), server.agent_token()
        conversation = server.start_conversation(visitor)
        assert server.post(f"/agent/v1/conversations/{conversation['id']}/accept", headers=_bearer(agent)).status_code == 200
        session = server.post(f"/agent/v1/conversations/{conversation['id']}/cobrowsing", headers=_bearer(agent)).json()["id"]
        assert server.post(f"/mobile/v1/cobrowsing/{session}/accept", headers=_bearer(visitor)).status_code == 200
        viewers = [open_silent_websocket(server, f"/agent/v1/cobrowsing/{session}/frames?token={agent}", rcvbuf=2048) for _ in range(20)]
        # 250 KB frames at 5 fps: more than a loopback socket's kernel buffer (up to 4 MB) within a few seconds.
        with server.client() as http:
            sequence = 0
            deadline = time.monotonic() + 12
            while time.monotonic() < deadline:
                sequence += 1
                image = b"\xff\xd8\xff\xe0" + sequence.to_bytes(4, "big") * 62_000
                answer = http.post(
                    f"/mobile/v1/cobrowsing/{session}/frames", content=image,
                    headers={**_bearer(visitor), "Content-Type": "image/jpeg", "x-frame-sequence": str(sequence), "x-frame-width": "390", "x-frame-height": "844"},
                )
                assert answer.status_code in (202, 429), answer.text
                time.sleep(0.2)
        results = read_all_until_closed(viewers, timeout=30)
        for sock in viewers:
            sock.close()
        still_open = sum(1 for _, closed in results if not closed)
        assert still_open == 0, f"{still_open} of 20 stalled viewers were never closed"
        assert server.get("/healthz").status_code == 200


def test_non_reading_event_sockets_are_closed_and_memory_returns():
    # 200 sockets of one agent session: above the default per-client cap of live sockets.
    with Server("--send-timeout", "2", "--heartbeat-seconds", "2", "--max-live-per-client", "250") as server:
        visitor, agent = server.start_visitor(), server.agent_token()
        baseline_rss = server.rss_kib()
        silent = [open_silent_websocket(server, f"/agent/v1/events?token={agent}", rcvbuf=2048) for _ in range(200)]
        conversation = server.start_conversation(visitor)
        assert server.post(f"/agent/v1/conversations/{conversation['id']}/accept", headers=_bearer(agent)).status_code == 200
        for n in range(40):
            sent = server.post(
                f"/mobile/v1/conversations/{conversation['id']}/messages", json={"text": f"{n:03d}" + "m" * 16000}, headers=_bearer(visitor)
            )
            assert sent.status_code in (200, 201), sent.text
        peak_rss = server.rss_kib()
        results = read_all_until_closed(silent, timeout=60)
        for sock in silent:
            sock.close()
        still_open = sum(1 for _, closed in results if not closed)
        assert still_open == 0, f"{still_open} of 200 non-reading clients were never closed"
        assert wait_until(lambda: server.open_fds() < 100, timeout=20), f"{server.open_fds()} descriptors still open"
        print(f"    RSS {baseline_rss} KiB before, {peak_rss} KiB with 200 stalled sockets, {server.rss_kib()} KiB after")
        assert server.get("/healthz").status_code == 200
