/* tarneeb.audit.blind._group: the ristretto255 group (RFC 9496) with multi-scalar
 * multiplication, for tarneeb.audit.blind.group.
 *
 * Field arithmetic and point formulas: _group_field.h (radix 2^51, extended twisted
 * Edwards coordinates, a = -1). Here: ristretto255's decoding, encoding, equality and
 * element derivation from 64 bytes (RFC 9496 sections 4.3.1, 4.3.2, 4.3.4, 4.5); scalar
 * multiplication in constant time (fixed signed 4-bit windows, every table entry read
 * for each selection) for secret scalars, alone, by the base point (a table of 256
 * multiples computed at import) and as a multi-scalar multiplication (Straus); and in
 * variable time for public scalars (width-5 NAF, Straus for few points, Pippenger's
 * buckets for many), with a "fold" [c*L[i] + R[i]].
 *
 * Python sees points as bytes of 160 (the four coordinates' limbs, native byte order:
 * opaque, never stored or sent; encode() gives the 32 bytes) and scalars as 32 bytes,
 * little-endian, below the group order L (anything else raises ValueError). The sums
 * (msm, msm_secret) run without the GIL once their terms are loaded.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_group_field.h"

#define POINT_LEN ((Py_ssize_t)sizeof(ge_p3))

static const fe BASE_X = {{0x62d608f25d51aULL, 0x412a4b4f6592aULL, 0x75b7171a4b31dULL,
                           0x1ff60527118feULL, 0x216936d3cd6e5ULL}};
static const fe BASE_Y = {{0x6666666666658ULL, 0x4ccccccccccccULL, 0x1999999999999ULL,
                           0x3333333333333ULL, 0x6666666666666ULL}};
static const fe BASE_T = {{0x68ab3a5b7dda3ULL, 0x00eea2a5eadbbULL, 0x2af8df483c27eULL,
                           0x332b375274732ULL, 0x67875f0fd78b7ULL}};
/* the group order L = 2^252 + 27742317777372353535851937790883648493, little-endian */
static const uint8_t L_BYTES[32] = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9,
    0xde, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x10};

/* zero a secret's copy; the volatile writes are not removed as dead stores */
static void wipe(void *p, size_t n) {
    volatile uint8_t *v = (volatile uint8_t *)p;
    while (n--) *v++ = 0;
}

/* ------------------------------------------------------------- ristretto255 -- */

/* RFC 9496 4.3.1; returns 0 and sets *p, or -1 for an invalid encoding */
static int ristretto_decode(ge_p3 *p, const uint8_t b[32]) {
    fe s, ss, u1, u2, u2_sqr, v, t, invsqrt, den_x, den_y;
    uint8_t check[32];
    uint8_t diff = 0;
    fe_frombytes(&s, b);
    fe_tobytes(check, &s);
    for (int i = 0; i < 32; i++) diff |= check[i] ^ b[i];
    if (diff != 0 || fe_isnegative(&s)) return -1;   /* non-canonical, or s negative */
    fe_sq(&ss, &s);
    fe_sub(&u1, &FE_ONE, &ss);
    fe_add(&u2, &FE_ONE, &ss);
    fe_carry(&u2);
    fe_sq(&u2_sqr, &u2);
    fe_sq(&t, &u1);
    fe_mul(&t, &t, &FE_D);
    fe_add(&t, &t, &u2_sqr);
    fe_neg(&v, &t);                  /* v = -(D u1^2) - u2^2 */
    fe_mul(&t, &v, &u2_sqr);
    const int was_square = fe_sqrt_ratio_m1(&invsqrt, &FE_ONE, &t);
    fe_mul(&den_x, &invsqrt, &u2);
    fe_mul(&den_y, &invsqrt, &den_x);
    fe_mul(&den_y, &den_y, &v);
    fe_add(&t, &s, &s);
    fe_mul(&t, &t, &den_x);
    fe_abs(&p->X, &t);
    fe_mul(&p->Y, &u1, &den_y);
    p->Z = FE_ONE;
    fe_mul(&p->T, &p->X, &p->Y);
    if (!was_square || fe_isnegative(&p->T) || fe_iszero(&p->Y)) return -1;
    return 0;
}

