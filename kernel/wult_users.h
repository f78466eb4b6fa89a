/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wult: something started by its first user and stopped by its last.
 *
 * Probes and hooks that cost every CPU something exist only while wult
 * events need them: each event's creation takes a user, its destruction
 * drops one (process context both). The start and the count change under
 * one mutex, so a user never sees a half-started thing, and a failed start
 * leaves no user behind.
 */
#ifndef _WULT_USERS_H
#define _WULT_USERS_H

#include <linux/compiler.h>
#include <linux/mutex.h>

/*
 * Defined as
 *	static struct wult_users x = {
 *		.lock = __MUTEX_INITIALIZER(x.lock),
 *		.start = x_start,
 *		.stop = x_stop,
 *	};
 */
struct wult_users {
	struct mutex lock;	/* n, and start and stop while they run */
	unsigned int n;
	int (*start)(void);	/* with the first user; 0 or an errno */
	void (*stop)(void);	/* with the last */
};

/**
 * wult_users_get() - one more user; the first starts
 * @u: the thing
 *
 * Return: 0, or the errno of the start (the user is then not counted).
 */
static inline int wult_users_get(struct wult_users *u)
{
	int ret = 0;

	mutex_lock(&u->lock);
	if (!u->n)
		ret = u->start();
	if (!ret)
		WRITE_ONCE(u->n, u->n + 1);
	mutex_unlock(&u->lock);
	return ret;
}

/**
 * wult_users_put() - one user fewer; the last stops
 * @u: the thing, with a user taken by wult_users_get()
 */
static inline void wult_users_put(struct wult_users *u)
{
	mutex_lock(&u->lock);
	WRITE_ONCE(u->n, u->n - 1);
	if (!u->n)
		u->stop();
	mutex_unlock(&u->lock);
}

/**
 * wult_users_count() - the users now, for debugfs: a lockless snapshot
 * @u: the thing
 *
 * Return: their number.
 */
static inline unsigned int wult_users_count(const struct wult_users *u)
{
	return READ_ONCE(u->n);
}

#endif /* _WULT_USERS_H */
