#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <openssl/err.h>
#include <openssl/srtp.h>

// The label of RFC 5764 §4.2.
static const char srtp_exporter_label[] = "EXTRACTOR-dtls_srtp";
// ECDHE key exchange only (forward secrecy), AEAD first; ECDSA and RSA certificates both work, since a peer's
// certificate type is its own choice (Chromium and aiortc use ECDSA, some servers RSA).
static const char cipher_list[] = "ECDHE+AESGCM:ECDHE+CHACHA20:ECDHE+AES256:ECDHE+AES128";

// Accepts any certificate (WebRTC peers are self-signed) and records the leaf's SHA-256: the owner compares it with
// the fingerprint the SDP announced (RFC 8122 §5, RFC 5763 §5).
static int accept_and_record(int preverified, X509_STORE_CTX *store) {
    (void)preverified;
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    cdtls_endpoint *endpoint = ssl ? SSL_get_app_data(ssl) : NULL;
    X509 *certificate = X509_STORE_CTX_get_current_cert(store);
    if (endpoint != NULL && certificate != NULL && X509_STORE_CTX_get_error_depth(store) == 0) {
        unsigned int length = 0;
        if (X509_digest(certificate, EVP_sha256(), endpoint->peer_fingerprint, &length) == 1 &&
            length == CDTLS_FINGERPRINT_LENGTH) {
            endpoint->has_peer_fingerprint = 1;
        }
    }
    return 1;
}

// RFC 6347 §4.2.4.1: the retransmission timer starts at the initial value and doubles on each expiry, up to a
// maximum. OpenSSL asks with 0 for a new flight and with the last value after an expiry.
static unsigned int next_timeout(SSL *ssl, unsigned int previous_us) {
    cdtls_endpoint *endpoint = SSL_get_app_data(ssl);
    if (previous_us == 0) return endpoint->initial_timeout_us;
    unsigned long long doubled = 2ull * previous_us;
    return doubled > endpoint->max_timeout_us ? endpoint->max_timeout_us : (unsigned int)doubled;
}

