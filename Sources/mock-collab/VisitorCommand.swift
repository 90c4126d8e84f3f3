import ArgumentParser
import CollabClient
import CollabWire
import Foundation

/// `mock-collab visitor`: a simulated visitor app on `CollabClient`, driven by line commands on
/// standard input, reporting one JSON object per line on standard output (results, errors and every
/// live event). A developer plays the app with it against the web console; the browser test drives
/// the visitor side of a conversation through it.
struct VisitorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "visitor",
        abstract: "A simulated visitor app: line commands on stdin, one JSON line per result and live event on stdout.",
        discussion: """
            Commands, one per line:
              start [TOPIC]    start a conversation; it waits in the named area's queue
              say TEXT         send a message in the current conversation
              frame            share the screen (accepting the agent's request, or
                               starting to share) and upload a generated frame
              answer           answer the ringing call (decline: decline it)
              call [video]     call the conversation's agent (audio unless "video"; anything else is an error)
              hangup           end the current call
              file PATH        upload a local file into the current conversation
              download FILEID [PATH]
                               download a file of the current conversation (to PATH,
                               else only its size and type are printed)
              state STATE      app state: background, foreground or open (UI open)
              end              end the current conversation
              quit             stop the client and exit (as does end of input)
            Blank lines and lines starting with # are skipped.
            """
    )

    @OptionGroup var server: ServerTargetArguments

    @Option(help: "The named area (id or siteId) new conversations go to.")
    var namedArea: String = "demo-area"

    @Option(help: "The device id: the same id is the same anonymous visitor (default: a random visitor-NNNN).")
    var deviceId: String?

    @Option(help: "Register push tokens with this version: ENCRYPTED, ENCRYPTED_SERVICE, NOT_ENCRYPTED, or NONE.")
    var push: String = "ENCRYPTED"

    @Option(help: "Where the device keeps its identity secret between runs (the SDK's preferences storage).")
    var preferences: String = ".mock-collab/visitor-preferences.json"

    @OptionGroup(title: "TLS") var tls: ClientTLSArguments

    func validate() throws {
        guard push == "NONE" || PushNotificationVersion(rawValue: push) != nil else {
            throw ValidationError("--push must be ENCRYPTED, ENCRYPTED_SERVICE, NOT_ENCRYPTED or NONE")
        }
    }

    func run() async throws {
        // A reader that goes away shows as a failed write (see JSONLineWriter), not as a signal.
        signal(SIGPIPE, SIG_IGN)
        let output = JSONLineWriter()
        let tlsOptions = try tls.options()
        let session = VisitorSession(
            client: VisitorClient(configuration: ClientConfiguration(
                baseURL: server.url, apiKey: server.apiKey, namedArea: namedArea, deviceId: deviceId ?? "visitor-\(UInt32.random(in: 1000...9999))",
                preferences: FilePreferencesStorage(url: URL(fileURLWithPath: preferences)),
                tls: tlsOptions
            )),
            output: output
        )
        do {
            try await session.start(pushVersion: push == "NONE" ? nil : PushNotificationVersion(rawValue: push))
        } catch {
            output.write(VisitorSession.errorLine(command: "start-client", error))
            throw ExitCode.failure
        }
        while let line = readLine() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            if trimmed == "quit" { break }
            await session.handle(trimmed)
        }
        await session.stop()
    }
}

/// Writes one JSON object per line to standard output, whole lines only.
final class JSONLineWriter: Sendable {
    private let lock = NSLock()

    /// Writes `object` (strings, numbers) as one line.
    func write(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        emit(data)
    }

    func write(event: LiveEvent) {
        guard let data = try? JSONEncoder().encode(VisitorEventLine(event: event)) else { return }
        emit(data)
    }

    private func emit(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        do {
            try FileHandle.standardOutput.write(contentsOf: data + Data("\n".utf8))
        } catch {
            // Whoever read the output is gone (`mock-collab visitor … | head -3`): nothing is left to do.
            exit(0)
        }
    }
}

/// A live event as the visitor prints it.
struct VisitorEventLine: Encodable {
    var type = "event"
    var event: LiveEvent
}

