extension SRTPConfiguration {
    /// A fresh key from the kernel's CSPRNG (getrandom(2)), one per run as RFC 4568 §6.1 expects of SDES.
    public static func random(suite: Suite = .aesCM128HMACSHA1_80) throws(RTPError) -> Self {
        try Self(suite: suite, masterKeyAndSalt: SRTPSession.randomBytes(masterKeyAndSaltLength))
    }
}
