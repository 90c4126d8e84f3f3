import AsyncHTTPClient
import CollabClient
import CollabServer
import CollabTLS
import CollabWire
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOSSL
import NIOWebSocket
import Testing

/// HTTPS over real TLS handshakes: the development CA, HTTP/2 and HTTP/1.1 by ALPN on one port,
/// WebSockets over TLS, pinning in the client, and mutual TLS.
@Suite("TLS, HTTP/2, pinning and mutual TLS")
struct TLSTests {
    /// One request with AsyncHTTPClient, with an explicit HTTP version policy, returning the version spoken.
    func negotiatedVersion(_ url: String, tls: TLSOptions, http1Only: Bool) async throws -> (HTTPVersion, UInt) {
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls.configuration)
        configuration.httpVersion = http1Only ? .http1Only : .automatic
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
            return (response.version, response.status.code)
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    @Test("the development CA verifies the server; HTTP/2 and HTTP/1.1 are chosen by ALPN on the same port")
    func httpsWithBothProtocols() async throws {
        try await TLSSetup.with { setup in
            let tls = try setup.tls()
            let h2 = try await negotiatedVersion("\(setup.baseURL)/healthz", tls: tls, http1Only: false)
            #expect(h2.0 == .http2 && h2.1 == 200)
            let h1 = try await negotiatedVersion("\(setup.baseURL)/healthz", tls: tls, http1Only: true)
            #expect(h1.0 == .http1_1 && h1.1 == 200)

            let admin = AdminClient(baseURL: setup.baseURL, credentials: .basic(username: "admin", password: "admin"), tls: tls)
            let account = try await admin.accounts.current()
            #expect(account.name == "demo")

            // Without the CA the handshake fails: the certificate is not trusted.
            // (A short deadline: the HTTP client retries failed connections until the request's deadline.)
            let stranger = HTTPTransport(baseURL: setup.baseURL, timeout: .seconds(2))
            await #expect(throws: CollabClientError.self) { _ = try await stranger.raw("GET", "/healthz") }
        }
    }