cdtls_endpoint *cdtls_endpoint_new(const cdtls_certificate *certificate, int is_server, unsigned mtu,
                                   unsigned initial_timeout_us, unsigned max_timeout_us, cdtls_error *error) {
    cdtls_clear_error(error);
    ERR_clear_error();
    if (certificate == NULL || mtu == 0 || initial_timeout_us == 0 || max_timeout_us < initial_timeout_us) {
        cdtls_set_error(error, CDTLS_ERROR_ARGUMENT, "an endpoint needs a certificate, an MTU and timeouts with initial <= maximum");
        return NULL;
    }
    BIO_METHOD *queue_method = cdtls_datagram_queue_method();
    if (queue_method == NULL) {
        cdtls_set_error(error, CDTLS_ERROR_ALLOCATION, "BIO_meth_new");
        return NULL;
    }
    cdtls_endpoint *endpoint = calloc(1, sizeof *endpoint);
    if (endpoint == NULL) {
        cdtls_set_error(error, CDTLS_ERROR_ALLOCATION, "out of memory");
        return NULL;
    }
    endpoint->initial_timeout_us = initial_timeout_us;
    endpoint->max_timeout_us = max_timeout_us;
    endpoint->state = CDTLS_HANDSHAKING;
    const char *failed = NULL;
    BIO *read_bio = NULL, *write_bio = NULL;  // ours until SSL_set_bio hands them to the SSL
    SSL_CTX *context = SSL_CTX_new(DTLS_method());
    if (context == NULL) { failed = "SSL_CTX_new(DTLS_method)"; goto fail; }
    if (SSL_CTX_set_min_proto_version(context, DTLS1_2_VERSION) != 1) { failed = "minimum version DTLS 1.2"; goto fail; }
    // No renegotiation: the peer's certificate is checked against the SDP fingerprint once, after the handshake.
    SSL_CTX_set_options(context, SSL_OP_NO_QUERY_MTU | SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
    if (SSL_CTX_set_cipher_list(context, cipher_list) != 1) { failed = "SSL_CTX_set_cipher_list"; goto fail; }
    // Inverted convention: 0 is success here.
    if (SSL_CTX_set_tlsext_use_srtp(context, "SRTP_AES128_CM_SHA1_80") != 0) { failed = "use_srtp"; goto fail; }
    if (SSL_CTX_use_certificate(context, certificate->x509) != 1 ||
        SSL_CTX_use_PrivateKey(context, certificate->key) != 1 || SSL_CTX_check_private_key(context) != 1) {
        failed = "certificate and key"; goto fail;
    }
    // Both sides present and ask for a certificate: its fingerprint is what authenticates the peer.
    SSL_CTX_set_verify(context, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, accept_and_record);
    endpoint->ssl = SSL_new(context);
    if (endpoint->ssl == NULL) { failed = "SSL_new"; goto fail; }
    SSL_CTX_free(context);  // the SSL holds its own reference
    context = NULL;
    SSL_set_app_data(endpoint->ssl, endpoint);
    DTLS_set_timer_cb(endpoint->ssl, next_timeout);
    // SSL_CTRL_SET_MTU returns the MTU it took, 0 if it is below the minimum.
    if (SSL_set_mtu(endpoint->ssl, (long)mtu) <= 0) { failed = "SSL_set_mtu (below OpenSSL's minimum)"; goto fail; }
    read_bio = BIO_new(BIO_s_mem());
    write_bio = BIO_new(queue_method);
    if (read_bio == NULL || write_bio == NULL) { failed = "BIO_new"; goto fail; }
    // An empty read BIO means "no datagram yet" (retry), not end of file.
    BIO_set_mem_eof_return(read_bio, -1);
    BIO_set_data(write_bio, endpoint);
    SSL_set_bio(endpoint->ssl, read_bio, write_bio);
    endpoint->read_bio = read_bio;
    read_bio = write_bio = NULL;
    if (is_server) SSL_set_accept_state(endpoint->ssl); else SSL_set_connect_state(endpoint->ssl);
    return endpoint;
fail:
    cdtls_set_error(error, CDTLS_ERROR_CONFIGURATION, failed);
    SSL_CTX_free(context);
    BIO_free(read_bio);
    BIO_free(write_bio);
    cdtls_endpoint_free(endpoint);
    return NULL;
}

void cdtls_endpoint_free(cdtls_endpoint *endpoint) {
    if (endpoint == NULL) return;
    SSL_free(endpoint->ssl);  // frees both BIOs
    cdtls_datagram_queue_clear(endpoint);
    free(endpoint);
}

int cdtls_feed(cdtls_endpoint *endpoint, const uint8_t *datagram, size_t length) {
    if (length == 0 || length > INT32_MAX) return -1;
    ERR_clear_error();
    int written = BIO_write(endpoint->read_bio, datagram, (int)length);
    ERR_clear_error();
    return written == (int)length ? 0 : -1;
}

static cdtls_state fail(cdtls_endpoint *endpoint, cdtls_error *error, int ssl_error, const char *call) {
    unsigned long first = ERR_peek_error();
    cdtls_error_code code = CDTLS_ERROR_PROTOCOL;
    if (ERR_GET_LIB(first) == ERR_LIB_SSL && ERR_GET_REASON(first) == SSL_R_READ_TIMEOUT_EXPIRED) {
        code = CDTLS_ERROR_TIMEOUT;
    }
    char context[64];
    snprintf(context, sizeof context, "%s (SSL_get_error %d)", call, ssl_error);
    cdtls_set_error(&endpoint->failure, code, context);
    endpoint->state = CDTLS_FAILED;
    if (error) *error = endpoint->failure;
    // Anything buffered in the read BIO belongs to a connection that is over.
    (void)BIO_reset(endpoint->read_bio);
    return CDTLS_FAILED;
}

cdtls_state cdtls_step(cdtls_endpoint *endpoint, cdtls_error *error) {
    cdtls_clear_error(error);
    if (endpoint->state == CDTLS_FAILED) {
        if (error) *error = endpoint->failure;
        return CDTLS_FAILED;
    }
    if (endpoint->state == CDTLS_PEER_CLOSED) {
        (void)BIO_reset(endpoint->read_bio);
        return CDTLS_PEER_CLOSED;
    }
    ERR_clear_error();
    if (!SSL_is_init_finished(endpoint->ssl)) {
        int result = SSL_do_handshake(endpoint->ssl);
        if (result != 1) {
            int ssl_error = SSL_get_error(endpoint->ssl, result);
            if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) return CDTLS_HANDSHAKING;
            return fail(endpoint, error, ssl_error, "SSL_do_handshake");
        }
        endpoint->state = CDTLS_CONNECTED;
    }
    // Connected: read what was fed. WebRTC media goes as SRTP beside DTLS, so application data (an SCTP data channel
    // rtenc does not offer) is read and dropped; a retransmitted Finished from the peer makes OpenSSL resend its own.
    for (;;) {
        unsigned char scratch[4096];
        int result = SSL_read(endpoint->ssl, scratch, (int)sizeof scratch);
        if (result > 0) continue;
        int ssl_error = SSL_get_error(endpoint->ssl, result);
        if (ssl_error == SSL_ERROR_WANT_READ || ssl_error == SSL_ERROR_WANT_WRITE) return CDTLS_CONNECTED;
        if (ssl_error == SSL_ERROR_ZERO_RETURN) {
            endpoint->state = CDTLS_PEER_CLOSED;
            ERR_clear_error();
            return CDTLS_PEER_CLOSED;
        }
        return fail(endpoint, error, ssl_error, "SSL_read");
    }
}

