/// The version of MockCollab this library belongs to: what `mock-collab --version` prints, `/healthz`
/// answers and `/openapi.json` gives as `info.version` (scripts/gen-openapi.py reads it from here).
public enum MockCollabVersion {
    /// `MAJOR.MINOR.PATCH`. The device, agent and control APIs under this version's paths stay
    /// compatible within a major version.
    public static let current = "1.0.0"
}
