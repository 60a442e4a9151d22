#include "rtenc_libav_common.h"

int rtenc_averror(int posix_errno) { return AVERROR(posix_errno); }
int rtenc_averror_eof(void) { return AVERROR_EOF; }
