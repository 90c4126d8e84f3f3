import NIOCore
import NIOPosix
import Synchronization

/// A TCP endpoint that accepts connections and never answers: an HTTP peer that hangs. `stop()`
/// closes the connections it holds, so a waiting client fails then.
package final class SilentEndpoint: Sendable {
    private final class Accepted: Sendable {
        let channels = Mutex<[any Channel]>([])
    }

    private let channel: any Channel
    private let accepted = Accepted()
    package let port: Int

    package var url: String { "http://127.0.0.1:\(port)/silent" }

    package init() async throws {
        let accepted = self.accepted
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { child in
                accepted.channels.withLock { $0.append(child) }
                return child.eventLoop.makeSucceededVoidFuture()
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
    }

    /// Connections accepted so far.
    package var connectionCount: Int { accepted.channels.withLock { $0.count } }

    package func stop() async throws {
        for child in accepted.channels.withLock({ $0 }) { try? await child.close() }
        try await channel.close()
    }
}
