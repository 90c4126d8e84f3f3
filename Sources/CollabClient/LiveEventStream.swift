public import CollabWire
import Foundation
import HummingbirdWSClient
public import Logging
import NIOCore
import NIOWebSocket
import Synchronization

/// A live event WebSocket that reconnects by itself and resumes where it left off.
///
/// Iterate ``events`` to receive `LiveEvent`s in order. When the connection drops (network, server
/// restart, the server closing a slow reader) the stream reconnects with the last event id it saw, and
/// the server replays what was missed; if that is no longer possible the next event is a `resync`.
/// The stream ends when ``close()`` is called, the session ends (close code 4001) or its authorization
/// does (4003, after a `client.error` event).
public final class LiveEventStream: Sendable {
    /// The events, in order. One consumer.
    public let events: AsyncStream<LiveEvent>
    private let continuation: AsyncStream<LiveEvent>.Continuation
    private let state = Mutex(State())
    private let url: String
    private let logger: Logger
    private let tls: TLSOptions?

    private struct State {
        var lastEventId: Int64?
        var connections = 0
        var failedAttempts = 0
        var lastFailure: String?
        var closed = false
        var current: Task<Void, Never>?
        var runner: Task<Void, Never>?
        var connectedWaiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
        var isConnected = false
        /// Texts to send on the current connection.
        var outgoing: AsyncStream<String>.Continuation?
    }

    /// The id of the last event received.
    public var lastEventId: Int64? { state.withLock { $0.lastEventId } }
    /// How many times the stream has connected.
    public var connectionCount: Int { state.withLock { $0.connections } }
    /// How many connection attempts failed (the server refused the upgrade, or the connection could
    /// not be made); the stream retries each with a growing delay.
    public var failedAttemptCount: Int { state.withLock { $0.failedAttempts } }
    /// Why the last failed attempt failed.
    public var lastFailure: String? { state.withLock { $0.lastFailure } }

    /// Opens a stream.
    /// - Parameters:
    ///   - url: The `ws://` URL of the events endpoint, with its token and filters as query parameters.
    ///   - lastEventId: Resume after this event.
    ///   - logger: Where connection problems are logged.
    ///   - tls: TLS trust, pins and client certificate for a `wss://` URL.
    public init(url: String, lastEventId: Int64? = nil, tls: TLSOptions? = nil, logger: Logger = Logger(label: "CollabClient.LiveEventStream")) {
        self.url = url
        self.tls = tls
        self.logger = logger
        (events, continuation) = AsyncStream.makeStream(of: LiveEvent.self, bufferingPolicy: .unbounded)
        state.withLock { $0.lastEventId = lastEventId }
        let runner = Task { [self] in await self.run() }
        state.withLock { $0.runner = runner }
    }

    /// Whether the stream is connected now (it has received the server's hello on this connection).
    public var isConnected: Bool { state.withLock { $0.isConnected } }

