// SPDX-License-Identifier: GPL-2.0
/*
 * quota_race - many threads racing to allocate one object type on a device.
 *
 *   quota_race -d DEV -t TYPE [-n THREADS] [-k PER_THREAD] [-r ROUNDS]
 *              [-g GIDX] [-s MR_BYTES]
 *
 * In each round, THREADS threads wait on a barrier, then each tries to
 * create PER_THREAD objects of TYPE as fast as it can, stopping at its
 * first failure.  Then all of them free what they made, and the next round
 * starts.  Per round it prints
 *
 *   round R ok=K edquot=E other=O
 *
 * where K counts objects made, E the failures with EDQUOT and O any other
 * failure (named on a "# other" line).  With a limit L below
 * THREADS * PER_THREAD a correct quota gives K == L exactly, every round.
 * The PD (and CQ) the objects need are made before the race; for ctx each
 * object is a context of its own.  Exit status 0 unless a verb failed in a
 * way that is not EDQUOT or a destroy failed.
 */
#include <getopt.h>
#include <unistd.h>

#include "quota_objs.h"

static struct qbase base;
static enum qtype type;
static int per_thread = 4;
static pthread_barrier_t start;

struct worker {
	pthread_t tid;
	struct qobj *objs;
	int made;
	int edquot;
	int other;
	int other_err;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	int err;

	pthread_barrier_wait(&start);
	while (w->made < per_thread) {
		err = qobj_create(&base, type, &w->objs[w->made]);
		if (err == EDQUOT) {
			w->edquot++;
			break;
		}
		if (err) {
			w->other++;
			w->other_err = err;
			break;
		}
		w->made++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 16, rounds = 1, opt, r, i, j, err, rc = 0;
	const char *dev = NULL, *tname = NULL;
	struct worker *w;

	while ((opt = getopt(argc, argv, QBASE_OPTS "t:n:k:r:")) != -1) {
		if (qbase_opt(&base, &dev, opt, optarg))
			continue;
		switch (opt) {
		case 't':
			tname = optarg;
			break;
		case 'n':
			threads = atoi(optarg);
			break;
		case 'k':
			per_thread = atoi(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (!dev || !tname || qtype_parse(tname, &type) || threads < 1 ||
	    per_thread < 1 || rounds < 1)
		goto usage;
	setvbuf(stdout, NULL, _IOLBF, 0);

	err = qbase_open(&base, dev);
	if (!err)
		err = qbase_need(&base, type);
	if (err) {
		printf("# setup failed: %s\n", qerrname(err));
		return 1;
	}

	w = calloc(threads, sizeof(*w));
	if (!w)
		return 1;
	for (i = 0; i < threads; i++) {
		w[i].objs = calloc(per_thread, sizeof(*w[i].objs));
		if (!w[i].objs)
			return 1;
	}

	for (r = 1; r <= rounds; r++) {
		int made = 0, edquot = 0, other = 0;

		pthread_barrier_init(&start, NULL, threads);
		for (i = 0; i < threads; i++) {
			w[i].made = 0;
			w[i].edquot = 0;
			w[i].other = 0;
			if (pthread_create(&w[i].tid, NULL, work, &w[i])) {
				printf("# pthread_create failed\n");
				return 1;
			}
		}
		for (i = 0; i < threads; i++) {
			pthread_join(w[i].tid, NULL);
			made += w[i].made;
			edquot += w[i].edquot;
			other += w[i].other;
			if (w[i].other)
				printf("# other failure: %s\n",
				       qerrname(w[i].other_err));
		}
		pthread_barrier_destroy(&start);
		printf("round %d ok=%d edquot=%d other=%d\n", r, made, edquot,
		       other);
		if (other)
			rc = 1;
		for (i = 0; i < threads; i++) {
			for (j = w[i].made - 1; j >= 0; j--) {
				err = qobj_destroy(&w[i].objs[j]);
				if (err) {
					printf("# destroy failed: %s\n",
					       qerrname(err));
					return 1;
				}
			}
		}
	}
	if (base.cq)
		ibv_destroy_cq(base.cq);
	if (base.pd)
		ibv_dealloc_pd(base.pd);
	ibv_close_device(base.ctx);
	return rc;

usage:
	fprintf(stderr,
		"usage: quota_race -d DEV -t TYPE [-n THREADS] [-k PER_THREAD] [-r ROUNDS] [-g GIDX] [-s MR_BYTES]\n");
	return 2;
}
