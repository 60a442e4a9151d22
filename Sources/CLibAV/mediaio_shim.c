#include "rtenc_mediaio.h"
#include "rtenc_libraries.h"

const uint8_t *rtenc_mediaio_frame_data(const AVFrame *frame, int index) {
    if (index < 0 || index >= AV_NUM_DATA_POINTERS) return NULL;
    return frame->data[index];
}

int rtenc_mediaio_frame_linesize(const AVFrame *frame, int index) {
    if (index < 0 || index >= AV_NUM_DATA_POINTERS) return 0;
    return frame->linesize[index];
}

int rtenc_mediaio_scale_frame(struct SwsContext *context, const AVFrame *source,
                              uint8_t *plane0, int stride0,
                              uint8_t *plane1, int stride1,
                              uint8_t *plane2, int stride2) {
    uint8_t *const planes[4] = { plane0, plane1, plane2, NULL };
    const int strides[4] = { stride0, stride1, stride2, 0 };
    return rtenc_sws_scale(context, (const uint8_t *const *)source->data, source->linesize, 0, source->height,
                     planes, strides);
}

int rtenc_mediaio_scale_planes(struct SwsContext *context, int source_height,
                               const uint8_t *source0, int source_stride0,
                               const uint8_t *source1, int source_stride1,
                               const uint8_t *source2, int source_stride2,
                               uint8_t *plane0, int stride0,
                               uint8_t *plane1, int stride1,
                               uint8_t *plane2, int stride2) {
    const uint8_t *const sources[4] = { source0, source1, source2, NULL };
    const int source_strides[4] = { source_stride0, source_stride1, source_stride2, 0 };
    uint8_t *const planes[4] = { plane0, plane1, plane2, NULL };
    const int strides[4] = { stride0, stride1, stride2, 0 };
    return rtenc_sws_scale(context, sources, source_strides, 0, source_height, planes, strides);
}

int rtenc_mediaio_scale_frame_alpha(struct SwsContext *context, const AVFrame *source,
                                    uint8_t *plane0, int stride0,
                                    uint8_t *plane1, int stride1,
                                    uint8_t *plane2, int stride2,
                                    uint8_t *plane3, int stride3) {
    uint8_t *const planes[4] = { plane0, plane1, plane2, plane3 };
    const int strides[4] = { stride0, stride1, stride2, stride3 };
    return rtenc_sws_scale(context, (const uint8_t *const *)source->data, source->linesize, 0, source->height,
                     planes, strides);
}

int rtenc_mediaio_format_has_alpha(int format) {
    const AVPixFmtDescriptor *descriptor = rtenc_av_pix_fmt_desc_get((enum AVPixelFormat)format);
    return descriptor != NULL && (descriptor->flags & AV_PIX_FMT_FLAG_ALPHA) != 0;
}
