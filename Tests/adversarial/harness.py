"""A small harness for adversarial tests against the real `mock-collab` process over real sockets.

Add a case: write a `test_*` function (plain or `async def`) in a `test_*.py` file of this folder.
Start a server with `with Server(...) as server:` (extra `serve` flags as arguments), then talk to it:
`server.url`, `server.ws_url(path)`, `server.get(path)` / `server.post(path, json=...)` (httpx),
`server.start_visitor()` (a started mobile client's token), `server.agent_token()`,
`server.control` (headers with the control token), `raw_exchange(server, bytes)` for raw HTTP,
`tls_connect(server, alpn)` for a handshaken TLS socket (start the server with `tls_args(directory)`).
`run.py` runs every case and ends with 'N passed, N failed'; pytest runs the same files.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import uuid

import httpx

CONTROL_TOKEN = "adversarial-control-token"

# The flood cases open a few thousand sockets here and in the server (which inherits this limit).
try:
    import resource

    _soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    _wanted = 8192 if _hard == resource.RLIM_INFINITY else min(8192, _hard)
    if _soft != resource.RLIM_INFINITY and _soft < _wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (_wanted, _hard))
except (ImportError, ValueError, OSError):
    pass
BINARY = os.environ.get("MOCK_COLLAB_BIN", ".build/debug/mock-collab")


class ServerError(Exception):
    pass


class Server:
    """`mock-collab serve` on a free loopback port, in memory, with the default tenant."""

    def __init__(self, *args: str, storage: str = "memory"):
        self.args = list(args)
        self.storage = storage
        self.process: subprocess.Popen | None = None
        self.port = 0
        self._out = tempfile.TemporaryFile()
        self._err = tempfile.NamedTemporaryFile(prefix="mock-collab-", suffix=".err", delete=False)
        self.exit_code: int | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> "Server":
        command = [
            BINARY, "serve", "--port", "0", "--storage", self.storage, "--password-hash-cost", "4",
            "--log-level", "warning", "--control-token", CONTROL_TOKEN, *self.args,
        ]
        self.process = subprocess.Popen(command, stdout=self._out, stderr=self._err)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            self._out.seek(0)
            line = self._out.read().decode()
            if line.startswith("listening on "):
                self.port = int(line.strip().rsplit(":", 1)[1])
                return self
            if self.process.poll() is not None:
                raise ServerError(f"server exited {self.process.returncode}: {self.stderr()}")
            time.sleep(0.05)
        raise ServerError("server did not start within 30 s")

    def signal(self, sig: int = signal.SIGTERM) -> None:
        assert self.process
        self.process.send_signal(sig)

    def wait(self, timeout: float = 30) -> int:
        """Waits for the process to end and returns its exit code (raises on timeout)."""
        assert self.process
        self.exit_code = self.process.wait(timeout=timeout)
        return self.exit_code

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "Server":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
        if exc[0] is not None:
            print("---- server stderr (last 40 lines) ----")
            print("\n".join(self.stderr().splitlines()[-40:]))
        self._out.close()
        os.unlink(self._err.name)

    def stderr(self) -> str:
        with open(self._err.name, "rb") as f:
            return f.read().decode(errors="replace")

    # -- process facts -----------------------------------------------------------------------
    @property
    def pid(self) -> int:
        assert self.process
        return self.process.pid

    def rss_kib(self) -> int:
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def open_fds(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    # -- HTTP --------------------------------------------------------------------------------
    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"

    @property
    def control(self) -> dict:
        return {"Authorization": f"Bearer {CONTROL_TOKEN}"}

    def client(self, **kwargs) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=kwargs.pop("timeout", 10), **kwargs)

    def get(self, path: str, **kwargs) -> httpx.Response:
        with self.client() as c:
            return c.get(path, **kwargs)

    def post(self, path: str, **kwargs) -> httpx.Response:
        with self.client() as c:
            return c.post(path, **kwargs)

    # -- logins ------------------------------------------------------------------------------
    def start_visitor(self, device_id: str | None = None, api_key: str = "demo-api-key", named_area: str = "demo-area") -> str:
        """Starts a mobile client and returns its bearer token."""
        body = {"apiKey": api_key, "deviceId": device_id or f"dev-{uuid.uuid4().hex[:12]}", "device": {"os": "iOS"}, "namedArea": named_area}
        response = self.post("/mobile/v1/clients", json=body)
        assert response.status_code in (200, 201), response.text
        return response.json()["token"]

    def agent_token(self, username: str = "agent", password: str = "agent") -> str:
        response = self.post("/agent/v1/login", json={"username": username, "password": password})
        assert response.status_code == 200, response.text
        return response.json()["token"]

    def start_conversation(self, visitor_token: str, topic: str = "help") -> dict:
        response = self.post("/mobile/v1/conversations", json={"topic": topic}, headers={"Authorization": f"Bearer {visitor_token}"})
        assert response.status_code in (200, 201), response.text
        return response.json()


def tls_args(data_directory: str) -> list[str]:
    """`serve` flags for TLS with a development CA made in `data_directory` (a temporary one)."""
    return ["--tls", "--data-dir", data_directory]


def wait_until(predicate, timeout: float = 10, interval: float = 0.05) -> bool:
    """Polls `predicate` until it holds or `timeout` passes; returns whether it held."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


