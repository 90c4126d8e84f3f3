import CollabClient
import CollabCore
import CollabServer
import CollabStore
import Foundation
import Testing

/// A JSON request body is held to the same minimum rate as an upload (`--upload-min-rate` after
/// `--upload-rate-grace`), over a real socket: a body that trickles in is answered 408
/// `REQUEST_TIMEOUT` at the first piece past its allowance, nothing is stored, and the connection is
/// closed instead of drained at the client's pace.
@Suite("Slow request bodies")
struct SlowBodyTests {
    @Test("a Web API body that trickles in is answered 408 on the injected clock, changes nothing, and its connection is closed")
    func tricklingJSONBody() async throws {
        let clock = ManualClock()
        // At least 100 bytes per second once 10 seconds have passed.
        var configuration = fileConfiguration(
            storage: .memory, files: FileSettings(minimumRate: MinimumRate(bytesPerSecond: 100, grace: .seconds(10))))
        configuration.uploadClock = clock
        let server = try await TestServer.start(configuration: configuration)
        do {
            let body = Array(#"{"$_type":"NamedArea","name":"Trickled","siteId":"trickled"}"#.utf8)
            let held = try HeldUpload(
                port: server.port,
                head: [
                    "POST /app/rest/v4/namedareas/create HTTP/1.1", "Host: 127.0.0.1", "Authorization: Basic YWRtaW4tZjpwdw==",
                    "Content-Type: application/json", "Content-Length: \(body.count + 400)",
                ],
                firstBytes: Array(body.prefix(8))
            )
            defer { held.close() }
            // The server notes the body's start when it begins reading it, which the test cannot see:
            // each step moves the clock past any allowance the bytes so far buy and sends one more
            // byte, whose arrival is checked against the clock. The answer comes at the first byte
            // that arrives after a step the body's reading had started before.
            var status: Int?
            for next in body.dropFirst(8).prefix(20) {
                clock.advance(by: .seconds(11))
                held.send([next])
                status = await held.status(timeout: 1)
                if status != nil { break }
            }
            #expect(status == 408)
            #expect(await held.closedByServer(), "the rest of the body is not drained: the connection closes after the answer")
            let stats = try await ControlClient(baseURL: server.baseURL, credentials: .bearer("test-control-token")).stats(account: "files")
            #expect(stats.namedAreas == 2, "only the seed's areas: nothing of the trickled request is stored")
            try await server.stop()
        } catch {
            try? await server.stop()
            throw error
        }
    }
}
