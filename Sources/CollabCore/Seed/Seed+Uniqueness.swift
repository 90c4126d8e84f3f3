extension Seed {
    /// Refuses a seed that names the same thing twice: applied in order, the later entry would
    /// silently win over the earlier one (a user keeping the first entry's password, say).
    ///
    /// Unique across the seed: account names, API keys and usernames (each names one account's thing
    /// server-wide). Unique within an account: named areas' `siteId`, persons' `sourceId`, webhook
    /// registrations' and bots' names.
    public func checkUnique() throws(CollabError) {
        var seen = Seen()
        for (index, account) in accounts.enumerated() {
            let at = "accounts[\(index)]"
            try seen.first(account.name, "account name", at: "\(at).name", in: "")
            for (position, key) in (account.apiKeys ?? []).enumerated() {
                try seen.first(key.key, "API key", at: "\(at).apiKeys[\(position)].key", in: "")
            }
            for (position, user) in (account.users ?? []).enumerated() {
                try seen.first(user.username, "username", at: "\(at).users[\(position)].username", in: "")
            }
            for (position, area) in (account.namedAreas ?? []).enumerated() {
                try seen.first(area.siteId, "siteId", at: "\(at).namedAreas[\(position)].siteId", in: at)
            }
            for (position, person) in (account.persons ?? []).enumerated() {
                try seen.first(person.sourceId, "person sourceId", at: "\(at).persons[\(position)].sourceId", in: at)
            }
            for (position, hook) in (account.webhookRegistrations ?? []).enumerated() {
                try seen.first(hook.name, "webhook name", at: "\(at).webhookRegistrations[\(position)].name", in: at)
            }
            for (position, bot) in (account.bots ?? []).enumerated() {
                try seen.first(bot.name, "bot name", at: "\(at).bots[\(position)].name", in: at)
            }
        }
    }

    /// Where each value was first seen, by what it names and the scope it must be unique in.
    private struct Seen {
        var places: [String: String] = [:]

        mutating func first(_ value: String, _ what: String, at place: String, in scope: String) throws(CollabError) {
            let key = "\(scope)\u{0}\(what)\u{0}\(value)"
            if let earlier = places[key] {
                throw .badRequest("invalid seed: \(place): the \(what) '\(value)' is already \(earlier); a seed names each once")
            }
            places[key] = place
        }
    }
}
