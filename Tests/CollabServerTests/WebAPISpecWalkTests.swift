import CollabCore
import Foundation
import HTTPTypes
import Testing

@testable import CollabServer

/// Every operation of the vendor's Web API v4 spec (`VendorOperations`, 280 of them) is called once
/// under `/app/rest/v4` and must not get the router's "no route" 404 (router mode). The operations
/// other parts of issue 23 still owe are listed in ``unrouted`` with their owner: the list may only
/// shrink, and the test fails both for an unrouted operation missing from it and for a listed one
/// that is routed now (remove it).
@Suite("Web API: the vendor's spec, walked")
struct WebAPISpecWalkTests {
    /// Operations not routed yet → the part of issue 23 that owns them.
    static let unrouted: [String: String] = UnroutedOperations.owners

    @Test("every operation of the spec is routed, but those still owed")
    func everyOperationIsRouted() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            var missing: [String] = []
            for operation in VendorOperations.all {
                let path = "/app/rest/v4" + operation.path.replacingOccurrences(of: #"\{[^}]+\}"#, with: "unknown", options: .regularExpression)
                let method = try #require(HTTPRequest.Method(operation.method))
                let answer = try await server.call(
                    method, path, authorization: InProcessServer.basic("root", "root"), body: operation.method == "POST" ? "{}" : nil
                )
                if answer.status == .notFound, answer.text.contains("no route for") { missing.append("\(operation.method) \(operation.path)") }
            }
            let owed = Set(Self.unrouted.keys)
            for operation in missing where !owed.contains(operation) {
                Issue.record("\(operation) answers the router's 404 and is not in the list of operations still owed")
            }
            for operation in owed.subtracting(missing).sorted() {
                Issue.record("\(operation) is routed now: remove it from UnroutedOperations")
            }
            #expect(VendorOperations.all.count == 280)
        }
    }

    @Test("the operations docs/web-api.md is generated from are the spec's routed ones")
    func operationListMatchesTheSpec() async throws {
        try await InProcessServer.with { server in
            let routed = Set(server.server.webAPIOperations.map(\.description))
            let spec = Set(VendorOperations.all.map { "\($0.method) \($0.path)" })
            #expect(spec.subtracting(routed) == Set(Self.unrouted.keys))
            #expect(
                routed.subtracting(spec) == Set(WebAPIOperation.mockCollabOwn.map(\.description)),
                "routed, not the vendor's, not marked as MockCollab's own")
        }
    }
}
