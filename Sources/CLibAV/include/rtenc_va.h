// libva shims for the VA-API probe: libva's headers (re-exported so Swift sees VADisplay, VAProfile, …) and a
// message sink, because libva prints its info and error lines straight to stderr unless given callbacks.
#ifndef RTENC_VA_H
#define RTENC_VA_H

#include "rtenc_libav_common.h"
#include <va/va.h>
#include <va/va_drm.h>
#include <va/va_str.h>

/// Collected libva error messages for one display (a growing, NUL-terminated string).
typedef struct rtenc_va_messages rtenc_va_messages;

rtenc_va_messages *rtenc_va_messages_create(void);
void rtenc_va_messages_free(rtenc_va_messages *messages);
/// The messages so far, each ending in a newline ("" when none).
const char *rtenc_va_messages_text(const rtenc_va_messages *messages);

/// Sends the display's error messages to `messages` and drops its info messages ("VA-API version …"), so a probe
/// reports problems in its own words instead of libva writing to stderr.
void rtenc_va_capture_messages(VADisplay display, rtenc_va_messages *messages);

#endif
