import CollabCore
@testable import CollabServer
import CollabStore
import CollabWire
import Foundation
import HTTPTypes
import Testing

/// What one account may store of what its callers create: persons, conversations, message text. At
/// the bound a create is a 409 that stores nothing; another account is not touched; deleting frees.
@Suite("Stored record limits per account")
struct StoredRecordLimitTests {
    static let seed = Seed(accounts: [
        .init(
            name: "full", apiKeys: [.init(key: "full-key")],
            users: [.init(username: "admin-f", password: "pw", role: .admin)]
        ),
        .init(name: "other", apiKeys: [.init(key: "other-key")]),
    ])

    static func accountId(_ server: InProcessServer, _ name: String) throws -> String {
        try #require(server.server.environment.accountId(for: .accountName(name)))
    }

    static func conversation(_ server: InProcessServer, _ visitor: String) async throws -> InProcessServer.Answer {
        try await server.call(.post, "/mobile/v1/conversations", authorization: visitor, body: StartConversationRequest())
    }

    @Test("persons: a new visitor beyond the account's bound is a 409 naming the option, and nothing is stored; a known one still starts")
    func persons() async throws {
        let seeded = try await InProcessServer.with(seed: Self.seed) { server in
            try server.stats(account: try Self.accountId(server, "full")).persons
        }
        try await InProcessServer.with(seed: Self.seed, configure: { $0.storedRecordLimits.personsPerAccount = seeded + 2 }) { server in
            let full = try Self.accountId(server, "full")
            let first = try await server.startClient(key: "full-key", device: "one")
            #expect(first.status == .created, "\(first.text)")
            #expect(try await server.startClient(key: "full-key", device: "two").status == .created)
            let before = try server.stats(account: full)
            let refused = try await server.startClient(key: "full-key", device: "three")
            #expect(refused.status == .conflict, "\(refused.text)")
            #expect(refused.text.contains("--max-persons-per-account"))
            let after = try server.stats(account: full)
            #expect(after.persons == before.persons && after.persons == seeded + 2, "nothing stored")
            let again = try await server.call(
                .post, "/mobile/v1/clients",
                body: ClientStartRequest(
                    apiKey: "full-key", deviceId: "one", device: .init(os: "iOS"),
                    deviceSecret: try first.decode(ClientStartResponse.self).deviceSecret))
            #expect(again.status == .created, "a visitor already stored starts again: \(again.text)")
            #expect(try await server.startClient(key: "other-key", device: "three").status == .created, "another account has its own bound")
        }
    }

    @Test("started clients: a person's least recently seen client stops once it holds the bound, so restarts do not pile up")
    func clientsPerPerson() async throws {
        let clock = AdjustableClock(frozenAt: 1_900_000_000_000)
        try await InProcessServer.with(seed: Self.seed, clock: clock) { server in
            let first = try await server.startClient(key: "full-key", device: "restarting")
            let start = try first.decode(ClientStartResponse.self)
            let restart = ClientStartRequest(apiKey: "full-key", deviceId: "restarting", device: .init(os: "iOS"), deviceSecret: start.deviceSecret)
            var tokens = [start.token]
            for _ in 1..<ClientLimits.perPerson {
                clock.advance(by: 1)
                tokens.append(try await server.call(.post, "/mobile/v1/clients", body: restart).decode(ClientStartResponse.self).token)
            }
            // Every client is running; the first is seen again, so the second is now the least recently seen.
            for token in tokens {
                #expect(try await server.call(.get, "/mobile/v1/clients/current", authorization: "Bearer \(token)").status == .ok)
            }
            clock.advance(by: 1)
            #expect(try await server.call(.get, "/mobile/v1/clients/current", authorization: "Bearer \(tokens[0])").status == .ok)
            clock.advance(by: 1)
            #expect(try await server.call(.post, "/mobile/v1/clients", body: restart).status == .created)
            let stopped = try await server.call(.get, "/mobile/v1/clients/current", authorization: "Bearer \(tokens[1])")
            #expect(stopped.status == .unauthorized, "the least recently seen client stopped")
            for token in [tokens[0]] + tokens.dropFirst(2) {
                #expect(try await server.call(.get, "/mobile/v1/clients/current", authorization: "Bearer \(token)").status == .ok)
            }
        }
    }

