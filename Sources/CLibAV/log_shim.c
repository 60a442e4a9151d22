#include "rtenc_log.h"
#include "rtenc_libraries.h"
#include "libraries_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static _Atomic(rtenc_log_sink) current_sink;

/// The route last asked for, kept until libavutil is loaded (rtenc opens it on demand: rtenc_libraries.h).
static pthread_mutex_t route_lock = PTHREAD_MUTEX_INITIALIZER;
static int route_chosen;
static rtenc_log_sink wanted_sink;
static int wanted_level;

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
    if (sink == NULL || level > rtenc_av_log_get_level()) return;
    char part[1024];
    rtenc_av_log_format_line2(avcl, level, fmt, args, part, sizeof part, &print_prefix);
    size_t length = strnlen(part, sizeof part);
    size_t room = sizeof pending - 1 - pending_length;
    size_t take = length < room ? length : room;
    memcpy(pending + pending_length, part, take);
    pending_length += take;
    if (take < length || (pending_length > 0 && pending[pending_length - 1] == '\n')) flush_pending(sink, level);
}

void rtenc_log_route_lock(void) { pthread_mutex_lock(&route_lock); }
void rtenc_log_route_unlock(void) { pthread_mutex_unlock(&route_lock); }

void rtenc_log_apply_route_locked(void) {
    if (!route_chosen) return;
    atomic_store_explicit(&current_sink, wanted_sink, memory_order_release);
    rtenc_av_log_set_level(wanted_level);
    rtenc_av_log_set_callback(wanted_sink != NULL ? route : rtenc_library_av_log_default_callback());
}

void rtenc_log_install(rtenc_log_sink sink, int max_level) {
    rtenc_log_route_lock();
    route_chosen = 1;
    wanted_sink = sink;
    wanted_level = max_level;
    if (rtenc_library_is_loaded(RTENC_LIBAVUTIL)) rtenc_log_apply_route_locked();
    rtenc_log_route_unlock();
}

void rtenc_log_emit(int level, const char *message) {
    __typeof__(&av_log) log = rtenc_library_av_log();
    if (log) log(NULL, level, "%s", message);
}
