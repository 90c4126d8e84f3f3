public import Foundation

extension FrameHeader {
    /// Why a decoded frame is refused before it reaches a session.
    public struct ValidationError: Error, Equatable, Sendable, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The checks every frame passes after decoding, whatever its transport: the image is at most
    /// `maxImageBytes`, is a JPEG or PNG by signature, the frame's size is 1 to 16384 pixels each way,
    /// and each private area's x, y, width and height are 0 to 65535, what the MCF1 header carries (an
    /// area may reach past the frame's edge: what it covers there is nothing).
    /// - Returns: The image's format.
    public func validate(image: Data, maxImageBytes: Int) throws(ValidationError) -> FrameImageFormat {
        guard image.count <= maxImageBytes else { throw ValidationError(description: "the image is larger than \(maxImageBytes) bytes") }
        guard let format = FrameImageFormat(signatureOf: image) else { throw ValidationError(description: "the image is neither JPEG nor PNG") }
        guard (1...16_384).contains(width), (1...16_384).contains(height) else {
            throw ValidationError(description: "width and height must be 1 to 16384")
        }
        for (index, area) in privateAreas.enumerated() where ![area.x, area.y, area.width, area.height].allSatisfy((0...65_535).contains) {
            throw ValidationError(description: "private area \(index): x, y, width and height must be 0 to 65535")
        }
        return format
    }
}
