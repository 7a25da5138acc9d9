/* Field arithmetic modulo p = 2^255 - 19 and the point formulas of edwards25519, for
 * tarneeb.audit.blind._group (included by _group.c alone).
 *
 * A field element is five unsigned 64-bit limbs of 51 bits (radix 2^51); products use
 * unsigned __int128. Every function here runs in constant time: no branch and no memory
 * index depends on the value of a field element.
 *
 * Limb bounds. A reduced element (the output of fe_mul, fe_sq, fe_sub, fe_neg, fe_carry,
 * and every constant) has limbs below 2^51 + 2^17. fe_add does not carry: the sum of two
 * reduced elements has limbs below 2^52 + 2^18 and goes only to fe_mul, fe_sq or
 * fe_carry, or as the subtrahend of fe_sub or fe_neg, whose 4p bias covers limbs up to
 * 2^53 - 76. fe_mul and fe_sq take limbs up to 2^54 without overflow. A point given
 * back by Python is refused unless every limb is below 2^52 (load_point), which these
 * bounds cover too.
 */

#ifndef TARNEEB_GROUP_FIELD_H
#define TARNEEB_GROUP_FIELD_H

#include <stdint.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

typedef struct { uint64_t v[5]; } fe;

/* The field operations are inlined into the point formulas, which stay functions: the
 * compiler's own choice varies from build to build (by a third of a multiplication's
 * time, measured) as the rest of the file changes. */
#if defined(__GNUC__) || defined(__clang__)
#define FE_INLINE static inline __attribute__((always_inline))
#define GE_FUNC static __attribute__((noinline))
#else
#define FE_INLINE static inline
#define GE_FUNC static
#endif

#define MASK51 ((uint64_t)0x7ffffffffffffULL)

static const fe FE_ZERO = {{0, 0, 0, 0, 0}};
static const fe FE_ONE = {{1, 0, 0, 0, 0}};
static const fe FE_TWO = {{2, 0, 0, 0, 0}};
/* d = -121665/121666, 2d, sqrt(-1), and the constants of RFC 9496 section 4.1 */
static const fe FE_D = {{0x34dca135978a3ULL, 0x1a8283b156ebdULL, 0x5e7a26001c029ULL,
                         0x739c663a03cbbULL, 0x52036cee2b6ffULL}};
static const fe FE_D2 = {{0x69b9426b2f159ULL, 0x35050762add7aULL, 0x3cf44c0038052ULL,
                          0x6738cc7407977ULL, 0x2406d9dc56dffULL}};
static const fe FE_SQRTM1 = {{0x61b274a0ea0b0ULL, 0x0d5a5fc8f189dULL, 0x7ef5e9cbd0c60ULL,
                              0x78595a6804c9eULL, 0x2b8324804fc1dULL}};
static const fe FE_INVSQRT_A_MINUS_D = {{0x0fdaa805d40eaULL, 0x2eb482e57d339ULL,
                                         0x007610274bc58ULL, 0x6510b613dc8ffULL,
                                         0x786c8905cfaffULL}};
static const fe FE_SQRT_AD_MINUS_ONE = {{0x7f6a0497b2e1bULL, 0x1836f0a97afd2ULL,
                                         0x7d747f6be7638ULL, 0x456079e7e6498ULL,
                                         0x376931bf2b834ULL}};
static const fe FE_ONE_MINUS_D_SQ = {{0x409c1945fc176ULL, 0x719abc6a1fc4fULL,
                                      0x1c37f90b20684ULL, 0x06bccca55eedfULL,
                                      0x029072a8b2b3eULL}};
static const fe FE_D_MINUS_ONE_SQ = {{0x55aaa44ed4d20ULL, 0x59603c3332635ULL,
                                      0x26d3baf4a7928ULL, 0x120a66e6997a9ULL,
                                      0x5968b37af66c2ULL}};

FE_INLINE void fe_add(fe *h, const fe *f, const fe *g) {
    for (int i = 0; i < 5; i++) h->v[i] = f->v[i] + g->v[i];
}

FE_INLINE void fe_carry(fe *h) {
    uint64_t c;
    c = h->v[0] >> 51; h->v[0] &= MASK51; h->v[1] += c;
    c = h->v[1] >> 51; h->v[1] &= MASK51; h->v[2] += c;
    c = h->v[2] >> 51; h->v[2] &= MASK51; h->v[3] += c;
    c = h->v[3] >> 51; h->v[3] &= MASK51; h->v[4] += c;
    c = h->v[4] >> 51; h->v[4] &= MASK51; h->v[0] += c * 19;
}

