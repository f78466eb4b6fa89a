/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: why an event was refused, kept for the task that opened it.
 *
 * perf_event_open() returns an errno only. The checks on event_init's
 * path say why they refuse with wult_refuse(); event_init's end ties the
 * reason to the event's CPU (wult_refusal_done()), and the opener reads
 * it in /sys/kernel/debug/wult/refusals (Documentation/kernel.md).
 */
#ifndef _WULT_REFUSAL_H
#define _WULT_REFUSAL_H

#include <linux/dcache.h>
#include <linux/ratelimit.h>
#include <linux/types.h>

__printf(3, 4)
int wult_refuse_rs(struct ratelimit_state *rs, int err, const char *fmt, ...);

/**
 * wult_refuse() - say why the event being created is refused
 * @err: the negative errno event_init returns for it
 * @fmt: the reason, printf-style: one line, no "wult: " and no newline
 *
 * On event_init's path, in the opener's context (may sleep). The reason is
 * logged as "wult: <reason>" (ratelimited per call site) and kept for the
 * opener. For what the system cannot do, which its administrator wants in
 * the log.
 *
 * Return: @err.
 */
#define wult_refuse(err, fmt, ...)					\
({									\
	static DEFINE_RATELIMIT_STATE(_wult_rs,				\
				      DEFAULT_RATELIMIT_INTERVAL,	\
				      DEFAULT_RATELIMIT_BURST);		\
	wult_refuse_rs(&_wult_rs, err, fmt, ##__VA_ARGS__);		\
})

/*
 * wult_refuse_quiet() - the same, kept for the opener but not logged: for
 * the opener's own mistakes (a config term), which are no news to anyone
 * else.
 */
#define wult_refuse_quiet(err, fmt, ...) \
	wult_refuse_rs(NULL, err, fmt, ##__VA_ARGS__)

/**
 * wult_refusal_begin() - event_init starts
 *
 * Return: what wult_refusal_done() takes, so that only reasons given
 * during this event_init are its.
 */
u64 wult_refusal_begin(void);

/**
 * wult_refusal_done() - event_init of an event on @cpu refused it
 * @cpu: the event's CPU (-1: none)
 * @err: the negative errno it returns
 * @since: wult_refusal_begin()'s value at its start
 *
 * Once per refused event, in the opener's context: the reason the
 * current task gave since @since becomes readable, with @cpu and @err. A
 * refusal without a reason (-ENOMEM, say) keeps nothing.
 */
void wult_refusal_done(int cpu, int err, u64 since);

/**
 * wult_refusal_debugfs_init() - create wult/refusals
 * @parent: the wult debugfs directory, which removes it with the module
 */
void wult_refusal_debugfs_init(struct dentry *parent);

/**
 * wult_refusal_exit() - drop the kept refusals
 *
 * Module exit, when no event can be created and the file is gone.
 */
void wult_refusal_exit(void);

#endif /* _WULT_REFUSAL_H */