    /// Waits until the stream is connected and has received the server's hello, the stream is closed,
    /// or the waiting task is cancelled (check ``isConnected``).
    public func waitUntilConnected() async {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state in
                    if state.isConnected || state.closed || Task.isCancelled { return true }
                    state.connectedWaiters[id] = waiter
                    return false
                }
                if ready { waiter.resume() }
            }
        } onCancel: {
            state.withLock { $0.connectedWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Asks the server for a `sync` event: it arrives in ``events`` (type `sync`, the
    /// returned id in `detail["id"]`) after every event published before the request reached the
    /// server. Events are published before the request that caused them answers, so once the sync
    /// event is consumed, every event caused by requests that have answered has been consumed too.
    /// - Returns: The request's id.
    /// - Throws: ``CollabClientError`` when the stream is not connected.
    public func requestSync() throws(CollabClientError) -> String {
        let id = UUID().uuidString
        let text = String(decoding: (try? JSONEncoder().encode(LiveSyncRequest(id: id))) ?? Data(), as: UTF8.self)
        guard let sender = state.withLock({ $0.outgoing }) else {
            throw CollabClientError(code: .transport, status: nil, message: "the live stream is not connected")
        }
        sender.yield(text)
        return id
    }

    /// Drops the current connection; the stream reconnects and resumes (for network changes, and tests).
    public func reconnect() {
        state.withLock { state in
            state.isConnected = false
            state.current?.cancel()
        }
    }

    /// Closes the stream for good.
    public func close() {
        let (tasks, waiters) = state.withLock { state -> ([Task<Void, Never>], [CheckedContinuation<Void, Never>]) in
            state.closed = true
            defer { state.connectedWaiters = [:] }
            return ([state.current, state.runner].compactMap { $0 }, Array(state.connectedWaiters.values))
        }
        for task in tasks { task.cancel() }
        for waiter in waiters { waiter.resume() }
        continuation.finish()
    }

    private func run() async {
        var delay = Duration.milliseconds(50)
        while !Task.isCancelled, !state.withLock({ $0.closed }) {
            let after = state.withLock { $0.lastEventId }
            var target = url
            if let after { target += (url.contains("?") ? "&" : "?") + "lastEventId=\(after)" }
            let attempt = Task { [self] in
                do {
                    var configuration = WebSocketClientConfiguration(maxFrameSize: 1 << 20)
                    let tlsConfiguration = try await self.tls?.webSocketSettings(url: target)
                    configuration.sniHostname = tlsConfiguration?.sniHostname
                    let close = try await WebSocketClient.connect(
                        url: target, configuration: configuration, tlsConfiguration: tlsConfiguration?.configuration, logger: self.logger
                    ) { inbound, outbound, _ in
                        let (outgoing, sender) = AsyncStream.makeStream(of: String.self)
                        self.state.withLock { $0.outgoing = sender }
                        defer {
                            self.state.withLock { $0.outgoing = nil }
                            sender.finish()
                        }
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                for await text in outgoing { try await outbound.write(.text(text)) }
                            }
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                guard case .text(let text) = message,
                                    let event = try? JSONDecoder().decode(LiveEvent.self, from: Data(text.utf8))
                                else { continue }
                                self.receive(event)
                            }
                            group.cancelAll()
                        }
                    }
                    // The session is over (stopped, or its authorization ended): reconnecting cannot help.
                    if let code = close?.closeCode, let number = Self.number(of: code),
                        number == LiveCloseCode.sessionEnded || number == LiveCloseCode.authorizationEnded
                    {
                        self.close()
                    }
                } catch {
                    self.logger.debug("live connection failed", metadata: ["error": "\(error)"])
                    self.noteFailure(error)
                }
            }
            state.withLock { $0.current = attempt }
            await attempt.value
            state.withLock { $0.isConnected = false }
            if state.withLock({ $0.closed }) { break }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(5))
            if state.withLock({ $0.connections }) > 0 { delay = min(delay, .seconds(1)) }
        }
        continuation.finish()
    }

    private func noteFailure(_ error: any Error) {
        guard !(error is CancellationError) else { return }
        let reason =
            (error as? WebSocketClientError) == .webSocketUpgradeFailed
            ? "the server refused the WebSocket upgrade (an error status instead of 101)" : "\(error)"
        state.withLock { state in
            guard !state.closed else { return }
            state.failedAttempts += 1
            state.lastFailure = reason
        }
    }

    private static func number(of code: WebSocketErrorCode) -> UInt16? {
        if case .unknown(let number) = code { return number }
        return nil
    }

    private func receive(_ event: LiveEvent) {
        if event.type == LiveEvent.hello {
            let waiters = state.withLock { state in
                state.connections += 1
                state.isConnected = true
                defer { state.connectedWaiters = [:] }
                return Array(state.connectedWaiters.values)
            }
            for waiter in waiters { waiter.resume() }
            return
        }
        if event.id > 0 {
            let duplicate = state.withLock { state in
                if let last = state.lastEventId, event.id <= last { return true }
                state.lastEventId = event.id
                return false
            }
            if duplicate { return }
        }
        continuation.yield(event)
    }

    deinit {
        continuation.finish()
    }
}
