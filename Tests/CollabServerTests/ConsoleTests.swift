import CollabClient
import CollabServer
import CollabStore
import Foundation
import Testing

/// The web console's static files at `/`: content types, validators and 304s, gzip, and that nothing
/// but the loaded files is served (no traversal, API 404s stay typed).
@Suite("Console static files")
struct ConsoleTests {
    @Test("index at /, content types, cache headers")
    func files() async throws {
        try await InProcessServer.with { server in
            let transport = server.transport(.none)
            let index = try await transport.raw("GET", "/")
            #expect(index.status == 200)
            #expect(index.header("content-type") == "text/html; charset=utf-8")
            #expect(String(decoding: index.body, as: UTF8.self).contains("<title>MockCollab console</title>"))
            #expect(index.header("cache-control") == "no-cache")
            #expect(index.header("etag")?.hasPrefix("\"") == true)
            #expect(index.header("last-modified")?.hasSuffix(" GMT") == true)
            #expect(index.header("content-security-policy")?.contains("default-src 'self'") == true)
            #expect(index.header("x-content-type-options") == "nosniff")

            let explicit = try await transport.raw("GET", "/index.html")
            #expect(explicit.body == index.body)
            for (path, type) in [("/css/console.css", "text/css; charset=utf-8"), ("/js/main.js", "text/javascript; charset=utf-8"),
                                 ("/js/cobrowse.js", "text/javascript; charset=utf-8")] {
                let response = try await transport.raw("GET", path)
                #expect(response.status == 200, "\(path)")
                #expect(response.header("content-type") == type, "\(path)")
            }
        }
    }

