#include "internal.h"

#include <stdio.h>

#include <openssl/err.h>

void cdtls_clear_error(cdtls_error *error) {
    if (error == NULL) return;
    error->code = CDTLS_ERROR_NONE;
    error->message[0] = '\0';
}

void cdtls_set_error(cdtls_error *error, cdtls_error_code code, const char *context) {
    if (error == NULL) {
        ERR_clear_error();
        return;
    }
    error->code = code;
    size_t used = (size_t)snprintf(error->message, sizeof error->message, "%s", context);
    if (used >= sizeof error->message) used = sizeof error->message - 1;  // cut short; later appends are skipped
    unsigned long queued;
    while ((queued = ERR_get_error()) != 0) {
        if (used + 3 >= sizeof error->message) continue;  // keep draining the queue
        char text[256];
        ERR_error_string_n(queued, text, sizeof text);
        used += (size_t)snprintf(error->message + used, sizeof error->message - used, "%s%s",
                                 used > 0 ? ": " : "", text);
        if (used >= sizeof error->message) used = sizeof error->message - 1;
    }
}
