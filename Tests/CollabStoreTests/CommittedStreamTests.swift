@testable import CollabCore
import CollabStore
import CollabWire
import Foundation
import Logging
import Synchronization
import Testing

/// The repository's committed stream, the same for every store: concurrent writes' events and effects
/// come out once each, in the order the account's shard changed in (on a cluster, on every replica, with
/// each write's effects on the replica that committed it only).
@Suite("Committed stream")
struct CommittedStreamTests {
    /// Collects what the repository hands on.
    final class RecordingSink: CommitSink {
        private let recorded = Mutex<[CommittedBatch]>([])
        var batches: [CommittedBatch] { recorded.withLock { $0 } }
        func opened(at position: CommitPosition) {}
        func committed(_ batch: CommittedBatch) { recorded.withLock { $0.append(batch) } }
    }

    /// Formats that turn each write's marker event into one webhook body naming the write.
    struct MarkerFormats: VendorFormats {
        func webhookEventNames(for event: DomainEvent) -> [String] {
            event.detail["write"] == nil ? [] : ["test.write"]
        }

        func webhookBodies(for event: DomainEvent, wanted: Set<String>, in state: borrowing AccountState) -> [(name: String, body: Data)] {
            [("test.write", Data((event.detail["write"] ?? "").utf8))]
        }

        func pushWebhookBody(for push: ResolvedPush, in state: borrowing AccountState) -> Data? { nil }
        func botBody(_ message: BotMessage, in state: borrowing AccountState) -> Data? { nil }
    }

    enum Storage: String, CustomStringConvertible, Sendable {
        case memory, sqlite, cluster
        var description: String { rawValue }

        /// The PostgreSQL cluster only when `MOCK_COLLAB_TEST_POSTGRES` names a server to test against.
        static var available: [Storage] {
            [.memory, .sqlite] + (ProcessInfo.processInfo.environment["MOCK_COLLAB_TEST_POSTGRES"] == nil ? [] : [.cluster])
        }
    }

    static let resolver = EffectResolver(formats: MarkerFormats())
    static let context = OperationContext(now: 1_000, ids: .system)
    static let logger = Logger(label: "committed-stream-tests")

    /// Two replicas of one cluster, or one repository writing twice as much.
    static func repositories(_ storage: Storage) async throws -> [(StateRepository, RecordingSink)] {
        switch storage {
        case .memory:
            let sink = RecordingSink()
            return [(try await StateRepository(store: MemoryStore(), resolver: resolver, sink: sink), sink)]
        case .sqlite:
            let path = try StoreTests.temporaryPath()
            let sink = RecordingSink()
            return [(try await StateRepository(store: try await SQLiteStore.open(path: path, logger: logger), resolver: resolver, sink: sink), sink)]
        case .cluster:
            let url = try await PostgresTestDatabase.fresh()
            var replicas: [(StateRepository, RecordingSink)] = []
            do {
                for _ in 0..<2 {
                    let sink = RecordingSink()
                    let log = try await PostgresTestDatabase.open(url, cluster: true, logger: logger)
                    do {
                        replicas.append((try await StateRepository(replicaOf: log, resolver: resolver, sink: sink), sink))
                    } catch {
                        try? await log.close()
                        throw error
                    }
                }
            } catch {
                for (repository, _) in replicas { try? await repository.close() }
                throw error
            }
            return replicas
        }
    }

    /// An account with a registration for every event and a device with an APNs token; returns the account and device.
    static func prepare(_ repository: StateRepository) async throws -> (accountId: String, device: Device) {
        let (account, device) = try await repository.createAccount(AccountInput(name: "acc"), context: context) {
            state, changes throws(CollabError) in
            let hook = WebhookRegistration(name: "all", endpoint: "https://hooks.example/in", events: ["*"], secret: "s")
            _ = try state.createEntity(hook, for: .control(of: state.accountId), context: context, changes: &changes)
            var device = Device(
                id: "p:phone", accountId: state.accountId, personId: "p", deviceId: "phone", device: DeviceInfo(os: "iOS", appId: "com.example.app"),
                version: .notEncrypted, apnsEnvironment: "sandbox", registeredAt: 1
            )
            device.apnsToken = "token"
            state.setDevice(device, changes: &changes)
            return device
        }
        return (account.id, device)
    }

    /// One write: it changes the shard (a named area), notes how many areas it found (its place in the
    /// shard's order), emits a live marker event and records a push.
    static func write(_ label: String, account accountId: String, device: Device, on repository: StateRepository) async throws {
        try await repository.write(account: accountId) { state, changes throws(CollabError) in
            let place = state.namedAreas.count
            _ = try state.createEntity(NamedArea(siteId: label, name: label), for: .control(of: accountId), context: context, changes: &changes)
            changes.emit(
                DomainEvent(
                    kind: .conversationUpdated, accountId: accountId, timestamp: context.now, personIds: ["p"],
                    detail: ["write": label, "place": String(place)]
                )
            )
            let content = PushContent(type: .newMessage, title: "t", text: label, conversationId: "c", timestamp: context.now)
            changes.push(
                PushIntent(
                    accountId: accountId, deviceRecordId: device.id, personId: device.personId, content: content, transports: [.apns], createdAt: 1
                )
            )
        }
    }

