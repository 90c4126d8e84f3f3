import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Synchronization

/// A loopback TCP forwarder a test can cut and restore: it stands between the server and a real
/// database, so a test can take the database away from one process without stopping it for others.
final class TCPForwarder: Sendable {
    private struct State {
        var cut = false
        var open: [any Channel] = []
    }

    let port: Int
    private let listener: any Channel
    private let state: NIOLockedValueBox<State>

    /// Forwards connections on a free loopback port to `127.0.0.1:targetPort`.
    init(targetPort: Int) async throws {
        let state = NIOLockedValueBox(State())
        self.state = state
        listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                if state.withLockedValue({ $0.cut }) { return inbound.close() }
                return ClientBootstrap(group: inbound.eventLoop).connect(host: "127.0.0.1", port: targetPort).flatMap { outbound in
                    // A connection that completes after a cut is closed, not forwarded.
                    let cut = state.withLockedValue { state in
                        if !state.cut { state.open += [inbound, outbound] }
                        return state.cut
                    }
                    if cut {
                        outbound.close(promise: nil)
                        return inbound.close()
                    }
                    do {
                        try inbound.pipeline.syncOperations.addHandler(Glue(partner: outbound))
                        try outbound.pipeline.syncOperations.addHandler(Glue(partner: inbound))
                        return inbound.eventLoop.makeSucceededVoidFuture()
                    } catch {
                        return inbound.eventLoop.makeFailedFuture(error)
                    }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = listener.localAddress?.port ?? 0
    }

    /// Closes every forwarded connection and refuses new ones until ``restore()``.
    func cut() async {
        let open = state.withLockedValue { state -> [any Channel] in
            state.cut = true
            defer { state.open = [] }
            return state.open
        }
        for channel in open { try? await channel.close() }
    }

    /// Forwards new connections again.
    func restore() {
        state.withLockedValue { $0.cut = false }
    }

    func close() async {
        await cut()
        try? await listener.close()
    }

    /// Copies bytes to the partner channel and closes it when this side closes.
    private final class Glue: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let partner: any Channel
        init(partner: any Channel) { self.partner = partner }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            partner.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