int cdtls_timeout(cdtls_endpoint *endpoint, uint64_t *remaining_us) {
    struct timeval left;
    if (endpoint->state == CDTLS_FAILED || DTLSv1_get_timeout(endpoint->ssl, &left) != 1) return 0;
    *remaining_us = (uint64_t)left.tv_sec * 1000000u + (uint64_t)left.tv_usec;
    return 1;
}

int cdtls_handle_timeout(cdtls_endpoint *endpoint, cdtls_error *error) {
    cdtls_clear_error(error);
    if (endpoint->state == CDTLS_FAILED) {
        if (error) *error = endpoint->failure;
        return -1;
    }
    ERR_clear_error();
    int result = (int)DTLSv1_handle_timeout(endpoint->ssl);
    if (result < 0) {
        fail(endpoint, error, SSL_ERROR_SSL, "DTLSv1_handle_timeout");
        return -1;
    }
    return result > 0 ? 1 : 0;
}

int cdtls_peer_fingerprint(const cdtls_endpoint *endpoint, uint8_t *out) {
    if (!endpoint->has_peer_fingerprint) return 0;
    memcpy(out, endpoint->peer_fingerprint, CDTLS_FINGERPRINT_LENGTH);
    return 1;
}

int cdtls_srtp_profile(const cdtls_endpoint *endpoint, uint16_t *profile_id) {
    if (!SSL_is_init_finished(endpoint->ssl)) return 0;
    SRTP_PROTECTION_PROFILE *profile = SSL_get_selected_srtp_profile(endpoint->ssl);
    if (profile == NULL) return 0;
    *profile_id = (uint16_t)profile->id;
    return 1;
}

int cdtls_export_srtp(cdtls_endpoint *endpoint, uint16_t *profile_id, uint8_t *material, size_t length,
                      cdtls_error *error) {
    cdtls_clear_error(error);
    ERR_clear_error();
    if (!SSL_is_init_finished(endpoint->ssl)) {
        cdtls_set_error(error, CDTLS_ERROR_SRTP, "keying material before the handshake finished");
        return 0;
    }
    SRTP_PROTECTION_PROFILE *profile = SSL_get_selected_srtp_profile(endpoint->ssl);
    if (profile == NULL) {
        cdtls_set_error(error, CDTLS_ERROR_SRTP, "the peer negotiated no SRTP protection profile (use_srtp)");
        return 0;
    }
    if (SSL_export_keying_material(endpoint->ssl, material, length, srtp_exporter_label,
                                   sizeof srtp_exporter_label - 1, NULL, 0, 0) != 1) {
        cdtls_set_error(error, CDTLS_ERROR_SRTP, "SSL_export_keying_material");
        return 0;
    }
    *profile_id = (uint16_t)profile->id;
    return 1;
}

int cdtls_version(const cdtls_endpoint *endpoint) { return SSL_version(endpoint->ssl); }

const char *cdtls_cipher_name(const cdtls_endpoint *endpoint) {
    const char *name = SSL_get_cipher_name(endpoint->ssl);
    return name ? name : "";
}

int cdtls_close(cdtls_endpoint *endpoint) {
    if (endpoint->state == CDTLS_FAILED || !SSL_is_init_finished(endpoint->ssl)) return 0;
    ERR_clear_error();
    int result = SSL_shutdown(endpoint->ssl);
    ERR_clear_error();
    return result >= 0 ? 1 : 0;
}
