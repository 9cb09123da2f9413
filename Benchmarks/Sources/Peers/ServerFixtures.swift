import Contextual
import Dependencies

// The app a request runs in (targets a and b), set up once per system: two values, a singleton
// built before the first request, and a unit of work per request.

// MARK: - What a request uses

/// A setting of the app: a value.
public struct ServerConfig: Sendable {
    public let maxBodySize: Int
    public init(maxBodySize: Int = 1 << 20) { self.maxBodySize = maxBodySize }
}

/// A service of the whole app, built once: the built singleton a request reads.
public final class Mailer: Sendable {
    public let sender: String
    public init(sender: String = "noreply@example.com") { self.sender = sender }
}

/// The request's unit of work: one per request, shut down with the request's scope, as in
/// Examples/HummingbirdServer (where it commits or rolls back there).
public final class UnitOfWork: ScopeShutdown {
    public let requestID: RequestID
    public init(requestID: RequestID) { self.requestID = requestID }
    public func shutdown() async throws { consume(requestID) }
}

// MARK: - Contextual

enum ServerConfigKey: ContextKey {
    static var defaultValue: ServerConfig { ServerConfig() }
}

extension ContextValues {
    var serverConfig: ServerConfig {
        get { self[ServerConfigKey.self] }
        set { self[ServerConfigKey.self] = newValue }
    }
}

enum ServerFixture {
    /// The app: a config and a request ID as values, the mailer as a singleton (built here, before the
    /// first request), and the unit of work as a scoped object.
    static let app: Context = {
        let app = Context(name: "app") {
            $0.serverConfig = ServerConfig()
            $0.requestID = RequestID(0)
            $0.provide(Mailer.self, lifetime: .singleton) { _ in Mailer() }
            $0.provide(UnitOfWork.self, lifetime: .scoped) { request in UnitOfWork(requestID: request[\.requestID]) }
        }
        consume(app.resolve(Mailer.self) as Mailer)
        return app
    }()
}

/// A handler made per request, as a server's route makes it: 4 `@Injected` (2 values, the singleton and
/// the scoped object), read from the current context, the request's scope.
struct RequestHandler {
    @Injected(\.requestID) var requestID
    @Injected(\.serverConfig) var config
    @Injected(Mailer.self) var mailer
    @Injected(UnitOfWork.self) var unitOfWork

    func handle() {
        consume(requestID)
        consume(config)
        consume(mailer)
        consume(unitOfWork)
    }
}

// MARK: - swift-dependencies

private enum ServerConfigDependencyKey: DependencyKey {
    static let liveValue = ServerConfig()
}

/// A `static let`: built once, on first use, as a singleton.
private enum MailerDependencyKey: DependencyKey {
    static let liveValue = Mailer()
}

private enum UnitOfWorkDependencyKey: DependencyKey {
    static let liveValue = UnitOfWork(requestID: RequestID(0))
}

extension DependencyValues {
    var benchServerConfig: ServerConfig {
        get { self[ServerConfigDependencyKey.self] }
        set { self[ServerConfigDependencyKey.self] = newValue }
    }

    var benchMailer: Mailer {
        get { self[MailerDependencyKey.self] }
        set { self[MailerDependencyKey.self] = newValue }
    }

    var benchUnitOfWork: UnitOfWork {
        get { self[UnitOfWorkDependencyKey.self] }
        set { self[UnitOfWorkDependencyKey.self] = newValue }
    }
}

/// The same handler with 4 `@Dependency`.
struct DependencyRequestHandler {
    @Dependency(\.benchRequestID) var requestID
    @Dependency(\.benchServerConfig) var config
    @Dependency(\.benchMailer) var mailer
    @Dependency(\.benchUnitOfWork) var unitOfWork

    func handle() {
        consume(requestID)
        consume(config)
        consume(mailer)
        consume(unitOfWork)
    }
}