    @Test("users have persons: a user beyond the account's persons bound is a 409 naming the option, and nothing is stored")
    func usersCountAsPersons() async throws {
        let seeded = try await InProcessServer.with(seed: Self.seed) { server in
            try server.stats(account: try Self.accountId(server, "full")).persons
        }
        try await InProcessServer.with(seed: Self.seed, configure: { $0.storedRecordLimits.personsPerAccount = seeded + 1 }) { server in
            let full = try Self.accountId(server, "full")
            let admin = InProcessServer.basic("admin-f", "pw")
            let created = try await server.call(.post, "/app/rest/v4/users/create", authorization: admin, body: ["username": "fits"])
            #expect(created.status == .ok, "\(created.text)")
            let refused = try await server.call(.post, "/app/rest/v4/users/create", authorization: admin, body: ["username": "one-more"])
            #expect(refused.status == .conflict && refused.text.contains("--max-persons-per-account"), "\(refused.text)")
            #expect(try server.stats(account: full).persons == seeded + 1, "nothing stored")
            let retry = try await server.call(.post, "/app/rest/v4/users/create", authorization: admin, body: ["username": "one-more"])
            #expect(retry.status == .conflict && !retry.text.contains("already taken"), "the refused name was not claimed: \(retry.text)")
        }
    }

    @Test("dialog bots have persons: a bot beyond the account's persons bound is a 409 naming the option, and nothing is stored")
    func botsCountAsPersons() async throws {
        let seeded = try await InProcessServer.with(seed: Self.seed) { server in
            try server.stats(account: try Self.accountId(server, "full")).persons
        }
        try await InProcessServer.with(seed: Self.seed, configure: { $0.storedRecordLimits.personsPerAccount = seeded + 1 }) { server in
            let full = try Self.accountId(server, "full")
            let admin = InProcessServer.basic("admin-f", "pw")
            func bot(_ name: String) -> String {
                #"{"$_type":"DialogBotData","name":"\#(name)","webhookEndpoint":"https://bots.example/hook","onboardingFilter":"VISITORS"}"#
            }
            let created = try await server.call(.post, "/app/rest/v4/bots/create", authorization: admin, body: bot("fits"))
            #expect(created.status == .ok, "\(created.text)")
            let refused = try await server.call(.post, "/app/rest/v4/bots/create", authorization: admin, body: bot("one-more"))
            #expect(refused.status == .conflict && refused.text.contains("--max-persons-per-account"), "\(refused.text)")
            #expect(try server.stats(account: full).persons == seeded + 1, "no person stored")
            let named = try await server.call(.get, "/app/rest/v4/bots/getByName?name=one-more", authorization: admin)
            #expect(named.status == .notFound, "no bot stored: \(named.text)")
        }
    }

    @Test("login sessions: a person's oldest ends once they hold the bound, so logging in again and again does not pile up")
    func sessionsPerPerson() async throws {
        let clock = AdjustableClock(frozenAt: 1_900_000_000_000)
        try await InProcessServer.with(seed: Self.seed, clock: clock) { server in
            var tokens: [String] = []
            for _ in 0..<SessionLimits.perPerson {
                clock.advance(by: 1)
                let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "admin-f", password: "pw"))
                tokens.append("Bearer " + (try login.decode(AgentLoginResponse.self).token))
            }
            for token in tokens { #expect(try await server.call(.get, "/agent/v1/me", authorization: token).status == .ok) }
            clock.advance(by: 1)
            #expect(try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "admin-f", password: "pw")).status == .ok)
            #expect(try await server.call(.get, "/agent/v1/me", authorization: tokens[0]).status == .unauthorized, "the oldest ended")
            for token in tokens.dropFirst() { #expect(try await server.call(.get, "/agent/v1/me", authorization: token).status == .ok) }
        }
    }

    @Test("devices: registering one more than a person keeps forgets the least recently registered")
    func devicesPerPerson() async throws {
        let clock = AdjustableClock(frozenAt: 1_900_000_000_000)
        try await InProcessServer.with(seed: Self.seed, clock: clock) { server in
            let full = try Self.accountId(server, "full")
            for index in 0...DeviceLimits.perPerson {
                clock.advance(by: 1)
                let start = AgentClientStartRequest(
                    apiKey: "full-key", username: "admin-f", password: "pw", deviceId: "phone-\(index)", device: .init(os: "iOS"))
                let started = try await server.call(.post, "/agent/v1/clients", body: start)
                #expect(started.status == .created, "\(started.text)")
                let token = "Bearer " + (try started.decode(ClientStartResponse.self).token)
                let push = PushRegistrationRequest(apnsToken: String(format: "%064x", index + 1), version: "NOT_ENCRYPTED")
                #expect(try await server.call(.put, "/agent/v1/clients/current/push", authorization: token, body: push).status == .ok)
            }
            let devices = try server.server.environment.read(account: full) { state in state.devices.values.map(\.deviceId) }
            #expect(devices.count == DeviceLimits.perPerson)
            #expect(!devices.contains("phone-0") && devices.contains("phone-\(DeviceLimits.perPerson)"), "the first registered was forgotten")
        }
    }

