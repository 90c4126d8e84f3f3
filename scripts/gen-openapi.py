#!/usr/bin/env python3
"""Writes Sources/CollabServer/Resources/openapi.json: the OpenAPI 3.1 document for MockCollab's own
routes (ops, control API, mobile device API, agent API). The vendor's Web API is documented by the
vendor's spec. Run after changing a route; OpsTests checks that every route is documented. Edit this script, never
the JSON: `--check` (run by scripts/test) fails when the committed file differs from what it writes."""
import json, os, re

from generated_file import write_or_check

# Entity counts and since-start activity in GET /_mock/v1/stats.
STATS_COUNTS = ["accounts", "apiKeys", "namedAreas", "users", "persons", "sessions", "journalEntries",
                "conversations", "messages", "calls", "devices", "pushesEmitted"]
FRAME_COUNTS = ["accepted", "throttled", "duplicates", "rejected"]
# What became of the pushes emitted since start, by the final state their outbox entry reached.
PUSH_OUTCOMES = ["delivered", "failed", "unregistered", "suppressed", "recorded"]
# Co-browsing frame state held right now (freed when sessions end and on reset).
FRAMES_HELD = ["sessions", "bytes", "viewers", "endedSessions"]

# EConversationState and EConversationEndReason values the routes accept, EConversationParticipationState (CollabCore's enums).
CONVERSATION_STATES = ["CREATED", "ONBOARDING", "REBOARDING", "QUEUED", "ACTIVE", "UNASSIGNED", "OFFBOARDING", "ENDED"]
END_REASONS = ["ENDED_BY_PARTICIPANT", "MANDATORY_PARTICIPANT_GONE", "REQUEST_DECLINED", "REQUEST_NOT_ANSWERED", "EXTERNAL_CHANNEL_CLOSED",
               "SOLVED_BY_BOT", "CANCELED", "CALL_ENDED", "NO_AGENT_AVAILABLE", "OTHER"]
PARTICIPATION_STATES = ["CREATED", "ONBOARDING", "ACTIVE", "OFFBOARDING", "ENDED"]

# The live event types (LiveEvent.type) and their detail keys, as docs/mobile-api.md's catalogue lists
# them. The non-control ones must be exactly DomainEvent.Kind's cases that are not webhook-only
# (checked below against Sources/CollabCore/Conversations/DomainEvent.swift).
LIVE_CONTROL = [
    ("hello", "id 0, first on every connection: position (the id of the last event published), replayed (how many replayed events follow)"),
    ("resync", "id 0, after hello when the events after lastEventId are no longer all held: reload, then apply the events that follow; no detail"),
    ("sync", "id 0, the answer to the client's {\"type\":\"sync\",\"id\":…}: id (the client's id)"),
]
CALL_DETAIL = "callId, callType (AUDIO, VIDEO), callState (RINGING, ACTIVE, ENDED), initiatorPersonId"
LIVE_EVENTS = [
    ("conversation.created", "no detail"),
    ("conversation.queued", "no detail"),
    ("conversation.active", "no detail"),
    ("conversation.unassigned", "no detail"),
    ("conversation.requeued", "no detail"),
    ("conversation.reboarding", "no detail"),
    ("conversation.updated", "no detail"),
    ("conversation.ended", "no detail"),
    ("conversation.deleted", "no detail; agents only"),
    ("conversation.new_message", "no detail; message set (an internal note reaches agents only)"),
    ("conversation.message_state", "message set; state (DELIVERED, READ, SENT, SEND_FAILED), personId (who marked it delivered or read, when known), failState (RETRYABLE, TERMINAL; SEND_FAILED only, when given)"),
    ("conversation.message_updated", "no detail; message set (a bot's question canceled)"),
    ("conversation.typing", "personId (the dialog bot's person), typing (\"true\" or \"false\")"),
    ("ui.visibility_request", "reason (INCOMING_CALL with callId, or MOBILE_COBROWSING with coBrowsingSessionId), conversationId; no conversation. For a call it comes before that call's conversation.call.started"),
    ("ui.hide_request", "reason (LAYER_ACTIVATED with coBrowsingSessionId, or COLLAPSE), requestedByUser (\"false\", \"true\"), conversationId (for COLLAPSE the client's open conversation, absent when none)"),
    ("client.error", "errorType (AUTHORIZATION), fatal (\"false\"), reason (EXPIRED, REVOKED), message, clientId; to that client only, whose socket then closes with 4003"),
    ("agent.presence_changed", "presence (ONLINE, AWAY, OFFLINE), personId (the agent whose presence it is); agents only"),
    ("conversation.call.started", CALL_DETAIL),
    ("conversation.call.answered", CALL_DETAIL + ", personId (who answered)"),
    ("conversation.call.ended", CALL_DETAIL + ", endReason (DECLINED, LAST_MANDATORY_PARTICIPANT_LEFT, CONVERSATION_ENDED, NOT_ANSWERED, ABORTED_BY_INITIATOR); "
                                "a missed call also missed (\"true\") and reason (MISSED_BECAUSE_TIMEOUT, MISSED_BECAUSE_TERMINATED)"),
    ("cobrowsing.requested", "coBrowsingSessionId, state (REQUESTED, ACTIVE, ENDED)"),
    ("cobrowsing.started", "coBrowsingSessionId, state (REQUESTED, ACTIVE, ENDED)"),
    ("cobrowsing.ended", "coBrowsingSessionId, state (REQUESTED, ACTIVE, ENDED)"),
]

def live_kinds_in_source():
    """DomainEvent.Kind's raw values that live clients receive (every case not in isWebhookOnly's `true` arms)."""
    source = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "CollabCore", "Conversations", "DomainEvent.swift")).read()
    kinds_block = source[source.index("public enum Kind"):source.index("public var kind: Kind")]
    kinds = dict(re.findall(r'case (\w+) = "([^"]+)"', kinds_block))
    switch = source[source.index("public var isWebhookOnly"):]
    switch = switch[:switch.index("default:")]
    webhook_only = set(re.findall(r"\.(\w+)", "".join(re.findall(r"case ([^:]+): true", switch, re.S))))
    unknown = webhook_only - kinds.keys()
    if unknown: raise SystemExit(f"gen-openapi: isWebhookOnly names cases Kind does not have: {sorted(unknown)}")
    return {raw for case, raw in kinds.items() if case not in webhook_only}

_documented = {t for t, _ in LIVE_EVENTS}
_live = live_kinds_in_source()
if _documented != _live:
    raise SystemExit(f"gen-openapi: LIVE_EVENTS differs from DomainEvent.Kind's live cases: "
                     f"undocumented {sorted(_live - _documented)}, gone {sorted(_documented - _live)}")

def ref(n): return {"$ref": f"#/components/schemas/{n}"}
def obj(props, required=()):
    o = {"type": "object", "properties": props}
    if required: o["required"] = list(required)
    return o
S = {"type": "string"}; I = {"type": "integer"}; L = {"type": "integer", "format": "int64"}; B = {"type": "boolean"}
def arr(x): return {"type": "array", "items": x}
def smap(): return {"type": "object", "additionalProperties": S}
def body(schema, required=True, desc=None, ctype="application/json"):
    b = {"required": required, "content": {ctype: {"schema": schema}}}
    if desc: b["description"] = desc
    return b
