#include "rtenc_avformat.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#define RTENC_STRINGIFY_(x) #x
#define RTENC_STRINGIFY(x) RTENC_STRINGIFY_(x)
#define RTENC_AVFORMAT_SONAME "libavformat.so." RTENC_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)

// The libavformat entry points rtenc uses, resolved once. The function-pointer types come from the real
// declarations (typeof), so a signature mismatch with the headers is a compile error, not a crash.
static struct {
    __typeof__(&avformat_open_input) open_input;
    __typeof__(&avformat_find_stream_info) find_stream_info;
    __typeof__(&avformat_close_input) close_input;
    __typeof__(&av_find_best_stream) find_best_stream;
    __typeof__(&av_read_frame) read_frame;
    __typeof__(&av_seek_frame) seek_frame;
    __typeof__(&avformat_alloc_output_context2) alloc_output_context2;
    __typeof__(&avformat_new_stream) new_stream;
    __typeof__(&avformat_free_context) free_context;
    __typeof__(&avio_open) io_open;
    __typeof__(&avio_closep) io_closep;
    __typeof__(&avformat_write_header) write_header;
    __typeof__(&av_interleaved_write_frame) interleaved_write_frame;
    __typeof__(&av_write_trailer) write_trailer;
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
/// dlerror()'s text is overwritten by the next dl* call on the thread, so it is kept here.
static char load_error[512];

static void keep_dlerror(void) {
    const char *reason = dlerror();
    snprintf(load_error, sizeof load_error, "%s", reason ? reason : "unknown dlopen failure");
}

static void *resolve(void *library, const char *name, int *ok) {
    void *symbol = dlsym(library, name);
    if (!symbol && *ok) {
        *ok = 0;
        keep_dlerror();
    }
    return symbol;
}

static void load(void) {
    // RTLD_LOCAL: nothing else in the process resolves symbols against it; RTLD_NOW: fail here, not mid-call.
    // The handle is never closed: libavformat stays loaded for the life of the process, like a linked library.
    void *library = dlopen(RTENC_AVFORMAT_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        keep_dlerror();
        return;
    }
    int ok = 1;
    api.open_input = resolve(library, "avformat_open_input", &ok);
    api.find_stream_info = resolve(library, "avformat_find_stream_info", &ok);
    api.close_input = resolve(library, "avformat_close_input", &ok);
    api.find_best_stream = resolve(library, "av_find_best_stream", &ok);
    api.read_frame = resolve(library, "av_read_frame", &ok);
    api.seek_frame = resolve(library, "av_seek_frame", &ok);
    api.alloc_output_context2 = resolve(library, "avformat_alloc_output_context2", &ok);
    api.new_stream = resolve(library, "avformat_new_stream", &ok);
    api.free_context = resolve(library, "avformat_free_context", &ok);
    api.io_open = resolve(library, "avio_open", &ok);
    api.io_closep = resolve(library, "avio_closep", &ok);
    api.write_header = resolve(library, "avformat_write_header", &ok);
    api.interleaved_write_frame = resolve(library, "av_interleaved_write_frame", &ok);
    api.write_trailer = resolve(library, "av_write_trailer", &ok);
    load_status = ok ? 0 : -1;
}

int rtenc_avformat_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *rtenc_avformat_load_error(void) {
    rtenc_avformat_load();
    return load_status == 0 ? NULL : load_error;
}


int rtenc_avformat_open_input(AVFormatContext **context, const char *url, const AVInputFormat *format,
                              AVDictionary **options) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.open_input(context, url, format, options);
}

int rtenc_avformat_find_stream_info(AVFormatContext *context, AVDictionary **options) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.find_stream_info(context, options);
}

void rtenc_avformat_close_input(AVFormatContext **context) {
    if (rtenc_avformat_load() != 0) return;
    api.close_input(context);
}

int rtenc_av_find_best_stream(AVFormatContext *context, enum AVMediaType type, int wanted, int related,
                              const AVCodec **decoder, int flags) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.find_best_stream(context, type, wanted, related, decoder, flags);
}

int rtenc_av_read_frame(AVFormatContext *context, AVPacket *packet) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.read_frame(context, packet);
}

int rtenc_av_seek_frame(AVFormatContext *context, int stream_index, int64_t timestamp, int flags) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.seek_frame(context, stream_index, timestamp, flags);
}

int rtenc_avformat_alloc_output_context2(AVFormatContext **context, const AVOutputFormat *format,
                                         const char *format_name, const char *filename) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.alloc_output_context2(context, format, format_name, filename);
}

AVStream *rtenc_avformat_new_stream(AVFormatContext *context, const AVCodec *codec) {
    if (rtenc_avformat_load() != 0) return NULL;
    return api.new_stream(context, codec);
}

void rtenc_avformat_free_context(AVFormatContext *context) {
    if (rtenc_avformat_load() != 0) return;
    api.free_context(context);
}

int rtenc_avio_open(AVIOContext **io, const char *url, int flags) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.io_open(io, url, flags);
}

int rtenc_avio_closep(AVIOContext **io) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.io_closep(io);
}

int rtenc_avformat_write_header(AVFormatContext *context, AVDictionary **options) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.write_header(context, options);
}

int rtenc_av_interleaved_write_frame(AVFormatContext *context, AVPacket *packet) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.interleaved_write_frame(context, packet);
}

int rtenc_av_write_trailer(AVFormatContext *context) {
    if (rtenc_avformat_load() != 0) return AVERROR(ENOSYS);
    return api.write_trailer(context);
}
