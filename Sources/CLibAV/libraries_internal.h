// Between the C files of CLibAV only (not in include/, so Swift never sees it).
#ifndef RTENC_LIBRARIES_INTERNAL_H
#define RTENC_LIBRARIES_INTERNAL_H

#include "rtenc_libav_common.h"

/// av_log and av_log_default_callback from libavutil (loading it), or NULL when it cannot be loaded: the one
/// variadic function and the one function passed as a value, which have no wrapper.
__typeof__(&av_log) rtenc_library_av_log(void);
__typeof__(&av_log_default_callback) rtenc_library_av_log_default_callback(void);

/// The log route (log_shim.c) waits for libavutil: the loader sets it, under this lock, when libavutil arrives.
void rtenc_log_route_lock(void);
void rtenc_log_route_unlock(void);
/// Hands libavutil the route last asked for (rtenc_log_install); called with the lock held, libavutil loaded.
void rtenc_log_apply_route_locked(void);

#endif