    @Test("declared entities: a create or update beyond the account's entity bytes is a 409 naming the option; deleting frees bytes")
    func entityBytes() async throws {
        try await InProcessServer.with(seed: Self.seed, configure: { $0.storedRecordLimits.entityBytesPerAccount = 120_000 }) { server in
            let admin = InProcessServer.basic("admin-f", "pw")
            func response(_ title: String, bytes: Int) -> [String: String] {
                ["title": title, "text": String(repeating: "x", count: bytes), "ownerType": "ACCOUNT"]
            }
            var ids: [String] = []
            for index in 0..<7 {
                let created = try await server.call(
                    .post, "/app/rest/v4/cannedresponses/create", authorization: admin, body: response("r\(index)", bytes: 16_000))
                #expect(created.status == .ok, "\(created.text)")
                ids.append(try #require(created.decode(WebEntityID.self).id))
            }
            let refused = try await server.call(
                .post, "/app/rest/v4/cannedresponses/create", authorization: admin, body: response("one more", bytes: 16_000))
            #expect(refused.status == .conflict && refused.text.contains("--max-entity-bytes-per-account"), "\(refused.text)")
            let small = try await server.call(.post, "/app/rest/v4/cannedresponses/create", authorization: admin, body: response("small", bytes: 10))
            #expect(small.status == .ok, "what fits is still taken: \(small.text)")
            #expect(try await server.call(.delete, "/app/rest/v4/cannedresponses/\(ids[0])/delete", authorization: admin).status == .noContent)
            let again = try await server.call(
                .post, "/app/rest/v4/cannedresponses/create", authorization: admin, body: response("one more", bytes: 16_000))
            #expect(again.status == .ok, "deleting freed its bytes: \(again.text)")
        }
    }

    @Test("conversations: the account's bound and a visitor's open ones; ending or deleting frees a place")
    func conversations() async throws {
        try await InProcessServer.with(
            seed: Self.seed,
            configure: {
                $0.storedRecordLimits.conversationsPerAccount = 3
                $0.storedRecordLimits.openConversationsPerVisitor = 2
            }
        ) { server in
            let full = try Self.accountId(server, "full")
            let first = try await server.visitorBearer(key: "full-key", device: "one")
            let opened = [try await Self.conversation(server, first), try await Self.conversation(server, first)]
            #expect(opened.allSatisfy { $0.status == .created }, "\(opened.map(\.text))")
            let third = try await Self.conversation(server, first)
            #expect(third.status == .conflict && third.text.contains("2 conversations open"), "\(third.text)")
            let id = try opened[0].decode(ConversationView.self).id
            let ended = try await server.call(.post, "/mobile/v1/conversations/\(id)/end", authorization: first, body: EndConversationRequest())
            #expect(ended.status == .ok, "\(ended.text)")
            #expect(try await Self.conversation(server, first).status == .created, "an ended conversation is not open")

            let second = try await server.visitorBearer(key: "full-key", device: "two")
            let refused = try await Self.conversation(server, second)
            #expect(refused.status == .conflict && refused.text.contains("--max-conversations-per-account"), "\(refused.text)")
            #expect(try server.stats(account: full).conversations == 3, "nothing stored")
            let other = try await server.visitorBearer(key: "other-key", device: "one")
            #expect(try await Self.conversation(server, other).status == .created, "another account has its own bound")

            let admin = InProcessServer.basic("admin-f", "pw")
            let deleted = try await server.call(.delete, "/app/rest/v4/conversations/\(id)/delete", authorization: admin)
            #expect(deleted.status == .noContent, "\(deleted.text)")
            #expect(try await Self.conversation(server, second).status == .created, "deleting freed a place")
        }
    }

    @Test("message text: a message beyond the account's bytes is a 409 that stores nothing; deleting the conversation frees its bytes")
    func messageBytes() async throws {
        let text = String(repeating: "m", count: 1_000)
        let cost = text.utf8.count + StoredRecordLimits.messageOverhead
        try await InProcessServer.with(seed: Self.seed, configure: { $0.storedRecordLimits.messageBytesPerAccount = 3 * cost }) { server in
            let full = try Self.accountId(server, "full")
            let visitor = try await server.visitorBearer(key: "full-key", device: "one")
            let id = try await Self.conversation(server, visitor).decode(ConversationView.self).id
            func send(_ conversation: String) async throws -> InProcessServer.Answer {
                try await server.call(
                    .post, "/mobile/v1/conversations/\(conversation)/messages", authorization: visitor, body: SendMessageRequest(text: text))
            }
            for _ in 0..<3 { #expect(try await send(id).status == .created) }
            let refused = try await send(id)
            #expect(refused.status == .conflict && refused.text.contains("--max-message-bytes-per-account"), "\(refused.text)")
            #expect(try server.stats(account: full).messages == 3, "nothing stored")
            let bytes = try server.server.environment.read(account: full) { $0.storedMessageBytes }
            #expect(bytes == 3 * cost)

            let other = try await server.visitorBearer(key: "other-key", device: "one")
            let otherId = try await Self.conversation(server, other).decode(ConversationView.self).id
            let elsewhere = try await server.call(
                .post, "/mobile/v1/conversations/\(otherId)/messages", authorization: other, body: SendMessageRequest(text: text))
            #expect(elsewhere.status == .created, "another account has its own bound")

            _ = try await server.call(.post, "/mobile/v1/conversations/\(id)/end", authorization: visitor, body: EndConversationRequest())
            let admin = InProcessServer.basic("admin-f", "pw")
            let deleted = try await server.call(.delete, "/app/rest/v4/conversations/\(id)/delete", authorization: admin)
            #expect(deleted.status == .noContent, "\(deleted.text)")
            #expect(try server.server.environment.read(account: full) { $0.storedMessageBytes } == 0)
            #expect(try server.stats(account: full).messages == 0, "the deleted conversation's messages are not counted")
            let fresh = try await Self.conversation(server, visitor).decode(ConversationView.self).id
            #expect(try await send(fresh).status == .created, "the deleted conversation's bytes were freed")
        }
    }

    static func object(_ answer: InProcessServer.Answer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any], "\(answer.text)")
    }

