#!/usr/bin/env python3
"""The agent desk when things do not go smoothly, in a real browser (headless Chromium, Selenium).

Starts `mock-collab serve` (in memory), two simulated visitor apps and the browser, and checks what a
careless or unlucky user meets:

- messages: a slow history load racing a live message, a live socket cut whose reconnects are refused
  for a while (the agent writes meanwhile), live events delayed while the agent answers at once, and a
  message event dropped for good (then a reconnect): each time the desk ends up showing exactly the
  server's messages, in order, each once;
- the composer sends text as typed (no trimming), refuses only-whitespace, and says so when a paste is
  over the 16 KiB limit instead of cutting it;
- a visitor's call ringing in a conversation that is not open shows a notice leading to it, and a call
  still ringing after a reload can be answered;
- co-browsing goes on after a reload (its view, new frames, the Stop button);
- the address names the open conversation, and goes on naming it while a reload reads it again; an
  address naming a conversation that is not there gets a notice, and then names the desk alone;
- presence: a reload or a second tab shows the server's presence instead of overwriting it; Log out sets
  the agent offline; the other tab then shows the login page with "Your session ended";
- logging out clears everything for the next user (desk and inspector, co-browsing stats included);
- an inspector reset makes the desk read its data again (here: the session it reset is gone).
No errors in the browser console.

    python3 Tests/browser/desk_test.py [--bin PATH]

On failure, screenshots, the page source, the browser log and the processes' output are saved under
$ARTIFACTS_DIR/browser-desk (default .build/test-artifacts/browser-desk/).
"""
import json
import os
import shutil
import sys
import tempfile
import time
import urllib.request

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select

from console_test import ROOT, WAIT_SECONDS, ConsoleTest, run_main, Process, event_of, ok, result_of

LIVE = "/agent/v1/events"