/* RFC 9496 4.3.2 */
static void ristretto_encode(uint8_t out[32], const ge_p3 *p) {
    fe u1, u2, t, invsqrt, den1, den2, z_inv, ix0, iy0, ench, x, y, den_inv;
    fe_add(&t, &p->Z, &p->Y);
    fe_sub(&u1, &p->Z, &p->Y);
    fe_mul(&u1, &t, &u1);
    fe_mul(&u2, &p->X, &p->Y);
    fe_sq(&t, &u2);
    fe_mul(&t, &t, &u1);
    (void)fe_sqrt_ratio_m1(&invsqrt, &FE_ONE, &t);
    fe_mul(&den1, &invsqrt, &u1);
    fe_mul(&den2, &invsqrt, &u2);
    fe_mul(&z_inv, &den1, &den2);
    fe_mul(&z_inv, &z_inv, &p->T);
    fe_mul(&ix0, &p->X, &FE_SQRTM1);
    fe_mul(&iy0, &p->Y, &FE_SQRTM1);
    fe_mul(&ench, &den1, &FE_INVSQRT_A_MINUS_D);
    fe_mul(&t, &p->T, &z_inv);
    const uint64_t rotate = (uint64_t)fe_isnegative(&t);
    x = p->X; fe_cmov(&x, &iy0, rotate);
    y = p->Y; fe_cmov(&y, &ix0, rotate);
    den_inv = den2; fe_cmov(&den_inv, &ench, rotate);
    fe_mul(&t, &x, &z_inv);
    fe_cneg(&y, (uint64_t)fe_isnegative(&t));
    fe_sub(&t, &p->Z, &y);
    fe_mul(&t, &den_inv, &t);
    fe_abs(&t, &t);
    fe_tobytes(out, &t);
}

/* RFC 9496 4.5: X1*Y2 == Y1*X2 or Y1*Y2 == X1*X2 */
static int ristretto_equal(const ge_p3 *p, const ge_p3 *q) {
    fe a, b;
    fe_mul(&a, &p->X, &q->Y);
    fe_mul(&b, &p->Y, &q->X);
    const int e1 = fe_equal(&a, &b);
    fe_mul(&a, &p->Y, &q->Y);
    fe_mul(&b, &p->X, &q->X);
    return e1 | fe_equal(&a, &b);
}

/* the MAP of RFC 9496 4.3.4 */
static void ristretto_map(ge_p3 *p, const fe *t) {
    fe r, u, v, s, s_prime, c, N, w0, w1, w2, w3, tmp, rd;
    fe_sq(&r, t);
    fe_mul(&r, &r, &FE_SQRTM1);
    fe_add(&tmp, &r, &FE_ONE);
    fe_mul(&u, &tmp, &FE_ONE_MINUS_D_SQ);
    fe_mul(&rd, &r, &FE_D);
    fe_add(&tmp, &FE_ONE, &rd);
    fe_neg(&tmp, &tmp);              /* -1 - r D */
    fe_add(&v, &r, &FE_D);
    fe_mul(&v, &tmp, &v);
    const uint64_t was_square = (uint64_t)fe_sqrt_ratio_m1(&s, &u, &v);
    fe_mul(&s_prime, &s, t);
    fe_abs(&s_prime, &s_prime);
    fe_neg(&s_prime, &s_prime);
    fe_cmov(&s, &s_prime, 1 - was_square);
    fe_neg(&c, &FE_ONE);
    fe_cmov(&c, &r, 1 - was_square);
    fe_sub(&tmp, &r, &FE_ONE);
    fe_mul(&N, &c, &tmp);
    fe_mul(&N, &N, &FE_D_MINUS_ONE_SQ);
    fe_sub(&N, &N, &v);
    fe_add(&w0, &s, &s);
    fe_mul(&w0, &w0, &v);
    fe_mul(&w1, &N, &FE_SQRT_AD_MINUS_ONE);
    fe_sq(&tmp, &s);
    fe_sub(&w2, &FE_ONE, &tmp);
    fe_add(&w3, &FE_ONE, &tmp);
    fe_carry(&w3);
    fe_mul(&p->X, &w0, &w3);
    fe_mul(&p->Y, &w2, &w1);
    fe_mul(&p->Z, &w1, &w3);
    fe_mul(&p->T, &w0, &w2);
}

static void ge_add_p3(ge_p3 *r, const ge_p3 *p, const ge_p3 *q) {
    ge_cached c;
    ge_p1p1 t;
    ge_p3_to_cached(&c, q);
    ge_add(&t, p, &c);
    ge_p1p1_to_p3(r, &t);
}

static void ristretto_from_hash(ge_p3 *p, const uint8_t h[64]) {
    fe r0, r1;
    ge_p3 p1, p2;
    fe_frombytes(&r0, h);            /* bit 255 masked, the value reduced mod p */
    fe_frombytes(&r1, h + 32);
    ristretto_map(&p1, &r0);
    ristretto_map(&p2, &r1);
    ge_add_p3(p, &p1, &p2);
}

/* ------------------------------------------------------------------ scalars -- */

/* 1 when s < L (s public or secret: the comparison reads every byte) */
static int scalar_is_canonical(const uint8_t s[32]) {
    unsigned int c = 0, n = 1;       /* c: s < L decided; n: equal so far */
    for (int i = 31; i >= 0; i--) {
        const unsigned int a = s[i], b = L_BYTES[i];
        c |= ((a - b) >> 8) & n;     /* a < b while equal so far */
        n &= ((a ^ b) - 1) >> 8;     /* still equal */
    }
    return (int)(c & 1);
}

