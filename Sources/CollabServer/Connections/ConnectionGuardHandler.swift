import Logging
import NIOCore
import NIOHTTP1
import NIOTLS

/// Sits first in every connection's pipeline, on raw bytes, and keeps a connection's cost bounded:
///
/// - refuses connections beyond ``ConnectionLimits/maxConnections`` with a 503 (typed body), or over
///   TLS by closing them before the handshake (an answer would cost the handshake the limit saves);
/// - over TLS, closes a connection whose handshake does not complete within the handshake timeout;
/// - closes a connection whose first request head does not arrive within the header timeout (408; over
///   HTTP/2, where no request means no stream to answer on, it is closed);
/// - answers a malformed or oversized first request head with a typed 400 / 431, then closes;
/// - closes a connection whose peer has not read for the send timeout, which also ends a WebSocket
///   send that is blocked on a full TCP buffer (the slow-consumer close cannot fire while it waits);
/// - on graceful shutdown, sends open WebSockets a close frame with code 1001 (going away) and closes
///   what is still open when the shutdown timeout ends;
/// - swaps the framework's empty 400 for a refused WebSocket upgrade for the router's real answer;
/// - closes a WebSocket gracefully: FIN after the last frame, then what the peer still sends is read
///   and dropped for the linger time (a close with unread input resets the connection, and the reset
///   can destroy the close frame, e.g. the 1009 for an oversized frame, before the peer reads it).
///
/// Over TLS it sits right after the TLS handler, on decrypted bytes, so its answers are encrypted.
/// Everything runs on the connection's event loop.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private enum Phase {
        /// Connected over TLS; the handshake has not completed yet.
        case handshaking
        /// Connected; the first request head has not arrived yet.
        case awaitingHead
        /// Serving HTTP requests.
        case http
        /// Upgraded to a WebSocket.
        case webSocket
        /// Answered by this handler; reading and writing nothing more until closed.
        case closing
    }

    private let limits: ConnectionLimits
    private let logger: Logger
    private var phase = Phase.awaitingHead
    private var activated = false
    private var counted = false
    private var discardOutbound = false
    private var headerTimer: Scheduled<Void>?
    private var stallTimer: Scheduled<Void>?
    private var closeTimer: Scheduled<Void>?
    private var refusedUpgradeResponse: ByteBuffer?
    private var context: ChannelHandlerContext?

    private let admitted: Bool
    private let tls: Bool
    /// The connection negotiated HTTP/2: no HTTP/1 answers on it.
    private var http2 = false
    /// Over HTTP/2, looks for the first request until it comes.
    private var http2Scanner: HTTP2RequestScanner?

    /// - Parameters:
    ///   - admitted: Whether the connection fits under the limit (counted by the caller, who skips the
    ///     HTTP pipeline of a refused one); a refused connection is answered 503 and closed.
    ///   - tls: Whether the guard sits behind a TLS handler, whose handshake it times.
    init(limits: ConnectionLimits, logger: Logger, admitted: Bool, tls: Bool = false) {
        self.limits = limits
        self.logger = logger
        self.admitted = admitted
        self.counted = admitted
        self.tls = tls
        self.phase = tls ? .handshaking : .awaitingHead
    }

    // MARK: lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { activate(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        release()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        activate(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        release()
        context.fireChannelInactive()
    }

    private func activate(_ context: ChannelHandlerContext) {
        guard !activated else { return }
        activated = true
        if !admitted {
            logger.debug("refusing a connection: at the connection limit", metadata: ["limit": "\(limits.maxConnections)"])
            if tls {
                phase = .closing
                context.close(promise: nil)
                return
            }
            answer(
                status: "503 Service Unavailable", type: "UNAVAILABLE",
                message: "the server is at its connection limit (\(limits.maxConnections)); try again", extraHeaders: "retry-after: 1\r\n"
            )
            return
        }
        if tls {
            headerTimer = schedule(after: limits.handshakeTimeout) { handler in
                guard handler.phase == .handshaking else { return }
                handler.logger.debug("closing a connection whose TLS handshake did not complete in time")
                handler.phase = .closing
                handler.context?.close(promise: nil)
            }
        } else {
            startHeaderTimer()
        }
    }

    private func startHeaderTimer() {
        headerTimer = schedule(after: limits.headerTimeout) { handler in
            guard handler.phase == .awaitingHead else { return }
            handler.logger.debug("closing a connection that sent no complete request head in time")
            guard !handler.http2 else {
                handler.phase = .closing
                handler.context?.close(promise: nil)
                return
            }
            handler.answer(
                status: "408 Request Timeout", type: "BAD_REQUEST",
                message: "the request head did not arrive within \(handler.limits.headerTimeout)"
            )
        }
    }

    private func release() {
        if counted {
            counted = false
            limits.counter.close()
        }
    }

    private func cancelTimers() {
        headerTimer?.cancel()
        stallTimer?.cancel()
        closeTimer?.cancel()
        headerTimer = nil
        stallTimer = nil
        closeTimer = nil
    }

    // MARK: traffic

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard phase != .closing else { return }
        if phase == .awaitingHead, http2Scanner?.sawRequest(in: unwrapInboundIn(data)) == true {
            http2Scanner = nil
            headReceived()
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // While closing, this handler reads on its own (the handlers behind it may have stopped asking
        // for reads): a peer still sending must not fill the window and be reset at the close.
        guard phase != .closing else {
            context.read()
            return
        }
        context.fireChannelReadComplete()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if phase == .closing, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        if phase == .handshaking, let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            // The header timeout starts once the handshake is done.
            phase = .awaitingHead
            headerTimer?.cancel()
            startHeaderTimer()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if discardOutbound {
            promise?.succeed()
            return
        }
        if phase != .webSocket, !http2, case .byteBuffer(let buffer) = unwrapOutboundIn(data), buffer.starts(with: "HTTP/1.1 ") {
            if buffer.starts(with: "HTTP/1.1 101") {
                phase = .webSocket
            } else if let replacement = refusedUpgradeResponse {
                refusedUpgradeResponse = nil
                if buffer.starts(with: "HTTP/1.1 400"), buffer.containsEmptyBody {
                    context.write(wrapOutboundOut(.byteBuffer(replacement)), promise: promise)
                    return
                }
            }
        }
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, context.channel.isActive, phase == .webSocket || phase == .closing else {
            context.close(mode: mode, promise: promise)
            return
        }
        // A WebSocket closes gracefully: FIN after what was written, then what still arrives is dropped
        // until the linger time ends. A close asked for while lingering (or while an answer of this
        // handler is being read) waits for the same end.
        if let promise { context.channel.closeFuture.cascade(to: promise) }
        if phase == .webSocket {
            phase = .closing
            discardOutbound = true
            context.close(mode: .output, promise: nil)
            context.read()
            closeTimer?.cancel()
            closeTimer = nil
        }
        if closeTimer == nil { closeTimer = schedule(after: limits.lingerTime) { $0.context?.close(promise: nil) } }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallTimer?.cancel()
            stallTimer = nil
        } else if stallTimer == nil {
            stallTimer = schedule(after: limits.sendTimeout) { handler in
                handler.logger.notice("closing a connection whose peer stopped reading", metadata: ["sendTimeout": "\(handler.limits.sendTimeout)"])
                handler.context?.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    // MARK: called by the head watcher, the upgrade middleware and the shutdown handler

    /// The TLS connection negotiated HTTP/2: its first HEADERS frame ends the header timeout, which
    /// closes it (there is no stream to answer 408 on), and its bytes are never HTTP/1 answers.
    func servesHTTP2() {
        http2 = true
        if phase == .awaitingHead { http2Scanner = HTTP2RequestScanner() }
    }

    /// The HTTP/2 connection sent a GOAWAY (idle, or shutting down). The framework closes it once the
    /// peer acknowledges the PING sent with it; a peer that never does would keep it open, so it is
    /// closed after the shutdown timeout whatever the peer does.
    func http2GoingAway() {
        guard closeTimer == nil else { return }
        closeTimer = schedule(after: limits.shutdownTimeout) { handler in
            handler.logger.debug("closing an HTTP/2 connection whose peer did not end it after a GOAWAY")
            handler.context?.close(promise: nil)
        }
    }

    /// The first request head was decoded (over HTTP/2: the first HEADERS frame arrived): the header
    /// timeout no longer applies.
    func headReceived() {
        guard phase == .awaitingHead else { return }
        phase = .http
        headerTimer?.cancel()
        headerTimer = nil
    }

    /// The first request head could not be parsed: answer it, then close.
    func rejectMalformed(_ error: HTTPParserError) {
        guard phase == .awaitingHead else { return }
        switch error {
        case .headerOverflow:
            answer(status: "431 Request Header Fields Too Large", type: "PAYLOAD_TOO_LARGE", message: "the request head is too large")
        default:
            answer(status: "400 Bad Request", type: "BAD_REQUEST", message: "malformed HTTP request (\(error))")
        }
    }

    /// The framework answered a parse error on a later request and waits for the peer to close; don't wait for long.
    func closeSoon() {
        guard closeTimer == nil else { return }
        closeTimer = schedule(after: limits.lingerTime) { $0.context?.close(promise: nil) }
    }

    /// Closes the HTTP/1 connection `channel` serves after the linger time, time enough for the answer
    /// being written to reach the peer: for a request whose body the server stopped reading, which the
    /// framework would otherwise drain at the client's pace. (An HTTP/2 stream has no guard of its own;
    /// it ends with its answer.)
    static func closeSoon(connectionOf channel: any Channel) {
        channel.eventLoop.execute {
            try? channel.pipeline.syncOperations.handler(type: ConnectionGuardHandler.self).closeSoon()
        }
    }

    /// The router refused a WebSocket upgrade with `response`; it replaces the framework's empty 400.
    func replaceRefusedUpgrade(with response: ByteBuffer) {
        refusedUpgradeResponse = response
    }

    /// Graceful shutdown began: WebSockets are told the server is going away, connections waiting for
    /// their first request are closed, requests in flight get until the shutdown timeout.
    func beginShutdown() {
        guard let context else { return }
        switch phase {
        case .handshaking, .awaitingHead:
            context.close(promise: nil)
        case .webSocket:
            // Written here, ahead of anything the WebSocket layer sends, so the peer sees 1001 first.
            var frame = context.channel.allocator.buffer(capacity: 32)
            let reason = "server shutting down"
            frame.writeInteger(UInt8(0x88))  // FIN + close
            frame.writeInteger(UInt8(2 + reason.utf8.count))
            frame.writeInteger(UInt16(1001))
            frame.writeString(reason)
            context.writeAndFlush(wrapOutboundOut(.byteBuffer(frame)), promise: nil)
            discardOutbound = true
            closeTimer?.cancel()
            closeTimer = schedule(after: limits.lingerTime) { $0.context?.close(promise: nil) }
        case .http:
            // Hummingbird closes idle keep-alive connections and those whose response is done.
            guard closeTimer == nil else { return }
            closeTimer = schedule(after: limits.shutdownTimeout) { handler in
                handler.logger.notice("closing a connection still busy at the end of the shutdown timeout")
                handler.context?.close(promise: nil)
            }
        case .closing:
            break
        }
    }

    // MARK: helpers

    /// Answers with a typed error body, stops reading, half-closes, and closes after the linger time.
    private func answer(status: String, type: String, message: String, extraHeaders: String = "") {
        guard let context, phase != .closing else { return }
        phase = .closing
        headerTimer?.cancel()
        headerTimer = nil
        let code = status.prefix { $0 != " " }
        let body = #"{"type":"\#(type)","message":"\#(String(message.map { $0 == "\"" ? "'" : $0 }))","status":\#(code)}"#
        var buffer = context.channel.allocator.buffer(capacity: 256 + body.utf8.count)
        buffer.writeString(
            "HTTP/1.1 \(status)\r\ncontent-type: application/json\r\ncontent-length: \(body.utf8.count)\r\n"
                + "\(extraHeaders)connection: close\r\n\r\n\(body)"
        )
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(buffer)), promise: nil)
        discardOutbound = true
        // Closing the write side first lets the peer read the answer even if it is still sending.
        context.close(mode: .output, promise: nil)
        context.read()
        closeTimer = schedule(after: limits.lingerTime) { $0.context?.close(promise: nil) }
        // The upgrade handler still waits for a request head; telling it the input ended lets it give up
        // quietly instead of logging an error when the connection closes under it.
        if admitted { context.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }
    }

    private func schedule(after delay: Duration, _ body: @escaping (ConnectionGuardHandler) -> Void) -> Scheduled<Void>? {
        guard let context else { return nil }
        return context.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(delay)) { [self] in body(self) }
    }
}

extension ByteBuffer {
    /// Compared on the raw bytes: it runs on every response written, and the generic comparison of a
    /// byte view with a string's UTF-8 showed up in the Web API read's profile.
    fileprivate func starts(with prefix: StaticString) -> Bool {
        guard readableBytes >= prefix.utf8CodeUnitCount else { return false }
        return withUnsafeReadableBytes { bytes in
            UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount).elementsEqual(bytes.prefix(prefix.utf8CodeUnitCount))
        }
    }

    /// Whether a response head says `content-length: 0`.
    fileprivate var containsEmptyBody: Bool {
        String(buffer: self).lowercased().contains("content-length: 0\r\n")
    }
}
