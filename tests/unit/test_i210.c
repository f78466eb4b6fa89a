// SPDX-License-Identifier: GPL-2.0
/*
 * The I210/I211 device type's register sequences (kernel/sources/nic/wult_i210.h) on a
 * mock register file that models what Intel's I210 datasheet says of the
 * registers they touch: SYSTIMR latching SYSTIML/SYSTIMH, ICR clearing on
 * read, TSICR bits cleared by writing 1, target time 0 setting TSICR.TT0
 * and clearing TSAUXC.EN_TT0 when SYSTIM reaches it, the interrupt raised
 * through TSIM and IMS. No I210 exists here: this checks the sequences
 * against the datasheet's model, not against a device.
 */
#include <stdbool.h>
#include <stdint.h>

typedef uint32_t u32;
typedef uint64_t u64;

struct mock {
	u64 now;		/* SYSTIM, ns */
	u32 systiml, systimh;	/* the latched values */
	bool latched;
	u32 icr, ims, tsicr, tsim, tsauxc, gpie;
	u32 trgl, trgh;
	unsigned int reads, writes;
	u32 log[64];		/* offsets accessed, in order */
	unsigned int nlog;
	bool bad_order;		/* SYSTIML/H read without a latch first */
};

static void mock_log(struct mock *m, u32 reg)
{
	if (m->nlog < 64)
		m->log[m->nlog++] = reg;
}

static u32 mock_rd(struct mock *m, u32 reg);
static void mock_wr(struct mock *m, u32 reg, u32 val);

#define WULT_I210_RD(ctx, reg)		mock_rd(ctx, reg)
#define WULT_I210_WR(ctx, reg, val)	mock_wr(ctx, reg, val)
#include "../../kernel/sources/nic/wult_i210.h"

#include "wt.h"

/* The device's side: target time 0 reached? Then the cause and the line. */
static void mock_tick(struct mock *m, u64 ns)
{
	u64 target = (u64)m->trgh * I210_NSEC + m->trgl;

	m->now += ns;
	if ((m->tsauxc & I210_TSAUXC_EN_TT0) && m->now >= target) {
		m->tsicr |= I210_TSINTR_TT0;
		m->tsauxc &= ~I210_TSAUXC_EN_TT0;	/* cleared by hardware */
	}
	if (m->tsicr & m->tsim)
		m->icr |= I210_ICR_TS;
}

static bool mock_irq_line(const struct mock *m)
{
	return (m->icr & m->ims) != 0;
}

static u32 mock_rd(struct mock *m, u32 reg)
{
	u32 v = 0;

	m->reads++;
	mock_log(m, reg);
	switch (reg) {
	case I210_SYSTIMR:
		m->systiml = (u32)(m->now % I210_NSEC);
		m->systimh = (u32)(m->now / I210_NSEC);
		m->latched = true;
		/* The read takes time: the clock moves on, not the latch. */
		m->now += 700;
		return 0;
	case I210_SYSTIML:
		if (!m->latched)
			m->bad_order = true;
		m->now += 700;
		return m->systiml;
	case I210_SYSTIMH:
		if (!m->latched)
			m->bad_order = true;
		m->latched = false;
		m->now += 700;
		return m->systimh;
	case I210_ICR:
		v = m->icr;
		m->icr = 0;	/* clear on read */
		return v;
	case I210_TSICR:
		return m->tsicr;
	case I210_TSAUXC:
		return m->tsauxc;
	default:
		return 0;
	}
}

static void mock_wr(struct mock *m, u32 reg, u32 val)
{
	m->writes++;
	mock_log(m, reg);
	switch (reg) {
	case I210_IMS:
		m->ims |= val;
		break;
	case I210_IMC:
		m->ims &= ~val;
		break;
	case I210_TSICR:
		m->tsicr &= ~val;	/* write 1 to clear */
		if (!(m->tsicr & m->tsim))
			m->icr &= ~I210_ICR_TS;
		break;
	case I210_TSIM:
		m->tsim = val;
		break;
	case I210_TSAUXC:
		m->tsauxc = val;
		break;
	case I210_TRGTTIML0:
		m->trgl = val;
		break;
	case I210_TRGTTIMH0:
		m->trgh = val;
		break;
	case I210_GPIE:
		m->gpie = val;
		break;
	default:
		break;
	}
}

