/* The compiled core: a log's hands in their common form, replayed and compared with
 * their claims, in C.
 *
 * It reads what replay/log/fastread.py reads (a deal record of six bytes, a run of
 * plain moves, a claims record in canonical form, hand after hand), derives each deal
 * from the two HMAC-SHA256 blocks that Python's hashlib gives (the HMAC itself is never
 * computed here: the caller's keyed hashlib objects are called), shuffles as
 * audit/derive.py does, and judges the calls, the 52 cards, the scores, the totals and
 * the winner as replay/rules/fastplay.py and the engine do. It gives either everything
 * the claims say, confirmed, or None at the first thing out of the ordinary: the Python
 * path then replays the log and says what is wrong. It never makes a finding.
 *
 * Every read of the log is checked against its length; nothing here allocates per
 * byte of input beyond the output buffer, whose size is fixed per hand.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#define MAX_STEPS 16

typedef struct {
    int trump_rule; /* 0 revealed_mate, 1 fixed, 2 named */
    int fixed_trump;
    int auction; /* 0 personal bids, 1 classic auction */
    int min_bid, auction_min, ends_on_13;
    int n_bid_steps;
    long long bid_steps[MAX_STEPS][2];
    int min_total, n_total_steps;
    long long total_steps[MAX_STEPS][2];
    int team_scoring;
    int values[12], has_high;
    long long values_high_from;
    int values_high[12];
    int all_tricks_value, kaboot_made_value, kaboot_failed_value;
    int defenders_all_tricks_value, kaboot_defenders_factor, kaboot_defenders_all_value;
    long long target, partner_min;
    int made_13_wins;
} Rules;

/* the rules as the flat tuple of ints replay/verify/compiled.py makes of a RuleSet; every
 * value is checked to fit the field it goes to (an int field takes -2^31 < x < 2^31, a
 * long long one what Python's int gives), so no value is narrowed without a word */
static int read_rules(PyObject *t, Rules *r) {
    Py_ssize_t n = PyTuple_Size(t), k = 0;
    if (n < 0) return -1;
#define NEXT_LL(dst) do { \
        if (k >= n) { PyErr_SetString(PyExc_ValueError, "rules tuple too short"); return -1; } \
        long long x_ = PyLong_AsLongLong(PyTuple_GET_ITEM(t, k)); k++; \
        if (x_ == -1 && PyErr_Occurred()) return -1; \
        (dst) = x_; } while (0)
#define NEXT(dst) do { \
        long long y_; NEXT_LL(y_); \
        if (y_ <= INT_MIN || y_ >= INT_MAX) goto range; \
        (dst) = (int)y_; } while (0)
    NEXT(r->trump_rule);
    NEXT(r->fixed_trump);
    NEXT(r->auction);
    NEXT(r->min_bid);
    NEXT(r->auction_min);
    NEXT(r->ends_on_13);
    NEXT(r->n_bid_steps);
    if (r->n_bid_steps < 0 || r->n_bid_steps > MAX_STEPS) goto bad;
    for (int i = 0; i < r->n_bid_steps; i++) { NEXT_LL(r->bid_steps[i][0]); NEXT_LL(r->bid_steps[i][1]); }
    NEXT(r->min_total);
    NEXT(r->n_total_steps);
    if (r->n_total_steps < 0 || r->n_total_steps > MAX_STEPS) goto bad;
    for (int i = 0; i < r->n_total_steps; i++) { NEXT_LL(r->total_steps[i][0]); NEXT_LL(r->total_steps[i][1]); }
    NEXT(r->team_scoring);
    for (int i = 0; i < 12; i++) NEXT(r->values[i]);
    NEXT(r->has_high);
    NEXT_LL(r->values_high_from);
    for (int i = 0; i < 12; i++) NEXT(r->values_high[i]);
    NEXT(r->all_tricks_value);
    NEXT(r->kaboot_made_value);
    NEXT(r->kaboot_failed_value);
    NEXT(r->defenders_all_tricks_value);
    NEXT(r->kaboot_defenders_factor);
    NEXT(r->kaboot_defenders_all_value);
    NEXT_LL(r->target);
    NEXT_LL(r->partner_min);
    NEXT(r->made_13_wins);
    if (k != n) goto bad;
    if (r->trump_rule < 0 || r->trump_rule > 2 || r->fixed_trump < 0 || r->fixed_trump > 3)
        goto bad;
    return 0;
