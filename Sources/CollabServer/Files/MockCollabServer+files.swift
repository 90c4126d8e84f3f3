extension MockCollabServer {
    /// Bytes of conversation files stored now (counted against the file quota).
    public var fileBytesStored: Int64 { environment.files.usedBytes }
}
