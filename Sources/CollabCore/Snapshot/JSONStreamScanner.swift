import Foundation

/// Walks a JSON document that arrives in pieces and cuts out the values its caller wants whole, so a
/// large document is never held: the caller says, for each place in the document, whether to walk into
/// an object or array there, to capture the value's bytes, or to skip it.
///
/// It checks the structure it walks (brackets, commas, colons, strings, that a walked place holds the
/// container the caller expects); a captured value's own syntax is the decoder's to check, a skipped
/// one is checked for balanced brackets and well-formed strings.
public struct JSONStreamScanner: Sendable {
    /// One step of a path: an object's key or an array's position.
    public enum Step: Sendable, Hashable, CustomStringConvertible {
        case key(String)
        case index(Int)

        public var description: String {
            switch self {
            case .key(let key): ".\(key)"
            case .index(let index): "[\(index)]"
            }
        }
    }

    /// What to do with the value at a place.
    public enum Handling: Sendable, Equatable {
        /// Walk into it, which must be an object.
        case object
        /// Walk into it, which must be an array.
        case array
        /// Cut out its bytes whole.
        case capture
        /// Walk over it, keeping nothing.
        case skip
    }

    /// What the scanner met.
    public enum Event: Sendable, Equatable {
        /// An object or array walked into begins.
        case begin([Step])
        /// It ends.
        case end([Step])
        /// A captured value, its bytes as they stand in the document.
        case value([Step], [UInt8])
    }

    /// Why the document is not what was expected.
    public struct Failure: Error, Sendable, Equatable {
        /// The byte where it went wrong, from the document's start.
        public var offset: Int
        /// Where in the document (empty: the top).
        public var path: [Step]
        /// `true` when the place holds valid JSON of the wrong kind (a string where an array belongs).
        public var isWrongKind: Bool
        public var message: String
    }

    private enum Container: Sendable {
        case object
        case array
    }

    private struct Frame: Sendable {
        var container: Container
        var path: [Step]
        var key: String?
        var index = 0
    }

    private enum Mode: Sendable {
        /// A value is due at `path`; `orEnd`: an array's closing bracket may come instead.
        case value(orEnd: Bool)
        /// A key is due; `orEnd`: the object's closing brace may come instead.
        case key(orEnd: Bool)
        /// Inside a key's string.
        case keyString
        case colon
        case commaOrEnd
        /// Inside a captured or skipped value.
        case raw
        case done
    }

    private let handling: @Sendable ([Step]) -> Handling
    private var stack: [Frame] = []
    private var mode = Mode.value(orEnd: false)
    private var offset = 0

    // A key being read.
    private var keyBytes: [UInt8] = []
    private var keyEscaped = false
    private var keyHasEscape = false

    // A raw value being read.
    private var rawPath: [Step] = []
    private var rawCapturing = false
    private var rawBytes: [UInt8] = []
    private var rawBrackets: [UInt8] = []
    private var rawInString = false
    private var rawEscaped = false
    private var rawScalar: [UInt8] = []

    /// The longest key walked over (keys of captured values are the decoder's).
    public static let maxKeyBytes = 1024

    /// - Parameter handling: What to do at each place, given its path (the top is `[]`).
    public init(handling: @escaping @Sendable ([Step]) -> Handling) {
        self.handling = handling
    }

