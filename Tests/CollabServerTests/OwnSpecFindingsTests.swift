import CollabClient
import CollabCore
import CollabWire
import Foundation
import Testing

/// Inputs schemathesis found against MockCollab's own /openapi.json, kept as regression tests.
@Suite("Own-spec findings")
struct OwnSpecFindingsTests {
    @Test("advancing the clock by Int64.min or Int64.max is a 400, not a crash")
    func clockExtremes() async throws {
        try await InProcessServer.with { server in
            for millis in [Int64.min, Int64.min + 1, Int64.max] {
                let body = Data(#"{"advanceMillis": \#(millis), "frozen": false}"#.utf8)
                let response = try await server.control.transport.raw("POST", "/_mock/v1/clock", body: body)
                #expect(response.status == 400, "\(millis)")
            }
            #expect(try await server.control.clock().offset == 0)
        }
    }
}