/* 64 signed digits e[i] in [-8, 8], s = sum e[i] 16^i (s < 2^255) */
static void scalar_radix16(int8_t e[64], const uint8_t s[32]) {
    int8_t carry = 0;
    for (int i = 0; i < 32; i++) {
        e[2 * i] = (int8_t)(s[i] & 15);
        e[2 * i + 1] = (int8_t)((s[i] >> 4) & 15);
    }
    for (int i = 0; i < 63; i++) {
        e[i] = (int8_t)(e[i] + carry);
        carry = (int8_t)((e[i] + 8) >> 4);
        e[i] = (int8_t)(e[i] - (carry << 4));
    }
    e[63] = (int8_t)(e[63] + carry);
}

/* width-5 NAF: naf[i] odd in [-15, 15] or 0, no two non-zero within 5 places;
 * returns the number of places used (0 for s = 0). Variable time. */
static int scalar_naf5(int8_t naf[257], const uint8_t s[32]) {
    uint64_t k[5] = {0, 0, 0, 0, 0};
    int top = 0;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) k[i] |= (uint64_t)s[8 * i + j] << (8 * j);
    memset(naf, 0, 257);
    for (int i = 0; i < 257; i++) {
        if ((k[0] | k[1] | k[2] | k[3] | k[4]) == 0) break;
        if (k[0] & 1) {
            int d = (int)(k[0] & 31);
            if (d >= 16) d -= 32;
            naf[i] = (int8_t)d;
            top = i + 1;
            if (d > 0) {             /* k -= d */
                uint64_t b = (uint64_t)d;
                for (int w = 0; w < 5 && b; w++) {
                    const uint64_t old = k[w];
                    k[w] = old - b;
                    b = old < b;
                }
            } else {                 /* k += -d */
                uint64_t a = (uint64_t)(-d);
                for (int w = 0; w < 5 && a; w++) {
                    k[w] += a;
                    a = k[w] < a;
                }
            }
        }
        for (int w = 0; w < 4; w++) k[w] = (k[w] >> 1) | (k[w + 1] << 63);
        k[4] >>= 1;
    }
    return top;
}

/* bits [pos, pos + w) of s (w <= 16), zero past bit 255 */
static unsigned int scalar_bits(const uint8_t s[32], int pos, int w) {
    unsigned int v = 0;
    for (int i = 0; i < w; i++) {
        const int b = pos + i;
        if (b < 256) v |= (unsigned int)((s[b >> 3] >> (b & 7)) & 1) << i;
    }
    return v;
}

/* ----------------------------------------------------- constant-time tables -- */

/* t[k-1] = k p for k = 1..8 */
static void table8(ge_cached t[8], const ge_p3 *p) {
    ge_p3 q, p2;
    ge_p1p1 r;
    ge_p3_to_cached(&t[0], p);
    ge_p3_dbl(&r, p);
    ge_p1p1_to_p3(&p2, &r);
    ge_p3_to_cached(&t[1], &p2);
    q = p2;
    for (int k = 2; k < 8; k++) {
        ge_add(&r, &q, &t[0]);
        ge_p1p1_to_p3(&q, &r);
        ge_p3_to_cached(&t[k], &q);
    }
}

/* out = e * (the point of table t), e in [-8, 8], reading all eight entries */
static void table8_select(ge_cached *out, const ge_cached t[8], int8_t e) {
    const uint64_t neg = (uint64_t)((uint8_t)e >> 7);
    const int m = -(int)neg;                        /* 0, or all ones when e < 0 */
    const uint64_t a = (uint64_t)(((int)e ^ m) - m); /* |e| */
    ge_cached_identity(out);
    for (uint64_t k = 1; k <= 8; k++) {
        const uint64_t eq = ((a ^ k) - 1) >> 63;   /* 1 when a == k */
        ge_cached_cmov(out, &t[k - 1], eq);
    }
    ge_cached_cneg(out, neg);
}

/* 256 multiples of the base point: BASE_TABLE[i][k-1] = k 256^i B */
static ge_cached BASE_TABLE[32][8];
static ge_p3 BASE_POINT;

static void base_table_init(void) {
    ge_p3 p;
    ge_p1p1 r;
    BASE_POINT.X = BASE_X; BASE_POINT.Y = BASE_Y; BASE_POINT.Z = FE_ONE;
    BASE_POINT.T = BASE_T;
    p = BASE_POINT;
    for (int i = 0; i < 32; i++) {
        table8(BASE_TABLE[i], &p);
        for (int k = 0; k < 8; k++) {
            ge_p3_dbl(&r, &p);
            ge_p1p1_to_p3(&p, &r);
        }
    }
}