    @Test("ETag and Last-Modified revalidate to 304")
    func revalidation() async throws {
        try await InProcessServer.with { server in
            let transport = server.transport(.none)
            let first = try await transport.raw("GET", "/js/api.js")
            let etag = try #require(first.header("etag"))
            let modified = try #require(first.header("last-modified"))
            let byTag = try await transport.raw("GET", "/js/api.js", headers: [("if-none-match", etag)])
            #expect(byTag.status == 304)
            #expect(byTag.body.isEmpty)
            #expect(byTag.header("etag") == etag)
            #expect(try await transport.raw("GET", "/js/api.js", headers: [("if-none-match", "\"other\", \(etag)")]).status == 304)
            #expect(try await transport.raw("GET", "/js/api.js", headers: [("if-none-match", "\"other\"")]).status == 200)
            #expect(try await transport.raw("GET", "/js/api.js", headers: [("if-modified-since", modified)]).status == 304)
            // If-None-Match wins over If-Modified-Since.
            #expect(
                try await transport.raw("GET", "/js/api.js", headers: [("if-none-match", "\"other\""), ("if-modified-since", modified)]).status == 200
            )
        }
    }

    @Test("gzip for clients that accept it, with its own validator")
    func gzip() async throws {
        try await TestServer.with { server in
            let transport = server.transport(.none)
            let plain = try await transport.raw("GET", "/css/console.css", headers: [("accept-encoding", "identity")])
            #expect(plain.header("content-encoding") == nil)
            #expect(plain.header("vary") == "Accept-Encoding")
            let zipped = try await transport.raw("GET", "/css/console.css", headers: [("accept-encoding", "br, gzip;q=0.8")])
            #expect(zipped.header("content-encoding") == "gzip")
            // The client library inflates the body; the length on the wire is the header's.
            let wireLength = try #require(zipped.header("content-length").flatMap { Int($0) })
            #expect(wireLength < plain.body.count)
            #expect(zipped.body == plain.body, "inflates to the same file")
            #expect(zipped.header("etag") != plain.header("etag"))
            let refused = try await transport.raw("GET", "/css/console.css", headers: [("accept-encoding", "gzip;q=0")])
            #expect(refused.header("content-encoding") == nil)
            let revalidated = try await transport.raw(
                "GET", "/css/console.css", headers: [("accept-encoding", "gzip"), ("if-none-match", zipped.header("etag") ?? "")]
            )
            #expect(revalidated.status == 304)
        }
    }

    @Test("only loaded files: unknown files, traversal and other methods fall through to the typed 404")
    func nothingElse() async throws {
        try await InProcessServer.with { server in
            let transport = server.transport(.none)
            for path in ["/nope.js", "/..%2f..%2fetc/passwd", "/js/../../Package.swift", "/%2e%2e/%2e%2e/etc/passwd", "/js/", "/css"] {
                let response = try await transport.raw("GET", path)
                #expect(response.status == 404, "\(path) answered \(response.status)")
                let body = String(decoding: response.body, as: UTF8.self)
                #expect(!body.contains("root:"), "\(path) leaked a file")
                #expect(body.contains("\"$_type\":\"Error\""), "\(path) keeps the Web API error body")
            }
            let agent = try await transport.raw("GET", "/agent/v1/nope")
            #expect(agent.status == 404)
            #expect(String(decoding: agent.body, as: UTF8.self).contains("\"type\":\"NOT_FOUND\""), "the agent API keeps its typed body")
            // The console never answers writes.
            #expect(try await transport.raw("POST", "/index.html", body: Data("{}".utf8)).status == 404)
            // API routes are untouched by the console.
            #expect(try await transport.raw("GET", "/healthz").status == 200)
        }
    }

    @Test("a script's 401 carries no Basic challenge (the browser would show its own dialog)")
    func noChallengeForScripts() async throws {
        try await InProcessServer.with { server in
            let transport = server.transport(.basic(username: "agent", password: "wrong"))
            let body = Data(#"{"username":"agent","password":"wrong"}"#.utf8)
            let plain = try await server.transport(.none).raw("POST", "/app/rest/v4/authenticator/login", body: body)
            #expect(plain.status == 401)
            #expect(plain.header("www-authenticate")?.hasPrefix("Basic") == true)
            let script = try await server.transport(.none).raw(
                "POST", "/app/rest/v4/authenticator/login", body: body, headers: [("x-requested-with", "XMLHttpRequest")]
            )
            #expect(script.status == 401)
            #expect(script.header("www-authenticate") == nil)
            #expect(
                try await transport.raw("GET", "/_mock/v1/journal", headers: [("x-requested-with", "XMLHttpRequest")]).header("www-authenticate")
                    == nil)
        }
    }
}

/// A console directory other than the bundled one: what is loaded from it and what is not.
@Suite("Console directory")
struct ConsoleDirectoryTests {
    @Test("regular files only: hidden files and symlinks out of the directory are never served")
    func onlyRegularFiles() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<!doctype html><title>custom</title>".utf8).write(to: directory.appendingPathComponent("index.html"))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data("export const x = 1;".utf8).write(to: directory.appendingPathComponent("js/app.mjs"))
        try Data("secret".utf8).write(to: directory.appendingPathComponent(".env"))
        let outside = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: outside) }
        try Data("outside".utf8).write(to: outside.appendingPathComponent("secret.txt"))
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("leak.txt"), withDestinationURL: outside.appendingPathComponent("secret.txt"))

        try await InProcessServer.with(configure: { $0.consoleDirectory = directory.path }) { server in
            let transport = server.transport(.none)
            #expect(String(decoding: try await transport.raw("GET", "/").body, as: UTF8.self).contains("<title>custom</title>"))
            let module = try await transport.raw("GET", "/js/app.mjs")
            #expect(module.status == 200)
            #expect(module.header("content-type") == "text/javascript; charset=utf-8")
            #expect(try await transport.raw("GET", "/.env").status == 404)
            #expect(try await transport.raw("GET", "/leak.txt").status == 404)
            #expect(try await transport.raw("GET", "/js/console.css").status == 404, "the bundled console is not mixed in")
        }
    }
}
