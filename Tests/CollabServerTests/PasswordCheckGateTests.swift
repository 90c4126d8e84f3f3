import CollabCore
import CollabStore
import CollabWire
import HTTPTypes
import Synchronization
import Testing

@testable import CollabServer

/// The gate in front of bcrypt: how many checks run, how many wait per key and in all, and whose turn.
@Suite("Password check gate")
struct PasswordCheckGateTests {
    /// Checks that start when the gate lets them and end when the test says.
    final class Checks: Sendable {
        let gate: PasswordCheckGate
        private let started: AsyncStream<String>.Continuation
        let starts: AsyncStream<String>
        private let releases = Mutex<[String: CheckedContinuation<Void, Never>]>([:])

        init(_ limits: PasswordCheckGate.Limits) {
            gate = PasswordCheckGate(limits: limits)
            (starts, started) = AsyncStream.makeStream(of: String.self)
        }

        /// Runs check `name` of `key` through the gate; it ends once ``release(_:)`` names it.
        func run(_ name: String, key: String) async throws(CollabError) {
            try await gate.run(key: key) {
                await withCheckedContinuation { continuation in
                    releases.withLock { $0[name] = continuation }
                    started.yield(name)
                }
            }
        }

        func release(_ name: String) {
            releases.withLock { $0.removeValue(forKey: name) }?.resume()
        }
    }

    @Test(
        "one runs at a time; a key's waiting checks and the server's are bounded (429); a freed slot goes to the next key in turn",
        .timeLimit(.minutes(1)))
    func admitsInTurn() async throws {
        let checks = Checks(PasswordCheckGate.Limits(running: 1, admitted: 4, admittedPerKey: 2))
        var starts = checks.starts.makeAsyncIterator()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await checks.run("a1", key: "a") }
            #expect(await starts.next() == "a1")
            group.addTask { try await checks.run("a2", key: "a") }
            try await eventually("a2 waiting") { checks.gate.counts(key: "a").waiting == 1 }

            let refused = await #expect(throws: CollabError.self) { try await checks.run("a3", key: "a") }
            #expect(refused?.kind == .tooManyRequests && refused?.retryAfterSeconds == 1)
            #expect(refused?.message.contains("this account's password checks") == true, "\(String(describing: refused))")

            group.addTask { try await checks.run("b1", key: "b") }
            group.addTask { try await checks.run("u1", key: PasswordCheckGate.unknownKey) }
            try await eventually("b1 and u1 waiting") {
                checks.gate.counts(key: "b").waiting == 1 && checks.gate.counts(key: PasswordCheckGate.unknownKey).waiting == 1
            }
            let full = await #expect(throws: CollabError.self) { try await checks.run("c1", key: "c") }
            #expect(full?.message.contains("the server's password checks") == true, "\(String(describing: full))")
            #expect(checks.gate.counts(key: "a").running == 1, "one check ran at a time")

            // Each freed slot goes to the next key in turn, oldest check first.
            for (ending, next) in [("a1", "a2"), ("a2", "b1"), ("b1", "u1")] {
                checks.release(ending)
                #expect(await starts.next() == next)
            }
            checks.release("u1")
            try await group.waitForAll()
        }
        #expect(checks.gate.counts(key: "a").admitted == 0 && checks.gate.counts(key: "a").running == 0)
        // Every slot was given back: a new check runs at once.
        async let after: Void = checks.run("d1", key: "d")
        #expect(await starts.next() == "d1")
        checks.release("d1")
        try await after
    }
}

@Suite("Shared password checks")
struct SharedPasswordCheckTests {
    @Test("callers checking the same password against the same hash at once share one check, its answer or its refusal", .timeLimit(.minutes(1)))
    func shared() async throws {
        let checks = SharedPasswordChecks()
        final class Held: Sendable {
            let runs = Atomic<Int>(0)
            let release = Mutex<CheckedContinuation<Void, Never>?>(nil)
        }
        let held = Held()
        let (started, starts) = AsyncStream.makeStream(of: Void.self)
        var next = started.makeAsyncIterator()
        for outcome in [Result<Bool, CollabError>.success(true), .failure(.tooManyRequests("full", retryAfterSeconds: 1))] {
            try await withThrowingTaskGroup(of: Result<Bool, CollabError>.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        do throws(CollabError) {
                            return .success(
                                try await checks.outcome(password: "pw", hash: "h") { () async throws(CollabError) -> Bool in
                                    held.runs.add(1, ordering: .relaxed)
                                    await withCheckedContinuation { continuation in
                                        held.release.withLock { $0 = continuation }
                                        starts.yield()
                                    }
                                    return try outcome.get()
                                })
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                _ = await next.next()
                try await eventually("the other four waiting") { checks.waiting(password: "pw", hash: "h") == 4 }
                #expect(checks.waiting(password: "other", hash: "h") == nil, "another password is another check")
                held.release.withLock { $0.take() }?.resume()
                var results: [Result<Bool, CollabError>] = []
                for try await result in group { results.append(result) }
                #expect(results.count == 5)
                #expect(results.allSatisfy { (try? $0.get()) == (try? outcome.get()) })
                if case .failure = outcome {
                    #expect(results.allSatisfy { if case .failure(let error) = $0 { error.kind == .tooManyRequests } else { false } })
                }
            }
        }
        #expect(held.runs.load(ordering: .relaxed) == 2, "one check for each round of five")
        #expect(checks.waiting(password: "pw", hash: "h") == nil)
    }
}

@Suite("Password checks through the server")
struct PasswordCheckServerTests {
    @Test("forty apps logging in at once as one user all get in: they share a check, not a place each at the gate")
    func fleetLogin() async throws {
        try await InProcessServer.with(seed: StoredRecordLimitTests.seed) { server in
            let before = server.server.environment.hasher.checkCount
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        let login = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "admin-f", password: "pw"))
                        return Int(login.status.code)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 40), "\(statuses)")
            let checks = server.server.environment.hasher.checkCount - before
            #expect(checks >= 1 && checks <= PasswordCheckGate.Limits.default(cores: 2).admittedPerKey, "\(checks) bcrypt checks")
        }
    }

    @Test("a username no account has is counted with one of the accounts, the same one each time, not with a key of its own")
    func madeUpNames() async throws {
        try await InProcessServer.with(seed: StoredRecordLimitTests.seed) { server in
            let authenticator = Authenticator(environment: server.server.environment)
            let accounts = Set(server.server.environment.repository.accountIds)
            #expect(accounts.count == 2)
            var used: Set<String> = []
            for index in 0..<64 {
                let account = authenticator.decoyAccount(for: "nobody-\(index)")
                #expect(accounts.contains(account))
                #expect(authenticator.decoyAccount(for: "nobody-\(index)") == account, "the same account each time")
                used.insert(account)
            }
            #expect(used == accounts, "made-up names are spread over the accounts")
            let unknown = try await server.call(.post, "/agent/v1/login", body: AgentLoginRequest(username: "nobody-1", password: "pw"))
            #expect(unknown.status == .unauthorized, "\(unknown.text)")
        }
    }
}