/* four doublings of the point r (completed), into h */
static inline void dbl4(ge_p3 *h, const ge_p1p1 *r0) {
    ge_p1p1 r;
    ge_p2 q;
    ge_p1p1_to_p2(&q, r0);
    ge_p2_dbl(&r, &q);
    ge_p1p1_to_p2(&q, &r);
    ge_p2_dbl(&r, &q);
    ge_p1p1_to_p2(&q, &r);
    ge_p2_dbl(&r, &q);
    ge_p1p1_to_p2(&q, &r);
    ge_p2_dbl(&r, &q);
    ge_p1p1_to_p3(h, &r);
}

/* s p in constant time: 64 signed 4-bit windows, the top one first */
static void mul_ct(ge_p3 *out, const uint8_t s[32], const ge_p3 *p) {
    ge_cached t[8], sel;
    int8_t e[64];
    ge_p1p1 r;
    ge_p3 h;
    table8(t, p);
    scalar_radix16(e, s);
    ge_p3_identity(&h);
    table8_select(&sel, t, e[63]);
    ge_add(&r, &h, &sel);
    for (int i = 62; i >= 0; i--) {
        dbl4(&h, &r);
        table8_select(&sel, t, e[i]);
        ge_add(&r, &h, &sel);
    }
    ge_p1p1_to_p3(out, &r);
    wipe(e, sizeof e);
}

/* s B in constant time, with the base table */
static void mul_base_ct(ge_p3 *out, const uint8_t s[32]) {
    ge_cached sel;
    int8_t e[64];
    ge_p1p1 r;
    ge_p2 q;
    ge_p3 h;
    scalar_radix16(e, s);
    ge_p3_identity(&h);
    for (int i = 1; i < 64; i += 2) {
        table8_select(&sel, BASE_TABLE[i / 2], e[i]);
        ge_add(&r, &h, &sel);
        ge_p1p1_to_p3(&h, &r);
    }
    ge_p3_dbl(&r, &h);
    ge_p1p1_to_p2(&q, &r);
    ge_p2_dbl(&r, &q);
    ge_p1p1_to_p2(&q, &r);
    ge_p2_dbl(&r, &q);
    ge_p1p1_to_p2(&q, &r);
    ge_p2_dbl(&r, &q);
    ge_p1p1_to_p3(&h, &r);
    for (int i = 0; i < 64; i += 2) {
        table8_select(&sel, BASE_TABLE[i / 2], e[i]);
        ge_add(&r, &h, &sel);
        ge_p1p1_to_p3(&h, &r);
    }
    *out = h;
    wipe(e, sizeof e);
}

/* sum s[j] p[j] in constant time (Straus: shared doublings, one selection a point and
 * window); tables and digits are the caller's scratch (8n entries, 64n digits) */
static void msm_ct(ge_p3 *out, size_t n, const uint8_t *s, const ge_p3 *p,
                   ge_cached *tables, int8_t *digits) {
    ge_cached sel;
    ge_p1p1 r;
    ge_p3 h;
    for (size_t j = 0; j < n; j++) {
        table8(tables + 8 * j, p + j);
        scalar_radix16(digits + 64 * j, s + 32 * j);
    }
    ge_p3_identity(&h);
    ge_cached_identity(&sel);
    ge_add(&r, &h, &sel);            /* r: the identity, completed */
    for (int i = 63; i >= 0; i--) {
        if (i < 63) dbl4(&h, &r);    /* the schedule is public: the same for every s */
        else ge_p1p1_to_p3(&h, &r);
        for (size_t j = 0; j < n; j++) {
            table8_select(&sel, tables + 8 * j, digits[64 * j + i]);
            ge_add(&r, &h, &sel);
            if (j + 1 < n) ge_p1p1_to_p3(&h, &r);
        }
    }
    ge_p1p1_to_p3(out, &r);
    wipe(digits, 64 * n);
}

/* ------------------------------------------------------ variable-time sums -- */

/* t[k] = (2k + 1) p for k = 0..7 */
static void table_odd(ge_cached t[8], const ge_p3 *p) {
    ge_p3 p2, q;
    ge_p1p1 r;
    ge_cached c2;
    ge_p3_dbl(&r, p);
    ge_p1p1_to_p3(&p2, &r);
    ge_p3_to_cached(&c2, &p2);
    ge_p3_to_cached(&t[0], p);
    q = *p;
    for (int k = 1; k < 8; k++) {
        ge_add(&r, &q, &c2);
        ge_p1p1_to_p3(&q, &r);
        ge_p3_to_cached(&t[k], &q);
    }
}

static inline void add_digit(ge_p1p1 *r, const ge_cached *t, int d) {
    ge_p3 h;
    ge_p1p1_to_p3(&h, r);
    if (d > 0) ge_add(r, &h, &t[d >> 1]);
    else ge_sub(r, &h, &t[(-d) >> 1]);
}