#undef NEXT
#undef NEXT_LL
bad:
    PyErr_SetString(PyExc_ValueError, "rules tuple out of shape");
    return -1;
range:
    PyErr_Format(PyExc_ValueError, "rules tuple: value %zd out of the range of its field",
                 k - 1);
    return -1;
}

/* ------------------------------------------------------------------ reading */

/* One hand in the common form, as fastread's _WHOLE_HAND matches it. */
typedef struct {
    Py_ssize_t at;           /* where its deal record starts */
    long number;
    int dealer, revealed;    /* revealed: -1 for nil */
    Py_ssize_t calls_at, n_calls;
    int trump_move;          /* -1: none */
    Py_ssize_t plays_at, n_plays;
    int cancelled_form;      /* the claims' trump, tricks and scores are nil */
    int claim_trump;         /* -1: nil */
    int tricks[4];
    long long scores[4], totals[4];
} HandIn;

/* a canonical int of a claims record (fastread's _INT): fixints, uint8 from 128,
 * uint16 from 256, int8 below -32, int16 below -128 */
static int read_int(const unsigned char *d, Py_ssize_t len, Py_ssize_t *p, long long *out) {
    Py_ssize_t i = *p;
    if (i >= len) return 0;
    unsigned b = d[i];
    if (b <= 0x7f) { *out = b; *p = i + 1; return 1; }
    if (b >= 0xe0) { *out = (long long)b - 256; *p = i + 1; return 1; }
    if (b == 0xcc) {
        if (i + 1 >= len || d[i + 1] < 0x80) return 0;
        *out = d[i + 1]; *p = i + 2; return 1;
    }
    if (b == 0xcd) {
        if (i + 2 >= len || d[i + 1] < 0x01) return 0;
        *out = (long long)d[i + 1] << 8 | d[i + 2]; *p = i + 3; return 1;
    }
    if (b == 0xd0) {
        if (i + 1 >= len || d[i + 1] < 0x80 || d[i + 1] > 0xdf) return 0;
        *out = (long long)d[i + 1] - 256; *p = i + 2; return 1;
    }
    if (b == 0xd1) {
        if (i + 2 >= len) return 0;
        unsigned hi = d[i + 1], lo = d[i + 2];
        if (!((hi >= 0x80 && hi <= 0xfe) || (hi == 0xff && lo <= 0x7f))) return 0;
        *out = (long long)((hi << 8) | lo) - 65536; *p = i + 3; return 1;
    }
    return 0;
}

