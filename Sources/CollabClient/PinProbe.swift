import CollabTLS
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A host and port from an `http(s)://` or `ws(s)://` URL.
struct Endpoint: Sendable {
    var host: String
    var port: Int
    var secure: Bool
    var key: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
    /// Whether the host is an IPv4 or IPv6 address rather than a name.
    var isAddress: Bool { host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." }) }

    init?(url: String) {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme?.lowercased(),
            var host = components.host,
            !host.isEmpty
        else {
            return nil
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.secure = scheme == "https" || scheme == "wss"
        self.port = components.port ?? (secure ? 443 : 80)
    }
}

/// Opens a TLS connection (verified like the client's requests) only to read the certificate the
/// server presents, then closes it.
enum PinProbe {
    static func pins(of endpoint: Endpoint, configuration: TLSConfiguration) async throws -> CertificatePins {
        let context = try NIOSSLContext(configuration: configuration)
        // No SNI for an address: NIOSSL then checks the address against the certificate's IP SANs.
        let isAddress = endpoint.isAddress
        let promise = MultiThreadedEventLoopGroup.singleton.next().makePromise(of: [UInt8].self)
        let channel: any Channel
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let tls = try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : endpoint.host)
                        try channel.pipeline.syncOperations.addHandler(tls)
                        try channel.pipeline.syncOperations.addHandler(HandshakeWatcher(promise: promise))
                    }
                }
                .connect(host: endpoint.host, port: endpoint.port).get()
        } catch {
            promise.fail(error)
            throw error
        }
        defer { channel.close(promise: nil) }
        let der = try await promise.futureResult.get()
        return try CertificatePins(certificateDER: der)
    }
}

/// Reports the peer certificate once the handshake completes, or the error that ended it.
final class HandshakeWatcher: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let promise: EventLoopPromise<[UInt8]>

    init(promise: EventLoopPromise<[UInt8]>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            do {
                let handler = try context.pipeline.syncOperations.handler(type: NIOSSLClientHandler.self)
                guard let certificate = handler.peerCertificate else { throw NIOSSLError.noCertificateToValidate }
                promise.succeed(try certificate.toDERBytes())
            } catch {
                promise.fail(error)
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.eof)
        context.fireChannelInactive()
    }
}
