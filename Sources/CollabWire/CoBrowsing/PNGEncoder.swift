package import Foundation

/// Writes RGB or RGBA pixels as a PNG with no compression (deflate "stored" blocks): enough for a
/// co-browsing frame whose private areas were masked in the pixels (the client) or a test pattern
/// (`mock-collab visitor`), without an image library, on every platform.
/// Files are about `width × height × channels` bytes; keep captures small (the server takes 256 KiB per frame).
package enum PNGEncoder {
    /// The pixel layouts the encoder writes: 8 bits per channel.
    package enum Pixels: Int, Sendable {
        /// 3 bytes a pixel (PNG colour type 2).
        case rgb = 3
        /// 4 bytes a pixel (PNG colour type 6).
        case rgba = 4

        var colourType: UInt8 { self == .rgb ? 2 : 6 }
    }

    /// The PNG for `rgba` (`width × height × 4` bytes, row by row).
    package static func encode(width: Int, height: Int, rgba: [UInt8]) -> Data {
        encode(width: width, height: height, pixels: rgba, as: .rgba)
    }

    /// The PNG for `pixels` (`width × height × layout.rawValue` bytes, row by row).
    package static func encode(width: Int, height: Int, pixels: [UInt8], as layout: Pixels) -> Data {
        let rowBytes = width * layout.rawValue
        precondition(pixels.count == height * rowBytes, "pixels must hold width × height × channels bytes")  // a caller's programming error
        var raw: [UInt8] = []
        raw.reserveCapacity(height * (rowBytes + 1))
        for row in 0..<height {
            raw.append(0)  // filter: none
            raw.append(contentsOf: pixels[(row * rowBytes)..<((row + 1) * rowBytes)])
        }
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var header: [UInt8] = []
        header += bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        header += [8, layout.colourType, 0, 0, 0]  // 8 bits per channel, RGB(A), deflate, adaptive filtering, no interlace
        chunk("IHDR", header, into: &png)
        chunk("IDAT", zlibStored(raw), into: &png)
        chunk("IEND", [], into: &png)
        return Data(png)
    }

    private static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65_535, data.count - offset)
            let final: UInt8 = offset + count == data.count ? 1 : 0
            out.append(final)
            out += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += data[offset..<(offset + count)]
            offset += count
        } while offset < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in data {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        out += bigEndian((b << 16) | a)
        return out
    }

    private static func chunk(_ type: String, _ data: [UInt8], into png: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        png += bigEndian(UInt32(data.count))
        png += typeBytes
        png += data
        png += bigEndian(crc32(typeBytes + data))
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