/* sum s[j] p[j], Straus with width-5 NAF (variable time); scratch: 8n entries, 257n */
static void msm_straus(ge_p3 *out, size_t n, const uint8_t *s, const ge_p3 *p,
                       ge_cached *tables, int8_t *nafs) {
    int top = 0;
    ge_p1p1 r;
    ge_p2 q;
    for (size_t j = 0; j < n; j++) {
        const int t = scalar_naf5(nafs + 257 * j, s + 32 * j);
        if (t > 0) table_odd(tables + 8 * j, p + j);
        if (t > top) top = t;
    }
    ge_p3_identity(out);
    if (top == 0) return;
    ge_p3_to_p2(&q, out);
    for (int i = top - 1; i >= 0; i--) {
        ge_p2_dbl(&r, &q);
        for (size_t j = 0; j < n; j++) {
            const int d = nafs[257 * j + i];
            if (d) add_digit(&r, tables + 8 * j, d);
        }
        if (i > 0) ge_p1p1_to_p2(&q, &r);
    }
    ge_p1p1_to_p3(out, &r);
}

/* acc = acc + p, where an unset acc (*set == 0) becomes p */
static inline void acc_add(ge_p3 *acc, int *set, const ge_p3 *p) {
    if (*set) ge_add_p3(acc, acc, p);
    else { *acc = *p; *set = 1; }
}

/* sum s[j] p[j], Pippenger's buckets with signed c-bit digits (variable time) */
static int msm_pippenger(ge_p3 *out, size_t n, const uint8_t *s, const ge_p3 *p, int c) {
    const int windows = 256 / c + 1;
    const int nb = 1 << (c - 1);
    int16_t *digits = PyMem_RawMalloc(sizeof(int16_t) * (size_t)windows * n);
    ge_cached *cached = PyMem_RawMalloc(sizeof(ge_cached) * n);
    ge_p3 *buckets = PyMem_RawMalloc(sizeof(ge_p3) * (size_t)nb);
    unsigned char *used = PyMem_RawMalloc((size_t)nb);
    if (!digits || !cached || !buckets || !used) {
        PyMem_RawFree(digits); PyMem_RawFree(cached); PyMem_RawFree(buckets); PyMem_RawFree(used);
        return -1;
    }
    for (size_t j = 0; j < n; j++) {
        int carry = 0;
        for (int w = 0; w < windows; w++) {
            int v = (int)scalar_bits(s + 32 * j, w * c, c) + carry;
            carry = v >= nb;
            digits[(size_t)w * n + j] = (int16_t)(carry ? v - 2 * nb : v);
        }
        ge_p3_to_cached(&cached[j], p + j);
    }
    ge_p3 result;
    int result_set = 0;
    for (int w = windows - 1; w >= 0; w--) {
        if (result_set) {
            ge_p1p1 r;
            ge_p2 q;
            ge_p3_to_p2(&q, &result);
            for (int k = 0; k < c - 1; k++) {
                ge_p2_dbl(&r, &q);
                ge_p1p1_to_p2(&q, &r);
            }
            ge_p2_dbl(&r, &q);
            ge_p1p1_to_p3(&result, &r);
        }
        memset(used, 0, (size_t)nb);
        const int16_t *dw = digits + (size_t)w * n;
        for (size_t j = 0; j < n; j++) {
            const int d = dw[j];
            if (d == 0) continue;
            const int b = (d > 0 ? d : -d) - 1;
            if (used[b]) {
                ge_p1p1 r;
                if (d > 0) ge_add(&r, &buckets[b], &cached[j]);
                else ge_sub(&r, &buckets[b], &cached[j]);
                ge_p1p1_to_p3(&buckets[b], &r);
            } else {
                if (d > 0) buckets[b] = p[j];
                else ge_p3_neg(&buckets[b], p + j);
                used[b] = 1;
            }
        }
        ge_p3 running, sum;
        int running_set = 0, sum_set = 0;
        for (int b = nb - 1; b >= 0; b--) {
            if (used[b]) acc_add(&running, &running_set, &buckets[b]);
            if (running_set) acc_add(&sum, &sum_set, &running);
        }
        if (sum_set) acc_add(&result, &result_set, &sum);
    }
    if (result_set) *out = result;
    else ge_p3_identity(out);
    PyMem_RawFree(digits); PyMem_RawFree(cached); PyMem_RawFree(buckets); PyMem_RawFree(used);
    return 0;
}

/* Straus below 128 points, Pippenger from there, its window growing with n: the least
 * time of each, measured on x86-64 for n from 48 to 4096 */
#ifndef PIPPENGER_FROM
#define PIPPENGER_FROM 128
#endif

/* the window of Pippenger's method for n points, 0 for Straus */
static int pippenger_window(size_t n) {
    if (n < PIPPENGER_FROM) return 0;
    if (n < 192) return 6;
    if (n < 448) return 7;
    if (n < 1536) return 8;
    if (n < 3072) return 9;
    if (n < 8192) return 10;
    return 11;
}

