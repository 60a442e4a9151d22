#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

cdtls_certificate *cdtls_certificate_generate(const char *common_name, unsigned validity_days, cdtls_error *error) {
    cdtls_clear_error(error);
    ERR_clear_error();
    if (common_name == NULL || common_name[0] == '\0' || validity_days == 0) {
        cdtls_set_error(error, CDTLS_ERROR_ARGUMENT, "a certificate needs a common name and at least one day of validity");
        return NULL;
    }
    cdtls_certificate *certificate = calloc(1, sizeof *certificate);
    if (certificate == NULL) {
        cdtls_set_error(error, CDTLS_ERROR_ALLOCATION, "out of memory");
        return NULL;
    }
    const char *failed = NULL;
    unsigned char serial[16];
    BIGNUM *serial_number = NULL;
    X509_NAME *name = NULL;
    certificate->key = EVP_EC_gen("P-256");
    if (certificate->key == NULL) { failed = "EVP_EC_gen(P-256)"; goto fail; }
    certificate->x509 = X509_new();
    if (certificate->x509 == NULL) { failed = "X509_new"; goto fail; }
    X509 *x509 = certificate->x509;
    if (X509_set_version(x509, X509_VERSION_3) != 1) { failed = "X509_set_version"; goto fail; }
    // RFC 5280 §4.1.2.2: positive, at most 20 octets; 127 random bits.
    if (RAND_bytes(serial, sizeof serial) != 1) { failed = "RAND_bytes"; goto fail; }
    serial[0] &= 0x7F;
    serial[0] |= 0x40;  // never zero, always 16 octets
    serial_number = BN_bin2bn(serial, sizeof serial, NULL);
    if (serial_number == NULL || BN_to_ASN1_INTEGER(serial_number, X509_get_serialNumber(x509)) == NULL) {
        failed = "serial number"; goto fail;
    }
    // An hour of slack before now for peers whose clock is behind; browsers check only the fingerprint.
    if (X509_gmtime_adj(X509_getm_notBefore(x509), -3600) == NULL ||
        X509_time_adj_ex(X509_getm_notAfter(x509), (int)validity_days, 0, NULL) == NULL) {
        failed = "validity"; goto fail;
    }
    if (X509_set_pubkey(x509, certificate->key) != 1) { failed = "X509_set_pubkey"; goto fail; }
    name = X509_NAME_new();
    if (name == NULL ||
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0) != 1 ||
        X509_set_subject_name(x509, name) != 1 || X509_set_issuer_name(x509, name) != 1) {
        failed = "subject name"; goto fail;
    }
    if (X509_sign(x509, certificate->key, EVP_sha256()) <= 0) { failed = "X509_sign"; goto fail; }
    X509_NAME_free(name);
    BN_free(serial_number);
    return certificate;
fail:
    cdtls_set_error(error, CDTLS_ERROR_CERTIFICATE, failed);
    X509_NAME_free(name);
    BN_free(serial_number);
    cdtls_certificate_free(certificate);
    return NULL;
}

void cdtls_certificate_free(cdtls_certificate *certificate) {
    if (certificate == NULL) return;
    X509_free(certificate->x509);
    EVP_PKEY_free(certificate->key);
    free(certificate);
}

int cdtls_certificate_fingerprint(const cdtls_certificate *certificate, uint8_t *out) {
    unsigned int length = 0;
    if (X509_digest(certificate->x509, EVP_sha256(), out, &length) != 1 || length != CDTLS_FINGERPRINT_LENGTH) {
        ERR_clear_error();
        return 0;
    }
    return 1;
}

static int64_t seconds_of(const ASN1_TIME *time) {
    struct tm broken_down;
    memset(&broken_down, 0, sizeof broken_down);
    if (ASN1_TIME_to_tm(time, &broken_down) != 1) return 0;
    return (int64_t)timegm(&broken_down);
}

int cdtls_certificate_describe(const cdtls_certificate *certificate, cdtls_certificate_info *info) {
    memset(info, 0, sizeof *info);
    X509 *x509 = certificate->x509;
    info->version = X509_get_version(x509);
    info->not_before = seconds_of(X509_get0_notBefore(x509));
    info->not_after = seconds_of(X509_get0_notAfter(x509));
    const ASN1_INTEGER *serial = X509_get0_serialNumber(x509);
    info->serial_length = ASN1_STRING_length(serial);
    info->serial_negative = ASN1_STRING_type(serial) == V_ASN1_NEG_INTEGER;
    snprintf(info->signature_algorithm, sizeof info->signature_algorithm, "%s",
             OBJ_nid2sn(X509_get_signature_nid(x509)));
    size_t curve_length = 0;
    if (EVP_PKEY_get_group_name(certificate->key, info->curve, sizeof info->curve, &curve_length) != 1) {
        info->curve[0] = '\0';
    }
    info->self_signed = X509_check_issued(x509, x509) == X509_V_OK && X509_verify(x509, certificate->key) == 1;
    ERR_clear_error();
    return 1;
}
