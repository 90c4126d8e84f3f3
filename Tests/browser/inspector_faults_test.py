#!/usr/bin/env python3
"""The inspector's fault rules and snapshots in a real browser (headless Chromium, Selenium).

Starts `mock-collab serve` (in memory) and, as `superadmin`: adds a latency rule through the form and
sees it listed (and on the control API), removes it with its button, adds an error rule the same way;
a rule for every request asks for confirmation first (it would fail the console's own requests), and
so does a WEB_API or AGENT rule that matches the console's requests, saying how to remove it through
the control API; a failed download after a good one replaces its result line, a file that is no
snapshot is refused before any question; a failed seed replaces the seed's result line; the clock
refuses a fraction and asks before going back; an unknown co-browsing id is named as typed; no
sideways scrolling at 375 px;
downloads a snapshot of the whole server (a real browser download, named by its scope; a failed
download's error goes once it succeeds), changes the server, restores the
downloaded file through the file picker and sees the change undone with the session kept. The Entities
panel: a seed gives the demo account teams and a canned response; the kind picker counts them, picking
Team lists them, clicking one shows its JSON; the global file-upload interceptors are listed for the
super admin only, an empty one "on this server"; an unknown account empties the panel. Then as `admin`:
the rule it adds is confined to its own account, it does not see the
super admin's rule, restoring is disabled, the Entities panel shows its own account only, and its
snapshot downloads as its account's, redacted. Back as `superadmin`, restoring that redacted file warns
first that nobody could log in; restored anyway, the console's session ends and the password is gone.
No errors in the browser console.

    python3 Tests/browser/inspector_faults_test.py [--bin PATH]

On failure, screenshots, the page source, the browser log and the server's output are saved under
$ARTIFACTS_DIR/browser-inspector (default .build/test-artifacts/browser-inspector/).
"""
import glob
import json
import os
import shutil
import sys
import tempfile

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from console_test import ROOT, WAIT_SECONDS, ConsoleTest, run_main


