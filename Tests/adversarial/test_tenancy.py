"""Tenants must not starve each other, nor steer the server with a header (issue 25, items 2, 3, 4, 5, 6,
11 and 12), against the real process: every shared budget is per account, absolute links come from the
server's own URL, a refused snapshot import leaves every stored byte as it was, and a name Windows would
save as `run.bat` is refused like `run.bat`."""

from __future__ import annotations

import base64
import hashlib
import json
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import quote

from harness import Server, connect, parse_response, wait_until

PNG = b"\x89PNG\r\n\x1a\n"

# A second tenant beside the default one: its own API key, area and admin.
OTHER_TENANT = {
    "accounts": [
        {
            "name": "other",
            "apiKeys": [{"key": "other-key"}],
            "namedAreas": [{"siteId": "other-area", "name": "Other"}],
            "users": [{"username": "other-admin", "password": "other-pw", "role": "ADMIN"}],
        }
    ]
}


def _bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _with_other_tenant(server: Server) -> None:
    answer = server.post("/_mock/v1/seed", json=OTHER_TENANT, headers=server.control)
    assert answer.status_code == 200, answer.text


def _upload(server: Server, token: str, conversation: str, body: bytes, name: str = "p.png"):
    # Spaces as %20: httpx's query parameters would send them as '+', which the server keeps.
    return server.post(
        f"/mobile/v1/conversations/{conversation}/files?name={quote(name, safe='')}", content=body,
        headers={**_bearer(token), "Content-Type": "application/octet-stream"},
    )