static void test_setup(void)
{
	struct mock m = { .ims = 0xffffffffU, .tsauxc = I210_TSAUXC_DISABLE,
			  .tsicr = 0x7, .icr = 0x1234, .gpie = 0x10 };

	wult_i210_seq_setup(&m);
	WT_EQ(m.ims, I210_ICR_TS);		/* only time sync unmasked */
	WT_EQ(m.tsim, I210_TSINTR_TT0);
	WT_EQ(m.tsauxc & I210_TSAUXC_DISABLE, 0);	/* SYSTIM runs */
	WT_EQ(m.tsicr, 0);
	WT_EQ(m.icr, 0);
	WT_EQ(m.gpie, 0);			/* not MSI-X mode */
	/* Masked before anything else is touched, unmasked last. */
	WT_EQ(m.log[0], I210_IMC);
	WT_EQ(m.log[m.nlog - 1], I210_IMS);
	wult_i210_seq_teardown(&m);
	WT_EQ(m.ims, 0);
	WT_EQ(m.tsim, 0);
	WT_EQ(m.tsauxc & I210_TSAUXC_EN_TT0, 0);
}

static void test_read(void)
{
	struct mock m = { .now = 5 * I210_NSEC + 999999000ULL };
	u64 t = m.now;

	/* Latched at the first read, across a second boundary. */
	WT_EQ(wult_i210_seq_read(&m), t);
	WT_EQ(m.bad_order, false);
	WT_EQ(m.reads, 3);
	WT_EQ(m.log[0], I210_SYSTIMR);
	WT_EQ(m.log[1], I210_SYSTIML);
	WT_EQ(m.log[2], I210_SYSTIMH);
	/* The clock moved during the reads; the value did not tear. */
	WT_CHECK(m.now / I210_NSEC == 6, "now %llu", (unsigned long long)m.now);
}

static void test_arm_fire_ack(void)
{
	struct mock m = { .now = 7 * I210_NSEC + 999990000ULL };
	u64 at;

	wult_i210_seq_setup(&m);
	/* 20 us ahead, across a second: TRGTTIMH0 must carry it. */
	at = wult_i210_seq_arm(&m, m.now + 20000);
	WT_EQ(at, 8 * I210_NSEC + 10000);
	WT_EQ(m.trgh, 8);
	WT_EQ(m.trgl, 10000);
	WT_EQ(m.tsauxc, I210_TSAUXC_EN_TT0);
	/* Low, high, then enable: never armed on half a target. */
	WT_EQ(m.log[m.nlog - 3], I210_TRGTTIML0);
	WT_EQ(m.log[m.nlog - 2], I210_TRGTTIMH0);
	WT_EQ(m.log[m.nlog - 1], I210_TSAUXC);
	mock_tick(&m, 19999);
	WT_EQ(mock_irq_line(&m), false);
	mock_tick(&m, 1);
	WT_EQ(mock_irq_line(&m), true);
	WT_EQ(m.tsauxc & I210_TSAUXC_EN_TT0, 0);
	WT_EQ(wult_i210_seq_ack(&m), true);
	WT_EQ(m.tsicr, 0);
	WT_EQ(mock_irq_line(&m), false);
	/* A second interrupt is not ours: nothing pending. */
	WT_EQ(wult_i210_seq_ack(&m), false);
}

static void test_disarm(void)
{
	struct mock m = { .now = I210_NSEC };

	wult_i210_seq_setup(&m);
	wult_i210_seq_arm(&m, m.now + 5000);
	wult_i210_seq_disarm(&m);
	mock_tick(&m, 10000);
	WT_EQ(mock_irq_line(&m), false);
	WT_EQ(m.tsicr, 0);
}

/* Another cause on a shared line: not ours, and ICR's read cleared it. */
static void test_not_ours(void)
{
	struct mock m = { .now = I210_NSEC };

	wult_i210_seq_setup(&m);
	m.icr = 0x1;	/* TXDW, say */
	WT_EQ(wult_i210_seq_ack(&m), false);
	/* Time sync with another cause (a Tx timestamp) but not TT0. */
	m.tsim |= 0x2;
	m.tsicr = 0x2;
	m.icr = I210_ICR_TS;
	WT_EQ(wult_i210_seq_ack(&m), false);
	WT_EQ(m.tsicr, 0x2);	/* left for whoever owns it */
}

int main(void)
{
	test_setup();
	test_read();
	test_arm_fire_ack();
	test_disarm();
	test_not_ours();
	return wt_done();
}
