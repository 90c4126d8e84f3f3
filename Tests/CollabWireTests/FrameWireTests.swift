import CollabWire
import Foundation
import Testing

/// The co-browsing frame on the wire: the MCF1 header, the image's signature and declared size.
@Suite("Co-browsing frame wire format")
struct FrameWireTests {
    /// A PNG's signature and IHDR chunk declaring `width` × `height`.
    private func png(width: UInt32, height: UInt32) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
        data.append(contentsOf: "IHDR".utf8)
        for value in [width, height] { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
        return data
    }

    @Test("a JPEG's size is read from its start-of-frame segment, past other segments and fill bytes")
    func jpegSize() {
        // SOI, APP0 (length 4), a fill byte, SOF0: length 11, precision 8, height 480, width 640.
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0xAA, 0xBB, 0xFF, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x01, 0xE0, 0x02, 0x80, 0x03, 0, 0, 0])
        #expect(FrameImageFormat.dimensions(of: jpeg).map { [$0.width, $0.height] } == [640, 480])
        // The scan starts before any start-of-frame: no size.
        #expect(FrameImageFormat.dimensions(of: Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x04, 0, 0])) == nil)
        // The huffman table marker (C4) is not a start of frame.
        #expect(FrameImageFormat.dimensions(of: Data([0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x04, 0, 0])) == nil)
    }

    @Test("a PNG's size is read from IHDR; a truncated header has none")
    func pngSize() {
        #expect(FrameImageFormat.dimensions(of: png(width: 1170, height: 2532)).map { [$0.width, $0.height] } == [1170, 2532])
        #expect(FrameImageFormat.dimensions(of: png(width: 1170, height: 2532).prefix(20)) == nil)
        #expect(FrameImageFormat.dimensions(of: Data("GIF89a".utf8)) == nil)
    }

    @Test("validation: the image bound, the format by signature, 1 to 16384 pixels each way")
    func validation() throws {
        let header = FrameHeader(sessionId: "s", sequence: 1, captureTime: 0, width: 100, height: 200)
        let image = png(width: 100, height: 200)
        #expect(try header.validate(image: image, maxImageBytes: 1024) == .png)
        #expect(throws: FrameHeader.ValidationError.self) { try header.validate(image: image, maxImageBytes: 10) }
        #expect(throws: FrameHeader.ValidationError.self) { try header.validate(image: Data("GIF89a".utf8), maxImageBytes: 1024) }
        var wide = header
        wide.width = 16_385
        #expect(throws: FrameHeader.ValidationError.self) { try wide.validate(image: image, maxImageBytes: 1024) }
        // Private areas: 0 to 65535 each value (what MCF1's UInt16 carries unchanged); past the frame's edge is allowed.
        var covered = header
        covered.privateAreas = [PrivateArea(x: 0, y: 0, width: 100, height: 200), PrivateArea(x: 90, y: 190, width: 65_535, height: 65_535)]
        #expect(try covered.validate(image: image, maxImageBytes: 1024) == .png)
        for bad in [PrivateArea(x: -5, y: 0, width: 1, height: 1), PrivateArea(x: 0, y: 0, width: 1, height: 65_536)] {
            covered.privateAreas = [PrivateArea(x: 1, y: 1, width: 1, height: 1), bad]
            #expect(throws: FrameHeader.ValidationError(description: "private area 1: x, y, width and height must be 0 to 65535")) {
                try covered.validate(image: image, maxImageBytes: 1024)
            }
        }
    }

    @Test("the MCF1 header keeps private areas and extreme values, refuses bad session ids and too many areas")
    func headerEdges() throws {
        let areas = (0..<3).map { PrivateArea(x: $0, y: 2 * $0, width: 10, height: 20) }
        let header = FrameHeader(sessionId: "séance-1", sequence: .max, captureTime: -1, width: 65_535, height: 1, privateAreas: areas)
        let (decoded, image) = try FrameHeader.decode(header.encode(image: Data([0xFF, 0xD8])))
        #expect(decoded == header && image == Data([0xFF, 0xD8]))

        let empty = FrameHeader(sessionId: "", sequence: 1, captureTime: 0, width: 1, height: 1).encode(image: Data())
        #expect(throws: FrameHeader.DecodingError.badSessionId) { try FrameHeader.decode(empty) }
        var invalid = FrameHeader(sessionId: "a", sequence: 1, captureTime: 0, width: 1, height: 1).encode(image: Data())
        invalid[6] = 0xFF
        #expect(throws: FrameHeader.DecodingError.badSessionId) { try FrameHeader.decode(invalid) }

        var crowded = FrameHeader(sessionId: "a", sequence: 1, captureTime: 0, width: 1, height: 1).encode(image: Data())
        crowded[crowded.count - 1] = UInt8(FrameHeader.maximumPrivateAreas + 1)
        #expect(throws: FrameHeader.DecodingError.badPrivateAreas) { try FrameHeader.decode(crowded) }
        // Encoding clamps what the format cannot hold.
        let many = FrameHeader(sessionId: "a", sequence: 1, captureTime: 0, width: 1, height: 1, privateAreas: Array(repeating: areas[0], count: 40))
        #expect(try FrameHeader.decode(many.encode(image: Data())).header.privateAreas.count == FrameHeader.maximumPrivateAreas)
    }
}