/* c p + q with c's NAF given (variable time) */
static void fold_one(ge_p3 *out, const int8_t naf[257], int top, const ge_p3 *p,
                     const ge_p3 *q) {
    ge_cached t[8];
    ge_p1p1 r;
    ge_p2 h;
    if (top == 0) { *out = *q; return; }
    table_odd(t, p);
    ge_p3_identity(out);             /* start from the identity */
    ge_p3_to_p2(&h, out);
    for (int i = top - 1; i >= 0; i--) {
        ge_p2_dbl(&r, &h);
        if (naf[i]) add_digit(&r, t, naf[i]);
        if (i > 0) ge_p1p1_to_p2(&h, &r);
    }
    ge_p3 cp;
    ge_p1p1_to_p3(&cp, &r);
    ge_add_p3(out, &cp, q);
}

/* ------------------------------------------------------------------ Python -- */

/* 1 when p, in extended coordinates, is a point of the curve -x^2 + y^2 = 1 + d x^2 y^2:
 * Z != 0, X*Y == Z*T and Y^2 - X^2 == Z^2 + d*T^2. Every point this module makes is one;
 * a caller's 160 bytes are checked on load, so that no bytes that are not a point (a
 * mistake of a caller, or bytes from anywhere else) enter the formulas, whose results
 * on such input would be no element of the group at all. About 7 field operations. */
static int on_curve(const ge_p3 *p) {
    fe xy, zt, x2, y2, z2, t2, lhs, rhs;
    fe_mul(&xy, &p->X, &p->Y);
    fe_mul(&zt, &p->Z, &p->T);
    fe_sq(&x2, &p->X);
    fe_sq(&y2, &p->Y);
    fe_sq(&z2, &p->Z);
    fe_sq(&t2, &p->T);
    fe_sub(&lhs, &y2, &x2);
    fe_mul(&rhs, &FE_D, &t2);
    fe_add(&rhs, &rhs, &z2);
    fe_carry(&rhs);
    return !fe_iszero(&p->Z) && fe_equal(&xy, &zt) && fe_equal(&lhs, &rhs);
}

static int load_point(PyObject *o, ge_p3 *p) {
    if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) != POINT_LEN) {
        PyErr_SetString(PyExc_TypeError, "a point is bytes of 160 (from this module)");
        return -1;
    }
    memcpy(p, PyBytes_AS_STRING(o), sizeof *p);
    const uint64_t *v = (const uint64_t *)p;
    uint64_t hi = 0;
    for (int i = 0; i < 20; i++) hi |= v[i];
    if (hi >> 52 || !on_curve(p)) {
        PyErr_SetString(PyExc_ValueError, "not a point of this module");
        return -1;
    }
    return 0;
}

static PyObject *point_obj(const ge_p3 *p) {
    return PyBytes_FromStringAndSize((const char *)p, POINT_LEN);
}

static int load_scalar(PyObject *o, uint8_t s[32]) {
    if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) != 32) {
        PyErr_SetString(PyExc_TypeError, "a scalar is 32 little-endian bytes");
        return -1;
    }
    memcpy(s, PyBytes_AS_STRING(o), 32);
    if (!scalar_is_canonical(s)) {
        PyErr_SetString(PyExc_ValueError, "a scalar must be below the group order");
        return -1;
    }
    return 0;
}

static int nargs_is(Py_ssize_t nargs, Py_ssize_t want, const char *name) {
    if (nargs == want) return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, want, nargs);
    return -1;
}

static PyObject *py_decode(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    ge_p3 p;
    if (nargs_is(nargs, 1, "decode")) return NULL;
    if (!PyBytes_Check(args[0]) || PyBytes_GET_SIZE(args[0]) != 32) {
        PyErr_SetString(PyExc_ValueError, "a ristretto255 encoding is 32 bytes");
        return NULL;
    }
    if (ristretto_decode(&p, (const uint8_t *)PyBytes_AS_STRING(args[0]))) {
        PyErr_SetString(PyExc_ValueError, "not a canonical ristretto255 encoding");
        return NULL;
    }
    return point_obj(&p);
}

static PyObject *py_encode(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    ge_p3 p;
    uint8_t out[32];
    if (nargs_is(nargs, 1, "encode") || load_point(args[0], &p)) return NULL;
    ristretto_encode(out, &p);
    return PyBytes_FromStringAndSize((const char *)out, 32);
}

static PyObject *py_from_hash(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    ge_p3 p;
    if (nargs_is(nargs, 1, "from_hash")) return NULL;
    if (!PyBytes_Check(args[0]) || PyBytes_GET_SIZE(args[0]) != 64) {
        PyErr_SetString(PyExc_ValueError, "from_hash takes 64 bytes");
        return NULL;
    }
    ristretto_from_hash(&p, (const uint8_t *)PyBytes_AS_STRING(args[0]));
    return point_obj(&p);
}

