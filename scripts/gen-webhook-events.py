#!/usr/bin/env python3
"""Writes the webhook event tables derived from the vendor's Web API v4 spec:

- Sources/CollabCore/Webhooks/VendorWebhookEvents.swift: every event name the spec's `callbacks`
  sections name, with the schema of its body (registration accepts exactly these names and `*`);
- Tests/CollabServerTests/Support/VendorEventSchemas.swift: the shape of those schemas, of a few
  response schemas (EXTRA_SCHEMAS) and of every schema they reach (property names, types, enums,
  oneOf alternatives), so tests check what the mock delivers against the vendor's schemas.

    scripts/gen-webhook-events.py            # rewrite both files
    scripts/gen-webhook-events.py --check    # exit 1 when a file differs from what the spec gives

The spec is ../shared/reference/unblu-webapi-v4.openapi.yaml (override with VENDOR_SPEC)."""
import os, sys

import yaml

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
spec_path = os.environ.get("VENDOR_SPEC", os.path.join(root, "..", "shared", "reference", "unblu-webapi-v4.openapi.yaml"))
EVENTS_FILE = os.path.join(root, "Sources/CollabCore/Webhooks/VendorWebhookEvents.swift")
SCHEMAS_FILE = os.path.join(root, "Tests/CollabServerTests/Support/VendorEventSchemas.swift")


def ref_name(ref):
    return ref.rsplit("/", 1)[-1]


def callback_events(spec):
    """(event name, body schema, operation path) for every callback, sorted by name."""
    events = {}
    for path, item in spec["paths"].items():
        for operation in item.values():
            if not isinstance(operation, dict):
                continue
            for name, callback in operation.get("callbacks", {}).items():
                for expression in callback.values():
                    for callback_operation in expression.values():
                        for content in callback_operation.get("requestBody", {}).get("content", {}).values():
                            events[name] = (ref_name(content["schema"]["$ref"]), path)
    return sorted((name, schema, path) for name, (schema, path) in events.items())


