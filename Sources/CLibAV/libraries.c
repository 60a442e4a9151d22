#include "rtenc_libraries.h"
#include "libraries_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#define RTENC_STRINGIFY_(x) #x
#define RTENC_STRINGIFY(x) RTENC_STRINGIFY_(x)

// libva's API 1.x ships as libva.so.2 (the soname's major is the API's plus one since libva 2.0).
_Static_assert(VA_MAJOR_VERSION == 1, "libva API 1.x is libva.so.2: check the sonames below");

static const char *const sonames[RTENC_LIBRARY_COUNT] = {
    [RTENC_LIBAVUTIL] = "libavutil.so." RTENC_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
    [RTENC_LIBAVCODEC] = "libavcodec.so." RTENC_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
    [RTENC_LIBSWSCALE] = "libswscale.so." RTENC_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
    [RTENC_LIBAVFORMAT] = "libavformat.so." RTENC_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    [RTENC_LIBVA] = "libva.so.2",
    [RTENC_LIBVA_DRM] = "libva-drm.so.2",
};

/// What each library needs opened (and its log route set) before it; RTENC_LIBRARY_COUNT for none.
static const rtenc_library dependencies[RTENC_LIBRARY_COUNT] = {
    [RTENC_LIBAVUTIL] = RTENC_LIBRARY_COUNT,
    [RTENC_LIBAVCODEC] = RTENC_LIBAVUTIL,
    [RTENC_LIBSWSCALE] = RTENC_LIBAVUTIL,
    [RTENC_LIBAVFORMAT] = RTENC_LIBAVCODEC,
    [RTENC_LIBVA] = RTENC_LIBRARY_COUNT,
    [RTENC_LIBVA_DRM] = RTENC_LIBVA,
};

// The function-pointer table, one field per row of RTENC_LIBRARY_FUNCTIONS. The types come from the real
// declarations (typeof), so a row whose parameters disagree with the headers is a compile error, not a crash.
#define RTENC_FIELD(library, type, name, parameters, arguments, failure) __typeof__(&name) name;
#define RTENC_VOID_FIELD(library, name, parameters, arguments) __typeof__(&name) name;
static struct {
    RTENC_LIBRARY_FUNCTIONS(RTENC_FIELD, RTENC_VOID_FIELD)
    // Only the C shims use these two: av_log is variadic, the default callback is passed, never called.
    __typeof__(&av_log) av_log;
    __typeof__(&av_log_default_callback) av_log_default_callback;
} api;
#undef RTENC_FIELD
#undef RTENC_VOID_FIELD

enum { NOT_TRIED = 0, LOADED = 1, FAILED = -1 };
static _Atomic int states[RTENC_LIBRARY_COUNT];
static pthread_mutex_t loading = PTHREAD_MUTEX_INITIALIZER;
/// dlerror()'s text is overwritten by the next dl* call on the thread, so each library keeps its own.
static char errors[RTENC_LIBRARY_COUNT][512];

static void *resolve(rtenc_library library, void *handle, const char *name, int *ok) {
    void *symbol = dlsym(handle, name);
    if (!symbol && *ok) {
        *ok = 0;
        const char *reason = dlerror();
        snprintf(errors[library], sizeof errors[library], "%s", reason ? reason : name);
    }
    return symbol;
}