class _Trickle(threading.Thread):
    """An upload announcing 10,000 bytes that sends one every two seconds until it is answered."""

    def __init__(self, server: Server, token: str, conversation: str):
        super().__init__(daemon=True)
        self.sock = connect(server)
        head = (
            f"POST /mobile/v1/conversations/{conversation}/files?name=slow.png HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nContent-Type: image/png\r\nContent-Length: 10000\r\n\r\n"
        )
        self.sock.sendall(head.encode() + PNG)
        self.status: int | None = None
        self.stop = threading.Event()

    def run(self) -> None:
        received = b""
        while not self.stop.is_set():
            readable, _, _ = select.select([self.sock], [], [], 2)
            if readable:
                try:
                    chunk = self.sock.recv(4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    return
                received += chunk
                if b"\r\n" in received:
                    self.status = int(received.split(b"\r\n", 1)[0].split()[1])
                    return
            else:
                try:
                    self.sock.sendall(b"\x00")
                except OSError:
                    return

    def close(self) -> None:
        self.stop.set()
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()


def test_slow_uploads_of_one_tenant_leave_the_other_tenants_uploads():
    # The setting: 16 uploads trickling a byte every 2 s, which the idle timeout never cuts.
    with Server("--idle-timeout", "3") as server:
        _with_other_tenant(server)
        greedy = server.start_visitor()
        greedy_conversation = server.start_conversation(greedy)["id"]
        trickles = [_Trickle(server, greedy, greedy_conversation) for _ in range(16)]
        for trickle in trickles:
            trickle.start()
        try:
            quiet = server.start_visitor(api_key="other-key", named_area="other-area")
            quiet_conversation = server.start_conversation(quiet)["id"]
            answer = _upload(server, quiet, quiet_conversation, PNG + b"x" * 59)
            assert answer.status_code == 201, f"another tenant's upload beside 16 slow ones: {answer.status_code} {answer.text}"
            # The greedy account holds its share (4 of 16) and the rest is refused at once; the ones it holds
            # fall behind the minimum rate (1 KiB/s after 10 s) and are answered 408.
            assert wait_until(lambda: all(t.status is not None or not t.is_alive() for t in trickles), timeout=40), "slow uploads never answered"
            statuses = sorted(t.status for t in trickles if t.status is not None)
            assert statuses.count(429) == 12, statuses
            assert statuses.count(408) == 4, statuses
        finally:
            for trickle in trickles:
                trickle.close()


def test_one_tenant_filling_the_file_quota_leaves_room_for_another():
    # 40,000 bytes for the server, so each account may keep 10,000.
    with Server("--file-quota", "40000") as server:
        _with_other_tenant(server)
        greedy = server.start_visitor()
        conversation = server.start_conversation(greedy)["id"]
        statuses = [_upload(server, greedy, conversation, PNG + bytes([n]) * 3992).status_code for n in range(12)]
        assert 507 in statuses, statuses
        assert statuses.count(201) == 2, f"one account keeps at most its quarter: {statuses}"
        quiet = server.start_visitor(api_key="other-key", named_area="other-area")
        quiet_conversation = server.start_conversation(quiet)["id"]
        answer = _upload(server, quiet, quiet_conversation, PNG + b"y" * 59)
        assert answer.status_code == 201, f"another tenant's 67-byte upload: {answer.status_code} {answer.text}"


def test_one_admins_fault_rules_leave_other_tenants_and_the_control_token_their_budget():
    with Server() as server:
        _with_other_tenant(server)
        admin = ("admin", "admin")
        accepted = 0
        with server.client() as http:
            while accepted < 300:
                answer = http.post("/_mock/v1/faults", auth=admin, json={"match": {"path": f"/x/{accepted}"}, "action": {"type": "ERROR"}})
                if answer.status_code != 201:
                    assert answer.status_code == 429, answer.text
                    break
                accepted += 1
            assert accepted == 64, f"the demo admin held {accepted} rules"
            other = http.post("/_mock/v1/faults", auth=("other-admin", "other-pw"), json={"match": {"path": "/o"}, "action": {"type": "ERROR"}})
            assert other.status_code == 201, other.text
            control = http.post("/_mock/v1/faults", headers=server.control, json={"match": {"path": "/c"}, "action": {"type": "ERROR"}})
            assert control.status_code == 201, control.text


class _Scanner(BaseHTTPRequestHandler):
    events: list[dict] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        _Scanner.events.append(json.loads(body))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def test_links_never_come_from_the_host_header():
    scanner = HTTPServer(("127.0.0.1", 0), _Scanner)
    threading.Thread(target=scanner.serve_forever, daemon=True).start()
    _Scanner.events = []
    try:
        with Server() as server:
            with server.client(auth=("admin", "admin")) as admin:
                created = admin.post("/app/rest/v4/fileuploadinterceptors/create", json={
                    "name": "scanner", "order": 1,
                    "webhookEndpoint": f"http://127.0.0.1:{scanner.server_port}/scan", "webhookStatus": "ACTIVE",
                })
                assert created.status_code == 200, created.text
            visitor = server.start_visitor()
            conversation = server.start_conversation(visitor)["id"]
            body = PNG + b"z" * 92
            with connect(server) as sock:
                sock.sendall((
                    f"POST /mobile/v1/conversations/{conversation}/files?name=a.png HTTP/1.1\r\nHost: attacker.example\r\n"
                    f"Authorization: Bearer {visitor}\r\nContent-Type: image/png\r\nContent-Length: {len(body)}\r\n\r\n"
                ).encode() + body)
                assert wait_until(lambda: _Scanner.events, timeout=15), "the scanner was never called"
                event = _Scanner.events[0]
                assert event["downloadLink"].startswith(server.url + "/"), event["downloadLink"]
                with server.client(auth=("admin", "admin")) as admin:
                    decided = admin.post("/app/rest/v4/fileuploadinterceptors/approveFileUpload", json={"token": event["apiToken"]})
                    assert decided.status_code == 204, decided.text
                sock.settimeout(15)
                status, _, _ = parse_response(sock.recv(65536))
                assert status == 201
            with connect(server) as sock:
                basic = base64.b64encode(b"admin:admin").decode()
                sock.sendall((
                    f"GET /app/rest/v4/conversations/{conversation}/getConversationFiles HTTP/1.1\r\nHost: attacker.example\r\n"
                    f"Authorization: Basic {basic}\r\nConnection: close\r\n\r\n"
                ).encode())
                sock.settimeout(15)
                data = b""
                while chunk := sock.recv(65536):
                    data += chunk
                status, _, payload = parse_response(data)
                assert status == 200
                links = [link["url"] for item in json.loads(payload)["items"] for link in item["downloadLinks"]]
                assert links and all(url.startswith(server.url + "/") for url in links), links
    finally:
        scanner.shutdown()


def test_a_refused_snapshot_import_leaves_every_stored_byte():
    with Server() as server:
        _with_other_tenant(server)
        visitor = server.start_visitor()
        conversation = server.start_conversation(visitor)["id"]
        original = PNG + b"o" * 500
        stored = _upload(server, visitor, conversation, original).json()["file"]
        snapshot = server.get("/_mock/v1/snapshot", params={"account": "demo"}, headers=server.control).json()
        entry = snapshot["accounts"][0]
        # Other bytes for the file, its FILE message agreeing, and an API key the other tenant holds: the
        # import is refused (409) only after its files were read.
        forged = PNG + b"f" * 500
        entry["files"] = [{**f, "content": base64.b64encode(forged).decode()} if f["id"] == stored["id"] else f for f in entry["files"]]
        for record in entry["records"]:
            if record["kind"] == "message" and (record["body"].get("file") or {}).get("id") == stored["id"]:
                record["body"]["file"]["sha256"] = hashlib.sha256(forged).hexdigest()
        key = next(r for r in entry["records"] if r["kind"] == "declared" and r["id"].startswith("ApiKey/"))
        entry["records"].append({**key, "id": "ApiKey/stolen", "body": {**key["body"], "id": "stolen", "apiKey": "other-key"}})
        answer = server.post("/_mock/v1/snapshot", json=snapshot, headers=server.control)
        assert answer.status_code == 409, answer.text
        download = server.get(f"/mobile/v1/conversations/{conversation}/files/{stored['id']}", headers=_bearer(visitor))
        assert download.status_code == 200
        assert download.content == original, "a refused import overwrote the stored bytes"
        assert download.headers["etag"] == f'"{hashlib.sha256(original).hexdigest()}"'


def test_names_windows_saves_as_a_blocked_extension_are_refused():
    with Server() as server:
        visitor = server.start_visitor()
        conversation = server.start_conversation(visitor)["id"]
        for name in ["run.bat.", "run.bat ", "run.bat  ..", "RUN.BAT. ."]:
            answer = _upload(server, visitor, conversation, PNG + b"b" * 40, name=name)
            assert answer.status_code == 415, f"{name!r}: {answer.status_code} {answer.text}"
            assert answer.json()["type"] == "FILE_TYPE_NOT_ALLOWED"
        files = server.get(f"/mobile/v1/conversations/{conversation}/files", headers=_bearer(visitor)).json()["files"]
        assert files == []


class _Silent(threading.Thread):
    """A TCP endpoint that accepts connections and never answers (a webhook receiver that hangs)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(128)
        self.port = self.listener.getsockname()[1]
        self.held: list[socket.socket] = []

    def run(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)

    def close(self) -> None:
        for connection in self.held:
            connection.close()
        self.listener.close()


class _Pings(BaseHTTPRequestHandler):
    received: list[str] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        _Pings.received.append(self.headers.get("x-unblu-event", ""))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def _register_and_ping(http, name: str, endpoint: str, times: int) -> None:
    created = http.post("/app/rest/v4/webhookregistrations/create", json={"name": name, "endpoint": endpoint, "events": ["conversation.created"]})
    assert created.status_code == 200, created.text
    for _ in range(times):
        pinged = http.post(f"/app/rest/v4/webhookregistrations/{created.json()['id']}/sendPing")
        assert pinged.status_code in (200, 204), pinged.text


def test_a_hanging_webhook_endpoint_of_one_tenant_leaves_the_other_tenants_deliveries():
    """Item 4: 40 pings to an endpoint that never answers held all 32 delivery slots for a minute."""
    silent = _Silent()
    silent.start()
    receiver = HTTPServer(("127.0.0.1", 0), _Pings)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    _Pings.received = []
    try:
        with Server() as server:
            _with_other_tenant(server)
            with server.client(auth=("admin", "admin")) as noisy:
                _register_and_ping(noisy, "hangs", f"http://127.0.0.1:{silent.port}/hooks", 40)
            assert wait_until(lambda: len(silent.held) >= 1, timeout=15), "the hanging endpoint was never called"
            with server.client(auth=("other-admin", "other-pw")) as quiet:
                _register_and_ping(quiet, "answers", f"http://127.0.0.1:{receiver.server_port}/hooks", 1)
            # Well inside the hanging deliveries' request time-out: the quiet tenant's ping is not behind them.
            assert wait_until(lambda: _Pings.received, timeout=5), "the other tenant's ping waited behind the hanging endpoint"
    finally:
        silent.close()
        receiver.shutdown()


def test_one_tenants_password_guessing_leaves_another_tenants_logins():
    # bcrypt at its default cost, so that checks take long enough to queue.
    with Server("--password-hash-cost", "10") as server:
        _with_other_tenant(server)
        from concurrent.futures import ThreadPoolExecutor

        def guess(number: int) -> tuple[int, str | None]:
            with server.client(timeout=60) as c:
                answer = c.get("/app/rest/v4/accounts/getCurrentAccount", auth=("admin", f"guess-{number}"))
                return answer.status_code, answer.headers.get("retry-after")

        with ThreadPoolExecutor(max_workers=48) as pool:
            guesses = [pool.submit(guess, n) for n in range(48)]
            # Another tenant's admin, whose password no check has verified yet, gets in during the flood.
            started = time.monotonic()
            with server.client(timeout=60) as c:
                answer = c.get("/app/rest/v4/accounts/getCurrentAccount", auth=("other-admin", "other-pw"))
            waited = time.monotonic() - started
            results = [g.result() for g in guesses]
        statuses = [status for status, _ in results]
        assert answer.status_code == 200, f"{answer.status_code} {answer.text}"
        assert set(statuses) <= {401, 429}, statuses
        assert 429 in statuses, f"the guessed account's checks are bounded: {statuses}"
        assert all(retry == "1" for status, retry in results if status == 429), results
        print(f"    other tenant's login during the flood: {waited:.2f} s; guesses: {statuses.count(401)} x 401, {statuses.count(429)} x 429")
