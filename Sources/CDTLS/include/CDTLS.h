// CDTLS: DTLS 1.2 (RFC 6347) with the DTLS-SRTP extension (RFC 5764) over OpenSSL 3 (Debian libssl-dev), for the
// `DTLS` edge module. A plain C target like CSRTP: OpenSSL's types, macros (BIO_set_mem_eof_return, SSL_set_mtu …)
// and callbacks stay here; Swift sees opaque handles, byte buffers and status codes.
//
// Sans-IO: nothing here opens a socket. Datagrams go in through a memory BIO (`cdtls_feed`) and come out of a write
// BIO that keeps each record write as one datagram (`cdtls_pull`). OpenSSL's retransmission timer runs on the real
// clock (gettimeofday inside libssl); `cdtls_timeout` reports how long it has left and `cdtls_handle_timeout` lets
// it retransmit once it has run out.
#ifndef CDTLS_H
#define CDTLS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What went wrong, for the Swift layer's error codes; `message` carries OpenSSL's error queue as text.
typedef enum cdtls_error_code {
    CDTLS_ERROR_NONE = 0,
    /// A parameter outside what the call accepts (a zero MTU, a too small buffer …).
    CDTLS_ERROR_ARGUMENT = 1,
    /// Memory allocation failed.
    CDTLS_ERROR_ALLOCATION = 2,
    /// Key or certificate generation failed.
    CDTLS_ERROR_CERTIFICATE = 3,
    /// Setting up the SSL_CTX or SSL failed (cipher list, SRTP profiles, the key pair).
    CDTLS_ERROR_CONFIGURATION = 4,
    /// The handshake or the record layer failed (a fatal alert sent or received, a malformed message).
    CDTLS_ERROR_PROTOCOL = 5,
    /// A flight was retransmitted as often as OpenSSL allows (DTLS1_TMO_ALERT_COUNT) without an answer.
    CDTLS_ERROR_TIMEOUT = 6,
    /// The handshake finished without an SRTP profile, or the keying material could not be exported.
    CDTLS_ERROR_SRTP = 7,
} cdtls_error_code;

/// An error as it leaves a call: the code and OpenSSL's error queue (ERR_error_string_n, joined by "; ").
typedef struct cdtls_error {
    cdtls_error_code code;
    char message[512];
} cdtls_error;

/// An ECDSA P-256 key pair and its self-signed X.509 v3 certificate (reference counted by OpenSSL).
typedef struct cdtls_certificate cdtls_certificate;
/// One DTLS association: an SSL object, its memory read BIO and its datagram write queue.
typedef struct cdtls_endpoint cdtls_endpoint;

/// Bytes of a SHA-256 fingerprint.
#define CDTLS_FINGERPRINT_LENGTH 32

/// Generates a P-256 key (EVP_EC_gen) and a self-signed X.509 v3 certificate for it: random positive 128-bit serial,
/// subject and issuer CN = `common_name`, valid from one hour ago (clock skew) for `validity_days`, signed with
/// ECDSA-SHA256. NULL on failure, with `error` filled.
cdtls_certificate *cdtls_certificate_generate(const char *common_name, unsigned validity_days, cdtls_error *error);
void cdtls_certificate_free(cdtls_certificate *certificate);
/// SHA-256 over the certificate's DER encoding (RFC 8122 §5), CDTLS_FINGERPRINT_LENGTH bytes into `out`.
int cdtls_certificate_fingerprint(const cdtls_certificate *certificate, uint8_t *out);

/// What a test needs to check that the certificate is what WebRTC peers expect.
typedef struct cdtls_certificate_info {
    /// X509_get_version: 2 means X.509 v3.
    long version;
    /// Seconds since the epoch.
    int64_t not_before;
    int64_t not_after;
    /// Bytes in the serial number's magnitude, and whether it is negative (it must not be).
    int serial_length;
    int serial_negative;
    /// OpenSSL's short names, e.g. "ecdsa-with-SHA256" and "prime256v1".
    char signature_algorithm[64];
    char curve[64];
    int self_signed;
} cdtls_certificate_info;

int cdtls_certificate_describe(const cdtls_certificate *certificate, cdtls_certificate_info *info);

