/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: the register sequences of the Intel I210/I211 device type, from
 * Intel's public "Ethernet Controller I210 Datasheet" (section 7.8, IEEE
 * 1588 and time sync; 8.16, the time sync registers; 8.8, interrupts).
 * They are written against two macros the includer defines,
 * WULT_I210_RD(ctx, reg) and WULT_I210_WR(ctx, reg, val), so that
 * wult_i210.c runs them on the device's BAR and tests/unit/test_i210.c on
 * a mock register file that models what the datasheet says of each
 * register. NOT RUN ON HARDWARE: no I210 exists here (Documentation/
 * kernel.md says what a first run must check).
 *
 * The clock is SYSTIM, in ns on the I210: SYSTIML holds the ns within the
 * second (0 to 10^9 - 1), SYSTIMH the seconds. Reading SYSTIMR (the
 * sub-ns residue) latches SYSTIML and SYSTIMH, which are then read in
 * that order: three reads, the clock latched at the first. Target time 0
 * (TRGTTIML0 ns, TRGTTIMH0 s) armed with TSAUXC.EN_TT0 sets TSICR.TT0 when
 * SYSTIM reaches it, and the hardware clears EN_TT0; with TSIM.TT0 set
 * that raises ICR.TS (time sync), an interrupt where IMS.TS is set.
 * ICR clears on read; TSICR bits are cleared by writing 1.
 */
#ifndef _WULT_I210_H
#define _WULT_I210_H

#define I210_ICR		0x000c0	/* interrupt cause, clear on read */
#define I210_IMS		0x000d0	/* interrupt mask set */
#define I210_IMC		0x000d8	/* interrupt mask clear */
#define I210_GPIE		0x01514	/* general purpose interrupt enable */
#define I210_SYSTIML		0x0b600	/* SYSTIM ns */
#define I210_SYSTIMH		0x0b604	/* SYSTIM s */
#define I210_TSAUXC		0x0b640	/* time sync auxiliary control */
#define I210_TRGTTIML0		0x0b644	/* target time 0, ns */
#define I210_TRGTTIMH0		0x0b648	/* target time 0, s */
#define I210_TSICR		0x0b66c	/* time sync interrupt cause, W1C */
#define I210_TSIM		0x0b674	/* time sync interrupt mask */
#define I210_SYSTIMR		0x0b6f8	/* SYSTIM residue: latches L and H */

#define I210_ICR_TS		0x00080000U	/* ICR/IMS/IMC: time sync */
#define I210_TSAUXC_EN_TT0	0x00000001U	/* target time 0 armed */
#define I210_TSAUXC_DISABLE	0x80000000U	/* SYSTIM stopped */
#define I210_TSINTR_TT0		0x00000008U	/* TSICR/TSIM: target time 0 */

#define I210_NSEC		1000000000ULL

/* Masked, SYSTIM running, only target time 0's cause unmasked. */
static inline void wult_i210_seq_setup(void *ctx)
{
	WULT_I210_WR(ctx, I210_IMC, 0xffffffffU);
	/* Legacy/MSI mode: causes in ICR, not the MSI-X EICR. */
	WULT_I210_WR(ctx, I210_GPIE, 0);
	(void)WULT_I210_RD(ctx, I210_ICR);
	/* EN_TT0 off, the clock on (DISABLE clear), no pin functions. */
	WULT_I210_WR(ctx, I210_TSAUXC, 0);
	WULT_I210_WR(ctx, I210_TSICR, 0xffffffffU);
	WULT_I210_WR(ctx, I210_TSIM, I210_TSINTR_TT0);
	WULT_I210_WR(ctx, I210_IMS, I210_ICR_TS);
}

static inline void wult_i210_seq_teardown(void *ctx)
{
	WULT_I210_WR(ctx, I210_IMC, 0xffffffffU);
	WULT_I210_WR(ctx, I210_TSIM, 0);
	WULT_I210_WR(ctx, I210_TSAUXC, 0);
	WULT_I210_WR(ctx, I210_TSICR, 0xffffffffU);
}

/* SYSTIM as ns: SYSTIMR first (it latches), then low, then high. */
static inline u64 wult_i210_seq_read(void *ctx)
{
	u64 ns, s;

	(void)WULT_I210_RD(ctx, I210_SYSTIMR);
	ns = WULT_I210_RD(ctx, I210_SYSTIML);
	s = WULT_I210_RD(ctx, I210_SYSTIMH);
	return s * I210_NSEC + ns;
}

/* Target time 0 at SYSTIM @at (ns): low, high, then enable. */
static inline u64 wult_i210_seq_arm(void *ctx, u64 at)
{
	WULT_I210_WR(ctx, I210_TRGTTIML0, (u32)(at % I210_NSEC));
	WULT_I210_WR(ctx, I210_TRGTTIMH0, (u32)(at / I210_NSEC));
	WULT_I210_WR(ctx, I210_TSAUXC, I210_TSAUXC_EN_TT0);
	return at;
}

static inline void wult_i210_seq_disarm(void *ctx)
{
	WULT_I210_WR(ctx, I210_TSAUXC, 0);
}

/* Ours if ICR says time sync and TSICR target time 0; TT0 acknowledged. */
static inline bool wult_i210_seq_ack(void *ctx)
{
	u32 tsicr;

	if (!(WULT_I210_RD(ctx, I210_ICR) & I210_ICR_TS))
		return false;
	tsicr = WULT_I210_RD(ctx, I210_TSICR);
	if (!(tsicr & I210_TSINTR_TT0))
		return false;
	WULT_I210_WR(ctx, I210_TSICR, I210_TSINTR_TT0);
	return true;
}

#endif /* _WULT_I210_H */
