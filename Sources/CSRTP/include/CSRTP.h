// CSRTP: libsrtp2 (Debian libsrtp2-dev) for RTPOut's SRTP/SRTCP edge, plus the two things Swift should not do
// itself: a once-per-process srtp_init() and filling libsrtp's policy struct (a C struct of nested crypto policies
// and pointers). A plain C target rather than a systemLibrary: its header is dependency-tracked.
#ifndef CSRTP_H
#define CSRTP_H

#include <stddef.h>
#include <stdint.h>
#include <srtp2/srtp.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The RFC 4568 §6.2 crypto suites rtenc offers.
typedef enum csrtp_suite {
    /// AES_CM_128_HMAC_SHA1_80: 80-bit tags on SRTP and SRTCP.
    CSRTP_AES_CM_128_HMAC_SHA1_80 = 1,
    /// AES_CM_128_HMAC_SHA1_32: 32-bit tag on SRTP, 80-bit on SRTCP (RFC 4568 §6.2.2).
    CSRTP_AES_CM_128_HMAC_SHA1_32 = 2,
} csrtp_suite;

/// Which way a session's streams go: libsrtp templates one direction per srtp_t (ssrc_any_outbound/_inbound).
typedef enum csrtp_direction {
    CSRTP_OUTBOUND = 1,
    CSRTP_INBOUND = 2,
} csrtp_direction;

/// srtp_init() exactly once per process (pthread_once); later calls return the first call's status.
srtp_err_status_t csrtp_init_once(void);

/// Creates a session for any SSRC in `direction` with a 30-byte master key + salt (SRTP_MASTER_KEY_LEN).
/// `replay_window` is the libsrtp window in packets (64…32767); `allow_repeat_tx` lets an outbound session
/// protect the same index again (a NACK retransmission: same key, index and plaintext give the same bytes).
srtp_err_status_t csrtp_create(srtp_t *session, csrtp_suite suite, csrtp_direction direction,
                               const uint8_t *master_key_and_salt, unsigned long replay_window, int allow_repeat_tx);

/// Fills `buffer` from getrandom(2) (blocking until the kernel pool is seeded, retrying EINTR and short reads).
/// 0 on success, -1 with errno set.
int csrtp_random_bytes(void *buffer, size_t length);

#ifdef __cplusplus
}
#endif

#endif