static PyObject *py_identity(PyObject *m, PyObject *unused) {
    (void)m; (void)unused;
    ge_p3 p;
    ge_p3_identity(&p);
    return point_obj(&p);
}

static PyObject *py_base(PyObject *m, PyObject *unused) {
    (void)m; (void)unused;
    return point_obj(&BASE_POINT);
}

static PyObject *py_is_identity(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    ge_p3 p;
    if (nargs_is(nargs, 1, "is_identity") || load_point(args[0], &p)) return NULL;
    return PyBool_FromLong(fe_iszero(&p.X) | fe_iszero(&p.Y));
}

static PyObject *py_equal(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    ge_p3 p, q;
    if (nargs_is(nargs, 2, "equal") || load_point(args[0], &p) || load_point(args[1], &q))
        return NULL;
    return PyBool_FromLong(ristretto_equal(&p, &q));
}

static PyObject *py_add(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    ge_p3 p, q;
    if (nargs_is(nargs, 2, "add") || load_point(args[0], &p) || load_point(args[1], &q))
        return NULL;
    ge_add_p3(&p, &p, &q);
    return point_obj(&p);
}

static PyObject *py_sub(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    ge_p3 p, q;
    ge_cached c;
    ge_p1p1 r;
    if (nargs_is(nargs, 2, "sub") || load_point(args[0], &p) || load_point(args[1], &q))
        return NULL;
    ge_p3_to_cached(&c, &q);
    ge_sub(&r, &p, &c);
    ge_p1p1_to_p3(&p, &r);
    return point_obj(&p);
}

static PyObject *py_neg(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    ge_p3 p;
    if (nargs_is(nargs, 1, "neg") || load_point(args[0], &p)) return NULL;
    ge_p3_neg(&p, &p);
    return point_obj(&p);
}

static PyObject *py_mul(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    uint8_t s[32];
    ge_p3 p;
    if (nargs_is(nargs, 2, "mul") || load_scalar(args[0], s) || load_point(args[1], &p))
        return NULL;
    mul_ct(&p, s, &p);
    wipe(s, sizeof s);
    return point_obj(&p);
}

static PyObject *py_mul_base(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    uint8_t s[32];
    ge_p3 p;
    if (nargs_is(nargs, 1, "mul_base") || load_scalar(args[0], s)) return NULL;
    mul_base_ct(&p, s);
    wipe(s, sizeof s);
    return point_obj(&p);
}

static PyObject *py_mul_public(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    uint8_t s[32];
    ge_p3 p;
    ge_cached t[8];
    int8_t naf[257];
    if (nargs_is(nargs, 2, "mul_public") || load_scalar(args[0], s)
        || load_point(args[1], &p))
        return NULL;
    msm_straus(&p, 1, s, &p, t, naf);
    return point_obj(&p);
}

/* the scalars and points of a multi-scalar multiplication, loaded */
typedef struct { size_t n; uint8_t *s; ge_p3 *p; } terms;

static void terms_free(terms *t) {
    if (t->s) wipe(t->s, 32 * t->n);
    PyMem_Free(t->s);
    PyMem_Free(t->p);
}

static int terms_load(terms *t, PyObject *scalars, PyObject *points) {
    t->n = 0; t->s = NULL; t->p = NULL;
    PyObject *fs = PySequence_Fast(scalars, "scalars must be a sequence");
    if (!fs) return -1;
    PyObject *fp = PySequence_Fast(points, "points must be a sequence");
    if (!fp) { Py_DECREF(fs); return -1; }
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fs);
    int rc = -1;
    if (PySequence_Fast_GET_SIZE(fp) != n) {
        PyErr_SetString(PyExc_ValueError, "as many scalars as points are needed");
        goto done;
    }
    t->n = (size_t)n;
    t->s = PyMem_Malloc(32 * (size_t)n + 1);
    t->p = PyMem_Malloc(sizeof(ge_p3) * (size_t)n + 1);
    if (!t->s || !t->p) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t j = 0; j < n; j++) {
        if (load_scalar(PySequence_Fast_GET_ITEM(fs, j), t->s + 32 * j)) goto done;
        if (load_point(PySequence_Fast_GET_ITEM(fp, j), t->p + j)) goto done;
    }
    rc = 0;
done:
    Py_DECREF(fs);
    Py_DECREF(fp);
    if (rc) terms_free(t);
    return rc;
}

/* Straus's sum of the terms, the shared doublings: constant time (4-bit signed windows)
   for secret scalars, else width-5 NAF; -1 when out of memory */