class InspectorFaultsTest(ConsoleTest):
    def __init__(self, binary, artifacts):
        super().__init__(binary, artifacts)
        self.downloads = tempfile.mkdtemp(prefix="mock-collab-browser-downloads-")
        self.scratch = tempfile.mkdtemp(prefix="mock-collab-browser-files-")
        self.seen_downloads = set()

    def start_browser(self):
        options = webdriver.ChromeOptions()
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,800", "--disable-gpu", "--no-first-run"):
            options.add_argument(argument)
        options.add_experimental_option("prefs", {
            "download.default_directory": self.downloads, "download.prompt_for_download": False, "safebrowsing.enabled": False,
        })
        binary = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
        if os.path.exists(binary):
            options.binary_location = binary
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
        self.driver = webdriver.Chrome(service=service, options=options)
        # Headless Chromium saves downloads only where it is told to.
        self.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": self.downloads})
        self.driver.set_window_size(1280, 800)
        self.wait = WebDriverWait(self.driver, WAIT_SECONDS, ignored_exceptions=(StaleElementReferenceException,))

    def stop(self):
        super().stop()
        shutil.rmtree(self.downloads, ignore_errors=True)
        shutil.rmtree(self.scratch, ignore_errors=True)

    def rules(self, user=b"superadmin:superadmin"):
        status, body = self.control("GET", "/_mock/v1/faults", user=user)
        assert status == 200, f"listing rules: {status} {body}"
        return body["rules"]

    def add_rule_in_form(self, surface, path, action, value):
        form = self.find("#fault-form")
        Select(form.find_element(By.NAME, "surface")).select_by_visible_text(surface)
        field = form.find_element(By.NAME, "path")
        field.clear()
        field.send_keys(path)
        Select(form.find_element(By.NAME, "type")).select_by_value(action)
        name = "millis" if action == "LATENCY" else "status"
        amount = self.visible(f"#fault-form input[name='{name}']")
        amount.clear()
        amount.send_keys(str(value))
        form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    def open_inspector(self):
        self.find(".view-tab[data-view='inspector']").send_keys(Keys.ENTER)
        self.visible("#inspector-panels")
        self.visible("#faults-panel")

    def pick_kind(self, type_name, count):
        """Picks a kind once the picker lists it with `count` entities, and waits for its list."""
        self.text_appears("#entities-kind", f"{type_name} ({count})")
        Select(self.find("#entities-kind")).select_by_value(type_name)
        self.wait.until(lambda d: self.find("#entities-kind").get_attribute("value") == type_name)

    def check_entities(self):
        self.pick_kind("Team", 2)
        self.text_appears("#entities-table tbody", "Support team")
        self.text_appears("#entities-table tbody", "Sales team")
        # Both teams come from one seed, created in the same millisecond: their order is not the seed's,
        # so the row is found by its name.
        # Found and clicked again if a re-render replaced the row meanwhile (the wait ignores stale elements).
        def open_support_team(driver):
            row = next((r for r in driver.find_elements(By.CSS_SELECTOR, "#entities-table tbody tr") if "Support team" in r.text), None)
            if row is None:
                return False
            row.find_element(By.CSS_SELECTOR, "button[data-index]").click()
            return True
        self.wait.until(open_support_team)
        self.visible("#entity-detail")
        self.text_appears("#entity-json", '"name": "Support team"')
        self.text_appears("#entity-json", '"$_type": "Team"')
        self.pick_kind("CannedResponse", 1)
        self.text_appears("#entities-table tbody", "Greeting")

    def wait_for_download(self, pattern="*.snapshot.json"):
        """The path of a finished download matching `pattern` not returned before."""
        def finished(_):
            if glob.glob(os.path.join(self.downloads, "*.crdownload")):
                return False
            names = [n for n in glob.glob(os.path.join(self.downloads, pattern)) if n not in self.seen_downloads]
            return names[0] if names else False
        path = self.wait.until(finished)
        self.seen_downloads.add(path)
        return path

    def assert_no_console_errors(self):
        """As the base test, but the 404s this test provokes on purpose (an unknown account) are expected."""
        errors = [e for e in self.collect_browser_log() if e.get("level") == "SEVERE" and not self.expected_error(e)]
        assert not errors, f"errors in the browser console: {errors}"

    @staticmethod
    def expected_error(entry):
        """The failures this test provokes on purpose: an unknown account or session (404), an invalid seed (400)."""
        message = entry.get("message", "")
        return (("no-such-account" in message or "cobrowsing/nope" in message) and "404" in message) or ("_mock/v1/seed" in message and "400" in message)

    def alert_text(self, accept):
        """The confirmation's text; accepts or dismisses it."""
        alert = self.wait.until(EC.alert_is_present())
        text = alert.text
        if accept:
            alert.accept()
        else:
            alert.dismiss()
        return text

    def run(self):
        self.step = "start the server and the browser; a seed gives the demo account teams and a canned response"
        self.start_server()
        status, seeded = self.control("POST", "/_mock/v1/seed", {"accounts": [{"name": "demo", "entities": {
            "teams": [{"name": "Support team"}, {"name": "Sales team"}],
            "cannedResponses": [{"title": "Greeting", "text": "Hello there", "ownerType": "ACCOUNT", "ownerId": "demo"}]}}]})
        assert status == 200, seeded
        self.start_browser()
        self.driver.get(self.url + "/")

        self.step = "log in as superadmin and open the inspector: no rules yet"
        self.log_in("superadmin", "superadmin", "SUPER_ADMIN")
        self.open_inspector()
        self.text_appears("#faults-table tbody", "No fault rules")

        self.step = "add a latency rule in the form: listed on the page and on the control API"
        self.add_rule_in_form("MOBILE", "/mobile/v1/conversations/*/messages", "LATENCY", 250)
        self.text_appears("#faults-table tbody", "latency 250 ms")
        self.text_appears("#faults-table tbody", "MOBILE /mobile/v1/conversations/*/messages")
        rules = self.rules()
        assert len(rules) == 1, rules
        latency = rules[0]
        assert latency["action"] == {"type": "LATENCY", "distribution": "FIXED", "millis": 250}, latency
        assert latency["match"] == {"surface": "MOBILE", "path": "/mobile/v1/conversations/*/messages"}, latency

        self.step = "remove it with its button"
        self.find(f"#faults-table button[data-remove='{latency['id']}']").click()
        self.text_appears("#faults-table tbody", "No fault rules")
        assert self.rules() == [], "the rule is gone on the server"

        self.step = "add an error rule; a rule made elsewhere shows up by the refresh"
        self.add_rule_in_form("WEB_API", "/app/rest/v4/webhookregistrations/**", "ERROR", 503)
        self.text_appears("#faults-table tbody", "error 503")
        status, added = self.control("POST", "/_mock/v1/faults", {"match": {"surface": "AGENT"}, "action": {"type": "LATENCY", "millis": 7}})
        assert status == 201, added
        self.text_appears("#faults-table tbody", "latency 7 ms")
        self.snap("inspector-faults")

        self.step = "a rule for every request (no surface, method or path) asks first: it would fail the console's own requests"
        self.add_rule_in_form("any", "", "ERROR", 500)
        warning = self.alert_text(accept=False)
        assert "matches every request" in warning and "also fail the console's own requests" in warning, warning
        assert len(self.rules()) == 2, "a dismissed rule is not added"

        self.step = "a rule with a surface that still hits the console's own requests asks too, and says how to get out"
        self.add_rule_in_form("WEB_API", "", "ERROR", 500)
        warning = self.alert_text(accept=False)
        assert "matches the console's own requests" in warning and "logging in" in warning, warning
        assert "/_mock/v1/faults" in warning and "control API" in warning, warning
        self.add_rule_in_form("AGENT", "", "LATENCY", 100)
        warning = self.alert_text(accept=False)
        assert "the desk's live events" in warning and "delay them by 100 ms" in warning, warning
        assert len(self.rules()) == 2, "dismissed rules are not added"

        self.step = "the Entities panel: the seeded teams by kind, one's JSON on click; the global kind for the super admin"
        self.check_entities()
        self.text_appears("#entities-kind", "FileUploadGlobalInterceptor (0) · whole server")
        self.pick_kind("FileUploadGlobalInterceptor", 0)
        self.text_appears("#entities-table tbody", "No FileUploadGlobalInterceptor on this server")
        assert "in this account" not in self.text_of("#entities-table tbody"), "a whole-server kind is in no account"
        self.snap("inspector-entities")

        self.step = "the Entities panel: an unknown account shows nothing of the previous account's"
        account = self.find("#entities-form input[name=account]")
        account.send_keys("no-such-account")
        self.find("#entities-form button[type=submit]").click()
        self.text_appears("#entities-status", "Nothing to show for account “no-such-account”")
        assert self.driver.execute_script("return document.querySelectorAll('#entities-kind option, #entities-table tbody tr').length") == 0, \
            "the previous account's kinds and entities are gone"
        self.visible("#toast[data-kind='error']")
        account.clear()
        self.find("#entities-form button[type=submit]").click()
        self.text_appears("#entities-kind", "Team (2)")
        # The next Show that works takes the unknown account's error away.
        self.wait.until(lambda d: not self.find("#toast").is_displayed())

        self.step = "a failed download's error goes once the next download succeeds"
        field = self.find("#snapshot-take input[name=account]")
        field.send_keys("no-such-account")
        self.find("#snapshot-take button[type=submit]").click()
        self.visible("#toast[data-kind='error']")

        self.step = "download a snapshot of the whole server, with its secrets: named by its scope"
        field.clear()
        self.find("#snapshot-take input[name=secrets]").click()
        self.find("#snapshot-take button[type=submit]").click()
        path = self.wait_for_download()
        self.text_appears("#snapshot-result", "Snapshot downloaded")
        assert not self.find("#toast").is_displayed(), "the earlier error is not left beside the result"
        assert os.path.basename(path).startswith("mock-collab-server-") and "redacted" not in path, path
        with open(path) as handle:
            document = json.load(handle)
        assert document["format"] == "mock-collab-snapshot" and document["scope"] == "server", document.get("scope")
        assert document["secrets"] == "included", document.get("secrets")

        self.step = "a failed download after a good one: the result line says so, not the old success"
        field.send_keys("no-such-account")
        self.find("#snapshot-take button[type=submit]").click()
        self.text_appears("#snapshot-result", "Snapshot download failed")
        assert "downloaded:" not in self.text_of("#snapshot-result"), self.text_of("#snapshot-result")
        field.clear()

        self.step = "restoring a file that is no snapshot is refused before any confirmation"
        garbage = os.path.join(self.scratch, "garbage.json")
        with open(garbage, "w") as out:
            out.write("this is not json")
        self.find("#snapshot-file").send_keys(garbage)
        self.find("#snapshot-restore button[type=submit]").click()
        self.text_appears("#snapshot-result", "garbage.json is not JSON")
        assert not EC.alert_is_present()(self.driver), "nothing is asked for a file that is no snapshot"

        self.step = "change the server, then restore the downloaded snapshot through the file picker"
        status, seeded = self.control("POST", "/_mock/v1/seed", {"accounts": [{"name": "later-account"}]})
        assert status == 200, seeded
        assert self.control("GET", "/_mock/v1/stats?account=later-account")[0] == 200
        self.find("#snapshot-file").send_keys(path)
        self.find("#snapshot-restore button[type=submit]").click()
        question = self.alert_text(accept=True)
        assert "WITHOUT SECRETS" not in question and "replaces everything" in question, question
        self.text_appears("#snapshot-result", f"Restored server snapshot (version {document['version']})")
        gone = self.control("GET", "/_mock/v1/stats?account=later-account")
        assert gone[0] == 404, f"the account made after the snapshot is gone: {gone}"
        assert self.visible("#who").is_displayed(), "the session in the snapshot keeps the console logged in"
        self.snap("inspector-restored")
        self.assert_no_console_errors()

        self.step = "seed: a failed seed after a good one replaces its result line"
        seed = self.find("#seed-text")
        seed.send_keys('{"accounts": [{"name": "demo"}]}')
        self.find("#seed-form button[type=submit]").click()
        self.text_appears("#controls-result", "Seed applied")
        seed.clear()
        seed.send_keys('{"accounts": 5}')
        self.find("#seed-form button[type=submit]").click()
        self.text_appears("#controls-result", "Applying the seed failed")
        assert "Seed applied" not in self.text_of("#controls-result")
        seed.clear()

        self.step = "the clock: a fraction is refused, going back asks first, a whole advance says what it did"
        advance = self.find("#clock-form input[name=advance]")
        advance.clear()
        advance.send_keys("1.5")
        self.find("#clock-form button[type=submit]").click()
        self.text_appears("#controls-result", "not a whole number of milliseconds")
        clock_before = self.text_of("#clock-state")
        advance.clear()
        advance.send_keys("-5000")
        self.find("#clock-form button[type=submit]").click()
        assert "BACK by 5,000 ms" in self.alert_text(accept=False)
        assert self.text_of("#controls-result") == "" and self.text_of("#clock-state") == clock_before
        advance.clear()
        advance.send_keys("1000")
        self.find("#clock-form button[type=submit]").click()
        self.text_appears("#controls-result", "Clock advanced by 1,000 ms")

        self.step = "co-browsing stats of an unknown id name it as typed, not percent-encoded"
        session = self.find("#cbstats-session")
        session.send_keys("nope<b>")
        self.find("#cbstats-form button[type=submit]").click()
        self.text_appears("#toast", "“nope<b>”")
        session.clear()

        self.step = "the inspector at 375 px: no sideways scrolling"
        self.driver.set_window_size(375, 800)
        self.wait.until(lambda d: d.execute_script("return window.innerWidth") <= 375)
        self.assert_no_horizontal_overflow("superadmin's inspector at 375 px")
        self.snap("inspector-375")
        self.driver.set_window_size(1280, 800)

        self.step = "as admin: own account's rules only, restoring disabled"
        self.find("#logout").click()
        self.log_in("admin", "admin", "ADMIN")
        self.open_inspector()
        self.text_appears("#faults-scope", "Your account")
        self.wait.until(lambda d: "latency 7 ms" not in self.find("#faults-table tbody").text and "error 503" not in self.find("#faults-table tbody").text)
        assert self.find("#snapshot-restore-fields").get_attribute("disabled") is not None, "an admin cannot restore"
        self.visible("#snapshot-restore-denied")
        self.add_rule_in_form("MOBILE", "/mobile/v1/**", "LATENCY", 40)
        self.text_appears("#faults-table tbody", "latency 40 ms")
        mine = self.rules(user=b"admin:admin")
        assert len(mine) == 1 and mine[0]["action"]["millis"] == 40 and mine[0]["accountId"], mine
        assert len(self.rules()) == 3, "the super admin sees every account's rules"

        self.step = "as admin: the Entities panel shows its own account, without the global kind"
        assert self.find("#entities-form input[name=account]").get_attribute("disabled") is not None, "an admin cannot name another account"
        self.check_entities()
        assert "FileUploadGlobalInterceptor" not in self.text_of("#entities-kind"), "the global kind is for super admins"

        self.step = "as admin: the snapshot download is the account's, named so (and redacted)"
        self.find("#snapshot-take button[type=submit]").click()
        redacted = self.wait_for_download("mock-collab-account-demo-redacted-*.snapshot.json")
        with open(redacted) as handle:
            document = json.load(handle)
        assert document["scope"] == "account" and document["secrets"] == "redacted", (document["scope"], document["secrets"])
        self.assert_no_console_errors()

        self.step = "as superadmin: restoring a snapshot without secrets says first that nobody could log in"
        self.find("#logout").click()
        self.log_in("superadmin", "superadmin", "SUPER_ADMIN")
        self.open_inspector()
        self.find("#snapshot-file").send_keys(redacted)
        self.find("#snapshot-restore button[type=submit]").click()
        question = self.alert_text(accept=False)
        assert "WITHOUT SECRETS" in question and "NOBODY CAN LOG IN" in question and "logged out" in question, question
        assert "Restored" not in self.text_of("#snapshot-result"), "a dismissed restore restores nothing"
        self.assert_no_console_errors()

        self.step = "restoring it anyway: the console says the session ended, and the password is indeed gone"
        self.find("#snapshot-restore button[type=submit]").click()
        self.alert_text(accept=True)
        self.visible("#login-view")
        self.text_appears("#login-error", "Your session ended")
        field = self.visible("#login-username")
        field.send_keys("superadmin", Keys.TAB, "superadmin", Keys.ENTER)
        self.text_appears("#login-error", "Wrong username or password")

        self.step = "no errors in the browser console"
        # The restore ended the session: its 401s (and the refused login's) are expected.
        unexpected = [e for e in self.collect_browser_log() if e.get("level") == "SEVERE" and "401" not in e.get("message", "")
                      and not self.expected_error(e)]
        assert not unexpected, f"errors in the browser console: {unexpected}"


if __name__ == "__main__":
    sys.exit(run_main(InspectorFaultsTest, "inspector", "browser-inspector"))