    @Test("the certificate is kept: a restart reuses CA and server certificate, rotation changes the pins")
    func certificateLifecycle() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-collab-certs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dataDirectory) }
        let directory = TLSDirectory(dataDirectory: dataDirectory)
        let names = try ServerNames(["localhost", "127.0.0.1"])
        let first = try directory.serverIdentity(names: names)
        #expect(first.issued)
        let again = try directory.serverIdentity(names: names)
        let firstPins = try first.identity.pins
        #expect(!again.issued)
        #expect(try again.identity.pins == firstPins)
        // A name the certificate does not cover makes a new one from the same CA.
        let wider = try directory.serverIdentity(names: try ServerNames(["localhost", "127.0.0.1", "mock.test"]))
        let widerPins = try wider.identity.pins
        #expect(wider.issued && widerPins != firstPins)
        let rotated = try directory.rotateServer(names: names)
        #expect(try rotated.pins != widerPins)
        #expect(CertificateIssuer.isCurrent(rotated.certificate, issuedBy: try directory.authority().certificate, now: Date()))
        #expect(throws: TLSSetupError.self) { _ = try ServerNames(["not a name"]) }
    }

    @Test("a wrong pin fails with a typed error before any request is sent; the right pins pass")
    func pinning() async throws {
        try await TLSSetup.with { setup in
            let pins = try #require(try? TLSIdentity(
                certificatePEM: String(contentsOfFile: setup.directory.serverCertificatePath, encoding: .utf8), privateKeyPEM: ""
            ).pins)
            let control = try setup.control()
            try await control.clearJournal()

            let wrong = AdminClient(
                baseURL: setup.baseURL, credentials: .basic(username: "admin", password: "admin"),
                tls: try setup.tls(pins: [.publicKeySHA256(Data(repeating: 7, count: 32).base64EncodedString())])
            )
            let error = await #expect(throws: CollabClientError.self) { _ = try await wrong.accounts.current() }
            #expect(error?.code == .pinMismatch)
            #expect(error?.message.contains(pins.publicKeySHA256) == true, "the message names what the server presented")
            let journal = try await control.journal(JournalFilter(path: "/app/rest/v4/accounts"))
            #expect(journal.entries.isEmpty, "nothing reached the server")

            for pin in [TLSOptions.Pin.publicKeySHA256(pins.publicKeySHA256), .certificateSHA256("sha256/" + pins.certificateSHA256)] {
                let pinned = AdminClient(
                    baseURL: setup.baseURL, credentials: .basic(username: "admin", password: "admin"), tls: try setup.tls(pins: [pin]))
                #expect(try await pinned.accounts.current().name == "demo")
            }
            // The public key pin is not the certificate pin.
            let swapped = AdminClient(
                baseURL: setup.baseURL, credentials: .basic(username: "admin", password: "admin"),
                tls: try setup.tls(pins: [.certificateSHA256(pins.publicKeySHA256)])
            )
            let mismatch = await #expect(throws: CollabClientError.self) { _ = try await swapped.accounts.current() }
            #expect(mismatch?.code == .pinMismatch)
        }
    }

    @Test("live events and co-browsing frames over WSS, chat over HTTP/2, with a pinned certificate")
    func webSocketsOverTLS() async throws {
        try await TLSSetup.with { setup in
            let pins = try TLSIdentity(
                certificatePEM: String(contentsOfFile: setup.directory.serverCertificatePath, encoding: .utf8), privateKeyPEM: ""
            ).pins
            let tls = try setup.tls(pins: [.publicKeySHA256(pins.publicKeySHA256)])
            let visitor = VisitorClient(
                configuration: ClientConfiguration(
                    baseURL: setup.baseURL, apiKey: "demo-api-key", namedArea: "demo-area", deviceId: "tls-phone", tls: tls)
            )
            try await visitor.start()
            let agent = AgentClient(baseURL: setup.baseURL, tls: tls)
            try await agent.login(username: "agent", password: "agent")
            let agentEvents = try await agent.connectEvents()
            await agentEvents.waitUntilConnected()

            let conversation = try await visitor.startConversation(topic: "over TLS", engagementType: "MOBILE_COBROWSING_REQUEST")
            _ = try await agent.accept(conversation.id)
            _ = try await agent.send("hello over wss", in: conversation.id)
            var received: String?
            for await event in visitor.events where event.type == "conversation.new_message" {
                received = event.message?.text
                break
            }
            #expect(received == "hello over wss")

            // A frame over the visitor's live WebSocket (wss://), acknowledged on the same socket.
            let session = try await visitor.startCoBrowsing(in: conversation.id)
            let url = try #require(visitor.liveEventsURL)
            #expect(url.hasPrefix("wss://"))
            let header = FrameHeader(sessionId: session.id, sequence: 1, captureTime: 0, width: 390, height: 844, privateAreas: [])
            let acks = ListBox<FrameAck>()
            let webSocketTLS = try await tls.webSocketSettings(url: url)
            var webSocket = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
            webSocket.sniHostname = webSocketTLS.sniHostname
            try await WebSocketClient.connect(
                url: url, configuration: webSocket, tlsConfiguration: webSocketTLS.configuration, logger: Logger(label: "test")
            ) { inbound, outbound, _ in
                try await outbound.write(.binary(ByteBuffer(data: header.encode(image: jpeg(1, size: 20_000)))))
                for try await message in inbound.messages(maxSize: 1 << 20) {
                    guard case .text(let text) = message, let decoded = try? JSONDecoder().decode(FrameAck.self, from: Data(text.utf8)),
                        decoded.type.hasPrefix("frame.")
                    else { continue }
                    acks.append(decoded)
                    break
                }
                try await outbound.close(.normalClosure, reason: nil)
            }
            #expect(acks.all.map(\.type) == ["frame.accepted"])
            // The agent's viewer reads the frame over TLS too.
            let latest = try await agent.transport.raw("GET", "/agent/v1/cobrowsing/\(session.id)/frame")
            #expect(latest.status == 200 && latest.body.count >= 20_000)
            agentEvents.close()
            try await visitor.stop()
        }
    }

    @Test("required mutual TLS refuses the handshake without a certificate and records the subject of PEM and PKCS#12 clients")
    func mutualTLSRequired() async throws {
        var files: TLSDirectory.ClientFiles?
        try await TLSSetup.with(clientAuthentication: .required, prepare: { directory in
            files = try directory.issueClient(name: "device-1", pkcs12Password: "secret").files
        }) { setup in
            let files = try #require(files)
            let anonymous = HTTPTransport(baseURL: setup.baseURL, timeout: .seconds(2), tls: try setup.tls())
            let refused = await #expect(throws: CollabClientError.self) { _ = try await anonymous.raw("GET", "/healthz") }
            #expect(refused?.code == .transport)

            let pem = try setup.control(identity: .pem(certificateFile: files.certificate, keyFile: files.privateKey))
            try await pem.clearJournal()
            _ = try await pem.clock()
            let p12 = try #require(files.pkcs12)
            let bundled = try setup.control(identity: .pkcs12(file: p12, password: "secret"))
            _ = try await bundled.stats()
            let entries = try await pem.journal(JournalFilter(path: "/_mock/v1/")).entries
            #expect(entries.count >= 2)
            #expect(
                entries.allSatisfy {
                    $0.clientCertificate == "CN=device-1,O=MockCollab,OU=clients" || $0.clientCertificate?.contains("CN=device-1") == true
                })

            // A wrong PKCS#12 password is a typed set-up error, not a crash.
            let wrongPassword = #expect(throws: CollabClientError.self) { _ = try setup.tls(identity: .pkcs12(file: p12, password: "nope")) }
            #expect(wrongPassword?.code == .tlsSetup)
        }
    }

    @Test("optional mutual TLS: the device API answers 401 AUTHORIZATION without a certificate, the rest works; a plain port serves beside")
    func mutualTLSOptional() async throws {
        var files: TLSDirectory.ClientFiles?
        try await TLSSetup.with(clientAuthentication: .optional, plainHTTPPort: 0, prepare: { directory in
            files = try directory.issueClient(name: "device-2", pkcs12Password: nil).files
        }) { setup in
            let files = try #require(files)
            let bare = VisitorClient(
                configuration: ClientConfiguration(baseURL: setup.baseURL, apiKey: "demo-api-key", deviceId: "no-cert", tls: try setup.tls()))
            let start = try await bare.transport.raw(
                "POST", "/mobile/v1/clients", body: Data(#"{"apiKey":"demo-api-key","deviceId":"no-cert"}"#.utf8))
            #expect(start.status == 401)
            let body = try JSONDecoder().decode(APIErrorBody.self, from: start.body)
            #expect(body.type == "AUTHORIZATION" && body.message.contains("client certificate"))
            #expect(try await setup.control().clock().now > 0, "other surfaces need no certificate")

            let device = VisitorClient(configuration: ClientConfiguration(
                baseURL: setup.baseURL, apiKey: "demo-api-key", deviceId: "with-cert",
                tls: try setup.tls(identity: .pem(certificateFile: files.certificate, keyFile: files.privateKey))
            ))
            try await device.start()
            try await device.stop()

            let plainPort = try #require(setup.server.server.plainHTTPPort)
            let plain = ControlClient(baseURL: "http://127.0.0.1:\(plainPort)", credentials: .bearer("test-control-token"))
            _ = try await plain.clock()
            #expect(setup.server.server.scheme == "https")
        }
    }
}
