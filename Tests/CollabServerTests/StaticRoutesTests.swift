import CollabCore
import CollabTestSupport
import CollabWire
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import CollabServer

/// The routes of fixed paths, found with one hash look-up in front of the router (``StaticRoutesFirst``):
/// only fixed paths are taken there, and every request is answered as the router alone answers it.
@Suite("Routes of fixed paths")
struct StaticRoutesTests: TwoAccountLogins {

    @Test("the table holds the fixed paths of every surface, and no path with a parameter or wildcard")
    func table() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let transport = try ServerTransport(configuration: server.server.environment.configuration, logger: server.server.logger)
            let routes = server.server.buildResponder(transport: transport).responder.routes
            #expect(routes["/app/rest/v4/accounts/getCurrentAccount"]?[.get]?.endpoint == "/app/rest/v4/accounts/getCurrentAccount")
            #expect(routes["/unblu/rest/v4/accounts/getCurrentAccount"]?[.get] != nil)
            #expect(routes["/mobile/v1/clients"]?[.post] != nil)
            #expect(routes["/_mock/v1/journal"]?[.get] != nil)
            #expect(routes["/healthz"]?[.get] != nil)
            #expect(routes["/app/rest/v4/accounts/getCurrentAccount"]?[.post] == nil, "only the methods registered")
            #expect(!routes.keys.contains { $0.contains(":") || $0.contains("*") || $0.contains("{") })
            #expect(routes.count > 250, "\(routes.count) fixed paths")
        }
    }

    @Test("every request is answered as the router alone answers it: fixed paths, ids, trailing slashes, unknown paths and methods")
    func sameAnswers() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            let transport = try ServerTransport(configuration: server.server.environment.configuration, logger: server.server.logger)
            let (router, _) = server.server.buildResponder(transport: transport)
            let account = try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin)
                .decode(WebAccount.self)
            let requests: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/app/rest/v4/accounts/getCurrentAccount", Self.alphaAdmin),
                (.get, "/app/rest/v4/accounts/getCurrentAccount", nil),
                (.get, "/app/rest/v4/accounts/getCurrentAccount/", Self.alphaAdmin),
                (.post, "/app/rest/v4/accounts/getCurrentAccount", Self.alphaAdmin),
                (.get, "/app/rest/v4/accounts/\(account.id ?? "")/read", Self.alphaAdmin),
                (.get, "/app/rest/v4/accounts/\(account.id ?? "")", Self.alphaAdmin),
                (.get, "/app/rest/v4/accounts/no-such-operation", Self.alphaAdmin),
                (.get, "/mobile/v1/no-such-route", nil),
                (.get, "/nowhere", nil),
                (.get, "/healthz", nil),
            ]
            // The same requests through an application of the router alone, on the same server's state.
            let plain = Application(router: router)
            try await plain.test(.router) { routerOnly in
                for (method, path, authorization) in requests {
                    var headers = HTTPFields()
                    if let authorization { headers[.authorization] = authorization }
                    let expected = try await routerOnly.execute(uri: path, method: method, headers: headers)
                    let answer = try await server.call(method, path, authorization: authorization)
                    #expect(answer.status == expected.status, "\(method) \(path)")
                    #expect(Self.comparable(answer.body) == Self.comparable(expected.body), "\(method) \(path)")
                }
            }
        }
    }

    @Test("a route found in the table is named by its path in the request metrics, as the router names it")
    func metricsName() async throws {
        try await InProcessServer.with(seed: twoAccountSeed) { server in
            #expect(try await server.call(.get, "/app/rest/v4/accounts/getCurrentAccount", authorization: Self.alphaAdmin).status == .ok)
            let metrics = try await server.call(.get, "/metrics").text
            #expect(metrics.contains(#"http_route="/app/rest/v4/accounts/getCurrentAccount",http_request_method="GET""#))
        }
    }

    /// A body as JSON whose object keys are in order (error bodies are encoded in no particular order),
    /// or as text.
    static func comparable(_ body: ByteBuffer) -> String {
        let data = Data(body.readableBytesView)
        guard let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
            let sorted = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        else { return String(buffer: body) }
        return String(decoding: sorted, as: UTF8.self)
    }
}
