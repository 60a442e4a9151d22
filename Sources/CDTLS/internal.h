// What the CDTLS sources share and Swift never sees: the structures behind the opaque handles, the error helpers,
// and the datagram queue behind the write BIO.
#ifndef CDTLS_INTERNAL_H
#define CDTLS_INTERNAL_H

#include "CDTLS.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#define CDTLS_HIDDEN __attribute__((visibility("hidden")))

// Outgoing datagrams an endpoint keeps until its owner pulls them. A DTLS 1.2 flight is a handful of records; the
// bound only stops a caller that never pulls from growing the queue without end (the write then fails, and so does
// the handshake, with a message that says why).
#define MAX_QUEUED_DATAGRAMS 64

struct cdtls_certificate {
    X509 *x509;
    EVP_PKEY *key;
};

struct queued_datagram {
    struct queued_datagram *next;
    size_t length;
    uint8_t bytes[];
};

struct cdtls_endpoint {
    SSL *ssl;
    BIO *read_bio;  // owned by ssl after SSL_set_bio
    struct queued_datagram *head, *tail;
    size_t queued;
    unsigned initial_timeout_us, max_timeout_us;
    uint8_t peer_fingerprint[CDTLS_FINGERPRINT_LENGTH];
    int has_peer_fingerprint;
    cdtls_state state;
    cdtls_error failure;  // what made `state` CDTLS_FAILED, repeated to later calls
};

/// Empties `error` (code NONE, empty message); NULL is allowed.
CDTLS_HIDDEN void cdtls_clear_error(cdtls_error *error);
/// Fills `error` with `code`, `context` and everything in this thread's OpenSSL error queue (which it empties).
CDTLS_HIDDEN void cdtls_set_error(cdtls_error *error, cdtls_error_code code, const char *context);

/// The write BIO's method: each BIO_write becomes one queued datagram of the endpoint in the BIO's data. Made once
/// per process; NULL if OpenSSL could not allocate it.
CDTLS_HIDDEN BIO_METHOD *cdtls_datagram_queue_method(void);
/// Frees every datagram still queued.
CDTLS_HIDDEN void cdtls_datagram_queue_clear(cdtls_endpoint *endpoint);

#endif
