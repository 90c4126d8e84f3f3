import AsyncHTTPClient
import CollabClient
import CollabWire
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The real executable: the listening line, durability across `kill -9`, graceful shutdown.
@Suite("The mock-collab process", .serialized)
struct ProcessTests {
    @Test("every acknowledged write survives kill -9")
    func killNine() async throws {
        let directory = try temporaryDirectory()
        let storage = "sqlite:\(directory.path)/state.sqlite"
        let first = try await ServerProcess(arguments: ["--storage", storage])
        #expect(first.standardOutput == "listening on http://127.0.0.1:\(first.port)\n")
        // A start that makes the default tenant names its users.
        try await first.waitForStandardError("default tenant: account 'demo'")
        let admin = AdminClient(baseURL: first.baseURL, credentials: .basic(username: "admin", password: "admin"))
        let acknowledged = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<100 {
                group.addTask { try await admin.namedAreas.create(WebNamedArea(name: "Area \(index)", siteId: "area-\(index)")).id! }
            }
            var ids: [String] = []
            for try await id in group { ids.append(id) }
            return ids
        }
        first.signal(SIGKILL)
        #expect(try await first.waitForExit() != 0)

        let second = try await ServerProcess(arguments: ["--storage", storage])
        let reopened = AdminClient(baseURL: second.baseURL, credentials: .basic(username: "admin", password: "admin"))
        let stored = try await reopened.namedAreas.readMultiple(acknowledged)
        #expect(Set(stored.items?.compactMap(\.id) ?? []) == Set(acknowledged))
        // The default tenant was not seeded a second time into the non-empty store, nor announced with passwords it may no longer have.
        #expect(try await reopened.apiKeys.search().items?.count == 1)
        second.signal(SIGTERM)
        #expect(try await second.waitForExit() == 0)
        // Its last line read, everything it logged before is read too.
        try await second.waitForStandardError("stopped; storage closed")
        #expect(!second.standardError.contains("default tenant"))
    }

    @Test("SIGTERM finishes the request in flight, closes the store and exits 0")
    func gracefulShutdown() async throws {
        let directory = try temporaryDirectory()
        let storage = "sqlite:\(directory.path)/state.sqlite"
        let server = try await ServerProcess(arguments: ["--storage", storage])

        // Start a request whose body arrives in two parts, and signal between them.
        let body = Data(#"{"name":"in flight","siteId":"in-flight"}"#.utf8)
        let (parts, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        var request = HTTPClientRequest(url: server.baseURL + "/app/rest/v4/namedareas/create")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Basic " + Data("admin:admin".utf8).base64EncodedString())
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .stream(parts, length: .known(Int64(body.count)))
        let response = Task { try await HTTPClient.shared.execute(request, timeout: .seconds(30)) }
        continuation.yield(ByteBuffer(bytes: body.prefix(10)))
        // Barriers, not sleeps: the server counts the request as active, then says it is shutting down.
        try await server.waitForMetric(#"http_server_active_requests{http_request_method="POST"} 1"#)
        server.signal(SIGTERM)
        try await server.waitForStandardError("shutting down")
        continuation.yield(ByteBuffer(bytes: body.dropFirst(10)))
        continuation.finish()
        let answer = try await response.value
        #expect(answer.status == .ok, "the in-flight request was cut off")

        #expect(try await server.waitForExit() == 0)
        #expect(server.standardError.contains("storage closed"))
        #expect(server.standardOutput.split(separator: "\n").count == 1, "stdout carries only the listening line")

        let again = try await ServerProcess(arguments: ["--storage", storage])
        let admin = AdminClient(baseURL: again.baseURL, credentials: .basic(username: "admin", password: "admin"))
        let found = try await admin.namedAreas.search(
            WebQuery(
                type: "NamedAreaQuery",
                searchFilters: [WebSearchFilter(field: "SITE_ID", operator: WebSearchOperator(type: "EQUALS", value: .string("in-flight")))])
        )
        #expect(found.items?.count == 1)
        again.signal(SIGINT)
        #expect(try await again.waitForExit() == 0)
    }

    @Test("--version prints the version /healthz answers, and nothing else")
    func version() async throws {
        let run = try await CommandRun.mockCollab(["--version"], in: try temporaryDirectory())
        #expect(run.status == 0)
        #expect(run.standardOutput == MockCollabVersion.current + "\n")
        #expect(run.standardError.isEmpty)
    }

    @Test("an environment value that does not parse stops the start, naming every one; an empty one counts as unset")
    func environmentValues() async throws {
        let directory = try temporaryDirectory()
        let bad = try await CommandRun.mockCollab(
            ["serve", "--storage", "memory", "--port", "0"],
            environment: [
                "MOCK_COLLAB_MAX_CONNECTIONS": "abc", "MOCK_COLLAB_TLS": "maybe", "MOCK_COLLAB_IDLE_TIMEOUT": "1.5x",
                "MOCK_COLLAB_MAX_LIVE_PER_ACCOUNT": "lots",
            ], in: directory)
        #expect(bad.status != 0)
        for complaint in [
            "MOCK_COLLAB_MAX_CONNECTIONS='abc'", "MOCK_COLLAB_TLS='maybe'", "MOCK_COLLAB_IDLE_TIMEOUT='1.5x'",
            "MOCK_COLLAB_MAX_LIVE_PER_ACCOUNT='lots'",
        ] {
            #expect(bad.standardError.contains(complaint), "\(bad.standardError)")
        }
        // A CI template that leaves the seed variable blank: the default tenant, not "the document is empty".
        let server = try await ServerProcess(arguments: ["--storage", "memory"], environment: ["MOCK_COLLAB_SEED_TEXT": ""])
        #expect(server.standardError.contains("default tenant"), "\(server.standardError)")
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)
    }

    @Test("a seed file is applied at start, and invalid options fail with a message")
    func seedFileAndOptions() async throws {
        let directory = try temporaryDirectory()
        let seedPath = directory.appendingPathComponent("seed.yaml")
        try "accounts:\n  - name: file-seeded\n    apiKeys: [{key: file-key}]\n    users:\n      - {username: owner, password: pw, role: ADMIN}\n"
            .write(to: seedPath, atomically: true, encoding: .utf8)
        let server = try await ServerProcess(arguments: ["--storage", "memory", "--seed", seedPath.path])
        let owner = AdminClient(baseURL: server.baseURL, credentials: .basic(username: "owner", password: "pw"))
        #expect(try await owner.apiKeys.getDefault().apiKey == "file-key")
        #expect(!server.standardError.contains("default tenant"), "an explicit seed replaces the default tenant")
        server.signal(SIGTERM)
        #expect(try await server.waitForExit() == 0)

        // The same seed as text (a container that cannot mount a file): it is the startup seed, so a
        // reset brings it back.
        let text = try String(contentsOf: seedPath, encoding: .utf8)
        let inline = try await ServerProcess(arguments: ["--storage", "memory", "--seed-text", text, "--control-token", "inline"])
        let inlineOwner = AdminClient(baseURL: inline.baseURL, credentials: .basic(username: "owner", password: "pw"))
        _ = try await inlineOwner.namedAreas.create(WebNamedArea(name: "Scratch", siteId: "scratch"))
        _ = try await ControlClient(baseURL: inline.baseURL, credentials: .bearer("inline")).reset()
        #expect(try await inlineOwner.apiKeys.getDefault().apiKey == "file-key")
        #expect(try await inlineOwner.namedAreas.search().items?.isEmpty == true, "reset back to the seed")
        inline.signal(SIGTERM)
        #expect(try await inline.waitForExit() == 0)

        // A stored-record bound given on the command line is the one applied.
        let bounded = try await ServerProcess(
            arguments: ["--storage", "memory", "--seed", seedPath.path, "--max-open-conversations-per-visitor", "1"])
        let visitor = VisitorClient(configuration: ClientConfiguration(baseURL: bounded.baseURL, apiKey: "file-key", deviceId: "one"))
        try await visitor.start()
        _ = try await visitor.startConversation()
        do throws(CollabClientError) {
            _ = try await visitor.startConversation()
            Issue.record("a second open conversation was accepted")
        } catch {
            #expect(error.status == 409 && error.message.contains("--max-open-conversations-per-visitor"), "\(error)")
        }
        bounded.signal(SIGTERM)
        #expect(try await bounded.waitForExit() == 0)

        for (arguments, complaint) in [
            (["--storage", "floppy:disk"], "storage must be"),
            (["--seed", seedPath.path, "--seed-text", text], "not both"),
            (["--seed-text", "acounts: []"], "unknown field 'acounts'"),
            (["--max-open-conversations-per-visitor", "0"], "--max-open-conversations-per-visitor must be positive"),
        ] {
            do {
                _ = try await ServerProcess(arguments: arguments)
                Issue.record("accepted: \(arguments)")
            } catch ServerProcessError.exited(let message) {
                #expect(message.contains(complaint), "\(message)")
            }
        }
    }
}
