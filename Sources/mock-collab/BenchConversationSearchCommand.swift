import ArgumentParser
import CollabCore
import Foundation

/// `mock-collab bench conversation-search`: `conversations/search` with few and with many conversations
/// in one account, by filter. A participant or id filter is answered from an index and should cost the
/// same at every size; a topic filter checks every conversation (it is the scan every search was before
/// the look-ups). In process, on the account's state (no HTTP): numbers only mean something from a
/// release build.
struct BenchConversationSearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conversation-search",
        abstract: "Conversation search cost by filter, with few and with many conversations in one account."
    )

    @Option(help: "Conversation counts to measure, comma-separated.")
    var sizes: String = "100,100000"

    @Option(help: "Queries timed per filter and size (the median is reported).")
    var repeats: Int = 200

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        let counts = sizes.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !counts.isEmpty, counts.allSatisfy({ $0 >= 10 }), repeats > 0 else { throw ValidationError("sizes of at least 10, and repeats > 0") }
        var results: [String: Double] = [:]
        for count in counts {
            let (state, admin) = try Self.account(holding: count)
            let middle = count / 2
            // Visitors take part in 10 conversations each, agents in count / 50.
            let filters: [(name: String, filter: SearchFilter)] = [
                ("visitorParticipant", SearchFilter(field: "PARTICIPANT_PERSON_ID", op: .anyOf(["visitor-\(middle / 10)"]))),
                ("id", SearchFilter(field: "ID", op: .equals(.string("conversation-\(middle)")))),
                ("topic", SearchFilter(field: "TOPIC", op: .equals(.string("topic \(middle)")))),
            ]
            for (name, filter) in filters {
                let query = try SearchQuery(filters: [filter], orderBy: [SearchOrder(field: "CREATION_TIMESTAMP", descending: true)], limit: 10)
                results["\(name).\(count).medianMicroseconds"] = try Self.median(repeats) {
                    try state.searchConversations(query, for: admin).items.count
                }
            }
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: results, options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        } else {
            for key in results.keys.sorted() { print("\(key): \(String(format: "%.1f", results[key] ?? 0))") }
        }
    }

    /// The median of `repeats` timings of `search`, in microseconds; the search must find something.
    static func median(_ repeats: Int, _ search: () throws -> Int) throws -> Double {
        var samples: [Double] = []
        var found = 0
        for _ in 0..<repeats {
            let started = ContinuousClock.now
            found = try search()
            samples.append((ContinuousClock.now - started).seconds * 1e6)
        }
        precondition(found > 0, "the search found nothing")
        samples.sort()
        return samples[samples.count / 2]
    }

    /// An account's state holding `count` ended conversations, loaded as a start loads them, and an admin
    /// of it. Conversation `i` is about visitor `i / 10`, was taken by agent `i % 50` and has topic `i`.
    static func account(holding count: Int) throws -> (AccountState, Principal) {
        let account = Account(id: "bench-account", name: "bench", creationTimestamp: 0, modificationTimestamp: 0)
        var records: [StoredRecord] = []
        records.reserveCapacity(count)
        for index in 0..<count {
            let at = Timestamp(index)
            var conversation = Conversation(
                id: "conversation-\(index)", accountId: account.id, topic: "topic \(index)", recipient: .init(type: .namedArea, id: "area"),
                initialEngagementType: .chatRequest, creationTimestamp: at
            )
            conversation.state = .ended
            conversation.endTimestamp = at
            conversation.participants = [
                Participation(personId: "visitor-\(index / 10)", type: .contextPerson, joinedTimestamp: at),
                Participation(personId: "agent-\(index % 50)", type: .assignedAgent, joinedTimestamp: at),
            ]
            records.append(StoredRecord(encoding: conversation))
        }
        let state = try AccountState.load(account: account, records: records, directory: Directory())
        let admin = Principal(accountId: account.id, userId: nil, personId: nil, role: .admin, method: .basic)
        return (state, admin)
    }
}