/* Reads one hand at *p; 1 and *p past it, or 0 (not a hand in the common form). */
static int read_hand(const unsigned char *d, Py_ssize_t len, Py_ssize_t *p, HandIn *h) {
    Py_ssize_t i = *p;
    h->at = i;
    if (i + 2 > len || d[i] != 0x95 || d[i + 1] != 0x01) return 0;
    i += 2;
    if (i >= len) return 0;
    unsigned b = d[i];
    if (b <= 0x7f) { h->number = b; i += 1; }
    else if (b == 0xcc) {
        if (i + 1 >= len || d[i + 1] < 0x80) return 0;
        h->number = d[i + 1]; i += 2;
    } else if (b == 0xcd) {
        if (i + 2 >= len || d[i + 1] < 0x01) return 0;
        h->number = (long)d[i + 1] << 8 | d[i + 2]; i += 3;
    } else return 0;
    if (i + 3 > len) return 0;
    if (d[i] > 3) return 0;
    h->dealer = d[i];
    if (d[i + 1] <= 0x33) h->revealed = d[i + 1];
    else if (d[i + 1] == 0xc0) h->revealed = -1;
    else return 0;
    if (d[i + 2] != 0xc0) return 0; /* a recorded deal: the careful path */
    i += 3;
    h->calls_at = i;
    while (i < len && d[i] >= 0x40 && d[i] <= 0x7f) {
        if ((d[i] & 15) == 14) return 0;
        i++;
    }
    h->n_calls = i - h->calls_at;
    if (h->n_calls > 64) return 0;
    h->trump_move = -1;
    if (i < len && d[i] >= 0x38 && d[i] <= 0x3b) { h->trump_move = d[i] - 0x38; i++; }
    h->plays_at = i;
    while (i < len && d[i] >= 0x01 && d[i] <= 0x34) i++;
    h->n_plays = i - h->plays_at;
    if (h->n_plays > 52) return 0;
    /* the claims record */
    if (i + 3 > len || d[i] != 0x95 || d[i + 1] != 0x04) return 0;
    i += 2;
    if (d[i] == 0xc0 && i + 2 < len && d[i + 1] == 0xc0 && d[i + 2] == 0xc0) {
        h->cancelled_form = 1;
        h->claim_trump = -1;
        i += 3;
    } else {
        h->cancelled_form = 0;
        if (d[i] <= 3) h->claim_trump = d[i];
        else if (d[i] == 0xc0) h->claim_trump = -1;
        else return 0;
        i += 1;
        if (i + 5 > len || d[i] != 0x94) return 0;
        for (int s = 0; s < 4; s++) {
            if (d[i + 1 + s] > 13) return 0;
            h->tricks[s] = d[i + 1 + s];
        }
        i += 5;
        if (i >= len || d[i] != 0x94) return 0;
        i++;
        for (int s = 0; s < 4; s++)
            if (!read_int(d, len, &i, &h->scores[s])) return 0;
    }
    if (i >= len || d[i] != 0x94) return 0;
    i++;
    for (int s = 0; s < 4; s++)
        if (!read_int(d, len, &i, &h->totals[s])) return 0;
    *p = i;
    return 1;
}

/* scan(data, start, most) -> (end, count): where the run of common-form hands from
 * ``start`` stops and how many there are; None past ``most`` hands. */
static PyObject *core_scan(PyObject *self, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t start, most;
    if (!PyArg_ParseTuple(args, "y*nn", &buf, &start, &most)) return NULL;
    const unsigned char *d = buf.buf;
    Py_ssize_t len = buf.len, p = start, count = 0;
    HandIn h;
    if (start < 0 || start > len) { PyBuffer_Release(&buf); Py_RETURN_NONE; }
    while (read_hand(d, len, &p, &h)) {
        count++;
        if (count > most) { PyBuffer_Release(&buf); Py_RETURN_NONE; }
    }
    PyBuffer_Release(&buf);
    return Py_BuildValue("nn", p, count);
}

/* ------------------------------------------------------------------ the deal */

/* the names of hashlib's methods, interned once */
static PyObject *s_copy, *s_update, *s_digest;