/// Fills the table's rows of `library` from `handle`; 1 when every one was found.
static int resolve_all(rtenc_library library, void *handle) {
    int ok = 1;
#define RTENC_RESOLVE(row_library, type, name, parameters, arguments, failure)                                  \
    if (row_library == library) api.name = (__typeof__(api.name))resolve(library, handle, #name, &ok);
#define RTENC_RESOLVE_VOID(row_library, name, parameters, arguments) RTENC_RESOLVE(row_library, void, name, , , )
    RTENC_LIBRARY_FUNCTIONS(RTENC_RESOLVE, RTENC_RESOLVE_VOID)
    RTENC_RESOLVE(RTENC_LIBAVUTIL, void, av_log, , , )
    RTENC_RESOLVE(RTENC_LIBAVUTIL, void, av_log_default_callback, , , )
#undef RTENC_RESOLVE
#undef RTENC_RESOLVE_VOID
    return ok;
}

int rtenc_library_load(rtenc_library library) {
    if ((unsigned)library >= RTENC_LIBRARY_COUNT) return -1;
    int state = atomic_load_explicit(&states[library], memory_order_acquire);
    if (state != NOT_TRIED) return state == LOADED ? 0 : -1;

    rtenc_library dependency = dependencies[library];
    if (dependency != RTENC_LIBRARY_COUNT && rtenc_library_load(dependency) != 0) {
        pthread_mutex_lock(&loading);
        if (atomic_load_explicit(&states[library], memory_order_relaxed) == NOT_TRIED) {
            snprintf(errors[library], sizeof errors[library], "needs %s: %s",
                     sonames[dependency], errors[dependency]);
            atomic_store_explicit(&states[library], FAILED, memory_order_release);
        }
        pthread_mutex_unlock(&loading);
        return -1;
    }

    pthread_mutex_lock(&loading);
    state = atomic_load_explicit(&states[library], memory_order_relaxed);
    if (state == NOT_TRIED) {
        // RTLD_LOCAL: nothing else in the process resolves symbols against it; RTLD_NOW: fail here, not mid-call.
        // The handle is never closed: the library stays for the life of the process, like a linked one.
        void *handle = dlopen(sonames[library], RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char *reason = dlerror();
            snprintf(errors[library], sizeof errors[library], "%s", reason ? reason : sonames[library]);
            state = FAILED;
        } else {
            state = resolve_all(library, handle) ? LOADED : FAILED;
        }
        if (state == LOADED && library == RTENC_LIBAVUTIL) {
            // The log route chosen before libavutil was here goes in now, before anything of libav can log. Under
            // the route's lock, so a route chosen at this very moment is either seen here or sees "loaded".
            rtenc_log_route_lock();
            atomic_store_explicit(&states[library], state, memory_order_release);
            rtenc_log_apply_route_locked();
            rtenc_log_route_unlock();
        } else {
            atomic_store_explicit(&states[library], state, memory_order_release);
        }
    }
    pthread_mutex_unlock(&loading);
    return state == LOADED ? 0 : -1;
}

const char *rtenc_library_load_error(rtenc_library library) {
    if ((unsigned)library >= RTENC_LIBRARY_COUNT) return "no such library";
    return atomic_load_explicit(&states[library], memory_order_acquire) == FAILED ? errors[library] : NULL;
}

int rtenc_library_is_loaded(rtenc_library library) {
    if ((unsigned)library >= RTENC_LIBRARY_COUNT) return 0;
    return atomic_load_explicit(&states[library], memory_order_acquire) == LOADED;
}

const char *rtenc_library_soname(rtenc_library library) {
    return (unsigned)library < RTENC_LIBRARY_COUNT ? sonames[library] : "unknown";
}

// The wrappers: open the library on first use, then call through the table.
#define RTENC_WRAPPER(library, type, name, parameters, arguments, failure)                                       \
    type rtenc_##name parameters {                                                                               \
        if (rtenc_library_load(library) != 0) return failure;                                                    \
        return api.name arguments;                                                                               \
    }
#define RTENC_VOID_WRAPPER(library, name, parameters, arguments)                                                 \
    void rtenc_##name parameters {                                                                               \
        if (rtenc_library_load(library) != 0) return;                                                            \
        api.name arguments;                                                                                      \
    }
RTENC_LIBRARY_FUNCTIONS(RTENC_WRAPPER, RTENC_VOID_WRAPPER)
#undef RTENC_WRAPPER
#undef RTENC_VOID_WRAPPER

__typeof__(&av_log) rtenc_library_av_log(void) {
    return rtenc_library_load(RTENC_LIBAVUTIL) == 0 ? api.av_log : NULL;
}

__typeof__(&av_log_default_callback) rtenc_library_av_log_default_callback(void) {
    return rtenc_library_load(RTENC_LIBAVUTIL) == 0 ? api.av_log_default_callback : NULL;
}
