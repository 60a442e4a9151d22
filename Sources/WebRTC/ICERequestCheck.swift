/// The checks both agents make on a received Binding request before answering it (RFC 8489 §6.3, §9.1.3;
/// RFC 8445 §7.3), in the order the RFCs give them, and the error responses they lead to.
enum ICERequestCheck {
    /// What to do with a datagram that arrived on the agent's port.
    enum Verdict {
        /// Drop without answering: not STUN, not a request, or a MESSAGE-INTEGRITY that does not verify (answering
        /// would let anyone probe the password).
        case drop
        /// Answer with this error response (already serialized) and do nothing else.
        case reject([UInt8])
        /// An authenticated Binding request: act on it (role, nomination) and answer.
        case accept(STUNMessage)
    }

    /// Parses `datagram` and checks it is a Binding request for `local` (USERNAME "<local ufrag>:<remote ufrag>",
    /// MESSAGE-INTEGRITY keyed with the local password), with no comprehension-required attribute rtenc does not
    /// understand and an ICE role. `remoteUfrag` nil accepts any sender ufrag.
    static func verdict(
        datagram: ArraySlice<UInt8>, local: ICECredentials, localKey: [UInt8], remoteUfrag: String?, crypto: any STUNCrypto
    ) -> Verdict {
        let received: STUNReceivedMessage
        do {
            received = try STUNReceivedMessage(parsing: datagram, crypto: crypto)
        } catch {
            // A well-formed header with a bad attribute value: a peer's bug worth a 400. Truncation, a bad cookie or
            // fingerprint: maybe not STUN at all, so silence (RFC 8489 §6.3).
            guard error.code == .invalidValue || error.code == .limitExceeded, let header = try? STUNReceivedMessage.Header(parsing: datagram),
                  header.type == .bindingRequest
            else { return .drop }
            return .reject(errorResponse(.badRequest, transactionID: header.transactionID, key: nil, crypto: crypto))
        }
        let message = received.message
        guard message.type.messageClass == .request else { return .drop }
        guard message.type.method == .binding else {
            return .reject(errorResponse(.badRequest, transactionID: message.transactionID, key: nil, crypto: crypto))
        }
        guard let username = message.username, received.messageIntegrity != nil else {
            return .reject(errorResponse(.badRequest, transactionID: message.transactionID, key: nil, crypto: crypto))
        }
        let parts = username.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] == local.ufrag, remoteUfrag == nil || parts[1] == remoteUfrag! else {
            return .reject(errorResponse(.unauthorized, transactionID: message.transactionID, key: nil, crypto: crypto))
        }
        guard received.hasValidIntegrity(key: localKey, crypto: crypto) else { return .drop }
        let unknown = message.unknownComprehensionRequired
        guard unknown.isEmpty else {
            return .reject(errorResponse(
                .unknownAttribute, transactionID: message.transactionID, key: localKey, crypto: crypto,
                extra: [.unknownAttributes(unknown)]))
        }
        guard message.iceControlling != nil || message.iceControlled != nil else {
            return .reject(errorResponse(.badRequest, transactionID: message.transactionID, key: localKey, crypto: crypto))
        }
        return .accept(message)
    }

    /// A Binding error response with ERROR-CODE (and `extra`), MESSAGE-INTEGRITY when the request authenticated
    /// (`key`), and FINGERPRINT.
    static func errorResponse(
        _ error: STUNErrorResponseCode, transactionID: STUNTransactionID, key: [UInt8]?, crypto: any STUNCrypto,
        extra: [STUNAttribute] = []
    ) -> [UInt8] {
        let message = STUNMessage(type: .bindingError, transactionID: transactionID, attributes: [.errorCode(error)] + extra)
        // Small fixed attributes: far below the 65 535-byte limits, so serializing cannot fail.
        return try! message.serialized(integrityKey: key, fingerprint: true, crypto: crypto)
    }

    /// The success response to an accepted check: XOR-MAPPED-ADDRESS = where the request came from (RFC 8445 §7.3.1.2),
    /// MESSAGE-INTEGRITY with the local password, FINGERPRINT.
    static func successResponse(
        to request: STUNMessage, source: TransportAddress, key: [UInt8], crypto: any STUNCrypto
    ) -> [UInt8] {
        let message = STUNMessage(type: .bindingSuccess, transactionID: request.transactionID, attributes: [.xorMappedAddress(source)])
        return try! message.serialized(integrityKey: key, fingerprint: true, crypto: crypto)  // fixed small size
    }
}