    @Test("concurrent writes leave the committed stream in commit order, each event and effect exactly once", arguments: Storage.available)
    func orderAndOnce(_ storage: Storage) async throws {
        let replicas = try await Self.repositories(storage)
        // Closed whatever happens: a store left open fails PostgresNIO's assertion and ends the test process.
        do {
            try await Self.checkOrderAndOnce(storage, replicas: replicas)
        } catch {
            for (repository, _) in replicas { try? await repository.close() }
            throw error
        }
        for (repository, _) in replicas { try await repository.close() }
    }

    static func checkOrderAndOnce(_ storage: Storage, replicas: [(StateRepository, RecordingSink)]) async throws {
        let (accountId, device) = try await Self.prepare(replicas[0].0)
        for (repository, _) in replicas { try await repository.catchUp() }
        let labels = (0..<40).map { "w\($0)" }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, label) in labels.enumerated() {
                let repository = replicas[index % replicas.count].0
                group.addTask { try await Self.write(label, account: accountId, device: device, on: repository) }
            }
            try await group.waitForAll()
        }
        for (repository, _) in replicas { try await repository.catchUp() }

        var effectsByLabel: [String: Int] = [:]
        var pushesByLabel: [String: Int] = [:]
        var idsOnFirst: [String: Int64] = [:]
        for (index, (_, sink)) in replicas.enumerated() {
            let batches = sink.batches
            #expect(zip(batches, batches.dropFirst()).allSatisfy { $0.sequence < $1.sequence }, "\(storage): sequences increase in commit order")
            let markers = batches.flatMap(\.events).filter { $0.event.detail["write"] != nil }
            let written = markers.map { $0.event.detail["write"] ?? "" }
            #expect(written.sorted() == labels.sorted(), "\(storage): every write's event once, on every replica")
            let places = markers.compactMap { $0.event.detail["place"].flatMap(Int.init) }
            #expect(places == places.sorted() && Set(places).count == places.count, "\(storage): the stream follows the order the shard changed in")
            let ids = markers.map(\.id)
            #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "\(storage): live ids increase along the stream")
            for marker in markers {
                let label = marker.event.detail["write"] ?? ""
                if index == 0 {
                    idsOnFirst[label] = marker.id
                } else {
                    #expect(idsOnFirst[label] == marker.id, "a live id is the same on every replica")
                }
            }
            for batch in batches {
                #expect(batch.isLocal || batch.effects.isEmpty, "\(storage): another replica's commit brings no effects")
                for webhook in batch.effects.webhooks { effectsByLabel[String(decoding: webhook.body, as: UTF8.self), default: 0] += 1 }
                for push in batch.effects.pushes { pushesByLabel[push.content.text, default: 0] += 1 }
            }
        }
        let once = Dictionary(uniqueKeysWithValues: labels.map { ($0, 1) })
        #expect(effectsByLabel == once, "\(storage): each write's webhook once across the cluster")
        #expect(pushesByLabel == once, "\(storage): each write's push once across the cluster")
    }

    @Test("a live event's conversation names its participants as the commit left them, on every replica", arguments: Storage.available)
    func participantNamesAtCommit(_ storage: Storage) async throws {
        let replicas = try await Self.repositories(storage)
        do {
            try await Self.checkParticipantNames(storage, replicas: replicas)
        } catch {
            for (repository, _) in replicas { try? await repository.close() }
            throw error
        }
        for (repository, _) in replicas { try await repository.close() }
    }

    /// Two writes name the same visitor differently, each emitting a live and a webhook-only event about
    /// a conversation of the visitor and an agent without a name.
    static func checkParticipantNames(_ storage: Storage, replicas: [(StateRepository, RecordingSink)]) async throws {
        let (accountId, _) = try await Self.prepare(replicas[0].0)
        var visitorId = ""
        for name in ["Ada", "Ada L."] {
            visitorId = try await replicas[0].0.write(account: accountId) { state, changes throws(CollabError) in
                let visitor = try state.createOrUpdateVirtualPerson(
                    PersonInput(sourceId: "visitor", displayName: name), accountId: accountId, context: context, changes: &changes
                )
                var conversation = Conversation(
                    id: "c", accountId: accountId, topic: nil, recipient: .init(type: .account, id: accountId), initialEngagementType: .chatRequest,
                    creationTimestamp: context.now
                )
                conversation.participants = [
                    Participation(personId: visitor.id, type: .contextPerson, joinedTimestamp: context.now),
                    Participation(personId: "unnamed-agent", type: .assignedAgent, joinedTimestamp: context.now),
                ]
                for kind in [DomainEvent.Kind.conversationUpdated, .participationCreated] {
                    changes.emit(
                        DomainEvent(kind: kind, accountId: accountId, timestamp: context.now, conversation: conversation, detail: ["named": name])
                    )
                }
                return visitor.id
            }
        }
        for (repository, _) in replicas { try await repository.catchUp() }
        for (index, (_, sink)) in replicas.enumerated() {
            let events = sink.batches.flatMap(\.events).map(\.event).filter { $0.detail["named"] != nil }
            let live = events.filter { !$0.isWebhookOnly }
            let names = live.map(\.participantNames)
            #expect(names == [[visitorId: "Ada"], [visitorId: "Ada L."]], "\(storage), replica \(index): the name each commit left")
            // Webhook-only events never reach a live client (nor another replica): nothing to name.
            #expect(events.filter(\.isWebhookOnly).allSatisfy { $0.participantNames == nil })
            #expect(events.filter(\.isWebhookOnly).count == (index == 0 ? 2 : 0), "\(storage), replica \(index)")
        }
    }
}
