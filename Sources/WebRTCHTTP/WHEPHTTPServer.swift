import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// The WHEP signalling server (`rtenc serve --whep HOST:PORT`): HTTP/1.1 on swift-nio's parser, one event loop
/// thread, the protocol in `WHEPRequestHandler`, the sessions in a `WHEPEndpoint`. Only signalling goes through
/// here; media never does (it has its own UDP port and I/O thread).
public final class WHEPHTTPServer: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0: any free port (`start` returns the one bound).
        public var port: Int
        /// The WHEP resource (`/whep`); sessions are `<path>/<id>`.
        public var path: String
        /// Request bodies over this are refused with 413 (an SDP offer is a few KiB).
        public var maxBodyBytes: Int
        /// When set, POST, PATCH and DELETE need `Authorization: Bearer <token>`.
        public var bearerToken: String?
        /// Served at `GET /` (a page that plays the stream); nil: 404.
        public var playerPage: String?

        public init(
            host: String = "127.0.0.1", port: Int = 8080, path: String = "/whep", maxBodyBytes: Int = 64 * 1024,
            bearerToken: String? = nil, playerPage: String? = WHEPPlayerPage.html
        ) {
            self.host = host
            self.port = port
            self.path = path
            self.maxBodyBytes = maxBodyBytes
            self.bearerToken = bearerToken
            self.playerPage = playerPage
        }
    }

    public let configuration: Configuration
    private let endpoint: any WHEPEndpoint
    private let group: MultiThreadedEventLoopGroup
    private let channel: NIOLockedValueBox<Channel?> = NIOLockedValueBox(nil)

    public init(configuration: Configuration, endpoint: any WHEPEndpoint) {
        self.configuration = configuration
        self.endpoint = endpoint
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    }

    /// Binds and starts serving; returns the port bound.
    /// - Throws: `WHEPServerError` when the address cannot be bound (in use, not local, bad name).
    @discardableResult
    public func start() throws(WHEPServerError) -> Int {
        let (configuration, endpoint) = (configuration, endpoint)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    // A connection that sends nothing for 10 s is closed (WHEPRequestHandler), so idle sockets cannot
                    // pile up until accept fails.
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: .seconds(10)))
                    try Self.addHandlers(to: channel.pipeline.syncOperations, configuration: configuration, endpoint: endpoint)
                }
            }
        do {
            let bound = try bootstrap.bind(host: configuration.host, port: configuration.port).wait()
            channel.withLockedValue { $0 = bound }
            return bound.localAddress?.port ?? configuration.port
        } catch {
            throw WHEPServerError(reason: "cannot listen on \(configuration.host):\(configuration.port): \(error)")
        }
    }

    /// Makes a channel serve WHEP: NIO's HTTP/1.1 server codec (with its error handling: a request it cannot parse
    /// gets a 400) and the WHEP request handler. What `start` sets up on each connection (after an idle timeout);
    /// public for a channel of an embedder's own NIO server, and for the fuzz target, which feeds an
    /// `EmbeddedChannel`.
    public static func addHandlers(
        to pipeline: ChannelPipeline.SynchronousOperations, configuration: Configuration, endpoint: any WHEPEndpoint
    ) throws {
        try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
        try pipeline.addHandler(WHEPRequestHandler(configuration: .init(
            endpoint: endpoint, path: configuration.path, maxBodyBytes: configuration.maxBodyBytes,
            bearerToken: configuration.bearerToken, playerPage: configuration.playerPage)))
    }

    /// Stops listening, closes open connections and the event loop. Idempotent.
    public func stop() {
        if let bound = channel.withLockedValue({ value -> Channel? in defer { value = nil }; return value }) {
            try? bound.close().wait()
        }
        try? group.syncShutdownGracefully()
    }
}

/// The server could not start.
public struct WHEPServerError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}
