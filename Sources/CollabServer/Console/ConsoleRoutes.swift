import Foundation
import Hummingbird
import HTTPTypes
import NIOCore

/// The web console at `/`: a GET and a HEAD route for each file loaded at start, and nothing else, so
/// the console never shadows an API route and unknown paths keep the surfaces' 404.
///
/// Caching: `Cache-Control: no-cache` with a strong `ETag` and `Last-Modified`, so a browser always
/// revalidates and gets a 304 while the file is unchanged (the files change with every build, and a
/// stale console against a newer server is worse than one round trip). Text files go out gzipped
/// to clients that accept it.
///
/// The routes have no middleware: the console's files are public, and would only crowd the request
/// journal the inspector shows.
struct ConsoleRoutes {
    typealias Context = CollabRequestContext
    let assets: ConsoleAssets

    /// What the console may load and talk to: only this origin, and frames as blob URLs.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; style-src 'self'; script-src 'self'; "
        + "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

    /// Registers the files after the surfaces: a file at a path an API serves is left out, and so is one
    /// whose name the router would read as a pattern (`:id`, `*`, `{id}`).
    func register(on router: Router<Context>) {
        let taken = Set(router.routes.map { Self.key($0.path) })
        for (relative, asset) in assets.files {
            for path in relative == "index.html" ? ["", relative] : [relative] {
                let routerPath = RouterPath(path)
                guard !path.contains(where: { ":*{}".contains($0) }), !taken.contains(Self.key(routerPath)) else { continue }
                router.get(routerPath) { request, _ in Self.answer(request, with: asset) }
                router.head(routerPath) { request, _ in Self.answer(request, with: asset) }
            }
        }
    }

    private static func key(_ path: RouterPath) -> String {
        path.components.map(\.description).joined(separator: "/")
    }

    /// The file, or 304 when the client's copy is current; HEAD gets the headers only.
    static func answer(_ request: Request, with asset: ConsoleAssets.Asset) -> Response {
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
