#include "rtenc_encoder.h"
#include "rtenc_libraries.h"

#include <errno.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <libavutil/hwcontext.h>

int rtenc_encoder_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
int rtenc_encoder_averror_external(void) { return AVERROR_EXTERNAL; }
int rtenc_encoder_pkt_flag_key(void) { return AV_PKT_FLAG_KEY; }
int rtenc_encoder_flag_global_header(void) { return AV_CODEC_FLAG_GLOBAL_HEADER; }

uint8_t *rtenc_encoder_frame_plane(AVFrame *frame, int plane) {
    if (!frame || plane < 0 || plane >= AV_NUM_DATA_POINTERS) return NULL;
    return frame->data[plane];
}

int rtenc_encoder_frame_linesize(const AVFrame *frame, int plane) {
    if (!frame || plane < 0 || plane >= AV_NUM_DATA_POINTERS) return 0;
    return frame->linesize[plane];
}

static void rtenc_encoder_keep_planes(void *opaque, uint8_t *data) {
    // The planes belong to the caller (Swift arrays); nothing to free here.
    (void)opaque;
    (void)data;
}

int rtenc_encoder_lend_planes(AVFrame *frame, int format, int width, int height, int count,
                              uint8_t *const planes[], const int strides[], const size_t sizes[]) {
    if (!frame || count < 1 || count > 4 || frame->buf[0]) return AVERROR(EINVAL);
    frame->format = format;
    frame->width = width;
    frame->height = height;
    for (int i = 0; i < count; i++) {
        frame->buf[i] = rtenc_av_buffer_create(planes[i], sizes[i], rtenc_encoder_keep_planes, NULL, AV_BUFFER_FLAG_READONLY);
        if (!frame->buf[i]) {
            rtenc_av_frame_unref(frame);
            return AVERROR(ENOMEM);
        }
        frame->data[i] = planes[i];
        frame->linesize[i] = strides[i];
    }
    return 0;
}

int rtenc_encoder_frame_is_shared(const AVFrame *frame) {
    if (!frame) return 0;
    for (int i = 0; i < AV_NUM_DATA_POINTERS; i++) {
        if (frame->buf[i] && rtenc_av_buffer_get_ref_count(frame->buf[i]) > 1) return 1;
    }
    return 0;
}

int rtenc_encoder_vaapi_frames_ctx(AVBufferRef *device, int width, int height, int pool_size, AVBufferRef **out) {
    if (!device || !out) return AVERROR(EINVAL);
    AVBufferRef *ref = rtenc_av_hwframe_ctx_alloc(device);
    if (!ref) return AVERROR(ENOMEM);
    AVHWFramesContext *frames = (AVHWFramesContext *)ref->data;
    frames->format = AV_PIX_FMT_VAAPI;
    frames->sw_format = AV_PIX_FMT_NV12;
    frames->width = width;
    frames->height = height;
    frames->initial_pool_size = pool_size;
    int ret = rtenc_av_hwframe_ctx_init(ref);
    if (ret < 0) {
        rtenc_av_buffer_unref(&ref);
        return ret;
    }
    *out = ref;
    return 0;
}

size_t rtenc_encoder_heap_bytes_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}
