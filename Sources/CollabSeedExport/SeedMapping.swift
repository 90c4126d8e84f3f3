import CollabCore
import CollabWire

/// Web API objects → seed entries. Bookkeeping (ids, versions, timestamps, the source account's id)
/// and every secret are left behind.
enum SeedMapping {
    /// Fields of a Web API object that belong to the source server, not to the tenant's shape.
    static let bookkeeping: Set<String> = ["$_type", "id", "accountId", "creationTimestamp", "modificationTimestamp", "version", "avatar"]

    /// Whether a field name holds a credential; such fields are never exported, whatever the kind.
    static func isSecret(_ field: String) -> Bool {
        let name = field.lowercased()
        return name.contains("secret") || name.contains("password") || name.contains("apikey") || name.contains("token")
    }

    /// A declared entity as its seed item: the Web API object without bookkeeping, secrets or nulls.
    /// - Parameter keepId: Keep `id`, for kinds others refer to by id (users' `teamId`, a team's `parentId`).
    static func entity(_ object: JSONValue, keepId: Bool) -> JSONValue {
        guard case .object(let fields) = object else { return object }
        let kept = fields.filter { key, value in
            value != .null && !isSecret(key) && (!bookkeeping.contains(key) || (keepId && key == "id"))
        }
        return .object(kept)
    }

    /// An account-wide or team canned response; `nil` for a personal one (its owner is a user id of the
    /// source server, which the target does not have). An account response drops its owner, which the
    /// loader sets to the target account.
    static func cannedResponse(_ object: JSONValue) -> JSONValue? {
        guard case .object(var fields) = entity(object, keepId: false) else { return nil }
        switch fields["ownerType"]?.stringValue {
        case "ACCOUNT": fields["ownerId"] = nil
        case "TEAM": break
        default: return nil
        }
        return .object(fields)
    }

    static func namedArea(_ object: JSONValue, reader: inout KindReader) -> Seed.NamedAreaSeed? {
        guard let siteId = object["siteId"]?.stringValue, !siteId.isEmpty else {
            reader.skip("namedAreas: '\(object["name"]?.stringValue ?? "?")' has no siteId, which the seed matches areas by")
            return nil
        }
        return Seed.NamedAreaSeed(
            siteId: siteId, name: object["name"]?.stringValue, description: object["description"]?.stringValue,
            type: object["type"]?.stringValue.flatMap(NamedArea.AreaType.init(rawValue:)),
            configuration: object["configuration"]?.stringMap?.nilIfEmpty, metadata: object["metadata"]?.stringMap?.nilIfEmpty
        )
    }

    static func user(_ object: JSONValue, reader: inout KindReader) -> Seed.UserSeed? {
        guard let username = object["username"]?.stringValue, !username.isEmpty else {
            reader.skip("users: a user without a username (id \(object["id"]?.stringValue ?? "?"))")
            return nil
        }
        let roleName = object["authorizationRole"]?.stringValue
        guard let role = roleName.map(AuthorizationRole.init(rawValue:)) ?? .registeredUser else {
            reader.skip("users: '\(username)' has the role \(roleName ?? "?"), which MockCollab does not know")
            return nil
        }
        return Seed.UserSeed(
            username: username, role: role, firstName: object["firstName"]?.stringValue, lastName: object["lastName"]?.stringValue,
            displayName: object["displayName"]?.stringValue, email: object["email"]?.stringValue, phone: object["phone"]?.stringValue,
            teamId: object["teamId"]?.stringValue, configuration: object["configuration"]?.stringMap?.nilIfEmpty,
            metadata: object["metadata"]?.stringMap?.nilIfEmpty
        )
    }

    static func webhook(_ object: JSONValue, reader: inout KindReader) -> Seed.WebhookSeed? {
        guard let name = object["name"]?.stringValue, let endpoint = object["endpoint"]?.stringValue else {
            reader.skip("webhookRegistrations: a registration without a name or endpoint (id \(object["id"]?.stringValue ?? "?"))")
            return nil
        }
        return Seed.WebhookSeed(
            name: name, description: object["description"]?.stringValue,
            status: object["status"]?.stringValue.flatMap(WebhookRegistration.Status.init(rawValue:)), endpoint: endpoint,
            events: (object["events"]?.arrayValue ?? []).compactMap(\.stringValue)
        )
    }

    static func bot(_ object: JSONValue, reader: inout KindReader) -> Seed.BotSeed? {
        guard let name = object["name"]?.stringValue, let endpoint = object["webhookEndpoint"]?.stringValue else {
            reader.skip("bots: a bot without a name or webhookEndpoint (id \(object["id"]?.stringValue ?? "?"))")
            return nil
        }
        var bot = Seed.BotSeed(name: name, webhookEndpoint: endpoint)
        bot.description = object["description"]?.stringValue
        bot.webhookStatus = object["webhookStatus"]?.stringValue.flatMap(WebhookRegistration.Status.init(rawValue:))
        bot.outboundTimeoutMillis = object["outboundTimeoutMillis"]?.intValue.map(Int64.init)
        bot.onboardingOrder = object["onboardingOrder"]?.intValue.map { Int32(clamping: $0) }
        bot.reboardingOrder = object["reboardingOrder"]?.intValue.map { Int32(clamping: $0) }
        bot.offboardingOrder = object["offboardingOrder"]?.intValue.map { Int32(clamping: $0) }
        bot.onboardingFilter = object["onboardingFilter"]?.stringValue.flatMap(DialogBot.Filter.init(rawValue:))
        bot.reboardingEnabled = object["reboardingEnabled"]?.boolValue
        bot.offboardingFilter = object["offboardingFilter"]?.stringValue.flatMap(DialogBot.Filter.init(rawValue:))
        bot.needsCounterpartPresence = object["needsCounterpartPresence"]?.boolValue
        bot.messageStateHandledExternally = object["messageStateHandledExternally"]?.boolValue
        bot.automaticTypingStateHandlingEnabled = object["automaticTypingStateHandlingEnabled"]?.boolValue
        bot.onTimeoutBehavior = object["onTimeoutBehavior"]?.stringValue.flatMap(DialogBot.TimeoutBehavior.init(rawValue:))
        return bot
    }

    /// Teams with every parent before its children (the loader checks `parentId` in list order).
    static func parentsFirst(_ teams: [JSONValue]) -> [JSONValue] {
        var placed: Set<String> = []
        var pending = teams
        var ordered: [JSONValue] = []
        while !pending.isEmpty {
            let pendingIds = Set(pending.compactMap { $0["id"]?.stringValue })
            let ready = pending.filter { team in
                guard let parent = team["parentId"]?.stringValue else { return true }
                return placed.contains(parent) || !pendingIds.contains(parent)
            }
            // A cycle or a parent outside the export: keep the rest in the server's order.
            guard !ready.isEmpty else { return ordered + pending }
            for team in ready { placed.insert(team["id"]?.stringValue ?? "") }
            ordered += ready
            pending.removeAll { team in ready.contains(team) }
        }
        return ordered
    }
}
