#!/usr/bin/env python3
"""MockCollab over real TLS, checked by tools that are not MockCollab's own: Python's ssl, curl, openssl.

Runs the built `mock-collab`:
  * `certs` makes the development CA and prints the pins; Python's ssl verifies the server with that
    CA, negotiates h2 by ALPN, and the certificate it receives hashes to exactly the printed pins
    (whole certificate and SPKI); curl speaks HTTP/2 with the CA and refuses without it; curl's own
    `--pinnedpubkey` accepts the printed SPKI pin;
  * `certs client` writes a .p12 that uses the legacy PKCS#12 encryption iOS reads (3DES, SHA-1 MAC),
    checked with `openssl pkcs12 -info` and loaded by Python's cryptography;
  * `--client-auth optional`: the device API answers 401 without a client certificate and works with
    one, the journal shows the certificate's subject; a plain-HTTP port serves beside;
  * `--client-auth required`: a handshake without a client certificate fails, with one it succeeds;
  * `certs rotate`: after a restart the server presents new pins and the old pin no longer matches.

Usage: tls_test.py --bin .build/debug/mock-collab
"""
import argparse
import base64
import hashlib
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12

CONTROL_TOKEN = "tls-test-token"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)
    print(f"ok - {message}")


class Server:
    def __init__(self, binary, storage, *extra):
        self.out = tempfile.TemporaryFile(mode="w+")
        self.err = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            [binary, "serve", "--port", "0", "--storage", storage, "--password-hash-cost", "4", "--log-level", "notice",
             "--control-token", CONTROL_TOKEN, "--tls", *extra],
            stdout=self.out, stderr=self.err, text=True)
        deadline = time.time() + 30
        self.url = None
        self.plain = None
        # Both lines when a plain-HTTP port was asked for: it may be printed after the HTTPS one.
        wants_plain = "--http-port" in extra
        while time.time() < deadline and (self.url is None or (wants_plain and self.plain is None)):
            if self.process.poll() is not None:
                break
            self.out.seek(0)
            for line in self.out.read().splitlines():
                if line.startswith("plain http on "):
                    self.plain = line[len("plain http on "):]
                if line.startswith("listening on "):
                    self.url = line[len("listening on "):]
            time.sleep(0.05)
        if self.url is None:
            self.err.seek(0)
            fail(f"server did not start: {self.err.read()[-2000:]}")
        self.port = int(self.url.rsplit(":", 1)[1])

    def stop(self):
        self.process.terminate()
        code = self.process.wait(timeout=30)
        if code != 0:
            self.err.seek(0)
            fail(f"server exited with {code}: {self.err.read()[-2000:]}")


def run(*command, expect_ok=True):
    result = subprocess.run(command, capture_output=True, text=True)
    if expect_ok and result.returncode != 0:
        fail(f"{' '.join(command)} exited {result.returncode}: {result.stderr}")
    return result


def pins_of(der):
    certificate = x509.load_der_x509_certificate(der)
    spki = certificate.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return (base64.b64encode(hashlib.sha256(der).digest()).decode(), base64.b64encode(hashlib.sha256(spki).digest()).decode())


def handshake(port, cafile, server_hostname="localhost", client=None):
    context = ssl.create_default_context(cafile=cafile)
    context.set_alpn_protocols(["h2", "http/1.1"])
    if client:
        context.load_cert_chain(*client)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=server_hostname) as tls:
            # TLS 1.3 reports a refused client certificate only on the first read.
            tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n" if tls.selected_alpn_protocol() != "h2" else
                        b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            tls.recv(16)
            return tls.selected_alpn_protocol(), tls.getpeercert(binary_form=True)