    /// A CUSTOM channel and a contact of the `full` account: the contact's id, and the post of `text`.
    static func externalContact(_ server: InProcessServer, text: String) async throws -> (contactId: String, post: ExternalPostCall) {
        let admin = InProcessServer.basic("admin-f", "pw")
        let channel = try await server.call(
            .post, "/app/rest/v4/externalmessengers/create", authorization: admin,
            body: #"{"type":"CUSTOM","name":"outside","webhookEndpoint":"http://127.0.0.1:9/hook","webhookSecret":"s"}"#)
        let channelId = try #require(try object(channel)["id"] as? String)
        let contact = try await server.call(
            .post, "/app/rest/v4/externalmessengercontacts/create", authorization: admin,
            body: #"{"externalMessengerChannelId":"\#(channelId)","sourceId":"outside-1","name":"Zed"}"#)
        let contactId = try #require(try object(contact)["id"] as? String)
        let body = #"{"senderExternalMessengerContactId":"\#(contactId)","#
            + #""messageData":{"$_type":"TextPostMessageData","type":"TEXT","text":"\#(text)"}}"#
        return (contactId, ExternalPostCall(path: "/app/rest/v4/externalmessengers/\(channelId)/sendMessage", body: body))
    }

    struct ExternalPostCall {
        var path: String
        var body: String
        func send(_ server: InProcessServer) async throws -> InProcessServer.Answer {
            try await server.call(.post, path, authorization: InProcessServer.basic("admin-f", "pw"), body: body)
        }
    }

    /// Whether the contact is linked to a person.
    static func isLinked(_ server: InProcessServer, _ contactId: String) async throws -> Bool {
        let read = try await server.call(
            .get, "/app/rest/v4/externalmessengercontacts/\(contactId)/read", authorization: InProcessServer.basic("admin-f", "pw"))
        return try object(read)["personId"] != nil
    }

    @Test("an external messenger's post refused at a bound makes no person, links no contact and opens no conversation")
    func externalPostAtTheBounds() async throws {
        let text = String(repeating: "e", count: 500)
        let cost = text.utf8.count + StoredRecordLimits.messageOverhead
        // The message's bytes: the person and the conversation would come first.
        try await InProcessServer.with(seed: Self.seed, configure: { $0.storedRecordLimits.messageBytesPerAccount = cost - 1 }) { server in
            let full = try Self.accountId(server, "full")
            let (contactId, post) = try await Self.externalContact(server, text: text)
            let before = try server.stats(account: full)
            let refused = try await post.send(server)
            #expect(refused.status == .conflict && refused.text.contains("--max-message-bytes-per-account"), "\(refused.text)")
            let after = try server.stats(account: full)
            #expect(after.persons == before.persons && after.conversations == before.conversations && after.messages == 0)
            #expect(try await !Self.isLinked(server, contactId), "the contact is not linked to a person that was never stored")
        }
        // The account's conversations: the person would come first.
        let seeded = try await InProcessServer.with(seed: Self.seed) { server in try server.stats(account: try Self.accountId(server, "full")) }
        try await InProcessServer.with(
            seed: Self.seed, configure: { $0.storedRecordLimits.conversationsPerAccount = seeded.conversations }
        ) { server in
            let full = try Self.accountId(server, "full")
            let (contactId, post) = try await Self.externalContact(server, text: text)
            let refused = try await post.send(server)
            #expect(refused.status == .conflict && refused.text.contains("--max-conversations-per-account"), "\(refused.text)")
            #expect(try server.stats(account: full).persons == seeded.persons)
            #expect(try await !Self.isLinked(server, contactId))
        }
        // Within the bounds the same post makes all three.
        try await InProcessServer.with(seed: Self.seed) { server in
            let full = try Self.accountId(server, "full")
            let (contactId, post) = try await Self.externalContact(server, text: text)
            #expect(try await post.send(server).status == .ok)
            let after = try server.stats(account: full)
            #expect(after.persons == seeded.persons + 1 && after.conversations == seeded.conversations + 1 && after.messages == 1)
            #expect(try await Self.isLinked(server, contactId))
        }
    }

    @Test("entity bytes are counted as stored, with what a create fills in (a key, a secret, a bot's person): a restart counts the same")
    func entityBytesRestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("entity-bytes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let admin = InProcessServer.basic("admin-f", "pw")
        let creates = [
            ("apikeys/create", #"{"name":"made here"}"#),
            ("webhookregistrations/create", #"{"name":"hook","endpoint":"https://hooks.example/in","events":["conversation.created"]}"#),
            ("bots/create", #"{"$_type":"DialogBotData","name":"bot","webhookEndpoint":"https://bots.example/hook","onboardingFilter":"VISITORS"}"#),
        ]
        let counted = try await InProcessServer.with(storage: storage, seed: Self.seed) { server in
            let full = try Self.accountId(server, "full")
            let before = try server.server.environment.read(account: full) { $0.declared.storedBytes }
            for (path, body) in creates {
                let created = try await server.call(.post, "/app/rest/v4/" + path, authorization: admin, body: body)
                #expect(created.status == .ok, "\(path): \(created.text)")
            }
            let after = try server.server.environment.read(account: full) { $0.declared.storedBytes }
            #expect(after > before)
            return after
        }
        let reloaded = try await InProcessServer.with(storage: storage, seed: Self.seed) { server in
            try server.server.environment.read(account: try Self.accountId(server, "full")) { $0.declared.storedBytes }
        }
        #expect(reloaded == counted)
    }

    @Test("the count of message bytes, and of messages, is rebuilt from the store on a restart")
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stored-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = StorageLocation.sqlite(path: directory.appendingPathComponent("state.sqlite").path)
        let stored = try await InProcessServer.with(storage: storage, seed: Self.seed) { server in
            let full = try Self.accountId(server, "full")
            let visitor = try await server.visitorBearer(key: "full-key", device: "one")
            let id = try await Self.conversation(server, visitor).decode(ConversationView.self).id
            for text in ["hello", "a longer message", "ü"] {
                _ = try await server.call(
                    .post, "/mobile/v1/conversations/\(id)/messages", authorization: visitor, body: SendMessageRequest(text: text))
            }
            return try server.server.environment.read(account: full) { ($0.storedMessageBytes, $0.storedMessageCount) }
        }
        #expect(stored.0 == "hello".utf8.count + "a longer message".utf8.count + "ü".utf8.count + 3 * StoredRecordLimits.messageOverhead)
        #expect(stored.1 == 3)
        let reloaded = try await InProcessServer.with(storage: storage, seed: Self.seed) { server in
            let full = try Self.accountId(server, "full")
            #expect(try server.stats(account: full).messages == 3, "the stats count the reloaded messages")
            return try server.server.environment.read(account: full) { ($0.storedMessageBytes, $0.storedMessageCount) }
        }
        #expect(reloaded == stored)
    }
}

/// The id of an entity a Web API create answers.
private struct WebEntityID: Decodable {
    var id: String?
}
