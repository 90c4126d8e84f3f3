import Hummingbird
import Synchronization

/// The routes of one surface: its router group, behind the surface's middleware stack, noting every
/// path and method registered (its ``operations``). ``answerTheRest()`` answers every other request
/// under the prefix through the same stack — with the surface's own 404 body, not the router's.
struct SurfaceRoutes: RouterMethods {
    typealias Context = CollabRequestContext

    private let group: RouterGroup<Context>
    /// The same prefix and stack on the router of requests the main router has no route for.
    private let unrouted: RouterGroup<Context>
    private let served = Served()
    /// The group's prefix and its middlewares, outermost first, as the group chains them.
    private let prefix: RouterPath
    private let stack: Stack
    /// Where the routes with fixed paths are noted, behind the same chain.
    private let statics: StaticRoutes

    /// The methods a surface answers with 404 where it serves nothing.
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options]

    init(
        group: RouterGroup<Context>, unrouted: RouterGroup<Context>, prefix: RouterPath,
        middlewares: [any MiddlewareProtocol<Request, Response, Context>], statics: StaticRoutes
    ) {
        self.group = group
        self.unrouted = unrouted
        self.prefix = prefix
        self.stack = Stack(middlewares)
        self.statics = statics
    }

    @discardableResult
    func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == Context {
        served.note(WebAPIOperation(method: method.rawValue, path: String(path.description.drop { $0 == "/" })))
        group.on(path, method: method, responder: responder)
        statics.note(prefix.appendingPath(path), method: method) {
            stack.middlewares.withLock { $0 }.reversed().reduce(responder as any HTTPResponder<Context>) { next, middleware in
                MiddlewareChain(middleware: middleware, next: next)
            }
        }
        return self
    }

    @discardableResult
    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        group.add(middleware: middleware)
        stack.middlewares.withLock { $0.append(middleware) }
        return self
    }

    /// The operations registered so far, as method and path relative to the prefix, sorted.
    var operations: [WebAPIOperation] { served.all.sorted() }

    /// Answers the rest of the prefix with 404 through the surface's stack — the other methods of the
    /// paths it serves and every path it does not — from the unrouted router, which the main router
    /// hands what it has no route for (see ``SurfaceStack/answerOutsideEverySurface(on:)``). Seven
    /// routes a surface, not seven a path: the main router holds only the routes that answer.
    func answerTheRest() {
        let notFound: @Sendable (Request, Context) async throws -> Response = { _, _ in throw HTTPError(.notFound) }
        for method in Self.methods { unrouted.on("**", method: method, use: notFound) }
    }

    /// The group's middlewares, which ``add(middleware:)`` adds to, as it does to the group's.
    private final class Stack: Sendable {
        let middlewares: Mutex<[any MiddlewareProtocol<Request, Response, Context>]>

        init(_ middlewares: [any MiddlewareProtocol<Request, Response, Context>]) {
            self.middlewares = Mutex(middlewares)
        }
    }

    /// The operations registered so far.
    private final class Served: Sendable {
        private let operations = Mutex<Set<WebAPIOperation>>([])

        func note(_ operation: WebAPIOperation) { operations.withLock { _ = $0.insert(operation) } }

        var all: Set<WebAPIOperation> { operations.withLock { $0 } }
    }
}