/* h = f - g, computed as f + 4p - g and carried */
FE_INLINE void fe_sub(fe *h, const fe *f, const fe *g) {
    h->v[0] = (f->v[0] + 0x1fffffffffffb4ULL) - g->v[0];
    h->v[1] = (f->v[1] + 0x1ffffffffffffcULL) - g->v[1];
    h->v[2] = (f->v[2] + 0x1ffffffffffffcULL) - g->v[2];
    h->v[3] = (f->v[3] + 0x1ffffffffffffcULL) - g->v[3];
    h->v[4] = (f->v[4] + 0x1ffffffffffffcULL) - g->v[4];
    fe_carry(h);
}

FE_INLINE void fe_neg(fe *h, const fe *f) { fe_sub(h, &FE_ZERO, f); }

FE_INLINE void fe_mul(fe *h, const fe *f, const fe *g) {
    const uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
    const uint64_t g0 = g->v[0], g1 = g->v[1], g2 = g->v[2], g3 = g->v[3], g4 = g->v[4];
    const uint64_t g1_19 = g1 * 19, g2_19 = g2 * 19, g3_19 = g3 * 19, g4_19 = g4 * 19;
    u128 r0 = (u128)f0 * g0 + (u128)f1 * g4_19 + (u128)f2 * g3_19 + (u128)f3 * g2_19
              + (u128)f4 * g1_19;
    u128 r1 = (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4_19 + (u128)f3 * g3_19
              + (u128)f4 * g2_19;
    u128 r2 = (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4_19
              + (u128)f4 * g3_19;
    u128 r3 = (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0
              + (u128)f4 * g4_19;
    u128 r4 = (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1
              + (u128)f4 * g0;
    uint64_t c;
    r1 += (uint64_t)(r0 >> 51); c = (uint64_t)r0 & MASK51;
    h->v[0] = c;
    r2 += (uint64_t)(r1 >> 51); h->v[1] = (uint64_t)r1 & MASK51;
    r3 += (uint64_t)(r2 >> 51); h->v[2] = (uint64_t)r2 & MASK51;
    r4 += (uint64_t)(r3 >> 51); h->v[3] = (uint64_t)r3 & MASK51;
    c = (uint64_t)(r4 >> 51); h->v[4] = (uint64_t)r4 & MASK51;
    h->v[0] += c * 19;
    h->v[1] += h->v[0] >> 51; h->v[0] &= MASK51;
}

FE_INLINE void fe_sq(fe *h, const fe *f) {
    const uint64_t f0 = f->v[0], f1 = f->v[1], f2 = f->v[2], f3 = f->v[3], f4 = f->v[4];
    const uint64_t f0_2 = f0 * 2, f1_2 = f1 * 2;
    const uint64_t f1_38 = f1 * 38, f2_38 = f2 * 38, f3_38 = f3 * 38;
    const uint64_t f3_19 = f3 * 19, f4_19 = f4 * 19;
    u128 r0 = (u128)f0 * f0 + (u128)f1_38 * f4 + (u128)f2_38 * f3;
    u128 r1 = (u128)f0_2 * f1 + (u128)f2_38 * f4 + (u128)f3_19 * f3;
    u128 r2 = (u128)f0_2 * f2 + (u128)f1 * f1 + (u128)f3_38 * f4;
    u128 r3 = (u128)f0_2 * f3 + (u128)f1_2 * f2 + (u128)f4_19 * f4;
    u128 r4 = (u128)f0_2 * f4 + (u128)f1_2 * f3 + (u128)f2 * f2;
    uint64_t c;
    r1 += (uint64_t)(r0 >> 51); h->v[0] = (uint64_t)r0 & MASK51;
    r2 += (uint64_t)(r1 >> 51); h->v[1] = (uint64_t)r1 & MASK51;
    r3 += (uint64_t)(r2 >> 51); h->v[2] = (uint64_t)r2 & MASK51;
    r4 += (uint64_t)(r3 >> 51); h->v[3] = (uint64_t)r3 & MASK51;
    c = (uint64_t)(r4 >> 51); h->v[4] = (uint64_t)r4 & MASK51;
    h->v[0] += c * 19;
    h->v[1] += h->v[0] >> 51; h->v[0] &= MASK51;
}

static inline void fe_sqn(fe *h, const fe *f, int n) {
    fe_sq(h, f);
    for (int i = 1; i < n; i++) fe_sq(h, h);
}

/* The canonical 32-byte little-endian encoding (the value fully reduced mod p). */
static void fe_tobytes(uint8_t s[32], const fe *f) {
    uint64_t t[5];
    memcpy(t, f->v, sizeof t);
    for (int pass = 0; pass < 2; pass++) {
        t[1] += t[0] >> 51; t[0] &= MASK51;
        t[2] += t[1] >> 51; t[1] &= MASK51;
        t[3] += t[2] >> 51; t[2] &= MASK51;
        t[4] += t[3] >> 51; t[3] &= MASK51;
        t[0] += 19 * (t[4] >> 51); t[4] &= MASK51;
    }
    /* now 0 <= t < 2^255 with every limb below 2^51; subtract p if t >= p */
    t[0] += 19;
    t[1] += t[0] >> 51; t[0] &= MASK51;
    t[2] += t[1] >> 51; t[1] &= MASK51;
    t[3] += t[2] >> 51; t[2] &= MASK51;
    t[4] += t[3] >> 51; t[3] &= MASK51;
    t[0] += 19 * (t[4] >> 51); t[4] &= MASK51;
    /* t + 19 (mod 2^255) is in [19, 2^255); add 2^255 - 19 and drop bit 255 */
    t[0] += 0x8000000000000ULL - 19;
    t[1] += 0x8000000000000ULL - 1;
    t[2] += 0x8000000000000ULL - 1;
    t[3] += 0x8000000000000ULL - 1;
    t[4] += 0x8000000000000ULL - 1;
    t[1] += t[0] >> 51; t[0] &= MASK51;
    t[2] += t[1] >> 51; t[1] &= MASK51;
    t[3] += t[2] >> 51; t[2] &= MASK51;
    t[4] += t[3] >> 51; t[3] &= MASK51;
    t[4] &= MASK51;
    uint64_t w[4];
    w[0] = t[0] | (t[1] << 51);
    w[1] = (t[1] >> 13) | (t[2] << 38);
    w[2] = (t[2] >> 26) | (t[3] << 25);
    w[3] = (t[3] >> 39) | (t[4] << 12);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) s[8 * i + j] = (uint8_t)(w[i] >> (8 * j));
}

/* The element of 32 little-endian bytes, bit 255 ignored (the value may be >= p). */
static void fe_frombytes(fe *h, const uint8_t s[32]) {
    uint64_t w[4];
    for (int i = 0; i < 4; i++) {
        w[i] = 0;
        for (int j = 0; j < 8; j++) w[i] |= (uint64_t)s[8 * i + j] << (8 * j);
    }
    h->v[0] = w[0] & MASK51;
    h->v[1] = ((w[0] >> 51) | (w[1] << 13)) & MASK51;
    h->v[2] = ((w[1] >> 38) | (w[2] << 26)) & MASK51;
    h->v[3] = ((w[2] >> 25) | (w[3] << 39)) & MASK51;
    h->v[4] = (w[3] >> 12) & MASK51;
}

/* 1 when f is negative (its canonical encoding is odd), else 0 */
static inline int fe_isnegative(const fe *f) {
    uint8_t s[32];
    fe_tobytes(s, f);
    return s[0] & 1;
}

/* 1 when f == 0 (mod p), else 0 */
static inline int fe_iszero(const fe *f) {
    uint8_t s[32];
    uint8_t acc = 0;
    fe_tobytes(s, f);
    for (int i = 0; i < 32; i++) acc |= s[i];
    return (int)(((uint32_t)acc - 1) >> 31);
}

/* 1 when f == g (mod p), else 0 */
static inline int fe_equal(const fe *f, const fe *g) {
    fe d;
    fe_sub(&d, f, g);
    return fe_iszero(&d);
}

/* f = g when b == 1, unchanged when b == 0 */
FE_INLINE void fe_cmov(fe *f, const fe *g, uint64_t b) {
    const uint64_t m = (uint64_t)0 - b;
    for (int i = 0; i < 5; i++) f->v[i] ^= m & (f->v[i] ^ g->v[i]);
}

/* f = -f when b == 1 */
FE_INLINE void fe_cneg(fe *f, uint64_t b) {
    fe n;
    fe_neg(&n, f);
    fe_cmov(f, &n, b);
}

/* |f|: f or -f, whichever is non-negative */
static inline void fe_abs(fe *h, const fe *f) {
    *h = *f;
    fe_cneg(h, (uint64_t)fe_isnegative(f));
}

/* z^((p-5)/8) = z^(2^252 - 3) */
static void fe_pow22523(fe *out, const fe *z) {
    fe t0, t1, t2;
    fe_sq(&t0, z);
    fe_sqn(&t1, &t0, 2);
    fe_mul(&t1, z, &t1);
    fe_mul(&t0, &t0, &t1);
    fe_sq(&t0, &t0);
    fe_mul(&t0, &t1, &t0);           /* 2^5 - 1 */
    fe_sqn(&t1, &t0, 5);
    fe_mul(&t0, &t1, &t0);           /* 2^10 - 1 */
    fe_sqn(&t1, &t0, 10);
    fe_mul(&t1, &t1, &t0);           /* 2^20 - 1 */
    fe_sqn(&t2, &t1, 20);
    fe_mul(&t1, &t2, &t1);           /* 2^40 - 1 */
    fe_sqn(&t1, &t1, 10);
    fe_mul(&t0, &t1, &t0);           /* 2^50 - 1 */
    fe_sqn(&t1, &t0, 50);
    fe_mul(&t1, &t1, &t0);           /* 2^100 - 1 */
    fe_sqn(&t2, &t1, 100);
    fe_mul(&t1, &t2, &t1);           /* 2^200 - 1 */
    fe_sqn(&t1, &t1, 50);
    fe_mul(&t0, &t1, &t0);           /* 2^250 - 1 */
    fe_sqn(&t0, &t0, 2);             /* 2^252 - 4 */
    fe_mul(out, &t0, z);             /* 2^252 - 3 */
}

/* SQRT_RATIO_M1(u, v) of RFC 9496 section 4.2: r = sqrt(u/v) or sqrt(i*u/v), non-negative;
 * returns 1 when u/v is a square (was_square), else 0. */
static int fe_sqrt_ratio_m1(fe *r_out, const fe *u, const fe *v) {
    fe v3, v7, r, check, t, neg_u, neg_u_i, r_prime;
    fe_sq(&v3, v);
    fe_mul(&v3, &v3, v);             /* v^3 */
    fe_sq(&v7, &v3);
    fe_mul(&v7, &v7, v);             /* v^7 */
    fe_mul(&t, u, &v7);
    fe_pow22523(&t, &t);             /* (u v^7)^((p-5)/8) */
    fe_mul(&r, u, &v3);
    fe_mul(&r, &r, &t);
    fe_sq(&check, &r);
    fe_mul(&check, &check, v);
    fe_neg(&neg_u, u);
    fe_mul(&neg_u_i, &neg_u, &FE_SQRTM1);
    const int correct = fe_equal(&check, u);
    const int flipped = fe_equal(&check, &neg_u);
    const int flipped_i = fe_equal(&check, &neg_u_i);
    fe_mul(&r_prime, &r, &FE_SQRTM1);
    fe_cmov(&r, &r_prime, (uint64_t)(flipped | flipped_i));
    fe_abs(r_out, &r);
    return correct | flipped;
}

/* ------------------------------------------------------------------ points -- */

/* extended coordinates: x = X/Z, y = Y/Z, x*y = T/Z */
typedef struct { fe X, Y, Z, T; } ge_p3;
/* projective: X, Y, Z only (the input of a doubling) */
typedef struct { fe X, Y, Z; } ge_p2;
/* completed: X = E*F, Y = G*H, Z = F*G, T = E*H */
typedef struct { fe E, F, G, H; } ge_p1p1;
/* an addend: Y+X, Y-X, 2Z, 2dT */
typedef struct { fe YplusX, YminusX, Z2, T2d; } ge_cached;

static void ge_p3_identity(ge_p3 *p) {
    p->X = FE_ZERO; p->Y = FE_ONE; p->Z = FE_ONE; p->T = FE_ZERO;
}

static void ge_cached_identity(ge_cached *c) {
    c->YplusX = FE_ONE; c->YminusX = FE_ONE; c->Z2 = FE_TWO; c->T2d = FE_ZERO;
}

GE_FUNC void ge_p1p1_to_p3(ge_p3 *r, const ge_p1p1 *p) {
    fe_mul(&r->X, &p->E, &p->F);
    fe_mul(&r->Y, &p->G, &p->H);
    fe_mul(&r->Z, &p->F, &p->G);
    fe_mul(&r->T, &p->E, &p->H);
}

GE_FUNC void ge_p1p1_to_p2(ge_p2 *r, const ge_p1p1 *p) {
    fe_mul(&r->X, &p->E, &p->F);
    fe_mul(&r->Y, &p->G, &p->H);
    fe_mul(&r->Z, &p->F, &p->G);
}

static inline void ge_p3_to_p2(ge_p2 *r, const ge_p3 *p) {
    r->X = p->X; r->Y = p->Y; r->Z = p->Z;
}

GE_FUNC void ge_p3_to_cached(ge_cached *c, const ge_p3 *p) {
    fe_add(&c->YplusX, &p->Y, &p->X);
    fe_carry(&c->YplusX);
    fe_sub(&c->YminusX, &p->Y, &p->X);
    fe_add(&c->Z2, &p->Z, &p->Z);
    fe_carry(&c->Z2);
    fe_mul(&c->T2d, &p->T, &FE_D2);
}

/* dbl-2008-hwcd with a = -1 */
GE_FUNC void ge_p2_dbl(ge_p1p1 *r, const ge_p2 *p) {
    fe A, B, C, s;
    fe_sq(&A, &p->X);
    fe_sq(&B, &p->Y);
    fe_sq(&C, &p->Z);
    fe_add(&C, &C, &C);              /* 2 Z^2 */
    fe_add(&s, &p->X, &p->Y);
    fe_sq(&s, &s);                   /* (X+Y)^2 */
    fe_add(&r->H, &A, &B);           /* A + B */
    fe_sub(&r->E, &s, &r->H);        /* E = (X+Y)^2 - A - B */
    fe_sub(&r->G, &B, &A);           /* G = -A + B */
    fe_sub(&r->F, &r->G, &C);        /* F = G - C */
    fe_neg(&r->H, &r->H);            /* H = -A - B */
}

static inline void ge_p3_dbl(ge_p1p1 *r, const ge_p3 *p) {
    ge_p2 q;
    ge_p3_to_p2(&q, p);
    ge_p2_dbl(r, &q);
}

/* add-2008-hwcd-3 with a = -1, k = 2d: r = p + q */
GE_FUNC void ge_add(ge_p1p1 *r, const ge_p3 *p, const ge_cached *q) {
    fe A, B, C, D, t;
    fe_sub(&t, &p->Y, &p->X);
    fe_mul(&A, &t, &q->YminusX);
    fe_add(&t, &p->Y, &p->X);
    fe_mul(&B, &t, &q->YplusX);
    fe_mul(&C, &p->T, &q->T2d);
    fe_mul(&D, &p->Z, &q->Z2);
    fe_sub(&r->E, &B, &A);
    fe_sub(&r->F, &D, &C);
    fe_add(&r->G, &D, &C);
    fe_add(&r->H, &B, &A);
}

/* r = p - q */
GE_FUNC void ge_sub(ge_p1p1 *r, const ge_p3 *p, const ge_cached *q) {
    fe A, B, C, D, t;
    fe_sub(&t, &p->Y, &p->X);
    fe_mul(&A, &t, &q->YplusX);
    fe_add(&t, &p->Y, &p->X);
    fe_mul(&B, &t, &q->YminusX);
    fe_mul(&C, &p->T, &q->T2d);
    fe_mul(&D, &p->Z, &q->Z2);
    fe_sub(&r->E, &B, &A);
    fe_add(&r->F, &D, &C);
    fe_sub(&r->G, &D, &C);
    fe_add(&r->H, &B, &A);
}

/* c = -c when b == 1 (constant time) */
static inline void ge_cached_cneg(ge_cached *c, uint64_t b) {
    fe t = c->YplusX;
    fe_cmov(&c->YplusX, &c->YminusX, b);
    fe_cmov(&c->YminusX, &t, b);
    fe_cneg(&c->T2d, b);
}

static inline void ge_cached_cmov(ge_cached *c, const ge_cached *d, uint64_t b) {
    fe_cmov(&c->YplusX, &d->YplusX, b);
    fe_cmov(&c->YminusX, &d->YminusX, b);
    fe_cmov(&c->Z2, &d->Z2, b);
    fe_cmov(&c->T2d, &d->T2d, b);
}

static inline void ge_p3_neg(ge_p3 *r, const ge_p3 *p) {
    fe_neg(&r->X, &p->X);
    r->Y = p->Y;
    r->Z = p->Z;
    fe_neg(&r->T, &p->T);
}

#endif
