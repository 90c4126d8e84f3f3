import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A dialog bot's endpoint as a real HTTP server: records every request and answers the outbound
/// ones (`outbound.ping` echoes the ping id, `outbound.bot.onboarding_offer` accepts or refuses).
final class BotReceiver: Sendable {
    private let server: LoopbackHTTPServer
    private let box = ReceivedBox()
    var port: Int { server.port }

    var url: String { "http://127.0.0.1:\(port)/bot" }

    init(acceptOffers: Bool = true) async throws {
        let box = self.box
        let router = Router()
        router.post("bot") { request, _ -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let body = Data(buffer.readableBytesView)
            box.append(WebhookReceiver.Received(headers: headers, body: body))
            let answer: String
            switch headers["x-unblu-event"] {
            case "outbound.ping":
                let pingId = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["pingId"] as? String ?? ""
                answer = #"{"$_type":"PingResponse","pingId":"\#(pingId)"}"#
            case "outbound.bot.onboarding_offer":
                answer = #"{"$_type":"BotBoardingOfferResponse","offerAccepted":\#(acceptOffers)}"#
            default:
                answer = "{}"
            }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: answer)))
        }
        server = await LoopbackHTTPServer(router, label: "bot-receiver")
    }

    /// What arrived so far.
    var all: [WebhookReceiver.Received] { box.all }

    /// Waits until a request with event `name` matching `predicate` arrived, and returns it.
    func wait(
        for name: String, timeout: Duration = .seconds(30), _ predicate: @Sendable (WebhookReceiver.Received) -> Bool = { _ in true }
    ) async throws -> WebhookReceiver.Received {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = box.all.first(where: { $0.headers["x-unblu-event"] == name && predicate($0) }) { return match }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw CollectorTimeout(description: "a \(name) request at the bot", seen: box.all.compactMap { $0.headers["x-unblu-event"] })
    }

    func stop() async throws {
        try await server.stop()
    }
}
