extension MockCollabServer {
    /// Bytes of conversation files stored now (counted against the file quota).
    public var fileBytesStored: Int64 { environment.files.usedBytes }

    /// Uploads waiting for a file-upload interceptor's decision now.
    public var pendingFileReviews: Int { interception.pendingCount }
}
