#include "rtenc_log.h"

#include <stdatomic.h>
#include <string.h>

static _Atomic(rtenc_log_sink) current_sink;

/// Parts of a line logged without a newline wait here (per thread, as libav's own callback keeps its prefix state
/// per call chain); the line goes out when its newline arrives or the buffer is full.
static _Thread_local char pending[1024];
static _Thread_local size_t pending_length;
static _Thread_local int print_prefix = 1;

static void flush_pending(rtenc_log_sink sink, int level) {
    while (pending_length > 0 && (pending[pending_length - 1] == '\n' || pending[pending_length - 1] == '\r')) {
        pending_length--;
    }
    pending[pending_length] = '\0';
    if (pending_length > 0) sink(level, pending);
    pending_length = 0;
}

static void route(void *avcl, int level, const char *fmt, va_list args) {
    rtenc_log_sink sink = atomic_load_explicit(&current_sink, memory_order_acquire);
    if (sink == NULL || level > av_log_get_level()) return;
    char part[1024];
    av_log_format_line2(avcl, level, fmt, args, part, sizeof part, &print_prefix);
    size_t length = strnlen(part, sizeof part);
    size_t room = sizeof pending - 1 - pending_length;
    size_t take = length < room ? length : room;
    memcpy(pending + pending_length, part, take);
    pending_length += take;
    if (take < length || (pending_length > 0 && pending[pending_length - 1] == '\n')) flush_pending(sink, level);
}

void rtenc_log_install(rtenc_log_sink sink, int max_level) {
    atomic_store_explicit(&current_sink, sink, memory_order_release);
    av_log_set_level(max_level);
    av_log_set_callback(sink != NULL ? route : av_log_default_callback);
}

void rtenc_log_emit(int level, const char *message) { av_log(NULL, level, "%s", message); }