def curl(*args):
    return run("curl", "-sS", "--max-time", "10", *args, expect_ok=False)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    binary = os.path.abspath(parser.parse_args().bin)
    work = tempfile.mkdtemp(prefix="mock-collab-tls-")
    storage = f"sqlite:{work}/state.sqlite"
    try:
        summary = json.loads(run(binary, "certs", "--storage", storage, "--json").stdout)
        ca = summary["authorityPEM"]
        check(ca.startswith(work) and os.path.exists(summary["authorityDER"]), "certs made the CA next to the SQLite file (PEM and DER)")
        der = open(summary["authorityDER"], "rb").read()
        check(x509.load_der_x509_certificate(der).subject == x509.load_pem_x509_certificate(open(ca, "rb").read()).subject, "the DER file is the same CA")
        issued = json.loads(run(binary, "certs", "client", "device-1", "--password", "s3cret", "--storage", storage, "--json").stdout)
        p12 = issued["pkcs12"]

        info = run("openssl", "pkcs12", "-info", "-in", p12, "-noout", "-passin", "pass:s3cret")
        described = info.stdout + info.stderr
        check("pbeWithSHA1And3-KeyTripleDES-CBC" in described and "Shrouded Keybag: pbeWithSHA1And3-KeyTripleDES-CBC" in described,
              "the .p12 encrypts certificates and key with PBE-SHA1-3DES (legacy, what iOS reads)")
        check("MAC: sha1" in described, "the .p12 MAC is SHA-1")
        key, certificate, extra = pkcs12.load_key_and_certificates(open(p12, "rb").read(), b"s3cret")
        check(key is not None and "CN=device-1" in certificate.subject.rfc4514_string() and len(extra) == 1, "the .p12 opens with its password: key, certificate and CA")

        server = Server(binary, storage, "--client-auth", "optional", "--http-port", "0")
        try:
            check(server.url.startswith("https://"), f"the listening line says https ({server.url})")
            alpn, presented = handshake(server.port, ca)
            check(alpn == "h2", "Python's ssl negotiates h2 by ALPN and verifies the server with the CA")
            check(pins_of(presented) == (summary["certificateSHA256"], summary["publicKeySHA256"]), "the handshake presents exactly the printed pins")
            alpn_ip, _ = handshake(server.port, ca, server_hostname="127.0.0.1")
            check(alpn_ip == "h2", "the certificate also covers 127.0.0.1")

            got = curl("--http2", "--cacert", ca, "-o", "/dev/null", "-w", "%{http_version} %{http_code}", f"https://localhost:{server.port}/healthz")
            check(got.stdout == "2 200", f"curl speaks HTTP/2 with the CA ({got.stdout} {got.stderr})")
            got = curl("--http1.1", "--cacert", ca, "-o", "/dev/null", "-w", "%{http_version} %{http_code}", f"https://localhost:{server.port}/healthz")
            check(got.stdout == "1.1 200", "and HTTP/1.1 on the same port")
            got = curl("-o", "/dev/null", f"https://localhost:{server.port}/healthz")
            check(got.returncode == 60, "curl without the CA refuses the certificate")
            got = curl("--cacert", ca, "--pinnedpubkey", f"sha256//{summary['publicKeySHA256']}", "-o", "/dev/null", "-w", "%{http_code}", f"https://localhost:{server.port}/healthz")
            check(got.stdout == "200", "curl's --pinnedpubkey accepts the printed SPKI pin")

            body = json.dumps({"apiKey": "demo-api-key", "deviceId": "curl-phone", "device": {"os": "iOS"}})
            got = curl("--cacert", ca, "-H", "content-type: application/json", "-d", body, "-w", "\n%{http_code}", f"https://localhost:{server.port}/mobile/v1/clients")
            answer, status = got.stdout.rsplit("\n", 1)
            check(status == "401" and json.loads(answer)["type"] == "AUTHORIZATION", "optional mTLS: the device API answers a typed 401 without a client certificate")
            got = curl("--cacert", ca, "--cert", issued["certificate"], "--key", issued["privateKey"], "-H", "content-type: application/json", "-d", body,
                       "-o", "/dev/null", "-w", "%{http_code}", f"https://localhost:{server.port}/mobile/v1/clients")
            check(got.stdout in ("200", "201"), f"with the client certificate the device starts ({got.stdout})")
            request = urllib.request.Request(f"{server.plain}/_mock/v1/journal?path=/mobile/v1/clients", headers={"Authorization": f"Bearer {CONTROL_TOKEN}"})
            entries = json.load(urllib.request.urlopen(request, timeout=10))["entries"]
            subjects = [entry.get("clientCertificate") for entry in entries]
            check(any(subject and "CN=device-1" in subject for subject in subjects), f"the journal shows the client certificate's subject ({subjects})")
            check(server.plain.startswith("http://"), "the plain-HTTP port answers beside HTTPS")
            login = json.dumps({"username": "agent", "password": "agent"})
            got = curl("--cacert", ca, "-D", "-", "-o", "/dev/null", "-H", "content-type: application/json", "-d", login,
                       f"https://localhost:{server.port}/app/rest/v4/authenticator/login")
            cookie = [line for line in got.stdout.splitlines() if line.lower().startswith("set-cookie: x-unblu-authsession=")]
            check(len(cookie) == 1 and "; secure" in cookie[0].lower(), f"a login over HTTPS sets a Secure session cookie ({cookie})")
            got = curl("-D", "-", "-o", "/dev/null", "-H", "content-type: application/json", "-d", login, f"{server.plain}/app/rest/v4/authenticator/login")
            cookie = [line for line in got.stdout.splitlines() if line.lower().startswith("set-cookie: x-unblu-authsession=")]
            check(len(cookie) == 1 and "; secure" not in cookie[0].lower(), f"a login over plain HTTP does not ({cookie})")
        finally:
            server.stop()

        server = Server(binary, storage, "--client-auth", "required")
        try:
            try:
                handshake(server.port, ca)
                fail("required mTLS accepted a handshake without a client certificate")
            except (ssl.SSLError, ConnectionResetError, BrokenPipeError) as error:
                check(True, f"required mTLS refuses a handshake without a client certificate ({type(error).__name__})")
            alpn, _ = handshake(server.port, ca, client=(issued["certificate"], issued["privateKey"]))
            check(alpn == "h2", "and completes it with the issued client certificate")
        finally:
            server.stop()

        rotated = json.loads(run(binary, "certs", "rotate", "--storage", storage, "--json").stdout)
        check(rotated["publicKeySHA256"] != summary["publicKeySHA256"] and rotated["authorityPEM"] == ca, "rotate makes new pins under the same CA")
        server = Server(binary, storage)
        try:
            _, presented = handshake(server.port, ca)
            check(pins_of(presented) == (rotated["certificateSHA256"], rotated["publicKeySHA256"]), "after a restart the server presents the rotated certificate")
            got = curl("--cacert", ca, "--pinnedpubkey", f"sha256//{summary['publicKeySHA256']}", "-o", "/dev/null", f"https://localhost:{server.port}/healthz")
            check(got.returncode == 90, "the old pin no longer matches (curl exit 90)")
        finally:
            server.stop()

        # A server for the address a device uses: `certs` without names shows the certificate it serves (and
        # leaves it), rather than issuing one for the default names the running server does not present.
        server = Server(binary, storage, "--tls-names", "localhost,127.0.0.1,192.0.2.10")
        try:
            _, presented = handshake(server.port, ca)
            shown = json.loads(run(binary, "certs", "--storage", storage, "--json").stdout)
            check(not shown["issued"] and "192.0.2.10" in shown["serverNames"], "certs shows the certificate serve issued for its names")
            check(pins_of(presented) == (shown["certificateSHA256"], shown["publicKeySHA256"]), "and prints the pins the running server presents")
            _, again = handshake(server.port, ca)
            check(again == presented, "the running server's certificate stays")
        finally:
            server.stop()
        print("all TLS checks passed")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