# -- raw sockets ---------------------------------------------------------------------------------
def connect(server: Server, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect(("127.0.0.1", server.port))
    return sock


def read_until_closed(sock: socket.socket, timeout: float = 10) -> tuple[bytes, bool]:
    """Reads until the server closes (returns the bytes and True) or `timeout` passes (bytes, False);
    a TLS socket gives the decrypted bytes."""
    sock.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            sock.settimeout(max(0.01, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            if not chunk:
                return data, True
            data += chunk
    except (ConnectionResetError, BrokenPipeError, ssl.SSLEOFError, ssl.SSLZeroReturnError):
        return data, True
    except (socket.timeout, TimeoutError):
        pass
    return data, False


def read_all_until_closed(socks: list[socket.socket], timeout: float = 10) -> list[tuple[bytes, bool]]:
    """`read_until_closed` for many sockets at once, within one overall `timeout`."""
    import selectors

    selector = selectors.DefaultSelector()
    results = {id(s): [b"", False] for s in socks}
    for sock in socks:
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    pending = len(socks)
    while pending and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=max(0.01, deadline - time.monotonic())):
            sock = key.fileobj
            try:
                chunk = sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                chunk = b""
            if chunk:
                results[id(sock)][0] += chunk
            else:
                results[id(sock)][1] = True
                selector.unregister(sock)
                pending -= 1
    selector.close()
    for sock in socks:
        sock.setblocking(True)
    return [tuple(results[id(s)]) for s in socks]


def raw_exchange(server: Server, request: bytes, timeout: float = 10) -> tuple[bytes, bool]:
    """Sends raw bytes on a fresh connection; returns what came back and whether the server closed."""
    with connect(server) as sock:
        sock.sendall(request)
        return read_until_closed(sock, timeout)


def parse_response(data: bytes) -> tuple[int, dict, bytes]:
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


def websocket_handshake(path: str, port: int, headers: dict | None = None) -> bytes:
    extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    return (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n"
    ).encode()


def open_silent_websocket(server: Server, path: str, rcvbuf: int = 4096) -> socket.socket:
    """A WebSocket that completes the handshake and then never reads again (a stalled phone)."""
    sock = connect(server, rcvbuf=rcvbuf)
    sock.sendall(websocket_handshake(path, server.port))
    sock.settimeout(10)
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            raise AssertionError("closed during the handshake")
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


# -- TLS -------------------------------------------------------------------------------------------
def tls_context(alpn: list[str]) -> ssl.SSLContext:
    """A client context that takes the development certificate unchecked (the TLS suite checks it)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(alpn)
    return context


def tls_connect(server: Server, alpn: list[str], timeout: float = 10) -> ssl.SSLSocket:
    """A TLS connection with the handshake done, offering `alpn`."""
    sock = connect(server)
    sock.settimeout(timeout)
    return tls_context(alpn).wrap_socket(sock, server_hostname="localhost")


def client_hello() -> bytes:
    """The bytes of a real TLS ClientHello (what a client sends first)."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    handshake = tls_context(["h2", "http/1.1"]).wrap_bio(incoming, outgoing, server_hostname="localhost")
    try:
        handshake.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return outgoing.read()


def typed_error(body: bytes) -> dict:
    value = json.loads(body)
    assert set(value) >= {"type", "message", "status"}, value
    return value
