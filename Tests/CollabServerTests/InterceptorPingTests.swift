import CollabClient
import CollabCore
import Crypto
import Foundation
import Testing

/// `fileuploadinterceptors/{id}/sendPing` and `messageinterceptors/{id}/sendPing` over real sockets:
/// each reaches the interceptor's endpoint signed with its secret, in the vendor's shape.
@Suite("Interceptor pings")
struct InterceptorPingTests {
    func signature(_ body: Data, _ secret: String) -> String {
        HMAC<SHA256>.authenticationCode(for: body, using: SymmetricKey(data: Data(secret.utf8))).map { String(format: "%02x", $0) }.joined()
    }

    @Test("a file-upload interceptor gets a signed WebhookPingEvent; a message interceptor answers a PingRequest with its PingResponse")
    func pings() async throws {
        let hooks = try await WebhookReceiver()
        let external = try await BotReceiver()
        try await TestServer.with(seed: twoAccountSeed) { server in
            let admin = server.admin("alpha-admin", "pw-a").transport
            let file = try await admin.webAPI(
                "POST", "fileuploadinterceptors/create",
                #"{"name":"scanner","order":1,"webhookEndpoint":"\#(hooks.url)","webhookSecret":"file-secret-1"}"#
            )
            let fileId = try #require(file["id"] as? String)
            _ = try await admin.webAPI("POST", "fileuploadinterceptors/\(fileId)/sendPing", status: 204)
            let ping = try #require(try await hooks.wait(count: 1) { $0.headers["x-unblu-event"] == "ping" }.first)
            #expect(ping.headers["x-unblu-signature-256"] == signature(ping.body, "file-secret-1"))
            #expect(
                VendorSchemaCheck.problems(ping.body, schema: "WebhookPingEvent").isEmpty,
                "\(VendorSchemaCheck.problems(ping.body, schema: "WebhookPingEvent"))")

            let message = try await admin.webAPI(
                "POST", "messageinterceptors/create",
                #"{"name":"moderation","messageFilter":"AGENT","timeoutBehavior":"CONTINUE","#
                    + #""webhookEndpoint":"\#(external.url)","webhookSecret":"msg-secret-1"}"#
            )
            let messageId = try #require(message["id"] as? String)
            let answer = try await admin.webAPI("POST", "messageinterceptors/\(messageId)/sendPing", schema: "PingResponse")
            let request = try #require(external.all.first { $0.headers["x-unblu-event"] == "outbound.ping" })
            #expect(request.headers["x-unblu-signature-256"] == signature(request.body, "msg-secret-1"))
            #expect(VendorSchemaCheck.problems(request.body, schema: "PingRequest").isEmpty)
            let sent = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
            #expect(answer["pingId"] as? String == sent["pingId"] as? String && sent["serviceName"] as? String == "message interceptor")

            _ = try await server.admin("beta-admin", "pw-b").transport.webAPI("POST", "messageinterceptors/\(messageId)/sendPing", status: 404)
            _ = try await server.admin("alpha-agent", "pw-a").transport.webAPI("POST", "fileuploadinterceptors/\(fileId)/sendPing", status: 403)
        }
        try await hooks.stop()
        try await external.stop()
    }
}
