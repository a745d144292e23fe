/* ggml's CPU rope arithmetic, written out in C for the tests (tests/test_ggml_rope.py compiles it with the
 * system's C compiler and calls it through ctypes): the theta_scale power, the per-pair angles formed by
 * float32 products from the position, YaRN's correction range and ramp, cos and sin from the C library, and the
 * NEOX pair rotation (i, i + n_dims/2) of float32 and float16 rows, each result rounded to the row's type.
 * Built with -ffp-contract=off: every product and sum is rounded on its own. */
#include <math.h>
#include <stdint.h>

static float corr_dim(int n_dims, int n_ctx_orig, float n_rot, float base) {
    return n_dims * logf(n_ctx_orig / (n_rot * 2 * (float)M_PI)) / (2 * logf(base));
}

void ref_corr_dims(int n_dims, int n_ctx_orig, float base, float beta_fast, float beta_slow, float dims[2]) {
    float start = floorf(corr_dim(n_dims, n_ctx_orig, beta_fast, base));
    float end = ceilf(corr_dim(n_dims, n_ctx_orig, beta_slow, base));
    dims[0] = start > 0 ? start : 0;
    dims[1] = end < n_dims - 1 ? end : n_dims - 1;
}

static float ramp(float low, float high, int i0) {
    float span = high - low > 0.001f ? high - low : 0.001f;
    float y = (i0 / 2 - low) / span;
    float clipped = y < 0 ? 0 : (y > 1 ? 1 : y);
    return 1 - clipped;
}

/* One position's angles, cos and sin (n_dims / 2 of each). */
void ref_cache(float position, int n_dims, float base, float freq_scale, float ext_factor, float attn_factor,
               const float corr[2], float *theta_out, float *cos_out, float *sin_out) {
    const float theta_scale = powf(base, -2.0f / n_dims);
    float theta = position;
    for (int i0 = 0; i0 < n_dims; i0 += 2) {
        float interp = freq_scale * theta;
        float angle = interp;
        float mscale = attn_factor;
        if (ext_factor != 0.0f) {
            float mix = ramp(corr[0], corr[1], i0) * ext_factor;
            angle = interp * (1 - mix) + theta * mix;
            mscale *= 1.0f + 0.1f * logf(1.0f / freq_scale);
        }
        theta_out[i0 / 2] = angle;
        cos_out[i0 / 2] = cosf(angle) * mscale;
        sin_out[i0 / 2] = sinf(angle) * mscale;
        theta *= theta_scale;
    }
}

/* `times` shifts by `delta` of `rows` float32 rows of n_dims values, in place. */
void ref_shift_f32(float *rows, int n_rows, int n_dims, float delta, float base, int times) {
    float theta[8192], c[8192], s[8192];
    const float corr[2] = {0, 0};
    ref_cache(delta, n_dims, base, 1.0f, 0.0f, 1.0f, corr, theta, c, s);
    for (int t = 0; t < times; t++) {
        for (int r = 0; r < n_rows; r++) {
            float *x = rows + (int64_t)r * n_dims;
            for (int i = 0; i < n_dims / 2; i++) {
                const float x0 = x[i], x1 = x[i + n_dims / 2];
                x[i] = x0 * c[i] - x1 * s[i];
                x[i + n_dims / 2] = x0 * s[i] + x1 * c[i];
            }
        }
    }
}

/* The same on float16 rows: each pair read into float32, rotated there, and rounded back to float16. */
void ref_shift_f16(_Float16 *rows, int n_rows, int n_dims, float delta, float base, int times) {
    float theta[8192], c[8192], s[8192];
    const float corr[2] = {0, 0};
    ref_cache(delta, n_dims, base, 1.0f, 0.0f, 1.0f, corr, theta, c, s);
    for (int t = 0; t < times; t++) {
        for (int r = 0; r < n_rows; r++) {
            _Float16 *x = rows + (int64_t)r * n_dims;
            for (int i = 0; i < n_dims / 2; i++) {
                const float x0 = (float)x[i], x1 = (float)x[i + n_dims / 2];
                x[i] = (_Float16)(x0 * c[i] - x1 * s[i]);
                x[i + n_dims / 2] = (_Float16)(x0 * s[i] + x1 * c[i]);
            }
        }
    }
}

/* float32 rows rotated each to its own position (no scaling), in place. */
void ref_rope_rows(float *rows, const int64_t *positions, int n_rows, int n_dims, float base) {
    float theta[8192], c[8192], s[8192];
    const float corr[2] = {0, 0};
    for (int r = 0; r < n_rows; r++) {
        float *x = rows + (int64_t)r * n_dims;
        ref_cache((float)positions[r], n_dims, base, 1.0f, 0.0f, 1.0f, corr, theta, c, s);
        for (int i = 0; i < n_dims / 2; i++) {
            const float x0 = x[i], x1 = x[i + n_dims / 2];
            x[i] = x0 * c[i] - x1 * s[i];
            x[i + n_dims / 2] = x0 * s[i] + x1 * c[i];
        }
    }
}
