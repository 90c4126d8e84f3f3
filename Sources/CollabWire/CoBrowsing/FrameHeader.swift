public import Foundation

/// A rectangle of the screen the app declares private (in frame pixels).
public struct PrivateArea: Codable, Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// The binary co-browsing frame message, version 1: a small header followed by the image.
///
/// ```
/// offset size  field
/// 0      4     magic "MCF1"
/// 4      1     header version (1)
/// 5      1     session id length n (1…64)
/// 6      n     session id, UTF-8
/// 6+n    4     sequence number, big-endian UInt32
/// 10+n   8     capture time, ms since epoch, big-endian Int64
/// 18+n   2     width in pixels, big-endian UInt16
/// 20+n   2     height in pixels, big-endian UInt16
/// 22+n   1     private area count k (0…32)
/// 23+n   8k    k × (x, y, width, height), each big-endian UInt16
/// 23+n+8k …    the image: JPEG or PNG
/// ```
public struct FrameHeader: Sendable, Equatable {
    public static let magic: [UInt8] = Array("MCF1".utf8)
    public static let version: UInt8 = 1
    public static let maximumPrivateAreas = 32

    public var sessionId: String
    public var sequence: UInt32
    public var captureTime: Int64
    public var width: Int
    public var height: Int
    public var privateAreas: [PrivateArea]

    public init(sessionId: String, sequence: UInt32, captureTime: Int64, width: Int, height: Int, privateAreas: [PrivateArea] = []) {
        self.sessionId = sessionId
        self.sequence = sequence
        self.captureTime = captureTime
        self.width = width
        self.height = height
        self.privateAreas = privateAreas
    }

    /// Why a frame message could not be read.
    public enum DecodingError: Error, Equatable, Sendable, CustomStringConvertible {
        case tooShort
        case badMagic
        case unsupportedVersion(UInt8)
        case badSessionId
        case badPrivateAreas

        public var description: String {
            switch self {
            case .tooShort: "the frame message is shorter than its header"
            case .badMagic: "the frame message does not start with MCF1"
            case .unsupportedVersion(let version): "frame header version \(version) is not supported"
            case .badSessionId: "the session id must be 1 to 64 bytes of UTF-8"
            case .badPrivateAreas: "at most \(FrameHeader.maximumPrivateAreas) private areas"
            }
        }
    }

    /// Encodes the header followed by `image`.
    public func encode(image: Data) -> Data {
        var data = Data(Self.magic)
        data.append(Self.version)
        let id = Array(sessionId.utf8.prefix(64))
        data.append(UInt8(id.count))
        data.append(contentsOf: id)
        Self.append(sequence, to: &data)
        Self.append(UInt64(bitPattern: captureTime), to: &data)
        Self.append(UInt16(clamping: width), to: &data)
        Self.append(UInt16(clamping: height), to: &data)
        let areas = privateAreas.prefix(Self.maximumPrivateAreas)
        data.append(UInt8(areas.count))
        for area in areas {
            for value in [area.x, area.y, area.width, area.height] { Self.append(UInt16(clamping: value), to: &data) }
        }
        data.append(image)
        return data
    }

    /// Decodes a frame message into its header and image bytes.
    public static func decode(_ message: some Collection<UInt8>) throws(DecodingError) -> (header: FrameHeader, image: Data) {
        let bytes = Array(message)
        var offset = 0
        func take(_ count: Int) throws(DecodingError) -> ArraySlice<UInt8> {
            guard offset + count <= bytes.count else { throw .tooShort }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }
        func integer<T: FixedWidthInteger>(_ type: T.Type) throws(DecodingError) -> T {
            try take(MemoryLayout<T>.size).reduce(T(0)) { $0 << 8 | T($1) }
        }
        guard Array(try take(4)) == magic else { throw .badMagic }
        let version = try integer(UInt8.self)
        guard version == Self.version else { throw .unsupportedVersion(version) }
        let idLength = Int(try integer(UInt8.self))
        guard (1...64).contains(idLength), let sessionId = String(validating: try take(idLength), as: UTF8.self) else { throw .badSessionId }
        let sequence = try integer(UInt32.self)
        let captureTime = Int64(bitPattern: try integer(UInt64.self))
        let width = Int(try integer(UInt16.self))
        let height = Int(try integer(UInt16.self))
        let count = Int(try integer(UInt8.self))
        guard count <= maximumPrivateAreas else { throw .badPrivateAreas }
        var areas: [PrivateArea] = []
        for _ in 0..<count {
            areas.append(
                PrivateArea(
                    x: Int(try integer(UInt16.self)), y: Int(try integer(UInt16.self)), width: Int(try integer(UInt16.self)),
                    height: Int(try integer(UInt16.self))
                )
            )
        }
        let header = FrameHeader(
            sessionId: sessionId, sequence: sequence, captureTime: captureTime, width: width, height: height, privateAreas: areas)
        return (header, Data(bytes[offset...]))
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) }
    }
}

/// The image formats frames may carry.
public enum FrameImageFormat: String, Sendable, Codable {
    case jpeg = "image/jpeg"
    case png = "image/png"

    /// The format by signature: JPEG `FF D8 FF`, PNG `89 50 4E 47 0D 0A 1A 0A`.
    public init?(signatureOf image: Data) {
        if image.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if image.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else {
            return nil
        }
    }
}

/// Limits frames to a rate: never more than `fps` per second over any stretch of time, while a frame
/// that arrives a little early (network and timer jitter) is still accepted.
///
/// This is the generic cell rate algorithm (virtual scheduling): every accepted frame moves the
/// theoretical arrival time of the next one to `max(now, TAT) + 1000 / fps` ms, and a frame is due
/// once `now ≥ TAT − tolerance`. The tolerance is a quarter of the interval, at most 50 ms (50 ms at
/// 5 fps). Unlike a plain minimum gap, early frames do not add up: a sender that is always a little
/// early is soon throttled, so the long-run rate never exceeds `fps`. The server enforces exactly this
/// rule; the client library's uploader uses it so it never exceeds it.
public struct FrameRateLimiter: Sendable, Equatable {
    /// When the next frame is due on schedule (ms since epoch).
    public private(set) var theoreticalArrival: Int64?

    public init() {}

    /// The interval between frames at `fps`, in ms.
    public static func interval(fps: Int) -> Int64 { 1000 / Int64(max(1, fps)) }

    /// The jitter tolerance at `fps`, in ms.
    public static func tolerance(fps: Int) -> Int64 { min(50, interval(fps: fps) / 4) }

    /// How long until a frame is due at `now` (0 when due).
    public func wait(at now: Int64, fps: Int) -> Int64 {
        guard let theoreticalArrival else { return 0 }
        return max(0, theoreticalArrival - Self.tolerance(fps: fps) - now)
    }

    /// Accepts a frame at `now` if it is due; otherwise returns how long to wait.
    public mutating func admit(at now: Int64, fps: Int) -> Int64? {
        let wait = wait(at: now, fps: fps)
        guard wait == 0 else { return wait }
        theoreticalArrival = max(now, theoreticalArrival ?? now) + Self.interval(fps: fps)
        return nil
    }
}