/// Where an endpoint stands after a call that may move the handshake.
typedef enum cdtls_state {
    /// The handshake goes on: wait for datagrams (or the timer).
    CDTLS_HANDSHAKING = 1,
    /// The handshake is complete; later datagrams are read as records (application data is discarded).
    CDTLS_CONNECTED = 2,
    /// The peer sent close_notify.
    CDTLS_PEER_CLOSED = 3,
    /// A fatal error; `error` says which. The endpoint stays failed.
    CDTLS_FAILED = 4,
} cdtls_state;

/// A DTLS client (`is_server` 0) or server on `certificate`: DTLS_method with 1.2 as the minimum, ECDHE suites,
/// SSL_OP_NO_QUERY_MTU and SSL_set_mtu(`mtu`), use_srtp SRTP_AES128_CM_SHA1_80, a verify callback that accepts any
/// certificate and records the leaf's SHA-256 (the caller compares it with the SDP fingerprint), a peer certificate
/// required on both sides. Retransmission: `initial_timeout_us` at first, doubling up to `max_timeout_us`
/// (DTLS_set_timer_cb). NULL on failure, with `error` filled.
cdtls_endpoint *cdtls_endpoint_new(const cdtls_certificate *certificate, int is_server, unsigned mtu,
                                   unsigned initial_timeout_us, unsigned max_timeout_us, cdtls_error *error);
void cdtls_endpoint_free(cdtls_endpoint *endpoint);

/// Queues one received datagram for the next `cdtls_step`. 0, or -1 if it cannot be stored.
int cdtls_feed(cdtls_endpoint *endpoint, const uint8_t *datagram, size_t length);
/// Runs the handshake (SSL_do_handshake) or, once connected, reads what was fed (SSL_read); may queue datagrams.
cdtls_state cdtls_step(cdtls_endpoint *endpoint, cdtls_error *error);

/// Bytes of the next queued outgoing datagram, 0 if there is none.
size_t cdtls_next_datagram_length(const cdtls_endpoint *endpoint);
/// Moves the next outgoing datagram into `buffer`; returns its length, 0 if none, or -1 if `capacity` is too small
/// (the datagram stays queued).
long cdtls_pull(cdtls_endpoint *endpoint, uint8_t *buffer, size_t capacity);

/// 1 and the time left in `remaining_us` while OpenSSL's retransmission timer runs (0 once it has run out), 0 when
/// no timer runs (DTLSv1_get_timeout).
int cdtls_timeout(cdtls_endpoint *endpoint, uint64_t *remaining_us);
/// DTLSv1_handle_timeout: retransmits the last flight if the timer has run out. 1 retransmitted, 0 nothing was due,
/// -1 failed (too many retransmissions: CDTLS_ERROR_TIMEOUT).
int cdtls_handle_timeout(cdtls_endpoint *endpoint, cdtls_error *error);

/// 1 and the peer certificate's SHA-256 in `out` once the verify callback has seen it, 0 before.
int cdtls_peer_fingerprint(const cdtls_endpoint *endpoint, uint8_t *out);
/// 1 and the negotiated SRTP protection profile (RFC 5764 §4.1.2 id, e.g. 0x0001) once the handshake finished with
/// one, 0 otherwise.
int cdtls_srtp_profile(const cdtls_endpoint *endpoint, uint16_t *profile_id);
/// The negotiated SRTP protection profile and `length` bytes of keying material
/// from SSL_export_keying_material with the label "EXTRACTOR-dtls_srtp" and no context (RFC 5764 §4.2).
int cdtls_export_srtp(cdtls_endpoint *endpoint, uint16_t *profile_id, uint8_t *material, size_t length,
                      cdtls_error *error);
/// The negotiated protocol version (0xFEFD for DTLS 1.2) and cipher suite name, for statistics.
int cdtls_version(const cdtls_endpoint *endpoint);
const char *cdtls_cipher_name(const cdtls_endpoint *endpoint);

/// SSL_shutdown: queues a close_notify alert. 1 sent (or already), 0 if there was nothing to close.
int cdtls_close(cdtls_endpoint *endpoint);

#ifdef __cplusplus
}
#endif

#endif
