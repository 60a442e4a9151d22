#include "rtenc_encoder.h"

#include <errno.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <libavutil/hwcontext.h>

int rtenc_encoder_averror_eagain(void) { return AVERROR(EAGAIN); }
int rtenc_encoder_averror_encoder_not_found(void) { return AVERROR_ENCODER_NOT_FOUND; }
int rtenc_encoder_averror_external(void) { return AVERROR_EXTERNAL; }
int64_t rtenc_encoder_nopts(void) { return AV_NOPTS_VALUE; }
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

int rtenc_encoder_vaapi_frames_ctx(AVBufferRef *device, int width, int height, int pool_size, AVBufferRef **out) {
    if (!device || !out) return AVERROR(EINVAL);
    AVBufferRef *ref = av_hwframe_ctx_alloc(device);
    if (!ref) return AVERROR(ENOMEM);
    AVHWFramesContext *frames = (AVHWFramesContext *)ref->data;
    frames->format = AV_PIX_FMT_VAAPI;
    frames->sw_format = AV_PIX_FMT_NV12;
    frames->width = width;
    frames->height = height;
    frames->initial_pool_size = pool_size;
    int ret = av_hwframe_ctx_init(ref);
    if (ret < 0) {
        av_buffer_unref(&ref);
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
