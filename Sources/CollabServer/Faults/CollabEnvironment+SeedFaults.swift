import CollabCore
import CollabStore
import CollabWire

/// Fault rules declared in seed files: checked with the seed (a bad rule refuses the whole seed, naming
/// its place in the file), installed once the seed's accounts exist, confined to their account.
extension CollabEnvironment {
    /// A seed's rules, checked like the control API's, with their ids, by account name.
    struct SeedFaultRules: Sendable {
        var rules: [(accountName: String, rule: FaultRule)] = []
    }

    /// Checks every `faults` entry of a seed before anything is applied.
    /// - Throws: `badRequest` naming the rule (`accounts[0] ('demo').faults[1]: …`); `tooManyRequests`
    ///   when the rules would not fit beside those held.
    func checkedSeedFaults(_ seed: Seed) throws(CollabError) -> SeedFaultRules {
        var checked = SeedFaultRules()
        let now = clock.now()
        var ids: Set<String> = []
        for (accountIndex, account) in seed.accounts.enumerated() {
            for (index, submitted) in (account.faults ?? []).enumerated() {
                let place = "invalid seed: accounts[\(accountIndex)] ('\(account.name)').faults[\(index)]"
                let id = submitted.id ?? Self.seedFaultId(accountName: account.name, index: index)
                guard FaultRule.isValidId(id) else {
                    throw .badRequest("\(place).id must be 1 to 64 letters, digits, '-' or '_'")
                }
                guard ids.insert("\(account.name)\u{0}\(id)").inserted else {
                    throw .badRequest("\(place).id '\(id)' is used twice in the account")
                }
                if let reference = submitted.match.account, reference != account.name {
                    throw .badRequest("\(place).match.account must be the seed account's name or absent (a seed account's rules are its own)")
                }
                var rule = submitted
                rule.match.account = nil
                do {
                    rule = try rule.checked(id: id, now: now, confinement: nil, environment: self)
                } catch {
                    throw .badRequest("\(place): \(error.message)")
                }
                checked.rules.append((account.name, rule))
            }
        }
        // A seed's rules are the operator's: they count against the server's budget, never an account's.
        let held = Set(faults.list(accountId: nil).map { "\($0.accountId ?? "")\u{0}\($0.id ?? "")" })
        let adding = checked.rules.filter { accountName, rule in
            guard let accountId = repository.directory.accountId(for: .accountName(accountName)), let id = rule.id else { return true }
            return !held.contains("\(accountId)\u{0}\(id)")
        }.count
        let owned = faults.held(by: .server)
        if owned + adding > faults.limits.server {
            throw CollabError(
                .tooManyRequests,
                "invalid seed: its \(adding) new fault rules do not fit beside the operator's \(owned) "
                    + "(at most \(faults.limits.server), --max-server-fault-rules)"
            )
        }
        return checked
    }

    /// Installs checked seed rules for their accounts (which the seed has just made or updated); a rule
    /// with the id of one held already replaces it.
    func installSeedFaults(_ checked: SeedFaultRules) throws(CollabError) {
        for (accountName, rule) in checked.rules {
            var rule = rule
            rule.accountId = try resolveAccount(accountName).id
            guard let id = rule.id else { continue }
            do {
                _ = try faults.replace(id, with: rule, accountId: rule.accountId)
            } catch where error.kind == .notFound {
                try faults.add(rule, owner: .server, now: clock.now())
            }
        }
    }

    /// The id of a seed rule without one: stable across applications of the same seed.
    static func seedFaultId(accountName: String, index: Int) -> String {
        let hash = accountName.utf8.reduce(UInt64(0xCBF2_9CE4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0100_0000_01B3 }
        return "seed-\(String(hash, radix: 16))-\(index)"
    }
}
