import ArgumentParser
import CollabCore
import CollabWire

/// `mock-collab bench state-search`: `visitorstates/search`, `agentstates/search`,
/// `personpresences/search`, and `persons/search` by last name and by id, with few and with many visitors in one
/// account; and `accounts/search` by name, over a directory of as many accounts as there are visitors.
/// One visitor in a hundred has a started app; the visitors share a thousand last names; 50 agents, a
/// fifth of them online. Each search reads the persons of its kind, or those a filter names
/// through an index, or pages through an order the table keeps, and should cost what it returns
/// whatever the visitors. The `…Scanned` rows answer the same queries as a scan of the
/// table did before. In process, on the account's state (no HTTP): numbers only mean something from a
/// release build.
struct BenchStateSearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state-search",
        abstract: "Visitor state, agent state, person presence, person-by-name and account search cost, with few and many visitors in one account."
    )

    @OptionGroup var options: SearchBenchOptions

    func run() async throws {
        try options.run(account: Self.account(holding:)) { state, admin, count, results in
            let online = SearchFilter(field: "ONLINE_STATE", op: .equals(.string("ONLINE")))
            let page = try SearchQuery(limit: 10)
            let onlinePage = try SearchQuery(filters: [online], limit: 10)
            let newest = try SearchQuery(orderBy: [SearchOrder(field: "JOINED_TIMESTAMP", descending: true)], limit: 10)
            let somePerson = state.clientSessions.values.first?.personId ?? ""
            let ofPerson = try SearchQuery(filters: [SearchFilter(field: "PERSON_ID", op: .equals(.string(somePerson)))], limit: 10)
            let byLastName = try SearchQuery(orderBy: [SearchOrder(field: "LAST_NAME")], limit: 10)
            let byLastNameDescending = try SearchQuery(orderBy: [SearchOrder(field: "LAST_NAME", descending: true)], limit: 10)
            let byIdDescending = try SearchQuery(orderBy: [SearchOrder(field: "ID", descending: true)], limit: 10)
            let directory = try Self.directory(holding: count)
            let byName = try SearchQuery(orderBy: [SearchOrder(field: "NAME", descending: true)], limit: 10)
            let timed: [(String, () throws -> Int)] = [
                ("accountsByName", { try AccountState.searchAccounts(byName, in: directory).items.count }),
                ("accountsByNameScanned", { try SearchSchemas.account.run(byName, over: directory.accounts, id: \.id).items.count }),
                ("visitors", { try state.searchVisitorStates(page, for: admin).items.count }),
                ("visitorsOnline", { try state.searchVisitorStates(onlinePage, for: admin).items.count }),
                ("agents", { try state.searchAgentStates(page, now: 0, for: admin).items.count }),
                ("agentsOnline", { try state.searchAgentStates(onlinePage, now: 0, for: admin).items.count }),
                ("presencesNewest", { try state.searchPersonPresences(newest, for: admin).items.count }),
                ("presencesNoOrder", { try state.searchPersonPresences(page, for: admin).items.count }),
                ("presencesOfPerson", { try state.searchPersonPresences(ofPerson, for: admin).items.count }),
                ("personsByLastName", { try state.searchPersons(byLastName, for: admin).items.count }),
                ("personsByLastNameDescending", { try state.searchPersons(byLastNameDescending, for: admin).items.count }),
                ("personsByIdDescending", { try state.searchPersons(byIdDescending, for: admin).items.count }),
                // The same as a scan of the table answered them before the look-ups and orders.
                ("visitorsOnlineScanned", {
                    let rows = state.persons.values.lazy.filter { $0.personType == .visitor }.map { person in
                        VisitorStateRow(person: person, onlineState: state.clientSessions(ofPerson: person.id).isEmpty ? "OFFLINE" : "ONLINE")
                    }
                    return try SearchSchemas.visitorState.run(onlinePage, over: rows, id: \.person.id).items.count
                }),
                ("personsByLastNameScanned", {
                    try SearchSchemas.person.run(byLastName, over: state.persons.values, id: \.id).items.count
                }),
                ("personsByIdDescendingScanned", {
                    try SearchSchemas.person.run(byIdDescending, over: state.persons.values, id: \.id).items.count
                }),
                ("presencesNewestScanned", {
                    try SearchSchemas.personPresence.run(newest, over: state.clientSessions.values, id: \.clientId).items.count
                }),
            ]
            for (name, search) in timed {
                results["\(name).\(count).medianMicroseconds"] = try options.median(search)
            }
        }
    }

    /// An account's state holding `count` visitors (`visitor-i`, created at `i`), every hundredth with a
    /// started app (so at least one), and 50 agents, every fifth online: built by the operations a
    /// server runs.
    static func account(holding count: Int) throws -> (AccountState, Principal) {
        var (state, admin) = try SearchBenchOptions.account(holding: 0) { _, _ in preconditionFailure("no records") }
        var apiKey = ApiKey(key: "bench-key", name: "bench")
        apiKey.accountId = state.accountId
        for index in 0..<count {
            var changes = ChangeSet()
            let context = OperationContext(now: Timestamp(index), ids: .system)
            let identity = PersonInput(sourceId: "visitor-\(index)", personType: .visitor, lastName: "Visitor \(index % 1_000)")
            if index % 100 == 0 {
                let device = DeviceInfo(os: "iOS", appId: "bench")
                let input = ClientStartInput(apiKey: apiKey, deviceId: "device-\(index)", device: device, identity: identity)
                _ = try state.startClient(input, context: context, changes: &changes)
            } else {
                _ = try state.createOrUpdateVirtualPerson(identity, accountId: state.accountId, context: context, changes: &changes)
            }
        }
        for index in 0..<50 {
            var changes = ChangeSet()
            let context = OperationContext(now: Timestamp(count + index), ids: .system)
            let agent = try state.createOrUpdateVirtualPerson(
                PersonInput(sourceId: "agent-\(index)", personType: .agent), accountId: state.accountId, context: context, changes: &changes)
            if index % 5 == 0 { try state.setPresence(.online, personId: agent.id, accountId: state.accountId, context: context, changes: &changes) }
        }
        return (state, admin)
    }

    /// A directory of `count` accounts, whose names do not come in the order they were created.
    static func directory(holding count: Int) throws -> Directory {
        let directory = Directory()
        for index in 0..<count {
            var changes = ChangeSet()
            let context = OperationContext(now: 1_000 + Int64(index), ids: .system)
            let name = "tenant \(UInt64(index) &* 2_654_435_761 % 1_000_003) \(index)"
            _ = try AccountState.createAccount(AccountInput(name: name), directory: directory, context: context, changes: &changes)
        }
        return directory
    }
}
