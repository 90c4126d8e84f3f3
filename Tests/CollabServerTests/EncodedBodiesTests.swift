import CollabCore
@testable import CollabServer
import CollabWire
import Foundation
import HTTPTypes
import NIOCore
import Testing

@Suite("Encoded answers kept per account")
struct EncodedBodiesTests {
    static let expansions = [Expansion(), Expansion(configuration: true), Expansion(configuration: true, metadata: true, text: true)]

    /// A random account's wire value (what `getCurrentAccount` answers), drawn from `generator`.
    static func account(_ generator: inout some RandomNumberGenerator, id: String) -> WebAccount {
        func text() -> String {
            let alphabet = Array("aé\"\\/ \u{1F600}\n0")
            return String((0..<Int.random(in: 0...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        var account = WebAccount(name: text(), configuration: Bool.random(using: &generator) ? [text(): text()] : nil)
        account.id = id
        account.version = Int64.random(in: 1...3, using: &generator)
        account.modificationTimestamp = Int64.random(in: 0...2, using: &generator)
        if Bool.random(using: &generator) { account.translations = ["de": WebTranslation(type: "AccountTranslation", name: text())] }
        return account
    }

    /// JSON text with every object's keys sorted.
    static func canonical(_ json: Data) throws -> String {
        let object = try JSONSerialization.jsonObject(with: json)
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("a kept answer is the value's own encoding, and a changed value is encoded again")
    func keptMatchesEncoding() throws {
        var generator = SystemRandomNumberGenerator()
        let bodies = EncodedBodies<WebAccount>()
        // Four ids with four values each: a slot is asked again with an equal value as often as with a changed one.
        let pool = (0..<16).map { Self.account(&generator, id: "a\($0 % 4)") }
        for _ in 0..<2_000 {
            let value = pool.randomElement(using: &generator)!
            let slot = EncodedBodySlot(type: WebAccount.typeName, id: value.id!, expansion: Self.expansions.randomElement(using: &generator)!)
            let body = try #require(bodies.body(of: value, slot: slot, accountId: "acc"))
            // Foundation's encoder writes an object's keys in no fixed order: compare them sorted.
            let kept = try Self.canonical(Data(body.readableBytesView))
            let encoded = try Self.canonical(try JSONBody.encoder.encode(value))
            #expect(kept == encoded)
            #expect(try JSONDecoder().decode(WebAccount.self, from: Data(body.readableBytesView)) == value)
        }
    }

    @Test("each account keeps at most its capacity; another account's answers stay")
    func boundedPerAccount() throws {
        let bodies = EncodedBodies<WebAccount>(capacityPerAccount: 8)
        var quiet = WebAccount(name: "quiet")
        quiet.id = "q"
        let quietSlot = EncodedBodySlot(type: WebAccount.typeName, id: "q", expansion: Expansion())
        _ = bodies.body(of: quiet, slot: quietSlot, accountId: "quiet")
        for index in 0..<100 {
            var value = WebAccount(name: "n\(index)")
            value.id = "i\(index)"
            _ = bodies.body(of: value, slot: .init(type: WebAccount.typeName, id: "i\(index)", expansion: Expansion()), accountId: "noisy")
            #expect(bodies.count(accountId: "noisy") <= 8)
        }
        #expect(bodies.count(accountId: "quiet") == 1)
    }

    @Test("getCurrentAccount answers what the account holds now, per expansion, after an update")
    func routeAfterUpdate() async throws {
        try await InProcessServer.with { server in
            let admin = InProcessServer.basic("admin", "admin")
            let path = "/app/rest/v4/accounts/getCurrentAccount"
            let first = try await server.call(.get, path, authorization: admin)
            let again = try await server.call(.get, path, authorization: admin)
            #expect(first.status == .ok && again.text == first.text)
            let expanded = try await server.call(.get, path + "?expand=configuration", authorization: admin)
            #expect(expanded.status == .ok && expanded.text != first.text && expanded.text.contains("configuration"))

            var account = try first.decode(WebAccount.self)
            account.name = "renamed"
            let updated = try await server.call(.post, "/app/rest/v4/accounts/update", authorization: admin, body: account)
            #expect(updated.status == .ok)
            let after = try await server.call(.get, path, authorization: admin).decode(WebAccount.self)
            #expect(after.name == "renamed" && after.version != account.version)
            let expandedAfter = try await server.call(.get, path + "?expand=configuration", authorization: admin).decode(WebAccount.self)
            #expect(expandedAfter.name == "renamed")
        }
    }
}