/// The visitor app's state: its client, the current conversation, and what the agent asked for.
actor VisitorSession {
    let client: VisitorClient
    let output: JSONLineWriter
    private var notifications: NotificationAPI?
    private var conversationId: String?
    private var pendingCoBrowsingId: String?
    private var ringingCallId: String?
    private var currentCallId: String?
    private var personId: String?
    private var uploader: CoBrowsingUploader?
    private var frameNumber = 0
    private var eventTask: Task<Void, Never>?

    init(client: VisitorClient, output: JSONLineWriter) {
        self.client = client
        self.output = output
    }

    func start(pushVersion: PushNotificationVersion?) async throws {
        let started = try await client.start()
        eventTask = Task { [client] in
            for await event in client.events {
                self.output.write(event: event)
                self.note(event)
            }
        }
        if let pushVersion {
            let notifications = NotificationAPI(client: client)
            // A made-up APNs token per device: pushes land in the outbox (no sink is configured by default).
            let token = Data(client.configuration.deviceId.utf8).map { String(format: "%02x", $0) }.joined()
            try await notifications.register(apnsToken: String((token + String(repeating: "0", count: 64)).prefix(64)), version: pushVersion)
            self.notifications = notifications
        }
        personId = started.person.id
        output.write(["type": "started", "personId": started.person.id, "deviceId": client.configuration.deviceId])
    }

    /// Remembers what live events ask of the app (a co-browsing request, a ringing call).
    private func note(_ event: LiveEvent) {
        switch event.type {
        case "cobrowsing.requested": pendingCoBrowsingId = event.detail?["coBrowsingSessionId"]
        case "conversation.call.started":
            currentCallId = event.detail?["callId"]
            // Only a call the agent started rings here; the app's own outgoing call rings at the agent.
            if event.detail?["initiatorPersonId"] != personId { ringingCallId = event.detail?["callId"] }
        case "conversation.call.answered": ringingCallId = nil
        case "conversation.call.ended":
            ringingCallId = nil
            currentCallId = nil
        case "cobrowsing.ended": uploader = nil
        default: break
        }
    }

    func handle(_ line: String) async {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        let command = parts[0]
        let argument = parts.count > 1 ? parts[1] : nil
        do {
            switch command {
            case "start":
                let conversation = try await client.startConversation(topic: argument)
                conversationId = conversation.id
                output.write(["type": "result", "command": "start", "conversationId": conversation.id, "state": conversation.state])
            case "say":
                guard let argument else { throw VisitorInputError("say needs a text") }
                let message = try await client.send(argument, in: try currentConversation())
                output.write(["type": "result", "command": "say", "messageId": message.id, "sequence": message.sequence])
            case "frame":
                try await uploadFrame()
            case "file", "download":
                try await transferFile(command, argument)
            case "answer", "decline":
                guard let notifications, let callId = ringingCallId else { throw VisitorInputError("no call is ringing") }
                let call = command == "answer" ? try await notifications.answer(callId: callId) : try await notifications.decline(callId: callId)
                output.write(["type": "result", "command": command, "callId": call.id, "state": call.state])
            case "call":
                let callType: String
                switch argument?.lowercased() {
                case nil, "audio": callType = "AUDIO"
                case "video": callType = "VIDEO"
                default: throw VisitorInputError("call takes audio (the default) or video, not '\(argument ?? "")'")
                }
                let call = try await client.startCall(in: try currentConversation(), callType: callType)
                currentCallId = call.id
                output.write(["type": "result", "command": "call", "callId": call.id, "state": call.state])
            case "hangup":
                guard let callId = currentCallId else { throw VisitorInputError("no call to end") }
                let call: CallView = try await client.transport.send("POST", "/mobile/v1/calls/\(callId)/end")
                output.write(["type": "result", "command": "hangup", "callId": call.id, "state": call.state])
            case "state":
                let states = ["background": ClientAppState.background, "foreground": .foregroundUIClosed, "open": .foregroundUIOpen]
                guard let argument, let state = states[argument] else { throw VisitorInputError("state is background, foreground or open") }
                _ = try await client.setAppState(state)
                output.write(["type": "result", "command": "state", "appState": state.rawValue])
            case "end":
                let conversation = try await client.endConversation(try currentConversation())
                output.write(["type": "result", "command": "end", "conversationId": conversation.id, "state": conversation.state])
            default:
                throw VisitorInputError("unknown command '\(command)'")
            }
        } catch {
            output.write(Self.errorLine(command: command, error))
        }
    }

    /// A failure as a line: the message, and when the server answered its HTTP `status` and its typed
    /// error's `error` (`FILE_TYPE_NOT_ALLOWED`, `INVALID_API_KEY`, … as the API docs list them).
    static func errorLine(command: String, _ error: any Error) -> [String: Any] {
        var line: [String: Any] = ["type": "error", "command": command, "message": "\(error)"]
        if let error = error as? CollabClientError {
            line["message"] = error.message
            if let status = error.status { line["status"] = status }
            if let type = error.type { line["error"] = type }
        }
        return line
    }

    func stop() async {
        eventTask?.cancel()
        try? await client.stop()
    }

    func currentConversationId() throws -> String { try currentConversation() }

    private func currentConversation() throws -> String {
        guard let conversationId else { throw VisitorInputError("no conversation: start one first") }
        return conversationId
    }

    /// Shares the screen (accepting a pending request, else starting a session) and uploads one
    /// generated frame, different from the last.
    private func uploadFrame() async throws {
        if uploader == nil {
            let session: CoBrowsingSessionView
            if let pending = pendingCoBrowsingId {
                session = try await client.acceptCoBrowsing(pending)
                pendingCoBrowsingId = nil
            } else {
                session = try await client.startCoBrowsing(in: try currentConversation())
            }
            uploader = CoBrowsingUploader(client: client, sessionId: session.id, maxFps: session.maxFps)
        }
        guard let uploader else { return }
        frameNumber += 1
        let (width, height) = (160, 100)
        let outcome = try await uploader.submit(
            image: TestPattern.png(width: width, height: height, shade: frameNumber), width: width, height: height)
        var line: [String: Any] = ["type": "result", "command": "frame", "sessionId": uploader.sessionId, "width": width, "height": height]
        switch outcome {
        case .sent(let ack): line["ack"] = ack.type
        case .unchanged: line["ack"] = "unchanged"
        case .tooEarly(let wait): line["ack"] = "too-early"; line["retryAfterMs"] = wait
        }
        output.write(line)
    }
}

struct VisitorInputError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A small PNG test pattern (stored, uncompressed deflate blocks: no image codec needed).
enum TestPattern {
    static func png(width: Int, height: Int, shade: Int) -> Data {
        var rgb = [UInt8]()
        rgb.reserveCapacity(width * 3 * height)
        for y in 0..<height {
            for x in 0..<width {
                rgb += [UInt8((x * 255) / max(1, width - 1)), UInt8((y * 255) / max(1, height - 1)), UInt8((shade * 47) & 0xFF)]
            }
        }
        return PNGEncoder.encode(width: width, height: height, pixels: rgb, as: .rgb)
    }
}