static PyObject *call0(PyObject *obj, PyObject *name) {
    PyObject *args[1] = {obj};
    return PyObject_VectorcallMethod(name, args, 1 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *call1(PyObject *obj, PyObject *name, PyObject *arg) {
    PyObject *args[2] = {obj, arg};
    return PyObject_VectorcallMethod(name, args, 2 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* block ``counter`` of deal ``number``'s HMAC stream, by the caller's hashlib objects:
 * inner has hashed key ^ ipad and the message's constant part, outer key ^ opad */
static int hmac_block(PyObject *inner, PyObject *outer, unsigned long number,
                      unsigned long counter, unsigned char out[32]) {
    unsigned char tail[8] = {
        (unsigned char)(number >> 24), (unsigned char)(number >> 16),
        (unsigned char)(number >> 8), (unsigned char)number,
        (unsigned char)(counter >> 24), (unsigned char)(counter >> 16),
        (unsigned char)(counter >> 8), (unsigned char)counter};
    int ok = -1;
    PyObject *i = NULL, *o = NULL, *r = NULL, *dig = NULL, *t = NULL;
    i = call0(inner, s_copy);
    if (!i) goto done;
    t = PyBytes_FromStringAndSize((const char *)tail, 8);
    if (!t) goto done;
    r = call1(i, s_update, t);
    if (!r) goto done;
    Py_CLEAR(r);
    dig = call0(i, s_digest);
    if (!dig) goto done;
    o = call0(outer, s_copy);
    if (!o) goto done;
    r = call1(o, s_update, dig);
    if (!r) goto done;
    Py_CLEAR(r);
    Py_CLEAR(dig);
    dig = call0(o, s_digest);
    if (!dig) goto done;
    if (!PyBytes_Check(dig) || PyBytes_GET_SIZE(dig) != 32) {
        PyErr_SetString(PyExc_ValueError, "the HMAC block is not 32 bytes");
        goto done;
    }
    memcpy(out, PyBytes_AS_STRING(dig), 32);
    ok = 0;
done:
    Py_XDECREF(i); Py_XDECREF(o); Py_XDECREF(r); Py_XDECREF(dig); Py_XDECREF(t);
    return ok;
}

/* Fisher-Yates from the top over 64 bytes of the stream, rejection sampled as
 * audit/derive.py does (a byte is accepted below the largest multiple of i + 1 not
 * above 256); 1 when the two blocks were enough, 0 when the rare deal needs more
 * (the Python path takes it). */
static int shuffle52(const unsigned char stream[64], unsigned char deck[52]) {
    int k = 0;
    for (int c = 0; c < 52; c++) deck[c] = (unsigned char)c;
    for (int i = 51; i >= 1; i--) {
        int bound = i + 1, limit = 256 - 256 % bound, j;
        for (;;) {
            if (k >= 64) return 0;
            int b = stream[k++];
            if (b < limit) { j = b % bound; break; }
        }
        unsigned char x = deck[i]; deck[i] = deck[j]; deck[j] = (unsigned char)x;
    }
    return 1;
}

/* ------------------------------------------------------------------ the rules */

static int lowest_bid(const Rules *r, long long own) {
    long long low = r->min_bid;
    for (int i = 0; i < r->n_bid_steps; i++)
        if (own >= r->bid_steps[i][0] && r->bid_steps[i][1] > low) low = r->bid_steps[i][1];
    return (int)low;
}

static long long lowest_total(const Rules *r, long long highest) {
    long long low = r->min_total;
    for (int i = 0; i < r->n_total_steps; i++)
        if (highest >= r->total_steps[i][0] && r->total_steps[i][1] > low)
            low = r->total_steps[i][1];
    return low;
}

static int bid_value(const Rules *r, int bid, long long own) {
    const int *table = (r->has_high && own >= r->values_high_from) ? r->values_high : r->values;
    return table[bid - 2]; /* 2 <= bid <= 13: the caller covers min_bid >= 2 only */
}

/* the winner of a trick of four cards led by ``seat`` under ``trump`` (-1: none) */
static int trick_winner(const unsigned char c[4], int seat, int trump) {
    int best = c[0], bs = c[0] / 13, w = 0;
    for (int k = 1; k < 4; k++) {
        int u = c[k] / 13;
        if (u == bs) { if (c[k] > best) { best = c[k]; w = k; } }
        else if (u == trump) { best = c[k]; bs = u; w = k; }
    }
    return (seat + w) & 3;
}

/* the team that has won on the totals (-1: none yet; -2: both teams qualify, which
 * the tie chain decides: left to the Python path) */
static int totals_winner(const Rules *r, const long long t[4]) {
    long long hi = t[0];
    for (int s = 1; s < 4; s++) if (t[s] > hi) hi = t[s];
    if (hi < r->target) return -1;
    int reached[2] = {0, 0};
    if (r->team_scoring) {
        for (int s = 0; s < 2; s++) if (t[s] >= r->target) reached[s] = 1;
    } else {
        for (int p = 0; p < 4; p++)
            if (t[p] >= r->target && t[p ^ 2] >= r->partner_min) reached[p & 1] = 1;
    }
    if (reached[0] && reached[1]) return -2;
    if (reached[0]) return 0;
    if (reached[1]) return 1;
    return -1;
}

static void put32(unsigned char *o, uint32_t x) {
    o[0] = x; o[1] = x >> 8; o[2] = x >> 16; o[3] = x >> 24;
}

static void put64(unsigned char *o, long long v) {
    uint64_t x = (uint64_t)v;
    for (int k = 0; k < 8; k++) o[k] = (unsigned char)(x >> (8 * k));
}

/* one hand out: see OUT_FORMAT in replay/verify/compiled.py */
#define OUT_SIZE (4 + 4 + 4 + 8 + 52 + 13 + 4 + 16 + 32)

/* replay(data, start, count, rules, first_dealer, inner, outer) -> (played, winner,
 * hands) or None: the ``count`` hands from ``start`` (as scan found them) replayed
 * from the seeds' deals, every claim confirmed; ``hands`` the OUT_SIZE bytes of each. */
static PyObject *core_replay(PyObject *self, PyObject *args) {
    Py_buffer buf;
    Py_ssize_t start, count;
    PyObject *rules_t, *inner, *outer;
    int first_dealer;
    if (!PyArg_ParseTuple(args, "y*nnO!iOO", &buf, &start, &count, &PyTuple_Type, &rules_t,
                          &first_dealer, &inner, &outer))
        return NULL;
    Rules r;
    PyObject *result = NULL, *out = NULL;
    if (read_rules(rules_t, &r) < 0) goto fail;
    if (first_dealer < 0 || first_dealer > 3 || start < 0 || start > buf.len || count < 0
        || count > buf.len) {
        PyErr_SetString(PyExc_ValueError, "replay: arguments out of range");
        goto fail;
    }
    out = PyBytes_FromStringAndSize(NULL, count * OUT_SIZE);
    if (!out) goto fail;
    unsigned char *o = (unsigned char *)PyBytes_AS_STRING(out);
    const unsigned char *d = buf.buf;
    Py_ssize_t len = buf.len, p = start;
    long long totals[4] = {0, 0, 0, 0};
    int dealer = first_dealer, winner = -1, played = 0;
    for (Py_ssize_t n = 0; n < count; n++, o += OUT_SIZE) {
        HandIn h;
        if (winner >= 0) goto uncovered; /* played after the win */
        if (!read_hand(d, len, &p, &h)) goto uncovered;
        if (h.number != n || h.dealer != dealer) goto uncovered;
        /* the claims' trump and the trump move, as fastread reads them */
        int named = r.trump_rule == 2;
        if (h.trump_move >= 0 && !named) goto uncovered;
        int claimed = h.claim_trump;
        if (claimed < 0) claimed = h.trump_move;
        else if (named) goto uncovered;
        /* the deal */
        unsigned char stream[64], deck[52], owner[52];
        if (hmac_block(inner, outer, (unsigned long)n, 0, stream) < 0) goto fail;
        if (hmac_block(inner, outer, (unsigned long)n, 1, stream + 32) < 0) goto fail;
        if (!shuffle52(stream, deck)) goto uncovered;
        int thirteenth = deck[51];
        int reveals = r.trump_rule == 0;
        if (h.revealed != (reveals ? thirteenth : -1)) goto uncovered;
        for (int q = 0; q < 52; q++) owner[deck[q]] = (unsigned char)((dealer + 1 + q) & 3);
        int deal_trump = r.trump_rule == 0 ? 3 - thirteenth / 13
                         : r.trump_rule == 1 ? r.fixed_trump : -1;
        /* the calls */
        const unsigned char *calls = d + h.calls_at;
        int declarer = -1, contract = -1, leader, cancelled = 0;
        int bids[4] = {0, 0, 0, 0};
        if (!r.auction) {
            if (h.n_calls != 4) goto uncovered;
            int seat = (dealer + 1) & 3, sum = 0;
            long long hi = totals[0];
            for (int s = 1; s < 4; s++) if (totals[s] > hi) hi = totals[s];
            for (int k = 0; k < 4; k++) {
                int cs = (calls[k] - 64) >> 4, v = (calls[k] - 64) & 15;
                if (cs != seat || v > 13 || v < lowest_bid(&r, totals[cs])) goto uncovered;
                bids[cs] = v;
                sum += v;
                seat = (seat + 1) & 3;
            }
            if (sum < lowest_total(&r, hi)) cancelled = 1;
            leader = (dealer + 1) & 3;
        } else {
            int passed[4] = {0, 0, 0, 0}, high = 0, n_passed = 0, done = 0;
            int seat = (dealer + 1) & 3;
            for (Py_ssize_t k = 0; k < h.n_calls; k++) {
                int cs = (calls[k] - 64) >> 4, v = (calls[k] - 64) & 15;
                int last = k == h.n_calls - 1;
                if (cs != seat) goto uncovered;
                if (v == 15) { passed[cs] = 1; n_passed++; }
                else if (v >= (r.auction_min > high + 1 ? r.auction_min : high + 1) && v <= 13) {
                    high = v; declarer = cs;
                } else goto uncovered;
                if (n_passed == 4) {
                    if (!last) goto uncovered;
                    declarer = -1; done = 1; break;
                }
                if ((high == 13 && r.ends_on_13) || (n_passed == 3 && high > 0)) {
                    if (!last) goto uncovered;
                    contract = high; done = 1; break;
                }
                seat = (seat + 1) & 3;
                while (passed[seat]) seat = (seat + 1) & 3;
            }
            if (!done) goto uncovered;
            if (declarer < 0) { cancelled = 1; contract = -1; }
            leader = declarer;
        }
        int trump = -1, tricks[4] = {0, 0, 0, 0};
        unsigned char winners[13];
        long long scores[4] = {0, 0, 0, 0};
        memset(winners, 0, sizeof winners);
        if (cancelled) {
            if (h.n_plays) goto uncovered;
            /* the claims of a cancelled hand: no trump, tricks or scores; the totals so far */
            if (!h.cancelled_form || claimed >= 0) goto uncovered;
            for (int s = 0; s < 4; s++) if (h.totals[s] != totals[s]) goto uncovered;
            trump = deal_trump;
        } else {
            if (declarer >= 0) {
                if (claimed < 0) goto uncovered;
                trump = claimed;
            } else {
                if (claimed != deal_trump) goto uncovered;
                trump = deal_trump;
            }
            if (h.n_plays != 52) goto uncovered;
            const unsigned char *plays = d + h.plays_at;
            uint64_t held[4] = {0, 0, 0, 0};
            for (int c = 0; c < 52; c++) held[owner[c]] |= (uint64_t)1 << c;
            int seat = leader;
            for (int t = 0; t < 13; t++) {
                unsigned char c[4];
                int led = -1;
                for (int k = 0; k < 4; k++) {
                    int s = (seat + k) & 3, card = plays[4 * t + k] - 1;
                    uint64_t bit = (uint64_t)1 << card;
                    if (!(held[s] & bit)) goto uncovered; /* not held, or played already */
                    int suit = card / 13;
                    if (k == 0) led = suit;
                    else if (suit != led && (held[s] & ((uint64_t)0x1fff << (13 * led))))
                        goto uncovered; /* did not follow suit */
                    c[k] = (unsigned char)card;
                }
                for (int k = 0; k < 4; k++)
                    held[(seat + k) & 3] &= ~((uint64_t)1 << c[k]);
                int w = trick_winner(c, seat, trump);
                winners[t] = (unsigned char)w;
                tricks[w]++;
                seat = w;
            }
            /* the scores */
            if (!r.team_scoring) {
                for (int s = 0; s < 4; s++) {
                    int v = bid_value(&r, bids[s], totals[s]);
                    scores[s] = tricks[s] >= bids[s] ? v : -v;
                }
            } else {
                int b = contract, bt = declarer & 1, t = tricks[bt] + tricks[bt + 2];
                long long ts[2] = {0, 0};
                if (b < 13) {
                    if (t >= b) ts[bt] = t == 13 ? r.all_tricks_value : t;
                    else {
                        ts[bt] = -b;
                        ts[1 - bt] = t == 0 ? r.defenders_all_tricks_value : 13 - t;
                    }
                } else if (t == 13) ts[bt] = r.kaboot_made_value;
                else {
                    ts[bt] = -(long long)r.kaboot_failed_value;
                    ts[1 - bt] = t == 0 ? r.kaboot_defenders_all_value
                                        : (long long)r.kaboot_defenders_factor * (13 - t);
                }
                for (int s = 0; s < 4; s++) scores[s] = ts[s & 1];
            }
            if (h.cancelled_form || h.claim_trump != (named ? -1 : trump)) goto uncovered;
            for (int s = 0; s < 4; s++) {
                if (h.tricks[s] != tricks[s] || h.scores[s] != scores[s]) goto uncovered;
                totals[s] += scores[s];
                if (h.totals[s] != totals[s]) goto uncovered;
            }
            played++;
            /* the winner */
            int w = -1;
            if (r.made_13_wins) {
                if (r.team_scoring) {
                    /* made: every trick to the declarers, whatever it scores */
                    if (contract == 13 && tricks[declarer] + tricks[declarer ^ 2] == 13)
                        w = declarer & 1;
                } else {
                    for (int s = 0; s < 4; s++)
                        if (tricks[s] == 13 && bids[s] == 13) { w = s & 1; break; }
                }
            }
            if (w < 0) {
                w = totals_winner(&r, totals);
                if (w == -2) goto uncovered;
            }
            winner = w;
        }
        /* the hand out */
        put32(o, (uint32_t)n);
        put32(o + 4, (uint32_t)h.calls_at);
        put32(o + 8, (uint32_t)h.plays_at);
        o[12] = (unsigned char)dealer;
        o[13] = (unsigned char)thirteenth;
        o[14] = (unsigned char)(trump < 0 ? 255 : trump);
        o[15] = (unsigned char)(declarer < 0 ? 255 : declarer);
        o[16] = (unsigned char)(contract < 0 ? 255 : contract);
        o[17] = (unsigned char)cancelled;
        o[18] = (unsigned char)(winner < 0 ? 255 : winner);
        o[19] = (unsigned char)h.n_calls;
        memcpy(o + 20, deck, 52);
        memcpy(o + 72, winners, 13);
        for (int s = 0; s < 4; s++) o[85 + s] = (unsigned char)tricks[s];
        for (int s = 0; s < 4; s++) put32(o + 89 + 4 * s, (uint32_t)(int32_t)scores[s]);
        for (int s = 0; s < 4; s++) put64(o + 105 + 8 * s, totals[s]);
        dealer = (dealer + 1) & 3;
    }
    if (p > len) goto uncovered;
    result = Py_BuildValue("iiO", played, winner, out);
    Py_DECREF(out);
    PyBuffer_Release(&buf);
    return result;
uncovered:
    Py_XDECREF(out);
    PyBuffer_Release(&buf);
    Py_RETURN_NONE;
fail:
    Py_XDECREF(out);
    PyBuffer_Release(&buf);
    return NULL;
}

static PyMethodDef methods[] = {
    {"scan", core_scan, METH_VARARGS,
     "scan(data, start, most) -> (end, count) | None: the common-form hands from start."},
    {"replay", core_replay, METH_VARARGS,
     "replay(data, start, count, rules, first_dealer, inner, outer) -> (played, winner, "
     "hands) | None: the hands replayed from the seeds' deals, every claim confirmed."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core",
    "The compiled core: a log's common-form hands replayed and compared with their claims.",
    -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
    s_copy = PyUnicode_InternFromString("copy");
    s_update = PyUnicode_InternFromString("update");
    s_digest = PyUnicode_InternFromString("digest");
    if (!s_copy || !s_update || !s_digest) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m && PyModule_AddIntConstant(m, "OUT_SIZE", OUT_SIZE) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
