import Crypto

/// Key handling for the simulator's command line.
public enum APNsSimulatorKeys {
    /// The public key PEM for a PEM that holds either an ES256 private key (`.p8`) or its public key.
    public static func publicKeyPEM(from pem: String) throws -> String {
        if pem.contains("PRIVATE KEY") {
            return try P256.Signing.PrivateKey(pemRepresentation: pem).publicKey.pemRepresentation
        }
        return try P256.Signing.PublicKey(pemRepresentation: pem).pemRepresentation
    }
}