class DeskTest(ConsoleTest):
    def __init__(self, binary, artifacts):
        super().__init__(binary, artifacts)
        self.second = None
        self.tmp = tempfile.mkdtemp(prefix="mock-collab-desk-test-")

    def stop(self):
        if self.second:
            self.second.stop()
        super().stop()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # --- helpers ------------------------------------------------------------------------------
    def add_fault(self, rule):
        status, body = self.control("POST", "/_mock/v1/faults", rule)
        assert status == 201, f"adding fault {rule}: {status} {body}"

    def clear_faults(self):
        status, body = self.control("DELETE", "/_mock/v1/faults")
        assert status in (200, 204), f"removing faults: {status} {body}"

    def online_agents(self):
        """What a visitor's app reads: GET /mobile/v1/availability's onlineAgents."""
        start = urllib.request.Request(self.url + "/mobile/v1/clients", method="POST", headers={"content-type": "application/json"},
                                       data=json.dumps({"apiKey": "demo-api-key", "deviceId": f"availability-{time.monotonic_ns()}", "device": {"os": "iOS"}}).encode())
        with urllib.request.urlopen(start, timeout=WAIT_SECONDS) as response:
            token = json.load(response)["token"]
        bearer = {"authorization": "Bearer " + token}
        with urllib.request.urlopen(urllib.request.Request(self.url + "/mobile/v1/availability", headers=bearer), timeout=WAIT_SECONDS) as response:
            online = json.load(response)["onlineAgents"]
        urllib.request.urlopen(urllib.request.Request(self.url + "/mobile/v1/clients/current", method="DELETE", headers=bearer), timeout=WAIT_SECONDS)
        return online

    def server_messages(self, conversation_id):
        status, page = self.control("GET", f"/agent/v1/conversations/{conversation_id}/messages?limit=1000", user=b"agent:agent")
        assert status == 200, page
        return [[m["sequence"], m["id"]] for m in page["messages"]]

    def desk_messages(self):
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#messages > li')].map(li => [Number(li.dataset.sequence), li.dataset.messageId]);")

    def desk_texts(self):
        return self.driver.execute_script("return [...document.querySelectorAll('#messages > li .text')].map(p => p.textContent);")

    def in_sync(self, conversation_id, what):
        """Waits until the desk shows exactly the server's messages (order, each once)."""
        try:
            self.wait.until(lambda d: self.desk_messages() == self.server_messages(conversation_id))
        except TimeoutException:
            raise AssertionError(f"{what}: the desk shows {self.desk_messages()}, the server has {self.server_messages(conversation_id)}")

    def live_status(self):
        return self.text_of("#live-status")

    def wait_connected(self):
        self.wait.until(lambda d: self.live_status() == "Live events: connected")

    def type_message(self, text):
        composer = self.visible("#composer-text")
        composer.send_keys(text)
        composer.send_keys(Keys.ENTER)

    def set_composer(self, text):
        """Puts text in the composer as a paste would (send_keys of 20,000 characters is slow)."""
        self.driver.execute_script(
            "const t = document.querySelector('#composer-text'); t.value = arguments[0]; t.dispatchEvent(new Event('input', {bubbles: true}));", text)

    def open_mine(self, conversation_id):
        self.click(f"#mine-list li[data-conversation-id='{conversation_id}'] button.link")
        self.wait.until(lambda d: self.find("#conversation").get_attribute("data-conversation-id") == conversation_id)

    def presence_shown(self):
        return self.find("#presence").get_attribute("value")

    def addressed(self):
        """The conversation the address names (`#desk/ID`), or None."""
        fragment = self.driver.execute_script("return window.location.hash;")
        return fragment[len("#desk/"):] if fragment.startswith("#desk/") else None

    def address_state(self):
        """The address, the open conversation and the saved desk state, for a failure message."""
        return self.driver.execute_script(
            "return {url: window.location.href, open: document.querySelector('#conversation').dataset.conversationId,"
            " saved: sessionStorage.getItem('mockcollab.console.desk')};")

    def reload(self):
        self.driver.refresh()
        self.visible("#who")
        self.wait_connected()

    def accept(self, conversation_id):
        # The queue re-renders as events come: the click finds the button again if the card was replaced.
        self.click(f"#queue-list li[data-conversation-id='{conversation_id}'] button.accept")
        self.wait.until(lambda d: self.find("#conversation").get_attribute("data-conversation-id") == conversation_id)
        self.text_appears("#conversation-meta", "ACTIVE")

    # --- the scenario -------------------------------------------------------------------------
    def run(self):
        self.step = "start the server, two visitor apps and the browser"
        self.start_server()
        self.start_visitor()
        # A second named area whose name is not its siteId: the queue card names it.
        status, seeded = self.control("POST", "/_mock/v1/seed", {"accounts": [{"name": "demo", "namedAreas": [{"siteId": "vip", "name": "VIP lounge"}]}]})
        assert status == 200, seeded
        self.second = Process("visitor-2", [self.binary, "visitor", "--url", self.url, "--named-area", "vip", "--device-id", "desk-test-second"], stdin=True)
        ok(self.second.expect(lambda v: isinstance(v, dict) and v.get("type") in ("started", "error"), "second client start"))
        self.start_browser()
        assert self.online_agents() == 0, "nobody is online before the agent logs in"

        self.step = "the agent logs in: online; the visitor's conversation is accepted"
        self.visitor.send("start Card blocked")
        first = ok(self.visitor.expect(result_of("start"), "conversation start"))["conversationId"]
        for text in ("early one", "early two"):
            self.visitor.send(f"say {text}")
            ok(self.visitor.expect(result_of("say"), "say result"))
        self.driver.get(self.url + "/")
        self.log_in("agent", "agent", "REGISTERED_USER")
        self.wait_connected()
        self.wait.until(lambda d: self.presence_shown() == "ONLINE")
        assert self.online_agents() == 1, "logging in brings the agent online"
        self.step = "the queue card names the named area and tells the visitor by device"
        card = f"#queue-list li[data-conversation-id='{first}']"
        self.text_appears(card, "area demo-area")
        self.text_appears(card, "Visitor on device browser-test-device")
        assert "NAMED_AREA" not in self.text_of(card), self.text_of(card)
        self.accept(first)
        self.in_sync(first, "after accepting")

        self.step = "internal notes: text and a file as notes, labelled; the visitor never gets them"
        self.click("#composer-internal")
        self.wait.until(lambda d: self.find("#composer-send").text == "Add note")
        self.type_message("private note for agents")
        note = "#messages li[data-internal='true']"
        self.text_appears(note, "Internal note")
        assert "private note for agents" in self.text_of(note), self.text_of(note)
        note_file = os.path.join(self.tmp, "note-attachment.txt")
        with open(note_file, "w") as out:
            out.write("for agents only\n")
        self.find("#composer-file").send_keys(note_file)
        self.find("#file-send").click()
        self.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages li[data-internal='true'] a.file")) == 1)
        self.click("#composer-internal")
        self.wait.until(lambda d: self.find("#composer-send").text == "Send")
        self.type_message("after the notes")
        # Events reach the visitor in order: once this message arrived, the notes would have come before it.
        self.visitor.expect(event_of("conversation.new_message", lambda e: e["message"].get("text") == "after the notes"), "the message after the notes")
        leaked = [line for line in self.visitor.lines if "private note for agents" in line or "note-attachment" in line]
        assert not leaked, f"the visitor got an internal note: {leaked}"
        # Read in one step in the page: a re-render may replace the node between a find and a read.
        shown = self.wait.until(lambda d: d.execute_script(
            "const li = [...document.querySelectorAll('#messages > li')].find(li => li.textContent.includes('after the notes'));"
            " return li ? {internal: li.dataset.internal || null, last: li === li.parentElement.lastElementChild} : null;"))
        assert shown == {"internal": None, "last": True}, f"a message sent after unticking is not a note, and comes last: {shown}"
        self.in_sync(first, "after the notes")
        status, view = self.control("GET", f"/agent/v1/conversations/{first}", user=b"agent:agent")
        counted = view["messageCount"]
        self.text_appears(f"#mine-list li[data-conversation-id='{first}']", f"{counted} messages · 2 internal notes")
        assert "(s)" not in self.text_of("#mine-list")

        self.step = "messages: a slow history load races a live message"
        self.add_fault({"id": "slow-history", "match": {"surface": "AGENT", "method": "GET", "path": "/agent/v1/conversations/*/messages"},
                        "action": {"type": "LATENCY", "millis": 1500}})
        self.reload()
        self.open_mine(first)
        self.visitor.send("say arrives while the desk loads")
        ok(self.visitor.expect(result_of("say"), "say result"))
        self.in_sync(first, "a message arriving while the history loads")
        self.clear_faults()

        self.step = "messages: the live socket is cut and its reconnects refused while both sides write"
        self.add_fault({"id": "no-upgrade", "match": {"surface": "AGENT", "method": "GET", "path": LIVE}, "action": {"type": "ERROR", "status": 503}, "limit": 3})
        self.add_fault({"id": "cut", "match": {"surface": "AGENT", "path": LIVE}, "action": {"type": "WEBSOCKET_CLOSE", "closeCode": 1011}, "limit": 1})
        self.visitor.send("say two (the socket is cut now)")
        ok(self.visitor.expect(result_of("say"), "say result"))
        self.wait.until(lambda d: self.live_status() != "Live events: connected")
        self.visitor.send("say three (while the desk is disconnected)")
        ok(self.visitor.expect(result_of("say"), "say result"))
        self.type_message("agent reply while disconnected")
        self.text_appears("#messages", "agent reply while disconnected")
        self.wait_connected()
        self.in_sync(first, "after the socket came back")
        self.clear_faults()

        self.step = "messages: live events delayed while the agent answers at once"
        self.add_fault({"id": "slow-events", "match": {"surface": "AGENT", "path": LIVE},
                        "action": {"type": "LIVE_EVENT_DELAY", "eventTypes": ["conversation.new_message"], "distribution": "FIXED", "millis": 1500}})
        # A new queue filter reconnects the socket (the delay rule is drawn for it).
        self.visible("#area-filter input[value='demo-area']").send_keys(Keys.SPACE)
        self.wait_connected()
        self.visitor.send("say a question")
        ok(self.visitor.expect(result_of("say"), "say result"))
        self.type_message("a quick answer")
        self.in_sync(first, "a delayed visitor message before the agent's answer")
        self.visitor.send("say after the delay")
        ok(self.visitor.expect(result_of("say"), "say result"))
        # Events keep their order: once this one is shown, the delayed ones before it have arrived too.
        self.text_appears("#messages", "after the delay")
        assert self.desk_messages() == self.server_messages(first), f"duplicates or holes: {self.desk_messages()}"
        self.clear_faults()
        self.visible("#area-filter input[value='demo-area']").send_keys(Keys.SPACE)
        self.wait_connected()

        self.step = "messages: an event dropped for good, then a reconnect: the desk reads the conversation again"
        self.add_fault({"id": "drop", "match": {"surface": "AGENT", "path": LIVE}, "action": {"type": "LIVE_EVENT_DROP", "eventTypes": ["conversation.new_message"]}})
        self.visitor.send("say lost in transit")
        ok(self.visitor.expect(result_of("say"), "say result"))
        self.clear_faults()
        # A later event reaches the desk (a presence change made elsewhere), so a reconnect does not
        # replay the dropped one; the next event then finds the socket cut.
        assert self.control("PUT", "/agent/v1/presence", {"presence": "AWAY"}, user=b"agent:agent")[0] == 200
        self.wait.until(lambda d: self.presence_shown() == "AWAY")
        self.add_fault({"id": "cut-again", "match": {"surface": "AGENT", "path": LIVE}, "action": {"type": "WEBSOCKET_CLOSE", "closeCode": 1011}, "limit": 1})
        assert self.control("PUT", "/agent/v1/presence", {"presence": "ONLINE"}, user=b"agent:agent")[0] == 200
        self.wait.until(lambda d: self.presence_shown() == "ONLINE")
        self.text_appears("#messages", "lost in transit")
        self.in_sync(first, "after a reconnect")
        self.clear_faults()

        self.step = "the composer: text as typed, no whitespace-only message, no silent cut"
        self.type_message("   padded on both sides   ")
        sent = self.visitor.expect(event_of("conversation.new_message", lambda e: "padded on both sides" in e["message"]["text"]), "the padded message")
        assert sent["event"]["message"]["text"] == "   padded on both sides   ", repr(sent["event"]["message"]["text"])
        self.in_sync(first, "after the padded message")
        count = len(self.server_messages(first))
        self.set_composer("   \n  ")
        self.find("#composer-send").click()
        self.text_appears("#composer-note", "only spaces")
        assert len(self.server_messages(first)) == count, "a whitespace-only message is not sent"
        long_text = ("0123456789abcdef" * 1250)[:20000]
        self.set_composer(long_text)
        self.text_appears("#composer-note", "Too long to send: 20,000 bytes")
        self.text_appears("#composer-note", "16,384")
        self.visible("#composer-text").send_keys(Keys.ENTER)
        self.text_appears("#composer-note", "Nothing was cut")
        assert self.find("#composer-text").get_attribute("value") == long_text, "the pasted text is kept whole"
        assert len(self.server_messages(first)) == count, "a message over the limit is not sent"
        self.set_composer("")
        self.wait.until(lambda d: not self.find("#composer-note").is_displayed())

        self.step = "the second visitor's card names the area by its name"
        self.second.send("start Second matter")
        second = ok(self.second.expect(result_of("start"), "second conversation"))["conversationId"]
        self.text_appears(f"#queue-list li[data-conversation-id='{second}']", "area VIP lounge")
        self.text_appears(f"#queue-list li[data-conversation-id='{second}']", "Visitor on device desk-test-second")
        self.accept(second)

        self.step = "unread: a message in a conversation that is not open marks it and counts in the title"
        self.visitor.send("say are you there?")
        ok(self.visitor.expect(result_of("say"), "say result"))
        self.text_appears(f"#mine-list li[data-conversation-id='{first}'] .badge.unread", "1 new")
        self.wait.until(lambda d: "(1)" in d.title)
        assert not self.driver.find_elements(By.CSS_SELECTOR, f"#mine-list li[data-conversation-id='{second}'].unread"), "the open one has nothing unread"

        self.step = "calls: a visitor's call ringing in a conversation that is not open shows a notice leading to it"
        self.visitor.send("call")
        ok(self.visitor.expect(result_of("call"), "call result"))
        self.text_appears(f"#call-notices li[data-conversation-id='{first}']", "Incoming audio call in “Card blocked”")
        self.visible(f"#mine-list li[data-conversation-id='{first}'] .badge.ringing")
        self.click(f"#call-notices li[data-conversation-id='{first}'] button")
        self.wait.until(lambda d: self.find("#conversation").get_attribute("data-conversation-id") == first)
        self.text_appears("#call-status", "AUDIO call from the visitor: RINGING")
        self.visible("#call-answer")
        self.wait.until(EC.invisibility_of_element_located((By.CSS_SELECTOR, "#call-notices")))
        # Opened: its unread mark is gone.
        self.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, f"#mine-list li[data-conversation-id='{first}'] .badge.unread"))

        self.step = "a reload keeps the ticked named area"
        self.visible("#area-filter input[value='vip']").send_keys(Keys.SPACE)
        self.wait_connected()

        self.step = "calls: after a reload the same conversation is open again, its ringing call there to answer"
        try:
            self.wait.until(lambda d: self.addressed() == first)
        except TimeoutException:
            raise AssertionError(f"the address names the open conversation: {self.address_state()}")
        self.reload()
        # While the desk reads it again, the address goes on naming it (a second reload would come back to it too).
        assert self.addressed() == first, f"the address names the conversation being opened again: {self.address_state()}"
        self.wait.until(lambda d: self.find("#conversation").get_attribute("data-conversation-id") == first)
        self.text_appears("#call-status", "AUDIO call from the visitor: RINGING")
        assert self.find("#area-filter input[value='vip']").is_selected(), "the ticked area is ticked after the reload"
        assert not self.find("#area-filter input[value='demo-area']").is_selected()
        self.visible("#area-filter input[value='vip']").send_keys(Keys.SPACE)
        self.click("#call-answer")
        self.text_appears("#call-status", "AUDIO call from the visitor: ACTIVE")
        self.visitor.send("hangup")
        ok(self.visitor.expect(result_of("hangup"), "hangup result"))
        self.text_appears("#call-status", "ENDED (the other side hung up)")

        self.step = "the visitor ends a conversation: the desk says so; it stays readable under Recently ended"
        self.second.send("end")
        ok(self.second.expect(result_of("end"), "end result"))
        self.text_appears("#toast", "ended “Second matter”")
        self.wait.until(lambda d: not d.find_elements(By.CSS_SELECTOR, f"#mine-list li[data-conversation-id='{second}']"))
        self.click(f"#ended-list li[data-conversation-id='{second}'] button.link")
        self.wait.until(lambda d: self.find("#conversation").get_attribute("data-conversation-id") == second)
        self.text_appears("#conversation-ended", "The visitor ended this conversation")
        assert not self.find("#composer").is_displayed(), "an ended conversation has no composer"
        self.open_mine(first)

        self.step = "co-browsing goes on after a reload: its view, new frames, Stop"
        self.find("#cobrowse-request").click()
        self.visible("#cobrowse")
        self.visitor.expect(event_of("cobrowsing.requested"), "co-browsing request")
        self.visitor.send("frame")
        assert ok(self.visitor.expect(result_of("frame"), "frame result"))["ack"] == "frame.accepted"
        self.wait.until(lambda d: self.find("#cobrowse-frame").get_attribute("data-sequence"))
        session_id = self.find("#cobrowse").get_attribute("data-session-id")
        self.reload()
        self.open_mine(first)
        self.visible("#cobrowse")
        self.visible("#cobrowse-stop")
        assert not self.find("#cobrowse-request").is_displayed(), "no second request while a session runs"
        assert self.find("#cobrowse").get_attribute("data-session-id") == session_id
        shown = self.wait.until(lambda d: self.find("#cobrowse-frame").get_attribute("data-sequence"))
        self.visitor.send("frame")
        assert ok(self.visitor.expect(result_of("frame"), "frame result"))["ack"] == "frame.accepted"
        self.wait.until(lambda d: self.find("#cobrowse-frame").get_attribute("data-sequence") not in (None, shown))
        image = self.find("#cobrowse-frame")
        self.wait.until(lambda d: d.execute_script("const i = arguments[0]; return i.complete && i.naturalWidth > 0;", image))

        self.step = "presence: Away survives a reload and a second tab"
        Select(self.find("#presence")).select_by_value("AWAY")
        self.wait.until(lambda d: self.online_agents() == 0)
        self.reload()
        self.wait.until(lambda d: self.presence_shown() == "AWAY" and self.find("#presence").is_enabled())
        assert self.online_agents() == 0, "a reload does not bring the agent back online"
        first_tab = self.driver.current_window_handle
        self.driver.switch_to.new_window("tab")
        self.driver.get(self.url + "/")
        self.visible("#who")
        self.wait_connected()
        self.wait.until(lambda d: self.presence_shown() == "AWAY" and self.find("#presence").is_enabled())
        assert self.online_agents() == 0, "a second tab does not bring the agent back online"
        second_tab = self.driver.current_window_handle

        self.step = "a logout the server fails leaves the page logged in and says so; the desk goes on"
        self.add_fault({"id": "no-logout", "match": {"surface": "WEB_API", "method": "POST", "path": "/app/rest/v4/authenticator/logout"},
                        "action": {"type": "ERROR", "status": 500}, "limit": 1})
        self.find("#logout").click()
        self.text_appears("#toast", "Logout failed: injected fault (HTTP 500)")
        assert self.find("#who").is_displayed() and not self.find("#login-view").is_displayed(), "the page stayed logged in"
        self.wait_connected()
        self.clear_faults()

        self.step = "presence: Log out in one tab sets the agent offline; the other tab's session ends"
        Select(self.find("#presence")).select_by_value("ONLINE")
        self.wait.until(lambda d: self.online_agents() == 1)
        self.driver.switch_to.window(first_tab)
        self.wait.until(lambda d: self.presence_shown() == "ONLINE")  # the other tab's change, live
        self.driver.switch_to.window(second_tab)
        self.find("#logout").click()
        self.visible("#login-view")
        assert self.online_agents() == 0, "Log out takes the agent offline"
        self.driver.close()
        self.driver.switch_to.window(first_tab)
        self.visible("#login-view")
        self.text_appears("#login-error", "Your session ended")
        assert not self.find("#who").is_displayed()
        self.assert_desk_empty("after the session ended")

        self.step = "log in as superadmin: nothing of the agent's; co-browsing stats in the inspector"
        self.log_in("superadmin", "superadmin", "SUPER_ADMIN")
        self.wait_connected()
        self.assert_desk_empty("the next user's desk")
        self.find(".view-tab[data-view='inspector']").click()
        field = self.visible("#cbstats-session")
        field.send_keys(session_id)
        self.find("#cbstats-form button[type=submit]").click()
        self.text_appears("#cbstats", "Accepted")

        self.step = "log out, log in as admin: no stats, no session id, nothing of the previous user"
        self.find("#logout").click()
        self.log_in("admin", "admin", "ADMIN")
        self.find(".view-tab[data-view='inspector']").click()
        self.visible("#cbstats-form")
        assert self.text_of("#cbstats") == "", f"stats left over: {self.text_of('#cbstats')}"
        assert self.find("#cbstats-session").get_attribute("value") == "", "the previous user's session id is gone"
        self.find(".view-tab[data-view='desk']").click()
        self.assert_desk_empty("admin's desk")

        self.step = "an address naming a conversation that is not there: the desk says so, then names itself alone"
        self.driver.get(self.url + "/#desk/no-such-conversation")
        self.driver.refresh()
        self.visible("#who")
        self.text_appears("#toast", "The conversation that was open (no-such-conversation) is gone")
        self.wait.until(lambda d: d.execute_script("return window.location.hash;") == "#desk")
        saved = json.loads(self.driver.execute_script("return sessionStorage.getItem('mockcollab.console.desk');") or "{}")
        assert "conversationId" not in saved, f"the saved desk state forgets it: {saved}"
        self.assert_desk_empty("after the address named a missing conversation")

        self.step = "an inspector reset: the desk reads its data again (the reset ended this session)"
        self.find("#logout").click()
        self.log_in("superadmin", "superadmin", "SUPER_ADMIN")
        self.wait_connected()
        self.second.send("start Third matter")
        third = ok(self.second.expect(result_of("start"), "third conversation"))["conversationId"]
        self.accept(third)

        self.step = "on the Inspector tab, a visitor's call rings: the notice shows there, the desk tab and the title say so"
        self.find(".view-tab[data-view='inspector']").click()
        self.visible("#inspector-panels")
        self.second.send("call")
        ok(self.second.expect(result_of("call"), "call result"))
        self.text_appears(f"#call-notices li[data-conversation-id='{third}']", "Incoming audio call in “Third matter”")
        self.text_appears("#desk-badge", "call")
        self.wait.until(lambda d: "Call ringing" in d.title)
        self.click(f"#call-notices li[data-conversation-id='{third}'] button")
        self.visible("#desk-view")
        self.text_appears("#call-status", "AUDIO call from the visitor: RINGING")
        self.wait.until(lambda d: not self.find("#desk-badge").is_displayed())
        self.click("#call-decline")
        self.text_appears("#call-status", "ENDED (declined)")
        self.wait.until(lambda d: "Call ringing" not in d.title)

        self.step = "ending a conversation asks first; dismissed, nothing ends; confirmed, it moves to Recently ended"
        self.click("#conversation-end")
        question = self.wait.until(EC.alert_is_present())
        assert "End “Third matter”?" in question.text, question.text
        question.dismiss()
        assert self.find("#conversation").get_attribute("data-state") == "ACTIVE", "a dismissed end ends nothing"
        self.click("#conversation-end")
        self.wait.until(EC.alert_is_present()).accept()
        self.text_appears("#conversation-ended", "You ended this conversation")
        self.visible(f"#ended-list li[data-conversation-id='{third}']")
        self.find(".view-tab[data-view='inspector']").click()
        self.visible("#reset-form input[name=account]").send_keys("demo")
        self.find("#reset-form button[type=submit]").click()
        self.wait.until(EC.alert_is_present()).accept()
        self.visible("#login-view")
        self.text_appears("#login-error", "Your session ended")
        self.assert_desk_empty("after the reset")
        # The login page says it once: no toast about the same 401s beside it.
        assert not self.find("#toast").is_displayed() or "authentication" not in self.text_of("#toast"), self.text_of("#toast")
        assert self.driver.title == "MockCollab console", self.driver.title

        self.step = "no errors in the browser console"
        # The requests the faults refused on purpose (the live socket's 503s, the logout's 500), the probes of
        # an ended session, the reset's 401s and the missing conversation's 404 are expected.
        expected = ("/agent/v1/events", "503", "401", "Unauthorized", "/agent/v1/conversations/no-such-conversation - Failed",
                    "authenticator/logout - Failed to load resource: the server responded with a status of 500")
        unexpected = [e for e in self.collect_browser_log() if e.get("level") == "SEVERE" and not any(word in e.get("message", "") for word in expected)]
        assert not unexpected, f"errors in the browser console: {unexpected}"

    def dump_extra(self, artifacts):
        if self.second:
            self.second.dump(os.path.join(artifacts, "visitor-2.log"))

    def assert_desk_empty(self, where):
        state = self.desk_state(
            notices="document.querySelectorAll('#call-notices li').length",
            mine="[...document.querySelectorAll('#mine-list li')].map(li => li.textContent)",
            stats="document.querySelector('#cbstats').textContent",
            statsSession="document.querySelector('#cbstats-session').value",
            ended="document.querySelectorAll('#ended-list li').length",
            endedLine="document.querySelector('#conversation-ended').textContent",
        )
        assert state == {"title": "No conversation open", "messages": 0, "call": "", "composer": False, "actions": False, "cobrowse": False,
                         "frame": None, "notices": 0, "mine": [], "stats": "", "statsSession": "", "ended": 0, "endedLine": ""}, f"{where}: {state}"


if __name__ == "__main__":
    sys.exit(run_main(DeskTest, "desk", "browser-desk"))