def swift_string(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def descriptor(prop):
    """A compact shape of one property: string, integer, number, boolean, object, any, ref:X, enum:A|B, array:<shape>."""
    if "$ref" in prop:
        return "ref:" + ref_name(prop["$ref"])
    if "enum" in prop and prop.get("type", "string") == "string":
        return "enum:" + "|".join(prop["enum"])
    kind = prop.get("type")
    if kind == "array":
        return "array:" + descriptor(prop.get("items", {}))
    if kind in ("string", "integer", "number", "boolean", "object"):
        return kind
    return "any"


def reachable(schemas, roots):
    def refs(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref":
                    yield ref_name(value)
                else:
                    yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)
    seen, stack = set(), list(roots)
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(refs(schemas[name]))
    return sorted(seen)


# Response schemas of Web API operations whose answers tests also check with the same table.
EXTRA_SCHEMAS = ["GlobalPingResponse", "ProductVersion", "ConversationHistoryDataResult", "MessageExportResult", "AgentPersonStateResult",
                 "PersonPresenceResult", "HasPasswordData", "LoginResult", "NotificationCountData", "NotificationCountForConversationsData",
                 "ConversationData", "User", "ConversationInvitationData", "ConversationInvitationResult",
                 "DialogBotData", "DialogBotResult", "PingResponse", "SendMessageResult", "Error", "Call",
                 # The entity layer's kinds (their lists and results reach their entities).
                 "AuditChangeResult", "Avatar", "CannedResponseList", "CannedResponseResult", "CannedResponseUsageResult", "CountResult",
                 "CustomActionResult", "DeputyRelationshipList", "DeputyRelationshipResult", "DomainList", "DomainResult", "PersonLabelList",
                 "PersonLabelResult", "PersonVisibilityRuleDataList", "PersonVisibilityRuleResult", "RecordRetentionData",
                 "SuggestionSourceResult", "PersonData", "TeamList", "TeamResult", "ConversationTemplateList", "ConversationTemplateResult",
                 "ExternalMessengerChannelResult", "CustomExternalMessengerChannelResult", "SmsExternalMessengerChannelResult",
                 "ExternalMessengerContactList", "ExternalMessengerContactResult", "NamedAreaList", "NamedAreaResult",
                 "WebhookRegistrationList", "WebhookRegistrationResult", "ApiKeyList", "ApiKeyResult",
                 # The partly routed tags' operations.
                 "AccountList", "AccountSecret", "AccountIngressStatus", "AccountQuotaUsageData", "RecordedMinutesData", "UserList",
                 "PersonResult", "AuthenticationTokenCreationResult", "VisitorPersonStateResult", "ConversationRecordingHistoryDataList",
                 "ConversationRecordingState", "GlobalData", "AcceptLinkData"]

HEADER = "// Generated by scripts/gen-webhook-events.py from the vendor's Web API v4 spec. Do not edit.\n"


def events_swift(events):
    lines = [HEADER, "/// The webhook event names the vendor's Web API v4 spec names in its `callbacks`, with the schema of",
             "/// each event's body. Registrations accept exactly these names and `*`.",
             "public enum VendorWebhookEvents {",
             "    /// Event name → body schema (`$_type`).",
             "    public static let schemas: [String: String] = ["]
    lines += [f"        {swift_string(name)}: {swift_string(schema)}," for name, schema, _ in events]
    lines += ["    ]", "",
              "    /// Events offered to bots, custom actions, external messengers, interceptors and suggestion sources",
              "    /// (registered with those entities, not with a webhook registration).",
              "    public static let entityCallbacks: Set<String> = ["]
    lines += [f"        {swift_string(name)}," for name, _, path in events if path != "/webhookregistrations/create"]
    lines += ["    ]", "}", ""]
    return "\n".join(lines)


LINE_LENGTH = 150  # .swift-format's lineLength


def entry(key, elements, empty=""):
    """One `key: [elements],` entry of a dictionary literal (`[empty]` without elements): on one line when
    it fits, else its elements packed onto as few lines as fit, one level deeper, with a trailing comma
    (as swift-format lays it out)."""
    indent, inner = " " * 8, " " * 12
    line = f"{indent}{key}: [{', '.join(elements) or empty}],"
    # swift-format keeps a literal on one line only when it also has room for the trailing comma it
    # would add when wrapping, hence `<`.
    if len(line.encode()) < LINE_LENGTH:
        return [line]
    lines, current = [f"{indent}{key}: ["], inner
    for element in elements:
        if current != inner and len((current + element + ",").encode()) > LINE_LENGTH:
            lines.append(current.rstrip())
            current = inner
        current += element + ", "
    lines += [current.rstrip(), f"{indent}],"]
    return lines


def schemas_swift(spec, events):
    schemas = spec["components"]["schemas"]
    names = reachable(schemas, {schema for _, schema, _ in events} | set(EXTRA_SCHEMAS))
    lines = [HEADER, "/// The shapes of the vendor's webhook event schemas and every schema they reach: for an object, its",
             "/// properties (`string`, `integer`, `number`, `boolean`, `object`, `any`, `ref:X`, `enum:A|B`, `array:…`);",
             "/// for an enum, `enum`; for a oneOf, its alternatives.",
             "enum VendorEventSchemas {",
             "    static let properties: [String: [String: String]] = ["]
    for name in names:
        schema = schemas[name]
        if "properties" in schema:
            props = [f"{swift_string(key)}: {swift_string(descriptor(value))}" for key, value in sorted(schema["properties"].items())]
            lines += entry(swift_string(name), props, empty=":")
    lines += ["    ]", "", "    static let enums: [String: [String]] = ["]
    for name in names:
        if "enum" in schemas[name]:
            lines += entry(swift_string(name), [swift_string(v) for v in schemas[name]["enum"]])
    lines += ["    ]", "", "    static let oneOf: [String: [String]] = ["]
    for name in names:
        if "oneOf" in schemas[name]:
            lines += entry(swift_string(name), [swift_string(ref_name(v["$ref"])) for v in schemas[name]["oneOf"]])
    lines += ["    ]", "}", ""]
    return "\n".join(lines)


def main():
    with open(spec_path) as handle:
        spec = yaml.safe_load(handle)
    events = callback_events(spec)
    outputs = {EVENTS_FILE: events_swift(events), SCHEMAS_FILE: schemas_swift(spec, events)}
    if "--check" in sys.argv:
        stale = [path for path, text in outputs.items() if not os.path.exists(path) or open(path).read() != text]
        for path in stale:
            print(f"{os.path.relpath(path, root)} is out of date: run scripts/gen-webhook-events.py", file=sys.stderr)
        print(f"{len(events)} vendor webhook events; tables {'stale' if stale else 'up to date'}")
        sys.exit(1 if stale else 0)
    for path, text in outputs.items():
        with open(path, "w") as handle:
            handle.write(text)
    print(f"wrote {len(events)} events")


if __name__ == "__main__":
    main()
