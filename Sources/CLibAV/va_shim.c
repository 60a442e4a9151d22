#include "rtenc_va.h"
#include "rtenc_libraries.h"

#include <stdlib.h>
#include <string.h>

/// Bounds the collected text: libva prints a handful of lines per failure.
#define RTENC_VA_MESSAGES_MAX 4096

struct rtenc_va_messages {
    size_t length;
    char text[RTENC_VA_MESSAGES_MAX];
};

rtenc_va_messages *rtenc_va_messages_create(void) {
    return calloc(1, sizeof(rtenc_va_messages));
}

void rtenc_va_messages_free(rtenc_va_messages *messages) { free(messages); }

const char *rtenc_va_messages_text(const rtenc_va_messages *messages) { return messages->text; }

static void rtenc_va_append(void *context, const char *message) {
    rtenc_va_messages *messages = context;
    if (!messages || !message) return;
    size_t room = RTENC_VA_MESSAGES_MAX - 1 - messages->length;
    size_t count = strlen(message);
    if (count > room) count = room;
    memcpy(messages->text + messages->length, message, count);
    messages->length += count;
    messages->text[messages->length] = '\0';
}

static void rtenc_va_ignore(void *context, const char *message) {
    (void)context;
    (void)message;
}

void rtenc_va_capture_messages(VADisplay display, rtenc_va_messages *messages) {
    rtenc_vaSetErrorCallback(display, rtenc_va_append, messages);
    rtenc_vaSetInfoCallback(display, rtenc_va_ignore, NULL);
}