    /// Reads the next piece of the document.
    /// - Returns: What it completed, in document order.
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            try step(byte, &events)
            offset += 1
        }
        return events
    }

    /// Reads the next piece of the document.
    public mutating func consume(_ bytes: [UInt8]) throws(Failure) -> [Event] {
        var events: [Event] = []
        for byte in bytes {
            try step(byte, &events)
            offset += 1
        }
        return events
    }

    /// Ends the document: it must be complete.
    /// - Returns: A captured number, `true`, `false` or `null` the end completed.
    public mutating func finish() throws(Failure) -> [Event] {
        var events: [Event] = []
        if case .raw = mode, rawBrackets.isEmpty, !rawInString, !rawScalar.isEmpty { try endScalar(&events) }
        guard case .done = mode else { throw failure("the document ends early") }
        return events
    }

    /// Bytes read so far.
    public var bytesRead: Int { offset }

    // MARK: the walk

    private var currentPath: [Step] {
        guard let frame = stack.last else { return [] }
        switch frame.container {
        case .object: return frame.path + [.key(frame.key ?? "")]
        case .array: return frame.path + [.index(frame.index)]
        }
    }

    private mutating func step(_ byte: UInt8, _ events: inout [Event]) throws(Failure) {
        switch mode {
        case .raw:
            try raw(byte, &events)
        case .keyString:
            try keyByte(byte)
        case .done:
            guard Self.isSpace(byte) else { throw failure("there is more after the document's end") }
        case .value(let orEnd):
            if Self.isSpace(byte) { return }
            if orEnd, byte == UInt8(ascii: "]") { return try close(.array, &events) }
            try beginValue(byte, &events)
        case .key(let orEnd):
            if Self.isSpace(byte) { return }
            if orEnd, byte == UInt8(ascii: "}") { return try close(.object, &events) }
            guard byte == UInt8(ascii: "\"") else { throw failure("an object key must be a string") }
            keyBytes.removeAll(keepingCapacity: true)
            keyEscaped = false
            keyHasEscape = false
            mode = .keyString
        case .colon:
            if Self.isSpace(byte) { return }
            guard byte == UInt8(ascii: ":") else { throw failure("a ':' must follow an object key") }
            mode = .value(orEnd: false)
        case .commaOrEnd:
            if Self.isSpace(byte) { return }
            guard let frame = stack.last else { throw failure("unexpected '\(Character(Unicode.Scalar(byte)))'") }
            switch (frame.container, byte) {
            case (.object, UInt8(ascii: ",")):
                mode = .key(orEnd: false)
            case (.array, UInt8(ascii: ",")):
                stack[stack.count - 1].index += 1
                mode = .value(orEnd: false)
            case (.object, UInt8(ascii: "}")):
                try close(.object, &events)
            case (.array, UInt8(ascii: "]")):
                try close(.array, &events)
            default:
                throw failure("a ',' or the container's end must follow a value")
            }
        }
    }

    private mutating func beginValue(_ byte: UInt8, _ events: inout [Event]) throws(Failure) {
        let path = currentPath
        switch handling(path) {
        case .object:
            guard byte == UInt8(ascii: "{") else { throw failure("an object is due", path: path, wrongKind: true) }
            stack.append(Frame(container: .object, path: path))
            events.append(.begin(path))
            mode = .key(orEnd: true)
        case .array:
            guard byte == UInt8(ascii: "[") else { throw failure("an array is due", path: path, wrongKind: true) }
            stack.append(Frame(container: .array, path: path))
            events.append(.begin(path))
            mode = .value(orEnd: true)
        case .capture, .skip:
            rawPath = path
            rawCapturing = handling(path) == .capture
            rawBytes.removeAll(keepingCapacity: false)
            rawBrackets.removeAll(keepingCapacity: true)
            rawScalar.removeAll(keepingCapacity: true)
            rawInString = false
            rawEscaped = false
            mode = .raw
            try raw(byte, &events)
        }
    }

    /// Closes the innermost container, which must be a `container`.
    private mutating func close(_ container: Container, _ events: inout [Event]) throws(Failure) {
        guard let frame = stack.popLast(), frame.container == container else { throw failure("a bracket closes what it did not open") }
        events.append(.end(frame.path))
        mode = stack.isEmpty ? .done : .commaOrEnd
    }

    private mutating func keyByte(_ byte: UInt8) throws(Failure) {
        if keyEscaped {
            keyEscaped = false
        } else if byte == UInt8(ascii: "\\") {
            keyEscaped = true
            keyHasEscape = true
        } else if byte == UInt8(ascii: "\"") {
            stack[stack.count - 1].key = try decodedKey()
            mode = .colon
            return
        } else if byte < 0x20 {
            throw failure("a control character in a string")
        }
        keyBytes.append(byte)
        guard keyBytes.count <= Self.maxKeyBytes else { throw failure("an object key is longer than \(Self.maxKeyBytes) bytes") }
    }

    private func decodedKey() throws(Failure) -> String {
        guard keyHasEscape else { return String(decoding: keyBytes, as: UTF8.self) }
        guard let key = JSONString.decode([UInt8(ascii: "\"")] + keyBytes + [UInt8(ascii: "\"")]) else {
            throw failure("an object key is not a valid string")
        }
        return key
    }

    // MARK: raw values

    private mutating func raw(_ byte: UInt8, _ events: inout [Event]) throws(Failure) {
        if rawInString {
            if rawEscaped {
                rawEscaped = false
            } else if byte == UInt8(ascii: "\\") {
                rawEscaped = true
            } else if byte == UInt8(ascii: "\"") {
                rawInString = false
            } else if byte < 0x20 {
                throw failure("a control character in a string")
            }
            keep(byte)
            if !rawInString, rawBrackets.isEmpty { try endRaw(&events) }
            return
        }
        switch byte {
        case UInt8(ascii: "\""):
            guard rawScalar.isEmpty else { throw failure("a value is malformed") }
            rawInString = true
            keep(byte)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard rawScalar.isEmpty else { throw failure("a value is malformed") }
            rawBrackets.append(byte)
            keep(byte)
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            if rawBrackets.isEmpty {
                // The end of the container a scalar stood in.
                try endScalar(&events)
                return try step(byte, &events)
            }
            try endNestedScalar()
            guard let open = rawBrackets.popLast(), (open == UInt8(ascii: "{")) == (byte == UInt8(ascii: "}")) else {
                throw failure("a bracket closes what it did not open")
            }
            keep(byte)
            if rawBrackets.isEmpty { try endRaw(&events) }
        case UInt8(ascii: ","), UInt8(ascii: ":"):
            if rawBrackets.isEmpty {
                try endScalar(&events)
                return try step(byte, &events)
            }
            try endNestedScalar()
            keep(byte)
        default:
            if Self.isSpace(byte) {
                if rawBrackets.isEmpty, !rawScalar.isEmpty { return try endScalar(&events) }
                try endNestedScalar()
                keep(byte)
                return
            }
            rawScalar.append(byte)
            guard rawScalar.count <= 512 else { throw failure("a number is longer than 512 characters") }
            keep(byte)
        }
    }

    private mutating func keep(_ byte: UInt8) {
        if rawCapturing { rawBytes.append(byte) }
    }

    /// A number, `true`, `false` or `null` inside a raw container ended: it must be one.
    private mutating func endNestedScalar() throws(Failure) {
        guard !rawScalar.isEmpty else { return }
        guard Self.isScalar(rawScalar) else { throw failure("a value is malformed") }
        rawScalar.removeAll(keepingCapacity: true)
    }

    /// A raw value that is itself a number, `true`, `false` or `null` ended.
    private mutating func endScalar(_ events: inout [Event]) throws(Failure) {
        guard Self.isScalar(rawScalar) else { throw failure("a value is malformed", path: rawPath) }
        rawScalar.removeAll(keepingCapacity: true)
        try endRaw(&events)
    }

    private mutating func endRaw(_ events: inout [Event]) throws(Failure) {
        if rawCapturing {
            events.append(.value(rawPath, rawBytes))
            rawBytes = []
        }
        mode = stack.isEmpty ? .done : .commaOrEnd
    }

    private static func isScalar(_ bytes: [UInt8]) -> Bool {
        switch bytes {
        case Array("true".utf8), Array("false".utf8), Array("null".utf8): return true
        default:
            return bytes.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || Array("+-.eE".utf8).contains($0) }
                && bytes.first.map { $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } == true
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private func failure(_ message: String, path: [Step]? = nil, wrongKind: Bool = false) -> Failure {
        Failure(offset: offset, path: path ?? currentPath, isWrongKind: wrongKind, message: message)
    }
}

/// JSON string literals cut out by ``JSONStreamScanner``.
public enum JSONString {
    /// The string a JSON string literal (with its quotes) stands for; `nil` when it is not one.
    public static func decode(_ literal: [UInt8]) -> String? {
        guard literal.count >= 2, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"") else { return nil }
        let inner = literal[1..<(literal.count - 1)]
        // Most strings (ids, kinds) have no escape: no decoder needed.
        if !inner.contains(UInt8(ascii: "\\")), !inner.contains(UInt8(ascii: "\"")), !inner.contains(where: { $0 < 0x20 }) {
            return String(validating: inner, as: UTF8.self)
        }
        return try? JSONDecoder().decode(String.self, from: Data(literal))
    }
}