def ok(schema, desc="OK", code="200"): return {code: {"description": desc, "content": {"application/json": {"schema": schema}}}}
def q(name, schema, desc, required=False): return {"name": name, "in": "query", "required": required, "schema": schema, "description": desc}
def p(name, desc): return {"name": name, "in": "path", "required": True, "schema": S, "description": desc}
# Request bounds (docs/mobile-api.md#input-limits). Lengths the server counts in characters; a bound in
# code points (JSON Schema's maxLength) never lets through what the server refuses for length.
NAME = {"type": "string", "maxLength": 255}
API_KEY = {"type": "string", "maxLength": 255, "description": "The account's API key (or the x-unblu-apikey header); missing, longer or unknown: 401 INVALID_API_KEY"}
DEVICE_ID = {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^\\S+$", "description": "The installation's stable id: 1 to 255 characters, no white space"}
APNS_TOKEN = {"type": "string", "pattern": "^([0-9A-Fa-f]{2}){8,200}$", "description": "Hex, 8 to 200 bytes, either case (stored lower case)"}
# Call ids are UUIDs (the SDK's CallKit bridge reports calls under a UUID); a malformed one answers 400.
UUID = {"type": "string", "format": "uuid"}
def callid(): return {"name": "id", "in": "path", "required": True, "schema": UUID, "description": "Call id (a UUID, as in VoIP pushes and call events), in either case: the answer names it in the upper case the server issued"}
ERR = {"$ref": "#/components/responses/Error"}
TERR = {"$ref": "#/components/responses/TypedError"}
def errs(*codes, typed=False): return {str(c): (TERR if typed else ERR) for c in codes}
def op(summary, opid, responses, tags, security, request=None, params=None, desc=None):
    o = {"summary": summary, "operationId": opid, "tags": tags, "security": security, "responses": responses}
    if desc: o["description"] = desc
    if request: o["requestBody"] = request
    if params: o["parameters"] = params
    return o

CONTROL = [{"basicAuth": []}, {"controlToken": []}]
# Read-only inspector routes: admins too (their own account only; another account answers 404).
INSPECTOR = [{"basicAuth": []}, {"sessionCookie": []}, {"controlToken": []}]
ADMIN_NOTE = " Super admins and the control token see every account; ADMIN and TECHNICAL_ADMIN see their own account only (naming another answers 404)."
CLIENT = [{"clientToken": []}]
AGENT = [{"agentToken": []}, {"basicAuth": []}, {"sessionCookie": []}]
# An agent's app: the token of POST /agent/v1/clients.
AGENT_APP = [{"agentToken": []}]
# Call routes also take the call's device credential from its incoming-call push (an app not started yet).
CALL_CLIENT = CLIENT + [{"callCredential": []}]
CALL_AGENT = AGENT + [{"callCredential": []}]
NONE = []
paths = {}
def add(path, method, o): paths.setdefault(path, {})[method] = o

# --- ops --------------------------------------------------------------------------------------
add("/healthz", "get", op("Liveness", "healthz", ok(ref("Health")), ["ops"], NONE,
    desc="200 while the process serves requests, with the server's version (as `mock-collab --version` prints it)."))
add("/readyz", "get", op("Readiness", "readyz", {**ok(ref("Status")), **errs(503)}, ["ops"], NONE, desc="503 once storage has failed: the server then refuses every write."))
add("/metrics", "get", op("Prometheus metrics", "metrics", {"200": {"description": "Prometheus text format", "content": {"text/plain": {"schema": S}}}}, ["ops"], NONE))
add("/", "get", op("The web console", "console", {"200": {"description": "The console's index.html; its CSS and JavaScript are served beside it (/css/…, /js/…) with ETag and Last-Modified (304 on revalidation) and gzip when accepted", "content": {"text/html": {"schema": S}}}}, ["ops"], NONE,
    desc="The agent desk and inspector (Public/ in the repository). Log in with the Web API's authenticator/login; the session cookie authenticates everything after."))
add("/openapi.json", "get", op("This document", "openapi", ok({"type": "object"}), ["ops"], NONE))

# --- control ----------------------------------------------------------------------------------
C = ["control"]
add("/_mock/v1/reset", "post", op("Reset state", "controlReset", {**ok(ref("SeedResult")), **errs(400, 401, 403, 404)}, C, CONTROL,
    request=body(ref("ResetRequest"), required=False), params=[q("account", S, "Account id or name: reset that account only (as the body's account)")],
    desc="Without an account (no body, or {}), removes all state and re-applies the startup seed (the --seed file, or the default tenant). With an account (id or name, in the body or the query), removes that account's data and re-applies the startup seed's entry for it. "
         "Anything else is a 400 that resets nothing: a body key other than account, a null or empty account, another query parameter, a body and a query naming different accounts."))
add("/_mock/v1/seed", "post", op("Apply a seed", "controlSeed", {**ok(ref("SeedResult")), **errs(400, 401, 403, 409, 413)}, C, CONTROL,
    request={"required": True, "description": "YAML or JSON, at most 1 MiB; see docs/seed-example.yaml. YAML anchors and aliases are refused (400), and so is a key the format does not have (400 naming where it is).", "content": {"application/yaml": {"schema": ref("Seed")}, "application/json": {"schema": ref("Seed")}}},
    desc="Idempotent (entities matched by natural key, updated in place) and all or nothing."))
add("/_mock/v1/journal", "get", op("Read the request journal", "controlJournal", {**ok(ref("JournalPage")), **errs(400, 401, 403)}, C, INSPECTOR,
    params=[q("method", S, "HTTP method"), q("path", S, "Path prefix"), q("status", I, "Exact status (404) or class (4 for 4xx)"),
            q("since", L, "Earliest timestamp, ms"), q("until", L, "Latest timestamp, ms"), q("account", S, "Caller's account, id or name (404 when unknown or not yours)"), q("accountId", S, "Caller's account id (older spelling of account)"),
            q("limit", {"type": "integer", "minimum": 1, "maximum": 100000}, "At most this many (default 1000): the newest, or with after the oldest after it"),
            q("after", L, "Only entries with a greater id: read on from the last entry of a page"), q("scope", {"type": "string", "enum": ["replica", "cluster"]}, "cluster: every replica of a --cluster deployment, merged (journal entries name their replica; missingReplicas lists those that did not answer)")],
    desc="A bounded record of answered requests, oldest first: each entry keeps at most 2 KiB of path and of query (marked `truncated` when cut), "
         "the journal at most --journal-capacity entries and --journal-max-bytes bytes, and one answer at most 4 MiB of entries, the newest "
         "(`truncated` when older matches were left out). No bodies or headers; secrets in query strings are redacted." + ADMIN_NOTE))
add("/_mock/v1/journal", "delete", op("Clear the request journal", "controlClearJournal", {"204": {"description": "Cleared"}, **errs(401, 403)}, C, CONTROL))
add("/_mock/v1/accounts/{account}/tokens", "post", op("Issue a test access token", "controlIssueToken", {**ok(ref("TestTokenResponse")), **errs(400, 401, 403, 404)}, C, CONTROL,
    params=[p("account", "Account id or name")], request=body(ref("TestTokenRequest")),
    desc="An HS256 JWT signed with the account's test-token secret, with its configured issuer and audience; valid for loginWithSecureToken and mobile client starts."))
add("/_mock/v1/accounts/{account}/tokens/revoke", "post", op("Revoke an access token", "controlRevokeToken", {**ok(ref("TokenRevocationResponse")), **errs(400, 401, 403, 404)}, C, CONTROL,
    params=[p("account", "Account id or name")], request=body(ref("TokenRevocationRequest")),
    desc="The token (valid for the account, not expired) starts no app any more until it expires, and the apps it started end now: each gets a client.error live event (AUTHORIZATION, non-fatal, reason REVOKED) and its live socket closes with 4003; its next request answers 401 AUTHORIZATION."))
add("/_mock/v1/clock", "get", op("Read the server clock", "controlClock", {**ok(ref("ClockState")), **errs(401, 403)}, C, INSPECTOR, desc=ADMIN_NOTE.strip()))
add("/_mock/v1/clock", "post", op("Move or freeze the server clock", "controlChangeClock", {**ok(ref("ClockState")), **errs(400, 401, 403)}, C, CONTROL,
    request=body(ref("ClockChange")), desc="Every timestamp, expiry and timeout of the server follows this clock."))
FAULT_NOTE = " A key the rule does not have is a 400 naming it (never ignored). Account admins manage their own account's rules (a rule they add is confined to it); super admins and the control token manage every rule."
add("/_mock/v1/faults", "get", op("Fault rules in force", "controlFaults", {**ok(ref("FaultRuleList")), **errs(401, 403)}, C, INSPECTOR, desc="Oldest first, with how often each hit." + FAULT_NOTE))
add("/_mock/v1/faults", "post", op("Add a fault rule", "controlAddFault", {**ok(ref("FaultRule"), "Added", "201"), **errs(400, 401, 403, 404, 409, 429)}, C, INSPECTOR,
    request=body(ref("FaultRule")),
    desc="Latency (fixed, uniform or log-normal), an error status with the surface's typed body, an empty response, a connection reset, a truncated body (GET only) or a bandwidth cap, on the Web API, mobile or agent surface, matched by method, path pattern (* one segment, trailing ** any rest), account, device or client; a WebSocket close with a chosen code, dropped or delayed live events on the live event sockets; push delivery failures; webhook deliveries of an account failing or timing out. With a probability, a limit, an expiry on the server clock and a seed. An account's admins hold at most --max-fault-rules-per-account rules (64), the control token, super admins and seeds --max-server-fault-rules (256); one more answers 429 to its maker alone." + FAULT_NOTE))
add("/_mock/v1/faults", "delete", op("Remove every fault rule in scope", "controlRemoveFaults", {"204": {"description": "Removed"}, **errs(401, 403)}, C, INSPECTOR, desc=FAULT_NOTE.strip()))
FAULT_ACCOUNT = q("account", S, "The account whose rule is meant (id or name): ids are per account, so the operator names one when several hold the id (else 409)")
add("/_mock/v1/faults/{id}", "put", op("Replace a fault rule", "controlReplaceFault", {**ok(ref("FaultRule")), **errs(400, 401, 403, 404, 409)}, C, INSPECTOR,
    params=[p("id", "Rule id"), FAULT_ACCOUNT], request=body(ref("FaultRule")), desc="Its count of injections is kept." + FAULT_NOTE))
add("/_mock/v1/faults/{id}", "delete", op("Remove a fault rule", "controlRemoveFault", {"204": {"description": "Removed"}, **errs(401, 403, 404, 409)}, C, INSPECTOR,
    params=[p("id", "Rule id"), FAULT_ACCOUNT], desc=FAULT_NOTE.strip()))
add("/_mock/v1/stats", "get", op("Entity counts and activity since start", "controlStats", {**ok(ref("StateStats")), **errs(400, 401, 403, 404)}, C, INSPECTOR, params=[q("account", S, "Account id or name"), q("scope", {"type": "string", "enum": ["replica", "cluster"]}, "cluster: every replica of a --cluster deployment, merged (journal entries name their replica; missingReplicas lists those that did not answer)")], desc=ADMIN_NOTE.strip()))
ENTITY_KINDS_NOTE = ("The entity layer's kinds and the account's conversation invitations (scope ACCOUNT), and for super admins and the control token "
                     "the server's global file-upload interceptors (scope GLOBAL, the same whatever the account).")
ENTITY_PAGE_NOTE = ("Each entity as the Web API shows it to the caller: a kind's secrets only to a role that may read the kind through the Web API "
                    "(else left out as in a redacted snapshot). ConversationInvitation lists the account's invitations with their secondary targets; "
                    "FileUploadGlobalInterceptor the server's global file-upload interceptors (SUPER_ADMIN: others get 403; the account parameter does not apply).")
add("/_mock/v1/entities", "get", op("Declared entity kinds and their counts", "controlEntityKinds", {**ok(arr(ref("EntityKindCount"))), **errs(400, 401, 403, 404)}, C, INSPECTOR,
    params=[q("account", S, "Account id or name (default: the caller's)")], desc=ENTITY_KINDS_NOTE + ADMIN_NOTE))
add("/_mock/v1/entities/{typeName}", "get", op("A page of one declared kind's entities, oldest first", "controlEntities", {**ok(ref("EntityPage")), **errs(400, 401, 403, 404)}, C, INSPECTOR,
    params=[p("typeName", "The kind's type name as the kind list gives it (CannedResponse, Team, ConversationInvitation, FileUploadGlobalInterceptor, …)"), q("account", S, "Account id or name (default: the caller's)"),
            q("offset", I, "Entities to skip"), q("limit", I, "Page size (at most 1000, default 100)")], desc=ENTITY_PAGE_NOTE + ADMIN_NOTE))
add("/_mock/v1/webhooks/deliveries", "get", op("Webhook delivery log", "controlWebhookDeliveries", {**ok(ref("WebhookDeliveryPage")), **errs(400, 401, 403)}, C, INSPECTOR,
    params=[q("account", S, "Account id or name (404 when unknown or not yours)"), q("registrationId", S, "Registration"), q("eventType", S, "Event name"),
            q("state", {"type": "string", "enum": ["PENDING", "DELIVERED", "FAILED", "DROPPED"]}, "PENDING, DELIVERED, FAILED or DROPPED (never sent: a queue was full); another value is a 400"),
            q("limit", I, "At most this many, the newest")],
    desc="The last deliveries (bounded), oldest first, with every attempt's status or error." + ADMIN_NOTE))
add("/_mock/v1/webhooks/deliveries/wait", "get", op("Wait for a webhook delivery", "controlWaitForWebhookDelivery", {**ok(ref("WebhookDelivery")), **errs(400, 401, 403, 404, 503)}, C, INSPECTOR,
    params=[q("account", S, "Account id or name (404 when unknown or not yours)"), q("registrationId", S, "Registration"), q("eventType", S, "Event name"),
            q("state", {"type": "string", "enum": ["PENDING", "DELIVERED", "FAILED", "DROPPED"]}, "PENDING, DELIVERED, FAILED or DROPPED; another value is a 400"),
            q("timeoutMs", I, "How long to wait (default 10000, at most 60000)")],
    desc="Answers the oldest logged delivery matching the filter, already there or logged within the timeout; 404 when none was; 503 when a graceful"
         " shutdown ends the wait. A delivery is logged PENDING when its first attempt starts and again after every attempt, so state=DELIVERED waits"
         " for the endpoint's answer." + ADMIN_NOTE))
add("/_mock/v1/configuration", "get", op("The configuration cascade of a scope", "controlConfiguration", {**ok(ref("ConfigurationCascade")), **errs(400, 401, 403, 404)}, C, INSPECTOR,
    params=[q("account", S, "Account id or name (default: the caller's)"), q("namedArea", S, "Named area id or siteId"), q("apiKey", S, "API key id or key")],
    desc="Each scope's properties (GLOBAL, ACCOUNT, then AREA and APIKEY when named) and every effective property with the scope that set it (the most specific wins)." + ADMIN_NOTE))
SNAPSHOT_NOTE = (" What it holds depends on the caller (docs/secrets.md): the control token gets every credential (password hashes, sessions"
                 " and client tokens, notification keys, signing secrets, push credentials) unless it asks for secrets=redacted; a super admin"
                 " gets them only with secrets=included; everyone else gets a redacted export without them (secrets=included answers 403)."
                 " Treat a full export like a credential.")
add("/_mock/v1/snapshot", "get", op("Export a snapshot", "controlExportSnapshot", {**ok(ref("Snapshot")), **errs(401, 403, 404, 413, 429)}, C, INSPECTOR,
    params=[q("account", S, "Account id or name; without it the whole state (super admins; an admin gets their own account)"),
            q("secrets", {"type": "string", "enum": ["included", "redacted"]}, "Whether credentials are in the export (see the description)")],
    desc="A versioned JSON file of the stored records of every entity (accounts, users, API keys, named areas, persons, devices with their"
         " notification keys, conversations, messages, calls, webhooks, configuration), the contents of the files shared in conversations (base64)"
         " and the virtual clock. A snapshot larger than the import limit (--max-snapshot-bytes, 64 MiB) is refused with 413. One export of an"
         " account runs at a time and two on the server; another is a 429 with Retry-After." + SNAPSHOT_NOTE + ADMIN_NOTE))
add("/_mock/v1/snapshot", "post", op("Import a snapshot", "controlImportSnapshot", {**ok(ref("SnapshotImportResult")), **errs(400, 401, 403, 409, 413)}, C, CONTROL,
    request=body(ref("Snapshot"), desc="A file from GET /_mock/v1/snapshot, at most --max-snapshot-bytes (64 MiB), read as it arrives. Older versions are read too; a newer version answers 400."),
    desc="A server snapshot replaces everything, the GLOBAL configuration and the clock (super admins only). An account snapshot replaces that"
         " account only (the one with its id, and the one with its name): other accounts are untouched, and a name, username, API key or token"
         " another account holds answers 409. Malformed input changes nothing: the files are staged and put in place only once the records commit."))
add("/_mock/v1/webhooks/deliveries", "delete", op("Clear the webhook delivery log", "controlClearWebhookDeliveries", {"204": {"description": "Cleared"}, **errs(401, 403)}, C, CONTROL))

# --- mobile -----------------------------------------------------------------------------------
M = ["mobile"]
T = dict(typed=True)
add("/mobile/v1/clients", "post", op("Start a client", "mobileStartClient", {**ok(ref("ClientStartResponse"), "Started", "201"), **errs(400, 401, 404, 409, 413, **T)}, M, NONE,
    request=body(ref("ClientStartRequest")),
    params=[{"name": "x-unblu-apikey", "in": "header", "required": False, "schema": S, "description": "The API key, if not in the body"}],
    desc="What the SDK's start does: identifies the account by API key, the visitor by access token — in the body, else the cookie the account names for access tokens (seed jwt.cookie; the journal names the cookie, never its value) — or, anonymous, by device id, and returns the client token for every further call. INVALID_API_KEY for an unknown key, AUTHORIZATION for a bad, expired or revoked token, UNSUPPORTED_SERVER_VERSION when device.sdkVersion's major does not pair with the server's --product-version, CONFLICT (409) when a new visitor would pass --max-persons-per-account. A client started with an access token ends when the token expires (server clock) or is revoked: a client.error live event, then close code 4003."))
add("/mobile/v1/clients/current", "get", op("The client", "mobileClient", {**ok(ref("ClientView")), **errs(401, **T)}, M, CLIENT))
add("/mobile/v1/clients/current", "delete", op("Stop the client", "mobileStopClient", {"204": {"description": "Stopped"}, **errs(401, **T)}, M, CLIENT,
    desc="Ends the device session and closes its live connection."))
add("/mobile/v1/clients/current/app-state", "put", op("Report the app state", "mobileAppState", {**ok(ref("ClientView")), **errs(400, 401, **T)}, M, CLIENT,
    request=body(ref("AppStateRequest")), desc="BACKGROUND, FOREGROUND_UI_CLOSED or FOREGROUND_UI_OPEN: decides push versus in-app events."))
add("/mobile/v1/clients/current/named-area", "put", op("Change the named area", "mobileNamedArea", {**ok(ref("ClientView")), **errs(400, 401, 404, **T)}, M, CLIENT, request=body(ref("NamedAreaRequest")),
    desc="Where new conversations are queued from now on; the client keeps the configuration it started with (the named area given at start)."))
add("/mobile/v1/clients/current/collapse", "post", op("The user's collapse action", "mobileCollapse", {"204": {"description": "A ui.hide_request live event goes to this client"}, **errs(401, 409, **T)}, M, CLIENT,
    desc="The collapse action of the visitor UI, shown when com.unblu.visitor.ui.showOverviewActionBarCollapseAction is true along the client's cascade: the server answers with a ui.hide_request event (reason COLLAPSE, requestedByUser true) to this client only. 409 when the action is off."))
add("/mobile/v1/availability", "get", op("Agent availability", "mobileAvailability", {**ok(ref("AvailabilityView")), **errs(401, **T)}, M, CLIENT))
LIST_PARAMS = [q("limit", {"type": "integer", "minimum": 1, "maximum": 1000}, "At most this many (default 1000)"),
               q("before", S, "The last conversation id of the page before: the page goes on after it")]
add("/mobile/v1/conversations", "get", op("The visitor's conversations, newest first", "mobileConversations", {**ok(ref("ConversationList")), **errs(400, 401, **T)}, M, CLIENT,
    params=LIST_PARAMS))
add("/mobile/v1/conversations", "post", op("Start a conversation", "mobileStartConversation", {**ok(ref("ConversationView"), "Created", "201"), **errs(400, 401, 404, 409, **T)}, M, CLIENT,
    request=body(ref("StartConversationRequest")), desc="Enters the queue of the named area given here, else the client's, else the account's. "
         "409 CONFLICT when the account holds --max-conversations-per-account conversations or the visitor --max-open-conversations-per-visitor open ones."))
add("/mobile/v1/invitations/redeem", "post", op("Redeem a PIN or invitation link", "mobileRedeemInvitation", {**ok(ref("ConversationView")), **errs(400, 401, 404, 409, 429, **T)}, M, CLIENT,
    request=body(ref("RedeemInvitationRequest"), required=False),
    # Key order as the query parameter was first written (the document is compared byte for byte).
    params=[{"name": "token", "in": "query", "required": False,
             "description": "The token, as the link of the Web API's invitations/getAcceptLink carries it; the body's token wins when both are given.",
             "schema": S}],
    desc="The visitor joins the conversation of an open PIN or link invitation of its account (Web API invitations/inviteAnonymousVisitorToConversationWith…): "
         "as its context person when it has none, else as a secondary visitor. The token comes in the body or in the query (the link "
         "invitations/getAcceptLink hands out). Unknown, expired, revoked or used tokens answer 404. "
         "Wrong tokens are limited per client address and per account, one budget shared with the Web API's invitations/getAcceptLink "
         "(serve --pin-attempts-per-address, --pin-attempts-per-account): beyond a limit "
         "every redemption there answers 429 RATE_LIMITED with Retry-After in seconds. A PIN whose account saw --pin-attempts-per-invitation failures "
         "while it was open answers 404 until it is renewed."))
add("/mobile/v1/conversations/{id}", "get", op("A conversation", "mobileConversation", {**ok(ref("ConversationView")), **errs(401, 404, **T)}, M, CLIENT, params=[p("id", "Conversation id")]))
for action, summary in [("open", "Show the conversation in the collaboration UI"), ("close", "Close the conversation in the UI")]:
    add(f"/mobile/v1/conversations/{{id}}/{action}", "post", op(summary, f"mobile{action.title()}Conversation", {**ok(ref("ClientView")), **errs(401, 404, **T)}, M, CLIENT, params=[p("id", "Conversation id")]))
add("/mobile/v1/conversations/{id}/end", "post", op("End a conversation", "mobileEndConversation", {**ok(ref("ConversationView")), **errs(400, 401, 404, 409, **T)}, M, CLIENT,
    params=[p("id", "Conversation id")], request=body(ref("EndConversationRequest"), required=False)))
add("/mobile/v1/conversations/{id}/messages", "get", op("Messages", "mobileMessages", {**ok(ref("MessagePage")), **errs(400, 401, 404, **T)}, M, CLIENT,
    params=[p("id", "Conversation id"), q("after", {"type": "integer", "minimum": 0}, "Messages after this sequence (default 0)"), q("limit", {"type": "integer", "minimum": 1}, "At most this many (default 100, at most 500)")],
    desc="Oldest first. Sequences count agents' internal notes too, so a visitor sees gaps: not lost messages. Read on with after set to the page's last sequence while hasMore is true."))
add("/mobile/v1/conversations/{id}/messages", "post", op("Send a message", "mobileSendMessage", {**ok(ref("MessageView"), "Stored", "201"), **errs(400, 401, 403, 404, 409, 413, **T)}, M, CLIENT,
    params=[p("id", "Conversation id")], request=body(ref("SendMessageRequest")), desc="A repeated clientMessageId returns the stored message instead of a duplicate."))
add("/mobile/v1/events", "get", op("Live events (WebSocket)", "mobileEvents", {"101": {"description": "Switching to the WebSocket protocol; every text message is a LiveEvent"}, **errs(400, 401, 429, **T)}, M, CLIENT,
    params=[q("token", S, "The client token, when no Authorization header can be sent"), q("lastEventId", {**L, "minimum": 0}, "Resume after this event (a non-negative integer; anything else answers 400 before the upgrade)")],
    desc="One WebSocket per client. A plain GET without the upgrade (Upgrade: websocket) answers 400 BAD_REQUEST (\"this is a WebSocket endpoint: open it with a WebSocket upgrade\"), whether or not a token comes with it (a token the server refuses is answered 401 first). The first message is `hello`; a reconnect with lastEventId replays what was missed from a bounded window, else starts with `resync`. The server pings every heartbeat interval and drops peers that stop answering; a reader whose buffer overflows is closed with code 4008 and should reconnect with lastEventId; a stopped client is closed with 4001; "
         "an access token that expired or was revoked is announced by a `client.error` event, then the socket closes with 4003 (start a new client). "
         "The client sends text `{\"type\":\"sync\",\"id\":\"…\"}` to get a `sync` event back behind every event before it, and binary messages that are co-browsing frames in the MCF1 format (docs/co-browsing.md), each answered by a FrameAck text message. "
         "A client (its token) holds at most --max-live-per-client sockets and an account --max-live-per-account: more are refused before the upgrade with 429 "
         "RATE_LIMITED (4029 when parallel upgrades race past that check). A client message larger than the co-browsing frame bound plus 4 KiB (--max-frame-bytes + 4096: 266,240 bytes by default), or a single WebSocket frame over 1 MiB, closes the socket with 1009 and no FrameAck; a frame message within that bound whose image is over --max-frame-bytes is answered frame.rejected. "
         "Every event type and its detail keys: the LiveEvent schema."))

# --- agent ------------------------------------------------------------------------------------
A = ["agent"]
add("/agent/v1/login", "post", op("Log in", "agentLogin", {**ok(ref("AgentLoginResponse")), **errs(400, 401, 403, 429, **T)}, A, NONE,
    request=body(ref("AgentLoginRequest")),
    desc="A password not yet seen verified is checked with bcrypt: the checks an account may have waiting are bounded, and beyond them the"
         " login is a 429 with Retry-After (docs/budgets.md)."))
add("/agent/v1/clients", "post", op("Start an agent's app", "agentStartClient", {**ok(ref("ClientStartResponse"), "Started", "201"), **errs(400, 401, 404, 413, **T)}, A, NONE,
    request=body(ref("AgentClientStartRequest")),
    params=[{"name": "x-unblu-apikey", "in": "header", "required": False, "schema": S, "description": "The API key, if not in the body"}],
    desc="The SDK's agent client start: the API key names the account; an access token (in the body, else the account's token cookie) whose username or subject is an agent of the account, or the agent's username and password, names the agent. The token answered works as a bearer token on the whole agent API and (?token=) on its live socket; the app registers its device like a visitor's. INVALID_API_KEY, AUTHORIZATION and UNSUPPORTED_SERVER_VERSION as for the mobile start."))
add("/agent/v1/clients/current", "get", op("The agent's app", "agentClient", {**ok(ref("ClientView")), **errs(401, **T)}, A, AGENT_APP))
add("/agent/v1/clients/current", "delete", op("Stop the agent's app", "agentStopClient", {"204": {"description": "Stopped"}, **errs(401, **T)}, A, AGENT_APP,
    desc="Ends the app's client and closes its live connection; its device keeps its push registration."))
add("/agent/v1/clients/current/app-state", "put", op("Report the agent app's state", "agentAppState", {**ok(ref("ClientView")), **errs(400, 401, **T)}, A, AGENT_APP,
    request=body(ref("AppStateRequest")), desc="The visitors' notification table applies to an agent's app too."))
add("/agent/v1/clients/current/push", "put", op("Register the agent app's push tokens", "agentRegisterPush", {**ok(ref("PushRegistrationResponse")), **errs(400, 401, **T)}, A, AGENT_APP,
    request=body(ref("PushRegistrationRequest")),
    desc="As for a visitor's app. The agent's devices get new messages of its conversations, incoming calls from visitors (VoIP), missed calls, inbound requests (a new conversation in its queue — the app's named area filters them — or an invitation or forwarding to it) and their revocations, and read-message pushes."))
add("/agent/v1/clients/current/push", "delete", op("Disable the agent app's push", "agentDisablePush", {"204": {"description": "Tokens and key deleted"}, **errs(401, **T)}, A, AGENT_APP))
add("/agent/v1/clients/current/notification-keys", "get", op("The agent app's notification keys", "agentNotificationKeys", {**ok(arr(ref("NotificationKeyView"))), **errs(401, 404, **T)}, A, AGENT_APP))
add("/agent/v1/logout", "post", op("Log out", "agentLogout", {"204": {"description": "Logged out"}, **errs(401, 403, **T)}, A, AGENT))
add("/agent/v1/me", "get", op("The agent", "agentMe", {**ok(ref("PersonView")), **errs(401, 403, **T)}, A, AGENT))
add("/agent/v1/presence", "put", op("Set presence", "agentPresence", {**ok(ref("PresenceRequest")), **errs(400, 401, 403, **T)}, A, AGENT, request=body(ref("PresenceRequest")),
    desc="Answers the presence that holds now: an agent set away (persons/{id}/setAway) who asks for ONLINE is AWAY."))
add("/agent/v1/presence", "get", op("The agent's presence", "agentGetPresence", {**ok(ref("PresenceRequest")), **errs(401, 403, **T)}, A, AGENT,
    desc="The caller's presence as the server holds it now: ONLINE, AWAY, or OFFLINE until one is set."))
add("/agent/v1/invitations", "get", op("Invitations addressed to me", "agentInvitations", {**ok(ref("AgentInvitationList")), **errs(401, 403, **T)}, A, AGENT,
    desc="The open invitations addressed to the caller, oldest first: agent invitations and forwardings (Web API invitations/inviteAgentToConversation, forwardConversationToAgent, and the team variants for a team whose queue the caller sees), "
         "those that name the caller as a pending secondary target (addSecondaryInvitationTarget; startDeputyDelegation, type DEPUTY_INVITATION), "
         "and the ASSIGNMENT_REQUEST that invitations/requeueConversation leaves when the conversation's queue is the caller's or a team's whose queue it sees."))
add("/agent/v1/invitations/{id}/accept", "post", op("Accept an invitation", "agentAcceptInvitation", {**ok(ref("ConversationView")), **errs(401, 403, 404, 409, **T)}, A, AGENT,
    params=[p("id", "Invitation id")], desc="An invitation makes the caller a secondary agent (hidden when the invitation says so); a forwarding makes it the assigned agent and the previous one leaves; an ASSIGNMENT_REQUEST accepts the requeued conversation from the caller's queue, as POST /agent/v1/conversations/{id}/accept does (409 once another agent took it)."))
add("/agent/v1/queue", "get", op("The queue", "agentQueue", {**ok(ref("QueueView")), **errs(401, 403, 404, **T)}, A, AGENT,
    params=[q("namedAreas", S, "Comma-separated named area ids or site ids; absent: every queued request"),
            q("limit", {"type": "integer", "minimum": 1, "maximum": 1000}, "Entries per page (default 100)"),
            q("cursor", S, "nextCursor of the previous page")],
    desc="A page of the queued conversations this agent may take, first queued first; a page costs what it shows, however long the queue. With a filter: only those of the named areas; account-wide requests show only without a filter; requests addressed to an agent only to that agent; declined requests no longer to the decliner."))
add("/agent/v1/conversations", "get", op("The agent's conversations, newest first (ENDED: the last ended first)", "agentConversations", {**ok(ref("ConversationList")), **errs(400, 401, 403, **T)}, A, AGENT, params=[q("state", {"type": "string", "enum": CONVERSATION_STATES}, "Only this EConversationState")] + LIST_PARAMS))
add("/agent/v1/conversations/{id}", "get", op("A conversation", "agentConversation", {**ok(ref("ConversationView")), **errs(401, 403, 404, **T)}, A, AGENT, params=[p("id", "Conversation id")]))
for action, summary, desc in [
    ("accept", "Accept a queued conversation", "Of two agents accepting at once exactly one wins; the other gets CONFLICT."),
    ("decline", "Decline a queued conversation", "It leaves this agent's queue; a request addressed to this agent alone ends with REQUEST_DECLINED."),
    ("requeue", "Put a conversation back into the queue", None),
]:
    add(f"/agent/v1/conversations/{{id}}/{action}", "post", op(summary, f"agent{action.title()}", {**ok(ref("ConversationView")), **errs(401, 403, 404, 409, **T)}, A, AGENT, params=[p("id", "Conversation id")], desc=desc))
add("/agent/v1/conversations/{id}/end", "post", op("End a conversation", "agentEnd", {**ok(ref("ConversationView")), **errs(400, 401, 403, 404, 409, **T)}, A, AGENT,
    params=[p("id", "Conversation id")], request=body(ref("EndConversationRequest"), required=False)))
add("/agent/v1/conversations/{id}/messages", "get", op("Messages", "agentMessages", {**ok(ref("MessagePage")), **errs(400, 401, 403, 404, **T)}, A, AGENT,
    params=[p("id", "Conversation id"), q("after", {"type": "integer", "minimum": 0}, "After this sequence (default 0)"), q("limit", {"type": "integer", "minimum": 1}, "At most this many (default 100, at most 500)")]))
add("/agent/v1/conversations/{id}/messages", "post", op("Send a message", "agentSendMessage", {**ok(ref("MessageView"), "Stored", "201"), **errs(400, 401, 403, 404, 409, 413, **T)}, A, AGENT,
    params=[p("id", "Conversation id")], request=body(ref("SendMessageRequest")), desc="internal: true writes an agent-only note."))
add("/agent/v1/events", "get", op("Live events (WebSocket)", "agentEvents", {"101": {"description": "Switching to the WebSocket protocol; every text message is a LiveEvent"}, **errs(400, 401, 403, 404, 429, **T)}, A, AGENT,
    params=[q("token", S, "The agent token"), q("lastEventId", {**L, "minimum": 0}, "Resume after this event (a non-negative integer; anything else answers 400 before the upgrade)"), q("namedAreas", S, "Queue filter, as for /agent/v1/queue")],
    desc="Conversation events of the agent's conversations and queue events matching the filter. Same resume, heartbeat, back-pressure and socket-limit rules as the mobile stream (the client is the agent's session), "
         "and the same 400 BAD_REQUEST for a plain GET without the WebSocket upgrade."))

# --- push and calls ---------------------------------------------------------------------------
add("/mobile/v1/clients/current/push", "put", op("Register push tokens", "mobileRegisterPush", {**ok(ref("PushRegistrationResponse")), **errs(400, 401, **T)}, M, CLIENT,
    request=body(ref("PushRegistrationRequest")),
    desc="APNs, PushKit (VoIP) and FCM tokens with the push-notification version; re-registration replaces. APNs tokens are hex of even length (8 to 200 bytes). Encrypted versions receive the device's notification key here."))
add("/mobile/v1/clients/current/push", "delete", op("Disable push", "mobileDisablePush", {"204": {"description": "Tokens and key deleted"}, **errs(401, **T)}, M, CLIENT))
add("/mobile/v1/clients/current/notification-keys", "get", op("Notification keys", "mobileNotificationKeys", {**ok(arr(ref("NotificationKeyView"))), **errs(401, 404, **T)}, M, CLIENT,
    desc="The current key, and the previous one while its overlap after a rotation lasts, as a bare JSON array (the registration's answer wraps the same list as `keys` beside `device`)."))
CREDENTIAL_NOTE = " Also with the call's device credential from its incoming-call push (callCredential) as the bearer token, for an app that has not started: it acts on that call only (another's answers 403) and expires with the call (401 afterwards)."
add("/mobile/v1/calls/{id}", "get", op("A call", "mobileCall", {**ok(ref("CallView")), **errs(400, 401, 403, 404, **T)}, M, CALL_CLIENT, params=[callid()], desc=CREDENTIAL_NOTE.strip()))
for action, summary in [("answer", "Answer a ringing call (other devices get a revoke)"), ("decline", "Decline a ringing call"), ("end", "End a call")]:
    add(f"/mobile/v1/calls/{{id}}/{action}", "post", op(summary, f"mobile{action.title()}Call", {**ok(ref("CallView")), **errs(400, 401, 403, 404, 409, **T)}, M, CALL_CLIENT, params=[callid()], desc=CREDENTIAL_NOTE.strip()))
add("/mobile/v1/conversations/{id}/calls", "post", op("Start a call to the agent", "mobileStartCall", {**ok(ref("CallView"), "Ringing", "201"), **errs(400, 401, 403, 404, 409, **T)}, M, CLIENT,
    params=[p("id", "Conversation id")], request=body(ref("StartCallRequest")),
    desc="The visitor's outgoing call: rings the conversation's assigned agent (conversation.call.started on the agent's live events and webhooks), who answers or declines on the agent API. Unanswered after the call timeout it becomes missed (NOT_ANSWERED). 409 when the conversation is not ACTIVE, has no assigned agent or already has a call."))
add("/agent/v1/conversations/{id}/calls", "post", op("Start a call", "agentStartCall", {**ok(ref("CallView"), "Ringing", "201"), **errs(400, 401, 403, 404, 409, **T)}, A, AGENT,
    params=[p("id", "Conversation id")], request=body(ref("StartCallRequest")),
    desc="Rings the visitors: a VoIP push to PushKit tokens (else an INCOMING_CALL push to the APNs or FCM token: an alert, or for ENCRYPTED a content-available background push) for apps in the background, a ui.visibility_request event for apps in the foreground with the UI closed, nothing for an open UI. Unanswered after the call timeout it becomes missed (NOT_ANSWERED) with revoke and missed-call pushes."))
add("/agent/v1/calls/{id}", "get", op("A call", "agentCall", {**ok(ref("CallView")), **errs(400, 401, 403, 404, **T)}, A, CALL_AGENT, params=[callid()], desc=CREDENTIAL_NOTE.strip()))
for action, summary in [("answer", "Answer a call a visitor started"), ("decline", "Decline a call a visitor started")]:
    add(f"/agent/v1/calls/{{id}}/{action}", "post", op(summary, f"agent{action.title()}Call", {**ok(ref("CallView")), **errs(400, 401, 403, 404, 409, **T)}, A, CALL_AGENT, params=[callid()],
        desc="From an agent's app, the answer names its device (the agent's other devices get a revoke)." + CREDENTIAL_NOTE))
add("/agent/v1/calls/{id}/end", "post", op("End a call", "agentEndCall", {**ok(ref("CallView")), **errs(400, 401, 403, 404, 409, **T)}, A, CALL_AGENT, params=[callid()],
    desc="A caller who hangs up before an answer leaves a missed call." + CREDENTIAL_NOTE))
# The outbox filter: GET /_mock/v1/pushes and /pushes/stream read the same parameters.
OUTBOX_FILTER = [q("account", S, "Account id or name"), q("personId", S, "Recipient"), q("deviceId", S, "Device id or record id"), q("conversationId", S, "Conversation"),
                 q("kind", S, "NEW_MESSAGE, INCOMING_CALL, MISSED_CALL, REVOKE_CALL, INBOUND_REQUEST, REVOKE_INBOUND_REQUEST or READ_MESSAGE"), q("transport", S, "APNS, APNS_VOIP or FCM"),
                 q("state", S, "RECORDED (no sink for its transport: in the outbox only), PENDING, DELIVERED, UNREGISTERED, FAILED or SUPPRESSED"), q("after", L, "Only entries after this id")]
add("/_mock/v1/pushes", "get", op("The push outbox", "controlPushes", {**ok(ref("PushPage")), **errs(400, 401, 403, 404)}, C, INSPECTOR,
    params=OUTBOX_FILTER + [q("limit", I, "At most this many, the newest")],
    desc="Every composed push (bounded): plain content, payload as composed (see PushView.payload), key id, delivery state and attempts." + ADMIN_NOTE))
add("/_mock/v1/pushes", "delete", op("Empty the outbox", "controlClearPushes", {"204": {"description": "Emptied"}, **errs(401, 403)}, C, CONTROL))
add("/_mock/v1/pushes/wait", "get", op("Wait for a push", "controlWaitForPush", {**ok(ref("PushView")), **errs(400, 401, 403, 404, 503)}, C, INSPECTOR,
    params=[q("account", S, "Account id or name (404 when unknown or not yours)"), q("kind", S, "As for /pushes"), q("conversationId", S, "Conversation"),
            q("personId", S, "The person pushed"), q("deviceId", S, "Device (its id or record id)"), q("transport", S, "APNS, APNS_VOIP or FCM"),
            q("state", S, "Delivery state"), q("after", L, "Only entries after this id"), q("timeoutMs", I, "How long to wait (default 10000, at most 60000)")],
    desc="Answers the first outbox entry matching the filter, already there or arriving (or reaching the state) within the timeout; 404 when none did; 503 when a graceful shutdown ends the wait." + ADMIN_NOTE))
add("/_mock/v1/pushes/settle", "get", op("Wait until queued pushes are composed", "controlSettlePushes", {"204": {"description": "Every push queued before this request is in the outbox"}, **errs(400, 401, 403, 404, 503)}, C, INSPECTOR,
    params=[q("account", S, "Account id or name: wait for its pushes only"), q("timeoutMs", I, "How long to wait (default 10000, at most 60000)")],
    desc="Pushes are composed after the request that caused them has answered. This answers once every push intent queued before it has reached the outbox (or was dropped), so a test can check that no push was made without sleeping; 503 when that takes longer than the timeout or a graceful shutdown ends the wait. "
         "With an account (an admin's is always their own) it waits for that account's pushes only, so another account's backlog does not hold it up." + ADMIN_NOTE))
add("/_mock/v1/pushes/stream", "get", op("Stream the outbox", "controlStreamPushes", {"200": {"description": "Server-sent events: `push` events with PushView data", "content": {"text/event-stream": {"schema": S}}}, **errs(400, 401, 403, 404)}, C, INSPECTOR,
    params=OUTBOX_FILTER, desc="New and updated outbox entries that match the filter (as for /pushes), as they happen; ends when the server shuts down." + ADMIN_NOTE))
DEVICE_PAGE = ok(arr(ref("DeviceView")), desc="A page of devices, by record id")
DEVICE_PAGE["200"]["headers"] = {"Link": {"schema": S, "description": "When more devices follow: `<next page's path and query>; rel=\"next\"` (RFC 8288), the request's filters kept"}}
add("/_mock/v1/devices", "get", op("Registered devices", "controlDevices", {**DEVICE_PAGE, **errs(400, 401, 403, 404)}, C, INSPECTOR,
    params=[q("account", S, "Account id or name"), q("personId", S, "Person"),
            q("limit", {"type": "integer", "minimum": 1, "maximum": 10000}, "At most this many (default 1000)"),
            q("after", S, "Only devices whose record id comes after this one")],
    desc="Devices by record id, a page at a time: follow the `Link` header's next page, which costs its own devices however many the server holds." + ADMIN_NOTE))
add("/_mock/v1/devices/{id}/rotate-key", "post", op("Rotate a device's notification key", "controlRotateKey", {**ok(ref("DeviceView")), **errs(401, 403, 404, 409)}, C, CONTROL,
    params=[p("id", "Device record id"), q("account", S, "The device's account (id or name); without it every account is looked through")],
    desc="The previous key stays valid for the key overlap."))
add("/_mock/v1/accounts/{account}/push-settings", "get", op("An account's push sinks", "controlPushSettings", {**ok(ref("PushSettings")), **errs(401, 403, 404)}, C, CONTROL,
    params=[p("account", "Account id or name")], desc="Private keys are shown as REDACTED."))
add("/_mock/v1/accounts/{account}/push-settings", "put", op("Set an account's push sinks", "controlSetPushSettings", {**ok(ref("PushSettings")), **errs(400, 401, 403, 404)}, C, CONTROL,
    params=[p("account", "Account id or name")], request=body(ref("PushSettings"))))

# --- co-browsing --------------------------------------------------------------------------------
add("/agent/v1/conversations/{id}/cobrowsing", "post", op("Request co-browsing", "agentRequestCoBrowsing", {**ok(ref("CoBrowsingSessionView"), "Requested", "201"), **errs(401, 403, 404, 409, **T)}, A, AGENT,
    params=[p("id", "Conversation id")], desc="Asks the visitor of an active conversation to share the screen (REQUESTED until accepted)."))
add("/agent/v1/conversations/{id}/cobrowsing", "get", op("The conversation's open co-browsing session", "agentConversationCoBrowsing",
    {**ok(ref("CoBrowsingSessionView")), "204": {"description": "No session is open"}, **errs(401, 403, 404, **T)}, A, AGENT, params=[p("id", "Conversation id")],
    desc="The session of the conversation that has not ended (REQUESTED or ACTIVE; at most one at a time); 204 when none is open, 404 when the conversation is not the account's."))
add("/agent/v1/cobrowsing/{id}", "get", op("A co-browsing session", "agentCoBrowsing", {**ok(ref("CoBrowsingSessionView")), **errs(401, 403, 404, **T)}, A, AGENT, params=[p("id", "Session id")]))
add("/agent/v1/cobrowsing/{id}/stop", "post", op("Stop co-browsing", "agentStopCoBrowsing", {**ok(ref("CoBrowsingSessionView")), **errs(401, 403, 404, 409, **T)}, A, AGENT, params=[p("id", "Session id")]))
add("/agent/v1/cobrowsing/{id}/frame", "get", op("The latest frame", "agentLatestFrame",
    {"200": {"description": "The image; x-frame-sequence, x-frame-capture-time, x-frame-width and x-frame-height headers", "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}, "image/png": {"schema": {"type": "string", "format": "binary"}}}}, **errs(401, 403, 404, **T)},
    A, AGENT, params=[p("id", "Session id")]))
add("/agent/v1/cobrowsing/{id}/frames", "get", op("Live frames (WebSocket)", "agentViewFrames", {"101": {"description": "Binary MCF1 messages, newest only for slow viewers"}, **errs(400, 401, 403, 404, **T)}, A, AGENT,
    params=[p("id", "Session id"), q("token", S, "The agent token")], desc="Starts with the latest frame; a slow viewer gets drop-to-latest and never slows the uploader or other viewers. "
         "A plain GET without the WebSocket upgrade answers 400 BAD_REQUEST, as /agent/v1/events does."))
add("/mobile/v1/conversations/{id}/cobrowsing", "post", op("Start sharing the screen", "mobileStartCoBrowsing", {**ok(ref("CoBrowsingSessionView"), "Active", "201"), **errs(401, 403, 404, 409, **T)}, M, CLIENT, params=[p("id", "Conversation id")]))
add("/mobile/v1/conversations/{id}/cobrowsing", "get", op("The conversation's open co-browsing session", "mobileConversationCoBrowsing",
    {**ok(ref("CoBrowsingSessionView")), "204": {"description": "No session is open"}, **errs(401, 404, **T)}, M, CLIENT, params=[p("id", "Conversation id")],
    desc="The session of the visitor's screen in the conversation that has not ended (REQUESTED or ACTIVE); 204 when none is open, 404 when the conversation is not the visitor's. "
         "An app started after an agent's request finds the session to accept here."))
add("/mobile/v1/cobrowsing/{id}", "get", op("A co-browsing session", "mobileCoBrowsing", {**ok(ref("CoBrowsingSessionView")), **errs(401, 404, **T)}, M, CLIENT, params=[p("id", "Session id")],
    desc="maxFps is the rate limit now: com.unblu.mobiledevice.iosMaxFpsRate (any Apple system name as device.os) or androidMaxFpsRate (any other) along GLOBAL → account → the client's start named area → API key, "
         "the most specific scope that sets it deciding; unset or not a decimal integer: 5; clamped to 1–60. No user level."))
for action, summary in [("accept", "Accept an agent's request"), ("stop", "Stop sharing")]:
    add(f"/mobile/v1/cobrowsing/{{id}}/{action}", "post", op(summary, f"mobile{action.title()}CoBrowsing", {**ok(ref("CoBrowsingSessionView")), **errs(401, 403, 404, 409, **T)}, M, CLIENT, params=[p("id", "Session id")]))
add("/mobile/v1/cobrowsing/{id}/frames", "post", op("Upload a frame", "mobileUploadFrame",
    {"202": {"description": "Accepted or duplicate", "content": {"application/json": {"schema": ref("FrameAck")}}},
     "429": {"description": "Throttled: earlier than the rate allows; the body is the FrameAck (frame.throttled), retryAfterMs the wait until the frame would be accepted (its due time less the jitter tolerance). "
                            "Or the account's frames would hold more than --max-frame-memory-per-account: the body is a TypedError, RATE_LIMITED, naming the option. Either way Retry-After is set",
             "headers": {"Retry-After": {"schema": I, "description": "Seconds, at least 1: retryAfterMs rounded up when throttled, 5 when the frame memory is full"}},
             "content": {"application/json": {"schema": {"oneOf": [ref("FrameAck"), ref("TypedError")]}}}},
     **errs(400, 401, 404, 409, 413, **T)}, M, CLIENT, params=[p("id", "Session id"),
        {"name": "x-frame-sequence", "in": "header", "schema": I}, {"name": "x-frame-capture-time", "in": "header", "schema": L},
        {"name": "x-frame-width", "in": "header", "schema": I}, {"name": "x-frame-height", "in": "header", "schema": I},
        {"name": "x-private-areas", "in": "header", "schema": S, "description": "JSON array of {x, y, width, height}"}],
    request={"required": True, "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}, "image/png": {"schema": {"type": "string", "format": "binary"}}}},
    desc="The fallback for the WebSocket upload (binary MCF1 messages on /mobile/v1/events, each answered with a FrameAck text message). JPEG or PNG by signature, at most --max-frame-bytes (256 KiB). x-frame-width and x-frame-height default to the size the image's own header declares (PNG IHDR, JPEG start of frame); x-frame-sequence to 0; x-frame-capture-time to the server's time."))
add("/_mock/v1/cobrowsing/{id}/stats", "get", op("Co-browsing statistics", "controlCoBrowsingStats", {**ok(ref("CoBrowsingStats")), **errs(401, 403, 404)}, C, INSPECTOR,
    params=[p("id", "Session id"), q("account", S, "The session's account (id or name); without it a super admin's request looks through every account")],
    desc=ADMIN_NOTE.strip()))

# --- files (mobile and agent) ----------------------------------------------------------------
FERR = {"$ref": "#/components/responses/FileError"}
def ferrs(*codes): return {str(c): FERR for c in codes}
UPLOAD_DESC = ("The raw bytes as the body (streamed to storage, at most --max-file-size or com.unblu.filemanager.maxFileSize). The type is sniffed from the content; "
               "the restrictions of the com.unblu.filemanager properties apply along the configuration cascade. Answers the FILE message, which flows like any message "
               "(live event, history, webhooks, pushes saying 'sent a file'). A refused file leaves nothing behind: 415 FILE_TYPE_NOT_ALLOWED or FILE_TYPE_MISMATCH, "
               "413 FILE_TOO_LARGE, 400 FILE_EMPTY, 507 FILE_QUOTA_EXCEEDED (the account's share of --file-quota, --account-file-quota, or the server's quota is used up), "
               "429 FILE_UPLOADS_BUSY (the account's --max-uploads-per-account or the server's --max-concurrent-uploads are streaming), "
               "408 FILE_UPLOAD_TOO_SLOW (the body fell behind --upload-min-rate after --upload-rate-grace), "
               "403 FILE_REJECTED (a file-upload interceptor rejected it, or did not decide in time).")
RAW = {"required": True, "description": "The file's bytes; Content-Type is the client's claim, refined only for text", "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}, "*/*": {"schema": {"type": "string", "format": "binary"}}}}
FNAME = q("name", {"type": "string", "minLength": 1, "maxLength": 255}, "The file name: one name without '/', '\\' or control characters", required=True)
DOWNLOAD = {"200": {"description": "The file, with Content-Type, Content-Disposition (attachment), a strong ETag (its SHA-256) and Accept-Ranges", "content": {"*/*": {"schema": {"type": "string", "format": "binary"}}}},
            "206": {"description": "One byte range (Range: bytes=a-b, a- or -n), with Content-Range"}, "304": {"description": "If-None-Match matched the ETag"},
            "416": {"description": "An unsatisfiable or malformed range; Content-Range: bytes */size"}}
DL_PARAMS = [{"name": "Range", "in": "header", "required": False, "schema": S, "description": "One range; several get the whole file"},
             {"name": "If-None-Match", "in": "header", "required": False, "schema": S, "description": "The ETag a client holds"}]
add("/mobile/v1/conversations/{id}/files", "post", op("Upload a file", "mobileUploadFile", {**ok(ref("MessageView"), "Stored", "201"), **ferrs(400, 403, 408, 413, 415, 429, 507), **errs(401, 404, 409, **T)}, M, CLIENT,
    params=[p("id", "Conversation id"), FNAME], request=RAW, desc=UPLOAD_DESC))
add("/mobile/v1/conversations/{id}/files", "get", op("The conversation's files", "mobileFiles", {**ok(ref("FileList")), **errs(401, 404, **T)}, M, CLIENT, params=[p("id", "Conversation id")],
    desc="The FILE messages, oldest first (internal ones are the agents' only)."))
add("/mobile/v1/conversations/{id}/files/{fileId}", "get", op("Download a file", "mobileDownloadFile", {**DOWNLOAD, **errs(401, 404, **T)}, M, CLIENT,
    params=[p("id", "Conversation id"), p("fileId", "File id"), *DL_PARAMS], desc="For the conversation's participants; everyone else gets 404."))
add("/agent/v1/conversations/{id}/files", "post", op("Upload a file", "agentUploadFile", {**ok(ref("MessageView"), "Stored", "201"), **ferrs(400, 403, 408, 413, 415, 429, 507), **errs(401, 404, 409, **T)}, ["agent"], AGENT,
    params=[p("id", "Conversation id"), FNAME, q("internal", B, "An internal file, for agents only")], request=RAW,
    desc=UPLOAD_DESC + " Agents must take part in the conversation; the cascade is the account's and the conversation's named area's."))
add("/agent/v1/conversations/{id}/files", "get", op("The conversation's files", "agentFiles", {**ok(ref("FileList")), **errs(401, 403, 404, **T)}, ["agent"], AGENT, params=[p("id", "Conversation id")]))
add("/agent/v1/conversations/{id}/files/{fileId}", "get", op("Download a file", "agentDownloadFile", {**DOWNLOAD, **errs(401, 403, 404, **T)}, ["agent"], AGENT,
    params=[p("id", "Conversation id"), p("fileId", "File id"), *DL_PARAMS], desc="For the conversation's participants and the account's admins; everyone else gets 404. The AGENT_DESK link of getConversationFiles."))
# The WEB_API download link (/app/rest/v4/conversations/{conversationId}/files/{fileId}/download) sits in the Web API's
# prefix, which the vendor's spec documents (it leaves the link's URL to the server): see docs/files.md.

conversation = obj({
    "id": S, "topic": S, "state": {"type": "string", "enum": ["CREATED", "ONBOARDING", "REBOARDING", "QUEUED", "ACTIVE", "UNASSIGNED", "OFFBOARDING", "ENDED"]},
    "recipient": obj({"type": {"type": "string", "enum": ["NAMED_AREA", "ACCOUNT", "AGENT", "TEAM"]}, "id": S}, ["type", "id"]),
    "engagementType": S,
    "participants": {**arr(obj({"personId": S, "type": {"type": "string", "enum": ["ASSIGNED_AGENT", "CONTEXT_PERSON", "SECONDARY_AGENT", "SECONDARY_VISITOR"]},
                                "state": {"type": "string", "enum": PARTICIPATION_STATES}, "displayName": S,
                                "hidden": {"type": "boolean", "description": "true for a hidden participant, in agents' views only"}},
                               ["personId", "type", "state"])),
                     "description": "Everyone who takes or took part; a visitor's view leaves hidden participants (secondary agents and bots) out"},
    "assigneePersonId": S, "contextPersonId": S, "createdAt": L, "queuedAt": L, "endedAt": L, "endReason": S,
    "endedBy": {**S, "description": "The person who ended the conversation; absent while it goes on, or when the server ended it"},
    "messageCount": {"type": "integer", "description": "The messages every participant sees: agents' internal notes are not counted, for any reader"},
    "lastMessageAt": {**L, "description": "When the last message every participant sees was posted (internal notes left out)"},
}, ["id", "state", "recipient", "engagementType", "participants", "createdAt", "messageCount"])
message = obj({"id": S, "conversationId": S,
               "sequence": {"type": "integer", "minimum": 1, "description": "1, 2, … per conversation, counting every message, internal notes included: "
                            "a visitor sees gaps where notes stand. A gap is not a lost message; page with after and hasMore"},
               "senderPersonId": S, "text": S, "timestamp": L, "clientMessageId": S, "internal": B, "file": ref("FileView"),
               "deliveredAt": {**L, "description": "When a dialog bot or external messenger marked it delivered"},
               "readAt": {**L, "description": "When a dialog bot or external messenger marked it read"},
               "questionState": {"type": "string", "enum": ["PENDING", "CANCELED"], "description": "A dialog bot's question: PENDING until canceled"},
               "externalSendState": {"type": "string", "enum": ["SENT", "SEND_FAILED"], "description": "Whether the external messenger channel could send it on"},
               "externalSendStateAt": {**L, "description": "When the channel reported externalSendState"},
               "externalSendFailState": {"type": "string", "enum": ["RETRYABLE", "TERMINAL"], "description": "For SEND_FAILED, when the channel said"},
               "externalSendFailureText": {"type": "string", "description": "For SEND_FAILED, the channel's reason, when it gave one"}},
              ["id", "conversationId", "sequence", "senderPersonId", "text", "timestamp", "internal"])
person = obj({"id": S, "type": {"type": "string", "enum": ["VISITOR", "AGENT"]}, "displayName": S, "sourceId": S}, ["id", "type", "sourceId"])
schemas = {
    "Error": obj({"$_type": {"const": "Error"}, "statusCode": I, "statusDescription": S, "errorMessage": S}, ["$_type", "statusCode", "statusDescription", "errorMessage"]),
    "TypedError": obj({"type": {"type": "string", "enum": ["AUTHORIZATION", "INVALID_API_KEY", "UNSUPPORTED_SERVER_VERSION", "BAD_REQUEST", "FORBIDDEN", "NOT_FOUND", "CONFLICT", "PAYLOAD_TOO_LARGE", "REQUEST_TIMEOUT", "RATE_LIMITED", "UNAVAILABLE", "INTERNAL", "MESSAGE_REJECTED"]}, "message": S, "status": I}, ["type", "message", "status"]),
    "Status": obj({"status": S}, ["status"]),
    "Health": obj({"status": S, "version": S}, ["status", "version"]),
    "FileView": obj({"id": S, "name": S, "mimeType": S, "size": L, "sha256": S}, ["id", "name", "mimeType", "size", "sha256"]),
    "FileList": obj({"files": arr(ref("MessageView"))}, ["files"]),
    "FileError": obj({"type": {"type": "string", "enum": ["FILE_TYPE_NOT_ALLOWED", "FILE_TYPE_MISMATCH", "FILE_TOO_LARGE", "FILE_QUOTA_EXCEEDED", "FILE_REJECTED", "MESSAGE_REJECTED", "FILE_EMPTY", "FILE_UPLOADS_BUSY", "FILE_UPLOAD_TOO_SLOW", "BAD_REQUEST"]}, "message": S, "status": I}, ["type", "message", "status"]),
    "ResetRequest": {**obj({"account": {"type": "string", "minLength": 1}}), "additionalProperties": False},
    "Snapshot": {**obj({"format": {"type": "string", "enum": ["mock-collab-snapshot"]}, "version": I, "scope": {"type": "string", "enum": ["server", "account"]},
                       "secrets": {"type": "string", "enum": ["included", "redacted"]},
                       "takenAt": L, "clock": obj({"now": L, "offset": L, "frozen": B}, ["now", "offset", "frozen"]), "globalConfiguration": smap(),
                       "accounts": arr(obj({"account": {"type": "object"}, "records": arr(obj({"kind": S, "id": S, "body": {"type": "object"}}, ["kind", "id", "body"])),
                                            "files": arr(obj({"conversationId": S, "id": S, "content": {"type": "string", "format": "byte"}}, ["conversationId", "id", "content"]))},
                                           ["account", "records"]))},
                      ["version"])},
    "SnapshotImportResult": obj({"scope": S, "accounts": arr(S), "records": I, "version": I}, ["scope", "accounts", "records", "version"]),
    "SeedResult": obj({"created": I, "updated": I, "unchanged": I}, ["created", "updated", "unchanged"]),
    "JournalEntry": obj({"id": L, "timestamp": L, "method": S, "path": S, "query": S, "status": I, "durationMicros": L, "accountId": S, "userId": S, "truncated": B,
                         "clientCertificate": S, "authenticatedBy": {"type": "string", "description": "cookie NAME: the account's token cookie identified the caller (its value is never recorded)"},
                         "faultRuleId": S, "fault": S, "replica": S}, ["id", "timestamp", "method", "path", "status", "durationMicros"]),
    "JournalPage": obj({"entries": arr(ref("JournalEntry")), "size": I, "capacity": I, "bytes": I, "maxBytes": I, "truncated": B,
                        "evicted": {**B, "description": "With after: entries after that id were pushed out by the journal's bounds before this read"},
                        "replicas": arr(S), "missingReplicas": arr(S)},
                       ["entries", "size", "capacity", "bytes", "maxBytes", "truncated", "evicted"]),
    "TestTokenRequest": obj({"subject": S, "email": S, "firstName": S, "lastName": S, "lifetimeSeconds": L}, ["subject"]),
    "TestTokenResponse": obj({"token": S, "expiresAt": L}, ["token", "expiresAt"]),
    "TokenRevocationRequest": obj({"token": S}, ["token"]),
    "TokenRevocationResponse": obj({"endedClients": I, "endedSessions": I, "revokedUntil": L}, ["endedClients", "endedSessions", "revokedUntil"]),
    "ConfigurationCascade": obj({
        "accountId": S, "namedAreaId": S, "apiKeyId": S,
        "layers": arr(obj({"scope": {"type": "string", "enum": ["GLOBAL", "ACCOUNT", "AREA", "APIKEY"]}, "entityId": S, "properties": smap()}, ["scope", "properties"])),
        "resolved": {"type": "object", "additionalProperties": obj({"value": S, "scope": {"type": "string", "enum": ["GLOBAL", "ACCOUNT", "AREA", "APIKEY"]}}, ["value", "scope"])},
    }, ["accountId", "layers", "resolved"]),
    "FaultMatch": obj({"surface": {"type": "string", "enum": ["WEB_API", "MOBILE", "AGENT"]}, "method": S, "path": S, "account": S, "deviceId": S, "clientId": S}),
    "FaultAction": obj({"type": {"type": "string", "enum": ["LATENCY", "ERROR", "PUSH_FAILURE", "EMPTY_RESPONSE", "CONNECTION_RESET", "TRUNCATED_BODY", "BANDWIDTH",
                                                            "WEBSOCKET_CLOSE", "LIVE_EVENT_DROP", "LIVE_EVENT_DELAY", "WEBHOOK_FAILURE"]},
                        "reason": S, "distribution": {"type": "string", "enum": ["FIXED", "UNIFORM", "LOGNORMAL"]},
                        "millis": I, "minMillis": I, "maxMillis": I, "medianMillis": I, "sigma": {"type": "number"}, "status": I, "message": S,
                        "bytes": {"type": "integer", "minimum": 0, "maximum": 1048576}, "fraction": {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
                        "closeCode": {"type": "integer", "minimum": 1000, "maximum": 4999}, "afterEvents": {"type": "integer", "minimum": 0, "maximum": 100000},
                        "eventTypes": arr(S), "bytesPerSecond": {"type": "integer", "minimum": 256, "maximum": 1073741824}, "timeout": B}, ["type"]),
    "FaultRule": obj({"id": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$", "description": "Kept as given (a 409 when a rule holds it already); chosen by the server when absent"},
                      "description": S, "match": ref("FaultMatch"), "action": ref("FaultAction"), "probability": {"type": "number", "minimum": 0, "maximum": 1},
                      "limit": I, "expiresAt": L, "expiresInMillis": L, "seed": {"type": "integer", "minimum": 0, "maximum": 9007199254740991,
                      "description": "At most 2^53 - 1, so that JSON tools keep it exact; from the id when absent"}, "accountId": S, "injected": I, "createdAt": L}, ["match", "action"]),
    "FaultRuleList": obj({"rules": arr(ref("FaultRule"))}, ["rules"]),
    "ClockState": obj({"now": L, "offset": L, "frozen": B}, ["now", "offset", "frozen"]),
    "ClockChange": obj({"advanceMillis": L, "frozen": B}),
    "EntityKindCount": obj({"typeName": S, "seedKey": S, "scope": {"type": "string", "enum": ["ACCOUNT", "GLOBAL"]}, "count": I}, ["typeName", "scope", "count"]),
    "EntityPage": obj({"$_type": S, "items": arr({"type": "object"}), "hasMoreItems": B, "nextOffset": I}),
    "StateStats": obj({**{k: I for k in STATS_COUNTS}, "declared": {"type": "object", "additionalProperties": I}, "frames": obj({k: I for k in FRAME_COUNTS}, FRAME_COUNTS),
                         "pushOutcomes": {**obj({k: I for k in PUSH_OUTCOMES}, PUSH_OUTCOMES),
                                          "description": "Of pushesEmitted, those that reached each final outbox state (the rest are pending, or were dropped by a reset)"},
                         "framesHeld": obj({k: I for k in FRAMES_HELD}, FRAMES_HELD), "replicas": arr(S), "missingReplicas": arr(S)},
                        STATS_COUNTS + ["pushOutcomes", "frames", "framesHeld"]),
    "WebhookDelivery": obj({"deliveryId": S, "registrationId": S, "accountId": S, "eventType": S, "endpoint": S, "state": {"type": "string", "enum": ["PENDING", "DELIVERED", "FAILED", "DROPPED"]},
                            "attempts": arr(obj({"timestamp": L, "status": I, "error": S, "durationMillis": L, "faultRuleId": S}, ["timestamp", "durationMillis"])), "createdAt": L, "bodyBytes": I,
                            "reason": S},
                           ["deliveryId", "registrationId", "accountId", "eventType", "endpoint", "state", "attempts", "createdAt", "bodyBytes"]),
    "WebhookDeliveryPage": obj({"deliveries": arr(ref("WebhookDelivery"))}, ["deliveries"]),
    "Seed": obj({"global": obj({"configuration": smap()}), "accounts": arr(obj({"name": S, "configuration": smap(), "metadata": smap(),
        "apiKeys": arr(obj({"key": S}, ["key"])), "namedAreas": arr(obj({"siteId": S}, ["siteId"])), "users": arr(obj({"username": S}, ["username"])),
        "persons": arr(obj({"sourceId": S}, ["sourceId"])), "jwt": {"type": "object"}, "faults": arr(ref("FaultRule")),
        "webhookRegistrations": {"type": "array", "description": "Webhook registrations (the vendor's WebhookRegistration fields), matched by name; "
                                 "a secret left out is generated or kept", "items": obj({"name": S, "endpoint": S, "events": arr(S)}, ["name", "endpoint", "events"])},
        "bots": {"type": "array", "description": "Dialog bots (the vendor's DialogBotData fields), matched by name; a webhookSecret left out is generated or kept",
                 "items": obj({"name": S, "webhookEndpoint": S}, ["name", "webhookEndpoint"])}}, ["name"]))}),
    "ClientStartRequest": obj({"apiKey": API_KEY, "accessToken": S, "deviceId": DEVICE_ID, "namedArea": S,
        "deviceSecret": {"type": "string", "maxLength": 128, "description": "An anonymous device's secret as its first start returned it; required on every later start with the same deviceId (a longer one answers 401 like a wrong one)"},
        "device": ref("DeviceInfo")}, ["deviceId", "device"]),
    "AgentClientStartRequest": obj({"apiKey": API_KEY, "accessToken": {"type": "string", "description": "A JWT whose preferred_username (else sub) is an agent's username"},
        "username": S, "password": S, "deviceId": DEVICE_ID, "namedArea": {"type": "string", "description": "The queue the app's inbound requests come from, and the configuration it starts with"},
        "device": ref("DeviceInfo")}, ["deviceId", "device"]),
    "DeviceInfo": {**obj({"os": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "\\S",
                                 "description": "As UIDevice.systemName or the Android SDK reports it; not only white space. Any Apple system name (iOS, iPadOS, visionOS, xrOS, watchOS, tvOS, macOS, Mac OS X, any case) "
                                                "reads com.unblu.mobiledevice.iosMaxFpsRate and makes co-browsing's platform iOS; anything else androidMaxFpsRate and Android"},
                          "osVersion": NAME, "appId": NAME, "appVersion": NAME,
                          "sdkVersion": {**NAME, "description": "With serve --product-version, a major the server does not pair with answers UNSUPPORTED_SERVER_VERSION"},
                          "model": NAME}, ["os"]),
                   "description": "The device a client starts on. Lengths are counted in characters (a bound in code points, as here, always passes); beyond one: 400 BAD_REQUEST naming the field."},
    "ClientStartResponse": obj({"token": S, "clientId": S, "accountId": S, "person": person, "namedAreaId": S, "configuration": smap(), "serverTime": L,
        "deviceSecret": {"type": "string", "description": "Issued on an anonymous device's first start only: keep it and present it as deviceSecret on later starts"}},
                               ["token", "clientId", "accountId", "person", "configuration", "serverTime"]),
    "ClientView": obj({"clientId": S, "personId": S, "deviceId": S, "namedAreaId": S, "appState": S, "openConversationId": S}, ["clientId", "personId", "deviceId", "appState"]),
    "AppStateRequest": obj({"appState": {"type": "string", "enum": ["BACKGROUND", "FOREGROUND_UI_CLOSED", "FOREGROUND_UI_OPEN"]}}, ["appState"]),
    "NamedAreaRequest": obj({"namedArea": S}),
    "AvailabilityView": obj({"state": {"type": "string", "enum": ["AVAILABLE", "UNAVAILABLE"]}, "onlineAgents": I}, ["state", "onlineAgents"]),
    "StartConversationRequest": obj({"topic": {"type": "string", "maxLength": 4096}, "engagementType": {"type": "string", "description": "EInitialEngagementType, CHAT_REQUEST when absent"}, "namedArea": S}),
    "RedeemInvitationRequest": obj({"token": {"type": "string", "description": "The PIN or the link invitation's token"}}, ["token"]),
    "EndConversationRequest": obj({"reason": {"type": "string", "enum": END_REASONS, "description": "ENDED_BY_PARTICIPANT when absent"}, "comment": {"type": "string", "maxLength": 4096}}),
    "SendMessageRequest": obj({"text": {"type": "string", "minLength": 1, "maxLength": 16384, "pattern": "\\S",
                                        "description": "Not empty or only white space (400). At most 16,384 bytes of UTF-8 (413 PAYLOAD_TOO_LARGE): maxLength counts characters, "
                                                       "so a text of up to 16,384 characters may still be over the byte bound"},
                               "clientMessageId": {"type": "string", "maxLength": 255, "description": "The app's own id: the same one again in the conversation answers the stored message (checked before the 10,000-message cap)"},
                               "internal": B}, ["text"]),
    "ConversationView": conversation,
    "ConversationList": obj({"conversations": arr(ref("ConversationView")),
                             "hasMore": {**B, "description": "More follow: ask again with before set to the last conversation's id"}},
                            ["conversations", "hasMore"]),
    "AgentInvitationList": obj({"invitations": arr(obj({"id": S, "type": {"type": "string", "enum": ["AGENT_INVITATION", "AGENT_FORWARDING", "DEPUTY_INVITATION", "ASSIGNMENT_REQUEST"],
                                                                 "description": "DEPUTY_INVITATION: the caller is one of the deputies a deputy delegation is offered to; ASSIGNMENT_REQUEST: a requeued conversation in the caller's or its team's queue (taken with the invitation's accept or POST /agent/v1/conversations/{id}/accept, which do the same)"},
                                                        "conversationId": S,
                                                        "comment": S, "createdAt": L}, ["id", "type", "conversationId", "createdAt"]))}, ["invitations"]),
    "MessageView": message,
    "MessagePage": obj({"messages": arr(ref("MessageView")), "hasMore": B}, ["messages", "hasMore"]),
    "PersonView": person,
    "AgentLoginRequest": obj({"username": S, "password": S}, ["username", "password"]),
    "AgentLoginResponse": obj({"token": S, "person": ref("PersonView"), "accountId": S, "expiresAt": L,
        "locale": {"type": "string", "description": "The language the agent chose with the Web API's authenticator/setDefaultLocale (a BCP 47 tag), if any."}},
                                  ["token", "person", "accountId", "expiresAt"]),
    "PresenceRequest": obj({"presence": {"type": "string", "enum": ["ONLINE", "AWAY", "OFFLINE"]}}, ["presence"]),
    "QueueView": obj({"entries": arr(obj({"position": I, "conversation": ref("ConversationView")}, ["position", "conversation"])),
        "nextCursor": {"type": "string", "description": "Pass as cursor for the next page; absent on the last page"}}, ["entries"]),
    "PushRegistrationRequest": {**obj({"apnsToken": APNS_TOKEN, "pushKitToken": APNS_TOKEN,
                                       "fcmToken": {"type": "string", "minLength": 1, "maxLength": 4096, "pattern": "^[A-Za-z0-9_:-]{1,4096}$", "description": "ASCII letters, digits, '-', '_' and ':'"},
                                       "version": {"type": "string", "enum": ["ENCRYPTED", "ENCRYPTED_SERVICE", "NOT_ENCRYPTED"]}, "apnsEnvironment": {"type": "string", "enum": ["sandbox", "production"]},
                                       "nativeInboundCall": {"type": "boolean", "description": "The SDK's nativeInboundCall capability: false rings calls by an INCOMING_CALL push to the APNs or FCM token (an alert; for ENCRYPTED a background push) or a UI request in the foreground, never by VoIP; absent: as the PushKit token says"}}, ["version"]),
                                "anyOf": [{"required": ["apnsToken"]}, {"required": ["pushKitToken"]}, {"required": ["fcmToken"]}],
                                "description": "At least one token (else 400); a token that breaks its pattern is a 400. Re-registering replaces every token."},
    "NotificationKeyView": obj({"keyId": S, "key": S, "createdAt": L, "validUntil": L}, ["keyId", "key", "createdAt"]),
    "DeviceView": obj({"id": S, "personId": S, "deviceId": S, "os": S, "osVersion": S, "appId": S, "apnsToken": S, "pushKitToken": S, "fcmToken": S, "version": S,
                       "apnsEnvironment": S, "notificationCount": I, "keyId": S, "nativeInboundCall": B, "registeredAt": L, "updatedAt": L},
                      ["id", "personId", "deviceId", "os", "version", "apnsEnvironment", "notificationCount", "registeredAt", "updatedAt"]),
    "PushRegistrationResponse": obj({"device": ref("DeviceView"), "keys": arr(ref("NotificationKeyView"))}, ["device", "keys"]),
    "PushContentView": obj({"type": S, "title": S, "text": S, "conversationId": S, "messageId": S, "senderName": S, "senderPersonId": S, "notificationCount": I,
                            "callId": UUID, "callType": S, "callerName": S, "callerPersonId": S, "callState": S, "callEndReason": S,
                            "audioGreeting": {"type": "string", "description": "com.unblu.mobiledevice.deviceAudioGreeting, for incoming calls"},
                            "callCredential": {"type": "string", "description": "Incoming calls: the bearer token that answers, declines, ends or reads this call from this device without a started app, until the call is over"},
                            "callServiceProvider": {"type": "string", "enum": ["OPENTOK", "LIVEKIT", "ACS"]}, "invitationId": S, "contextPersonId": S, "initialEngagementType": S,
                            "readTimestamp": L,
                            "callStartTimestamp": {**L, "description": "Missed calls: when the call started ringing"}, "timestamp": L},
                           ["type", "title", "text", "conversationId", "timestamp"]),
    "PushView": obj({"id": L, "pushId": S, "accountId": S, "personId": S, "deviceRecordId": S, "deviceId": S, "kind": S, "transport": S, "version": S, "token": S,
                     "topic": S, "pushType": S, "priority": I, "collapseId": S, "keyId": S, "content": ref("PushContentView"),
                     "payload": {"type": "string", "description": "The payload as composed, as a JSON string (parse it, e.g. jq's fromjson): for APNS and APNS_VOIP the request body the apns sink sends, byte for byte "
                                 "(the apns-* headers are the entry's pushType, topic, priority, collapseId and pushId); for FCM only the message's data map {\"unblu\": \"<JSON string>\"}, which the fcm sink wraps as "
                                 "{\"message\": {\"token\", \"data\", \"android\": {\"priority\", \"collapse_key\"}}} and serializes anew"}, "payloadBytes": I,
                     "truncated": B,
                     "state": {"type": "string", "enum": ["RECORDED", "PENDING", "DELIVERED", "UNREGISTERED", "FAILED", "SUPPRESSED"],
                               "description": "RECORDED: no sink for its transport, in the outbox only; SUPPRESSED: the person's notifications are paused"},
                     "attempts": arr(obj({"timestamp": L, "sink": S, "status": I, "reason": S, "error": S}, ["timestamp", "sink"])), "createdAt": L},
                    ["id", "pushId", "accountId", "personId", "deviceRecordId", "deviceId", "kind", "transport", "version", "token", "pushType", "priority", "content",
                     "payload", "payloadBytes", "truncated", "state", "attempts", "createdAt"]),
    "PushPage": obj({"pushes": arr(ref("PushView"))}, ["pushes"]),
    "PushSettings": obj({
        "apns": obj({"teamId": S, "keyId": S, "privateKeyPEM": S,
                     "certificate": obj({"pkcs12": {"type": "string", "description": "The .p12 file, base64"}, "password": S}, ["pkcs12", "password"]),
                     "topic": S, "environment": {"type": "string", "enum": ["sandbox", "production", "custom"]}, "customURL": S, "insecureTLS": B},
                    ["environment"]),
        "fcm": obj({"projectId": S, "clientEmail": S, "privateKeyPEM": S, "tokenURL": S, "endpoint": S}, ["projectId", "clientEmail", "privateKeyPEM"]),
        "simulatorDirectory": S}),
    "StartCallRequest": obj({"callType": {"type": "string", "enum": ["AUDIO", "VIDEO"]}}, ["callType"]),
    "CallView": obj({"id": UUID, "conversationId": S, "callType": S, "initiatorPersonId": S, "state": {"type": "string", "enum": ["RINGING", "ACTIVE", "ENDED"]},
                     "initiationTimestamp": L, "acceptTimestamp": L, "endTimestamp": L, "endReason": S, "timeoutAt": L,
                     "serviceProviderType": {"type": "string", "enum": ["OPENTOK", "LIVEKIT", "ACS"]},
                     "providerSession": obj({"provider": S, "sessionId": S, "token": S, "serverURL": S}, ["provider", "sessionId", "token", "serverURL"])},
                    ["id", "conversationId", "callType", "initiatorPersonId", "state", "initiationTimestamp", "timeoutAt"]),
    "CoBrowsingSessionView": obj({"id": S, "conversationId": S, "visitorPersonId": S, "state": {"type": "string", "enum": ["REQUESTED", "ACTIVE", "ENDED"]}, "platform": S,
                                  "maxFps": I, "requestedAt": L, "startedAt": L, "endedAt": L}, ["id", "conversationId", "visitorPersonId", "state", "platform", "maxFps", "requestedAt"]),
    "FrameAck": obj({"type": {"type": "string", "enum": ["frame.accepted", "frame.throttled", "frame.duplicate", "frame.rejected"]}, "sessionId": S, "sequence": I,
                     "retryAfterMs": {**L, "minimum": 1, "description": "frame.throttled: ms until a frame would be accepted, the next frame's due time less the jitter tolerance (min(50, interval / 4) ms) minus now. "
                                                                          "frame.rejected because the account's frames would hold more than --max-frame-memory-per-account: 5000 (memory frees as sessions end). Absent otherwise"},
                     "reason": S}, ["type"]),
    "CoBrowsingStats": obj({"sessionId": S, "accepted": I, "throttled": I, "duplicates": I, "rejected": I, "bytes": I, "effectiveFps": {"type": "number"}, "gapP50": L, "gapP99": L, "maxFps": I,
                            "privateAreas": arr(obj({"x": I, "y": I, "width": I, "height": I}, ["x", "y", "width", "height"]))},
                           ["sessionId", "accepted", "throttled", "duplicates", "rejected", "bytes", "effectiveFps", "maxFps", "privateAreas"]),
    "LiveEvent": {**obj({"id": {**L, "description": "Increasing; 0 for the control messages hello, resync and sync"},
                         "type": {"type": "string", "enum": [t for t, _ in LIVE_CONTROL + LIVE_EVENTS],
                                  "description": "What happened; detail keys per type in the LiveEvent description. New types may be added: ignore one you do not know"},
                         "timestamp": L, "conversation": ref("ConversationView"), "message": ref("MessageView"),
                         "detail": {**smap(), "description": "String values only; left out when the type has no detail keys"}}, ["id", "type", "timestamp"]),
                  "description": "One text message on a live socket (docs/mobile-api.md#live-event-catalogue). detail keys by type — "
                                 + "; ".join(f"{t}: {d}" for t, d in LIVE_CONTROL + LIVE_EVENTS) + "."},
}
# The one version string: Sources/CollabWire/MockCollabVersion.swift.
VERSION = re.search(r'current = "([^"]+)"', open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "CollabWire",
                                                      "MockCollabVersion.swift")).read()).group(1)
doc = {
    "openapi": "3.1.0",
    "info": {"title": "MockCollab", "version": VERSION, "description": "MockCollab's own routes: operations, the control API, the mobile device API and the agent API. The Web API v4 subset under /app/rest/v4 (alias /unblu/rest/v4) follows the vendor's Web API v4 specification and is documented there. Web API and control API errors use the vendor's Error body; the mobile and agent APIs answer with the TypedError body, whose type mirrors the SDK's client error types."},
    "servers": [{"url": "http://127.0.0.1:8080"}],
    "tags": [{"name": "ops"}, {"name": "control", "description": "For tests and tools"}, {"name": "mobile", "description": "The device API an app uses"}, {"name": "agent", "description": "The agent client and web console"}],
    "paths": paths,
    "components": {
        "securitySchemes": {
            "basicAuth": {"type": "http", "scheme": "basic"},
            "controlToken": {"type": "http", "scheme": "bearer", "description": "The --control-token value"},
            "clientToken": {"type": "http", "scheme": "bearer", "description": "The token of POST /mobile/v1/clients"},
            "agentToken": {"type": "http", "scheme": "bearer", "description": "The token of POST /agent/v1/login or of POST /agent/v1/clients (or a Web API session)"},
            "callCredential": {"type": "http", "scheme": "bearer", "description": "An incoming call's device credential (callCredential in its push): that call only, until it is over"},
            "sessionCookie": {"type": "apiKey", "in": "cookie", "name": "x-unblu-authsession"},
        },
        "responses": {
            "Error": {"description": "A failure, with the Web API's Error body", "content": {"application/json": {"schema": ref("Error")}}},
            "TypedError": {"description": "A failure, with the typed error body", "content": {"application/json": {"schema": ref("TypedError")}}},
            "FileError": {"description": "A refused file (or a bad name), with the typed error body", "content": {"application/json": {"schema": {"anyOf": [ref("FileError"), ref("TypedError")]}}}},
        },
        "schemas": schemas,
    },
}
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
out = os.path.join(root, "Sources/CollabServer/Resources/openapi.json")
write_or_check(out, json.dumps(doc, indent=2) + "\n", root, "scripts/gen-openapi.py")
