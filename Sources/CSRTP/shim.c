#include "CSRTP.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>

// libsrtp's crypto kernel is initialised once per process; srtp_init() itself is not thread-safe.
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static srtp_err_status_t init_status = srtp_err_status_fail;

static void run_init(void) { init_status = srtp_init(); }

srtp_err_status_t csrtp_init_once(void) {
    pthread_once(&init_once, run_init);
    return init_status;
}

srtp_err_status_t csrtp_create(srtp_t *session, csrtp_suite suite, csrtp_direction direction,
                               const uint8_t *master_key_and_salt, unsigned long replay_window, int allow_repeat_tx) {
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    switch (suite) {
    case CSRTP_AES_CM_128_HMAC_SHA1_80:
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtp);
        break;
    case CSRTP_AES_CM_128_HMAC_SHA1_32:
        srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32(&policy.rtp);
        break;
    default:
        return srtp_err_status_bad_param;
    }
    // RFC 4568 §6.2: both suites authenticate SRTCP with the 80-bit tag.
    srtp_crypto_policy_set_aes_cm_128_hmac_sha1_80(&policy.rtcp);
    policy.ssrc.type = direction == CSRTP_OUTBOUND ? ssrc_any_outbound : ssrc_any_inbound;
    // libsrtp copies the key into the session's derived keys; the caller's bytes are not kept.
    policy.key = (unsigned char *)master_key_and_salt;
    policy.window_size = replay_window;
    policy.allow_repeat_tx = allow_repeat_tx;
    policy.next = NULL;
    return srtp_create(session, &policy);
}

int csrtp_random_bytes(void *buffer, size_t length) {
    unsigned char *bytes = buffer;
    while (length > 0) {
        ssize_t got = getrandom(bytes, length, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += got;
        length -= (size_t)got;
    }
    return 0;
}