static int straus(ge_p3 *out, const terms *t, int secret) {
    ge_cached *tables = PyMem_Malloc(sizeof(ge_cached) * 8 * t->n + 1);
    int8_t *digits = PyMem_Malloc((secret ? 64 : 257) * t->n + 1);
    if (!tables || !digits) {
        PyMem_Free(tables); PyMem_Free(digits);
        return -1;
    }
    Py_BEGIN_ALLOW_THREADS
    if (secret) msm_ct(out, t->n, t->s, t->p, tables, digits);
    else msm_straus(out, t->n, t->s, t->p, tables, digits);
    Py_END_ALLOW_THREADS
    PyMem_Free(tables); PyMem_Free(digits);
    return 0;
}

static PyObject *py_msm(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    terms t;
    ge_p3 out;
    if (nargs_is(nargs, 2, "msm") || terms_load(&t, args[0], args[1])) return NULL;
    const int c = pippenger_window(t.n);
    if (c) {
        int rc;
        Py_BEGIN_ALLOW_THREADS
        rc = msm_pippenger(&out, t.n, t.s, t.p, c);
        Py_END_ALLOW_THREADS
        if (rc) { terms_free(&t); return PyErr_NoMemory(); }
    } else if (straus(&out, &t, 0)) {
        terms_free(&t);
        return PyErr_NoMemory();
    }
    terms_free(&t);
    return point_obj(&out);
}

static PyObject *py_msm_secret(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    terms t;
    ge_p3 out;
    if (nargs_is(nargs, 2, "msm_secret") || terms_load(&t, args[0], args[1])) return NULL;
    if (straus(&out, &t, 1)) {
        terms_free(&t);
        return PyErr_NoMemory();
    }
    terms_free(&t);
    return point_obj(&out);
}

static PyObject *py_fold(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    uint8_t c[32];
    int8_t naf[257];
    if (nargs_is(nargs, 3, "fold") || load_scalar(args[0], c)) return NULL;
    PyObject *fl = PySequence_Fast(args[1], "left must be a sequence");
    if (!fl) return NULL;
    PyObject *fr = PySequence_Fast(args[2], "right must be a sequence");
    if (!fr) { Py_DECREF(fl); return NULL; }
    PyObject *out = NULL;
    const Py_ssize_t n = PySequence_Fast_GET_SIZE(fl);
    if (PySequence_Fast_GET_SIZE(fr) != n) {
        PyErr_SetString(PyExc_ValueError, "left and right must have the same length");
        goto done;
    }
    const int top = scalar_naf5(naf, c);
    out = PyList_New(n);
    if (!out) goto done;
    for (Py_ssize_t j = 0; j < n; j++) {
        ge_p3 p, q, r;
        if (load_point(PySequence_Fast_GET_ITEM(fl, j), &p)
            || load_point(PySequence_Fast_GET_ITEM(fr, j), &q)) {
            Py_CLEAR(out);
            goto done;
        }
        fold_one(&r, naf, top, &p, &q);
        PyObject *o = point_obj(&r);
        if (!o) { Py_CLEAR(out); goto done; }
        PyList_SET_ITEM(out, j, o);
    }
done:
    Py_DECREF(fl);
    Py_DECREF(fr);
    return out;
}

#define FAST(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_FASTCALL, doc}

static PyMethodDef methods[] = {
    FAST(decode, "decode(b32) -> point; ValueError unless a canonical encoding"),
    FAST(encode, "encode(point) -> the 32-byte canonical encoding"),
    FAST(from_hash, "from_hash(b64) -> point (RFC 9496 4.3.4)"),
    {"identity", py_identity, METH_NOARGS, "identity() -> the identity point"},
    {"base", py_base, METH_NOARGS, "base() -> the base point"},
    FAST(is_identity, "is_identity(point) -> bool"),
    FAST(equal, "equal(p, q) -> bool (RFC 9496 4.5)"),
    FAST(add, "add(p, q) -> p + q"),
    FAST(sub, "sub(p, q) -> p - q"),
    FAST(neg, "neg(p) -> -p"),
    FAST(mul, "mul(s32, p) -> s p, constant time"),
    FAST(mul_base, "mul_base(s32) -> s B, constant time"),
    FAST(mul_public, "mul_public(s32, p) -> s p, variable time"),
    FAST(msm, "msm(scalars, points) -> sum, variable time"),
    FAST(msm_secret, "msm_secret(scalars, points) -> sum, constant time"),
    FAST(fold, "fold(c32, left, right) -> [c left[i] + right[i]], variable time"),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_group",
    "ristretto255 (RFC 9496) with multi-scalar multiplication; see tarneeb.audit.blind.group",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__group(void) {
    base_table_init();
    PyObject *mod = PyModule_Create(&module);
    if (!mod) return NULL;
    if (PyModule_AddIntConstant(mod, "POINT_LEN", (long)POINT_LEN)
        || PyModule_AddIntConstant(mod, "PIPPENGER_FROM", (long)PIPPENGER_FROM)) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
