import CollabServer
import Logging
import Synchronization
import Testing

@Suite("The server's log handler")
struct DeferredMetadataLogHandlerTests {
    /// The lines a handler wrote.
    final class Lines: TextOutputStream, Sendable {
        private let text = Mutex("")
        func write(_ string: String) { text.withLock { $0 += string } }
        var written: String { text.withLock { $0 } }
    }

    /// A stream writing into `lines` (`TextOutputStream` wants a value it can mutate).
    struct Stream: TextOutputStream, Sendable {
        let lines: Lines
        mutating func write(_ string: String) { lines.write(string) }
    }

    @Test("metadata set on a logger is written with its next line, and only lines at the level or above are written")
    func writesMetadataWithLines() {
        let lines = Lines()
        var logger = Logger(label: "test") { DeferredMetadataLogHandler(label: $0, level: .notice, stream: Stream(lines: lines)) }
        logger[metadataKey: "hb.request.id"] = "42"
        logger.info("below the level")
        #expect(lines.written.isEmpty)
        logger.notice("served", metadata: ["status": "200"])
        #expect(lines.written.contains("hb.request.id=42"))
        #expect(lines.written.contains("status=200"))
        #expect(lines.written.contains("test: "))
        #expect(lines.written.contains("served"))
        #expect(!lines.written.contains("below the level"))
        #expect(logger[metadataKey: "hb.request.id"] == "42")
    }

    @Test("a copy of a logger keeps its own metadata")
    func copiesAreValues() {
        let lines = Lines()
        var first = Logger(label: "test") { DeferredMetadataLogHandler(label: $0, level: .error, stream: Stream(lines: lines)) }
        first[metadataKey: "request"] = "one"
        var second = first
        second[metadataKey: "request"] = "two"
        first.error("first")
        #expect(lines.written.contains("request=one"))
        #expect(!lines.written.contains("request=two"))
        second.logLevel = .critical
        second.error("second, below its own level")
        #expect(!lines.written.contains("second"))
    }

    @Test("the handler fits in an existential's inline buffer: a logger copied to set metadata boxes nothing")
    func fitsInline() {
        #expect(MemoryLayout<DeferredMetadataLogHandler>.size <= 3 * MemoryLayout<Int>.size)
    }
}
