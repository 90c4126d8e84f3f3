public import Foundation

extension FrameImageFormat {
    /// The pixel size an image declares: PNG's IHDR chunk, or a JPEG's start-of-frame segment.
    /// `nil` when the image is too short or carries no readable size. Reads headers only, never
    /// decodes pixels, and stops at the first scan of a JPEG.
    public static func dimensions(of image: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](image.prefix(64 * 1024))
        func uint16(_ at: Int) -> Int? {
            guard at + 2 <= bytes.count else { return nil }
            return Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func uint32(_ at: Int) -> Int? {
            guard let high = uint16(at), let low = uint16(at + 2) else { return nil }
            return high << 16 | low
        }
        switch FrameImageFormat(signatureOf: image) {
        case .png:
            // Signature (8), IHDR length (4), "IHDR" (4), width (4), height (4).
            guard bytes.count >= 24, bytes[12..<16].elementsEqual("IHDR".utf8), let width = uint32(16), let height = uint32(20) else { return nil }
            return (width, height)
        case .jpeg:
            var offset = 2
            while offset + 4 <= bytes.count {
                guard bytes[offset] == 0xFF else { return nil }
                let marker = bytes[offset + 1]
                if marker == 0xFF {
                    // Fill byte.
                    offset += 1
                    continue
                }
                if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                    offset += 2
                    continue
                }
                if marker == 0xD9 || marker == 0xDA { return nil }
                guard let length = uint16(offset + 2), length >= 2 else { return nil }
                let isStartOfFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
                if isStartOfFrame {
                    // Length (2), precision (1), height (2), width (2).
                    guard let height = uint16(offset + 5), let width = uint16(offset + 7) else { return nil }
                    return (width, height)
                }
                offset += 2 + length
            }
            return nil
        case nil:
            return nil
        }
    }
}
