import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// Serves the web console at `/` (GET and HEAD of the files loaded at start) and hands every other
/// request on untouched, so the console never shadows an API route and unknown paths keep the
/// surfaces' typed 404.
///
/// Caching: `Cache-Control: no-cache` with a strong `ETag` and `Last-Modified`, so a browser always
/// revalidates and gets a 304 while the file is unchanged (the files change with every build, and a
/// stale console against a newer server is worse than one round trip). Text files go out gzipped
/// to clients that accept it.
///
/// It runs first, before the journal and authentication: the console's files are public and would
/// only crowd the request journal the inspector shows.
struct ConsoleMiddleware: RouterMiddleware {
    typealias Context = CollabRequestContext
    let assets: ConsoleAssets

    /// What the console may load and talk to: only this origin, and frames as blob URLs.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; style-src 'self'; script-src 'self'; "
        + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, let asset = assets.asset(forPath: request.uri.path) else {
            return try await next(request, context)
        }
        let useGzip = asset.gzipped != nil && Self.acceptsGzip(request.headers[.acceptEncoding])
        let etag = useGzip ? asset.gzipETag : asset.etag
        var headers: HTTPFields = [
            .eTag: etag, .lastModified: asset.lastModified, .cacheControl: "no-cache", .vary: "Accept-Encoding",
            .xContentTypeOptions: "nosniff", .init("Referrer-Policy")!: "no-referrer",
        ]
        if asset.contentType.hasPrefix("text/html") {
            headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        }
        if Self.isNotModified(request, etag: etag, lastModified: asset.lastModified) {
            return Response(status: .notModified, headers: headers)
        }
        let body = useGzip ? asset.gzipped ?? asset.body : asset.body
        headers[.contentType] = asset.contentType
        headers[.contentLength] = String(body.readableBytes)
        if useGzip { headers[.contentEncoding] = "gzip" }
        if request.method == .head {
            return Response(status: .ok, headers: headers, body: .init())
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// `If-None-Match` wins over `If-Modified-Since` (RFC 9110 §13.2.2).
    static func isNotModified(_ request: Request, etag: String, lastModified: String) -> Bool {
        if let match = request.headers[.ifNoneMatch] {
            return match.split(separator: ",").contains { candidate in
                let tag = candidate.trimmingCharacters(in: .whitespaces)
                return tag == "*" || tag == etag || tag == "W/" + etag
            }
        }
        if let since = request.headers[.ifModifiedSince] {
            return since == lastModified
        }
        return false
    }

    /// Whether `Accept-Encoding` allows gzip (a `q=0` refuses it).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.lowercased().split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = fields.first, coding == "gzip" || coding == "*" else { continue }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { return true }
        }
        return false
    }
}
