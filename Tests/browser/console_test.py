#!/usr/bin/env python3
"""The web console in a real browser (headless Chromium through chromedriver, driven by Selenium).

Starts `mock-collab serve` (in memory) and a simulated visitor app (`mock-collab visitor`, the real
CollabClient), then plays the agent in the browser: log in with the keyboard, find the visitor's
conversation in the `demo-area` queue, accept it, exchange messages both ways, ring a video call,
answer the visitor's call, watch a co-browsing frame the visitor uploads, log out (the next user sees
nothing of it) and check the inspector as an admin. Along the way: no errors in the browser console,
no horizontal overflow in a narrow window, no Inspector tab for an agent.

    python3 Tests/browser/console_test.py [--bin PATH]

On failure, screenshots, the page source, the browser log and the processes' output are saved under
$ARTIFACTS_DIR (default .build/test-artifacts/browser/) and the path is printed.
"""
import argparse
import base64
import json
import os
import queue
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WAIT_SECONDS = 20


class Process:
    """A child process whose stdout lines are collected on a thread."""

    def __init__(self, name, args, stdin=False):
        self.name = name
        self.lines = []
        self.queue = queue.Queue()
        self.process = subprocess.Popen(
            args, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1,
        )
        self.stderr = []
        threading.Thread(target=self._read, args=(self.process.stdout, True), daemon=True).start()
        threading.Thread(target=self._read, args=(self.process.stderr, False), daemon=True).start()

    def _read(self, stream, is_stdout):
        for line in stream:
            line = line.rstrip("\n")
            if is_stdout:
                self.lines.append(line)
                self.queue.put(line)
            else:
                self.stderr.append(line)

    def expect(self, predicate, what, timeout=WAIT_SECONDS):
        """The first stdout line (parsed as JSON when it is) for which `predicate` holds."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{self.name}: no {what} within {timeout} s")
            try:
                line = self.queue.get(timeout=remaining)
            except queue.Empty:
                continue
            try:
                value = json.loads(line)
            except ValueError:
                value = line
            if predicate(value):
                return value

    def send(self, line):
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def stop(self):
        if self.process.poll() is None:
            if self.process.stdin:
                try:
                    self.process.stdin.close()
                except OSError:
                    pass
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def dump(self, path):
        with open(path, "w") as out:
            out.write("# stdout\n" + "\n".join(self.lines) + "\n# stderr\n" + "\n".join(self.stderr[-400:]) + "\n")


def result_of(command):
    return lambda v: isinstance(v, dict) and v.get("command") == command and v.get("type") in ("result", "error")


def event_of(kind, check=lambda e: True):
    return lambda v: isinstance(v, dict) and v.get("type") == "event" and v["event"]["type"] == kind and check(v["event"])


def ok(value):
    if value.get("type") == "error":
        raise AssertionError(f"visitor command failed: {value}")
    return value


class ConsoleTest:
    def __init__(self, binary, artifacts):
        self.binary = binary
        self.artifacts = artifacts
        self.server = None
        self.visitor = None
        self.driver = None
        self.browser_log = []
        self.screenshots = False
        self.step = "start"
        # With --tls: the server's data directory (development CA), the CA file and the SPKI pin.
        self.tls_dir = None
        self.ca_file = None
        self.spki_pin = None
        self.ssl_context = None

    # --- set-up -------------------------------------------------------------------------------
    def prepare_tls(self, directory):
        """Makes the development CA and server certificate first (`mock-collab certs`) to learn the pins the browser trusts."""
        self.tls_dir = directory
        summary = json.loads(subprocess.run([self.binary, "certs", "--storage", "memory", "--data-dir", directory, "--json"],
                                            check=True, capture_output=True, text=True).stdout)
        self.ca_file = summary["authorityPEM"]
        self.spki_pin = summary["publicKeySHA256"]
        self.ssl_context = ssl.create_default_context(cafile=self.ca_file)

    def start_server(self):
        tls = ["--tls", "--data-dir", self.tls_dir] if self.tls_dir else []
        self.server = Process("server", [self.binary, "serve", "--port", "0", "--storage", "memory", "--password-hash-cost", "4", "--log-level", "warning", *tls])
        line = self.server.expect(lambda v: isinstance(v, str) and v.startswith("listening on "), "listening line")
        self.url = line.split("listening on ", 1)[1].strip()
        if self.tls_dir:
            assert self.url.startswith("https://"), f"expected an https listening line, got {self.url}"
            # The certificate names localhost; browsers and the visitor reach it by that name.
            self.url = self.url.replace("://127.0.0.1:", "://localhost:")

    def start_visitor(self):
        trust = ["--ca", self.ca_file, "--pin-public-key", self.spki_pin] if self.tls_dir else []
        self.visitor = Process("visitor", [self.binary, "visitor", "--url", self.url, "--named-area", "demo-area", "--device-id", "browser-test-device", *trust], stdin=True)
        ok(self.visitor.expect(lambda v: isinstance(v, dict) and v.get("type") in ("started", "error"), "client start"))

    def start_browser(self):
        options = webdriver.ChromeOptions()
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800", "--disable-gpu", "--no-first-run"):
            options.add_argument(argument)
        if self.spki_pin:
            # Chromium trusts the server by its public key pin — the pin `mock-collab certs` printed, so
            # the page loading at all proves the pin matches what the handshake presents.
            options.add_argument(f"--ignore-certificate-errors-spki-list={self.spki_pin}")
        binary = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
        if os.path.exists(binary):
            options.binary_location = binary
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(service=service, options=options)
        self.driver.set_window_size(1280, 800)
        # The console re-renders lists and tables as events arrive: an element found a moment ago may be
        # replaced before it is read, so a wait looks again instead of failing on a stale element.
        self.wait = WebDriverWait(self.driver, WAIT_SECONDS, ignored_exceptions=(StaleElementReferenceException,))

    def stop(self):
        if self.driver:
            self.driver.quit()
        for process in (self.visitor, self.server):
            if process:
                process.stop()

    # --- helpers ------------------------------------------------------------------------------
    def snap(self, name):
        """With --screenshots, keeps a picture of this state even when everything passes."""
        if self.screenshots:
            os.makedirs(self.artifacts, exist_ok=True)
            self.driver.save_screenshot(os.path.join(self.artifacts, f"{name}.png"))

    def agent_api(self, method, path, body):
        """A call as the agent outside the browser (HTTP basic)."""
        request = urllib.request.Request(self.url + path, method=method, data=json.dumps(body).encode(), headers={
            "content-type": "application/json", "authorization": "Basic " + base64.b64encode(b"agent:agent").decode()})
        with urllib.request.urlopen(request, timeout=WAIT_SECONDS, context=self.ssl_context) as response:
            return json.load(response)

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def text_of(self, css):
        """The text of the element `css` names, found again if a re-render replaced it before it was read."""
        return self.wait.until(lambda d: (self.find(css).text,))[0]

    def visible(self, css):
        return self.wait.until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def text_appears(self, css, text):
        self.wait.until(EC.text_to_be_present_in_element((By.CSS_SELECTOR, css), text))

    def collect_browser_log(self):
        entries = self.driver.get_log("browser")
        self.browser_log.extend(entries)
        return entries

    def assert_no_console_errors(self):
        errors = [e for e in self.collect_browser_log() if e.get("level") == "SEVERE"]
        assert not errors, f"errors in the browser console: {errors}"

    def assert_no_horizontal_overflow(self, where):
        overflow = self.driver.execute_script(
            "const d = document.documentElement; return [d.scrollWidth, d.clientWidth];")
        if overflow[0] > overflow[1]:
            # Which elements stick out, to say where to look.
            wide = self.driver.execute_script("""const w = document.documentElement.clientWidth;
                return [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > w && e.offsetParent !== null)
                  .slice(0, 8).map(e => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`);""")
            raise AssertionError(f"{where}: the page is {overflow[0]} px wide in a {overflow[1]} px window; sticking out: {wide}")

    def log_in(self, username, password, role):
        """With the keyboard only: type, Tab to the password, Enter to submit."""
        self.visible("body[data-ready='true']")
        field = self.visible("#login-username")
        # The form takes focus by itself: on load (autofocus) and after logging out.
        self.wait.until(lambda d: d.switch_to.active_element == field)
        field.clear()
        field.send_keys(username)
        field.send_keys(Keys.TAB)
        active = self.driver.switch_to.active_element
        assert active.get_attribute("id") == "login-password", "Tab from the username goes to the password"
        active.send_keys(password)
        active.send_keys(Keys.ENTER)
        self.visible("#who")
        self.text_appears("#who-role", role)

    # --- the scenario -------------------------------------------------------------------------
    def run(self):
        self.step = "start the server, the visitor app and the browser"
        self.start_server()
        self.start_visitor()
        self.start_browser()

        self.step = "the visitor starts a conversation in demo-area"
        self.visitor.send("state background")  # pushes for new messages land in the outbox
        ok(self.visitor.expect(result_of("state"), "app state result"))
        self.visitor.send("start Card blocked")
        conversation_id = ok(self.visitor.expect(result_of("start"), "conversation start"))["conversationId"]

        self.step = "a wrong password is refused on the page"
        self.driver.get(self.url + "/")
        assert "MockCollab" in self.driver.title
        self.visible("body[data-ready='true']")
        field = self.visible("#login-username")
        field.send_keys("agent", Keys.TAB, "wrong", Keys.ENTER)
        self.text_appears("#login-error", "Wrong username or password")
        # The refused login is the one error the browser may log (a 401 for the login request).
        unexpected = [e for e in self.collect_browser_log()
                      if e.get("level") == "SEVERE" and not ("authenticator/login" in e.get("message", "") and "401" in e.get("message", ""))]
        assert not unexpected, f"errors in the browser console: {unexpected}"
        assert self.driver.switch_to.active_element.get_attribute("id") == "login-password", "focus returns to the password"
        self.driver.refresh()

        self.step = "log in as agent with the keyboard"
        self.log_in("agent", "agent", "REGISTERED_USER")
        self.visible("#desk-view")
        self.text_appears("#live-status", "connected")

        self.step = "filter the queue by demo-area and find the conversation"
        box = self.visible("#area-filter input[value='demo-area']")
        box.send_keys(Keys.SPACE)  # a checkbox toggles with the space bar
        assert box.is_selected()
        card = f"#queue-list li[data-conversation-id='{conversation_id}']"
        self.visible(card)
        assert "Card blocked" in self.text_of(card)

        self.step = "accept"
        self.click(f"#queue-list li[data-conversation-id='{conversation_id}'] button.accept")
        self.text_appears("#conversation-title", "Card blocked")
        self.text_appears("#conversation-meta", "ACTIVE")
        self.visitor.expect(event_of("conversation.active"), "conversation.active event")

        self.step = "the agent writes, the visitor reads"
        composer = self.visible("#composer-text")
        composer.send_keys("Hello from the console")
        composer.send_keys(Keys.ENTER)
        self.visitor.expect(event_of("conversation.new_message", lambda e: e["message"]["text"] == "Hello from the console"), "the agent's message")

        self.step = "the visitor writes, the agent reads"
        self.visitor.send("say Hi from the app")
        ok(self.visitor.expect(result_of("say"), "say result"))
        self.text_appears("#messages", "Hi from the app")
        assert self.find("#messages").get_attribute("aria-live") == "polite"

        self.step = "the visitor sends a picture, the agent downloads it in the console"
        files = tempfile.mkdtemp(prefix="console-files-")
        picture = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + bytes(range(256)) * 8
        with open(os.path.join(files, "receipt.png"), "wb") as out:
            out.write(picture)
        self.visitor.send("file " + os.path.join(files, "receipt.png"))
        sent = ok(self.visitor.expect(result_of("file"), "file result"))
        assert sent["mimeType"] == "image/png", sent
        link = f"#messages a.file[data-file-id='{sent['fileId']}']"
        self.visible(link)
        assert "receipt.png" in self.text_of(link), self.text_of(link)
        fetched = self.driver.execute_async_script(
            "const done = arguments[1]; fetch(document.querySelector(arguments[0]).href, {credentials: 'same-origin'})"
            ".then(async r => done([r.status, r.headers.get('content-type'), (await r.arrayBuffer()).byteLength]))"
            ".catch(e => done(String(e)));", link)
        assert fetched == [200, "image/png", len(picture)], fetched

        self.step = "the agent sends a file, the visitor downloads it; a refused file shows the server's reason"
        self.find("#file-send").click()
        self.text_appears("#composer-note", "No file chosen")
        with open(os.path.join(files, "notes.pdf"), "wb") as out:
            out.write(b"%PDF-1.4\n% a tiny document\n")
        self.find("#composer-file").send_keys(os.path.join(files, "notes.pdf"))
        self.find("#file-send").click()
        self.wait.until(lambda d: not self.find("#composer-note").is_displayed())
        event = self.visitor.expect(event_of("conversation.new_message", lambda e: (e["message"].get("file") or {}).get("name") == "notes.pdf"), "the agent's file")
        self.visitor.send("download " + event["event"]["message"]["file"]["id"])
        got = ok(self.visitor.expect(result_of("download"), "download result"))
        assert got["mimeType"] == "application/pdf" and int(got["size"]) == event["event"]["message"]["file"]["size"], got
        with open(os.path.join(files, "photo.jpg"), "wb") as out:
            out.write(bytes([0x7F, 0x45, 0x4C, 0x46]) + bytes(200))  # an executable dressed as a picture
        self.find("#composer-file").send_keys(os.path.join(files, "photo.jpg"))
        self.find("#file-send").click()
        self.text_appears("#toast", "not what the extension")
        # The refused upload's 415 is the one error the browser logs here (as a failed network request).
        unexpected = [e for e in self.collect_browser_log()
                      if e.get("level") == "SEVERE" and not ("files?name=photo.jpg" in e.get("message", "") and "415" in e.get("message", ""))]
        assert not unexpected, f"errors in the browser console: {unexpected}"
        shutil.rmtree(files, ignore_errors=True)

        self.step = "a video call rings and is answered"
        self.find("#call-video").click()
        self.text_appears("#call-status", "VIDEO call: RINGING")
        self.visitor.expect(event_of("conversation.call.started"), "call started event")
        self.visitor.send("answer")
        ok(self.visitor.expect(result_of("answer"), "answer result"))
        self.text_appears("#call-status", "VIDEO call: ACTIVE")
        self.find("#call-end").click()
        self.text_appears("#call-status", "ENDED")

        self.step = "the visitor calls, the agent answers on the desk"
        self.visitor.send("call")
        ok(self.visitor.expect(result_of("call"), "call result"))
        self.text_appears("#call-status", "AUDIO call from the visitor: RINGING")
        self.find("#call-answer").click()
        self.text_appears("#call-status", "AUDIO call from the visitor: ACTIVE")
        self.visitor.send("hangup")
        ok(self.visitor.expect(result_of("hangup"), "hangup result"))
        self.text_appears("#call-status", "ENDED")

        self.step = "co-browsing: request, the visitor shares a frame, it appears"
        self.find("#cobrowse-request").click()
        self.visible("#cobrowse")
        self.visitor.expect(event_of("cobrowsing.requested"), "co-browsing request")
        self.visitor.send("frame")
        frame = ok(self.visitor.expect(result_of("frame"), "frame result"))
        assert frame["ack"] == "frame.accepted", frame
        image = self.visible("#cobrowse-frame")
        self.wait.until(lambda d: d.execute_script("const i = arguments[0]; return i.complete && i.naturalWidth > 0;", image))
        size = self.driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight];", image)
        assert size == [int(frame["width"]), int(frame["height"])], f"frame shows as {size}, uploaded {frame['width']}x{frame['height']}"
        self.text_appears("#cobrowse-status", "frame 1")
        self.snap("desk")

        self.step = "a narrow window has no horizontal overflow (desk)"
        self.driver.set_window_size(375, 800)
        self.wait.until(lambda d: d.execute_script("return window.innerWidth") <= 375)
        self.assert_no_horizontal_overflow("desk at 375x800")
        self.snap("desk-narrow")
        self.driver.set_window_size(1280, 800)

        self.step = "an agent has no Inspector tab (only admins can use it)"
        assert not self.find(".view-tab[data-view='inspector']").is_displayed(), "the Inspector tab is hidden for an agent"
        assert self.find(".view-tab[data-view='desk']").is_displayed()
        self.assert_no_console_errors()

        self.step = "log out, log in as admin: nothing of the agent's conversation, call or co-browsing is left"
        self.find("#logout").click()
        self.visible("#login-view")
        self.log_in("admin", "admin", "ADMIN")
        self.visible(".view-tab[data-view='inspector']")
        left = self.desk_state(cobrowseStatus="document.querySelector('#cobrowse-status').textContent")
        assert left == {"title": "No conversation open", "messages": 0, "call": "", "composer": False, "actions": False,
                        "cobrowse": False, "frame": None, "cobrowseStatus": ""}, f"the admin sees the agent's desk: {left}"

        self.step = "as admin, the inspector shows journal, device and push"
        self.find(".view-tab[data-view='inspector']").send_keys(Keys.ENTER)
        self.visible("#inspector-panels")
        self.text_appears("#journal-table tbody", "/mobile/v1/clients")
        self.text_appears("#devices-table tbody", "browser-test-device")
        self.text_appears("#devices-table tbody", "ENCRYPTED")
        self.text_appears("#pushes-list", "NEW_MESSAGE")
        push = self.find("#pushes-list li[data-kind='NEW_MESSAGE'] details")
        push.find_element(By.TAG_NAME, "summary").click()
        self.text_appears("#pushes-list", "Decrypted content")
        self.text_appears("#pushes-list", "Hello from the console")
        self.text_appears("#pushes-list", "encryptedData")
        assert self.find("#controls").get_attribute("disabled") is not None, "an admin gets no global controls"
        self.text_appears("#config-table thead", "ACCOUNT")

        self.step = "a new push shows up live (server-sent events)"
        self.agent_api("POST", f"/agent/v1/conversations/{conversation_id}/messages", {"text": "Live push check"})
        self.text_appears("#pushes-list", "Live push check")
        self.snap("inspector")

        self.step = "the inspector in a narrow window"
        self.driver.set_window_size(375, 800)
        self.wait.until(lambda d: d.execute_script("return window.innerWidth") <= 375)
        self.assert_no_horizontal_overflow("inspector at 375x800")
        self.snap("inspector-narrow")

        self.step = "no errors in the browser console"
        self.assert_no_console_errors()

    # --- failure artifacts --------------------------------------------------------------------
    def control(self, method, path, body=None, user=b"superadmin:superadmin"):
        """A control API call outside the browser (HTTP basic): (status, parsed body or None)."""
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        request = urllib.request.Request(self.url + path, method=method, data=data, headers={
            "content-type": "application/json", "authorization": "Basic " + base64.b64encode(user).decode()})
        try:
            with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
                text = response.read()
                return response.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def click(self, css):
        """Clicks what `css` finds once it is shown, again if a re-render replaced it meanwhile."""
        def clicked(driver):
            try:
                element = driver.find_element(By.CSS_SELECTOR, css)
                if not element.is_displayed():
                    return False
                element.click()
                return True
            except (StaleElementReferenceException, NoSuchElementException):
                return False
        self.wait.until(clicked)

    def dump_extra(self, artifacts):
        """More to keep when the test fails (a subclass's own processes)."""

    def print_recent_requests(self, count=30):
        """The server's last answered requests (method, path, status; the journal holds no bodies), printed
        with a failure: the one place a CI run's reader sees what the page asked for before it failed."""
        try:
            status, journal = self.control("GET", f"/_mock/v1/journal?limit={count}")
            entries = journal.get("entries", []) if status == 200 and isinstance(journal, dict) else []
        except Exception as error:  # the server may be gone: the failure above is what matters
            print(f"(the journal could not be read: {error})", file=sys.stderr)
            return
        print(f"the server's last {len(entries)} requests, oldest first:", file=sys.stderr)
        for entry in entries:
            query = f"?{entry['query']}" if entry.get("query") else ""
            print(f"  {entry.get('method')} {entry.get('path')}{query} -> {entry.get('status')}", file=sys.stderr)

    def desk_state(self, **more):
        """What the desk shows, for checks that it shows nothing of a previous user: the open
        conversation, its messages, call, composer, actions and co-browsing view (and `more`: name to a
        JavaScript expression)."""
        extra = "".join(f"{key}: {expression}," for key, expression in more.items())
        return self.driver.execute_script(f"""return {{
            title: document.querySelector('#conversation-title').textContent,
            messages: document.querySelectorAll('#messages > li').length,
            call: document.querySelector('#call-status').textContent,
            composer: !document.querySelector('#composer').hidden,
            actions: !document.querySelector('#conversation-actions').hidden,
            cobrowse: !document.querySelector('#cobrowse').hidden,
            frame: document.querySelector('#cobrowse-frame').getAttribute('src'),
            {extra}
        }};""")

    def save_artifacts(self):
        os.makedirs(self.artifacts, exist_ok=True)
        if self.driver:
            try:
                self.driver.save_screenshot(os.path.join(self.artifacts, "failure.png"))
                with open(os.path.join(self.artifacts, "page.html"), "w") as out:
                    out.write(self.driver.page_source)
                self.driver.set_window_size(1280, 2000)
                self.driver.save_screenshot(os.path.join(self.artifacts, "failure-tall.png"))
                self.collect_browser_log()
            except Exception as error:  # the browser may be the thing that failed
                print(f"could not save browser artifacts: {error}", file=sys.stderr)
        with open(os.path.join(self.artifacts, "browser-log.json"), "w") as out:
            json.dump(self.browser_log, out, indent=2)
        for process in (self.server, self.visitor):
            if process:
                process.dump(os.path.join(self.artifacts, f"{process.name}.log"))


def run_main(test_class, name, folder, with_tls=False):
    """Runs one browser test as a command: `--bin`, `--screenshots` (and `--tls` where the test offers
    it); on failure says at which step, saves screenshots, page, logs (and `dump_extra`'s) under
    $ARTIFACTS_DIR/FOLDER. Returns the exit status."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.environ.get("MOCK_COLLAB_BIN", os.path.join(ROOT, ".build", "debug", "mock-collab")))
    if with_tls:
        parser.add_argument("--tls", action="store_true", help="run the server with --tls (development CA) and the browser on https://")
    parser.add_argument("--screenshots", action="store_true", help="save screenshots of the main states even on success")
    args = parser.parse_args()
    artifacts = os.path.join(os.environ.get("ARTIFACTS_DIR", os.path.join(ROOT, ".build", "test-artifacts")), folder)
    test = test_class(args.bin, artifacts)
    test.screenshots = args.screenshots
    tls_dir = tempfile.mkdtemp(prefix="mock-collab-browser-tls-") if with_tls and args.tls else None
    if tls_dir:
        test.prepare_tls(tls_dir)
        artifacts = artifacts + "-tls"
        test.artifacts = artifacts
    started = time.monotonic()
    try:
        test.run()
    except (AssertionError, TimeoutException, Exception) as error:
        detail = "timed out waiting" if isinstance(error, TimeoutException) else str(error)
        print(f"{name} browser test FAILED at step '{test.step}': {detail}", file=sys.stderr)
        traceback.print_exc()
        if test.server:
            test.print_recent_requests()
        test.save_artifacts()
        test.dump_extra(artifacts)
        # The step and the traceback beside the screenshots, so a failure seen once can be read later.
        with open(os.path.join(artifacts, "failure.txt"), "w") as out:
            out.write(f"{name} browser test FAILED at step '{test.step}': {detail}\n\n{traceback.format_exc()}")
        print(f"artifacts: {artifacts}", file=sys.stderr)
        test.stop()
        return 1
    test.stop()
    if tls_dir:
        shutil.rmtree(tls_dir, ignore_errors=True)
    print(f"{name} browser test{' (HTTPS)' if tls_dir else ''} passed ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(ConsoleTest, "console", "browser", with_tls=True))
