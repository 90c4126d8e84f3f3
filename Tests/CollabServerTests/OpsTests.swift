import CollabClient
import Foundation
import Testing

@Suite("Operational routes")
struct OpsTests {
    @Test("healthz, readyz, metrics and openapi.json")
    func ops() async throws {
        try await TestServer.with { server in
            let transport = server.transport(.none)
            #expect(try await transport.raw("GET", "/healthz").status == 200)
            #expect(try await transport.raw("GET", "/readyz").status == 200)
            _ = try await server.admin("admin", "admin").accounts.current()
            let metrics = try await transport.raw("GET", "/metrics")
            #expect(metrics.status == 200)
            let text = String(decoding: metrics.body, as: UTF8.self)
            #expect(text.contains("hb_requests"), "request counters are exported")
            #expect(metrics.header("content-type")?.hasPrefix("text/plain") == true)

            let document = try await transport.raw("GET", "/openapi.json")
            let json = try #require(try JSONSerialization.jsonObject(with: document.body) as? [String: Any])
            #expect((json["openapi"] as? String)?.hasPrefix("3.1") == true)
            let paths = try #require(json["paths"] as? [String: Any])
            for path in ["/healthz", "/readyz", "/metrics", "/openapi.json", "/_mock/v1/reset", "/_mock/v1/seed", "/_mock/v1/journal",
                         "/_mock/v1/accounts/{account}/tokens", "/_mock/v1/clock", "/_mock/v1/stats"] {
                #expect(paths[path] != nil, "\(path) is not documented")
            }
            #expect(!paths.keys.contains { $0.hasPrefix("/app/rest") }, "the vendor's Web API is documented by the vendor's spec")
        }
    }
}
