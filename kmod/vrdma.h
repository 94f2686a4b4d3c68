/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vrdma: the map of the driver.
 *
 * A vdevice (struct vrdma_dev) is an ib_device registered by vrdma on top
 * of a real ib_device, the parent (struct vrdma_parent).  Every verbs
 * object of a vdevice wraps a "shadow" object created on the parent through
 * the parent driver's own ops, with the caller's driver data (udata) passed
 * through inside an on-stack attribute bundle whose context is the shadow
 * ucontext.  Queue buffers and doorbells are the parent's, mapped straight
 * into the process; the holders of shadow ucontexts and the wrapping of
 * those mappings belong to the helper module vrdma_vma.ko (vma.h), so that
 * mappings can outlive this module.
 *
 * Locking, outermost first:
 *   vrdma_mutex         the vdevice lists, every parent's vdevice list,
 *                       the parents' dying flags and pins, the reserved
 *                       vdevice names (names.c), the closing of the
 *                       teardown workqueue (vdev.c); taken inside
 *                       the RDMA core's devices_rwsem (vrdma_client_add())
 *                       and a vdevice's unregistration_lock
 *                       (vrdma_dealloc_driver()), so never held across
 *                       ib_register_device() or ib_unregister_device().
 *                       The netlink family has parallel_ops: genl_mutex
 *                       serialises nothing of vrdma's, and every handler
 *                       takes this mutex for what it reads or changes
 *   parent->vdevs_lock  (spinlock) parent->vdevs, read by event forwarding
 *                       which runs in ib_wq and must not take vrdma_mutex
 *   quota counters      lock-free (atomic64 compare-and-exchange)
 *   vdev->acl[]         RCU: replaced under vrdma_mutex, read under
 *                       rcu_read_lock() on the verbs path
 *   vdev->cm.lock       (spinlock, any context) the vdevice's software
 *                       QP1 pointer; taken outside that QP's lock
 *   vrdma_gsi.lock      (spinlock, any context) a software QP1's state,
 *                       receive ring and queue of MADs for the proxy
 *   vrdma_kcq.lock      (spinlock, any context) a software CQ's ring; the
 *                       innermost: taken under either of the above
 *   vdev->cm.conn_lock  (mutex) the connections the CM proxy carries;
 *                       taken by the proxy's work item and the parent's
 *                       ib_cm handlers, outside vdev->cm.lock
 *   vrdma_cm_listens    (vrdma_mutex, cm_publish.c) vrdma's listeners on
 *                       the parents, and each vdevice's published ports
 *   vrdma_cm_handles    (xarray lock, cm_proxy.c) the proxy's connections
 *                       by the handle their parent cm_id carries, and the
 *                       references handlers take on them; taken under
 *                       vdev->cm.conn_lock, never around it
 */
#ifndef _VRDMA_H
#define _VRDMA_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/in6.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/net_namespace.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <linux/vrdma.h>

#include "compat.h"
#include "fwd.h"
#include "vma.h"

#define VRDMA_NR_RES	(VRDMA_RES_MAX + 1)

/* Error messages a user can trigger are logged at debug level only. */
#define vrdma_dbg(vdev, fmt, ...) \
	ibdev_dbg(&(vdev)->ibdev, "%s: " fmt, __func__, ##__VA_ARGS__)

/**
 * struct vrdma_parent - a real ib_device vdevices may be created on
 * @ibdev: the parent device; valid while the vrdma ib_client is attached
 * @vdevs: vdevices on this parent (vrdma_dev.parent_node); written under
 *	vrdma_mutex and @vdevs_lock, read under either
 * @vdevs_lock: protects @vdevs for event forwarding
 * @nr_vdevs: length of @vdevs (protected like @vdevs)
 * @dying: the parent is being removed; no new vdevice may use it
 *	(vrdma_mutex)
 * @pins: vdevice creations under way that found the parent alive; its
 *	removal waits for them (vrdma_mutex)
 * @event_handler: forwards the parent's async events to its vdevices
 * @node: entry in the list of tracked parents (vrdma_mutex)
 */
struct vrdma_parent {
	struct ib_device *ibdev;
	struct list_head node;
	struct list_head vdevs;
	spinlock_t vdevs_lock;	/* @vdevs, for event forwarding */
	unsigned int nr_vdevs;
	bool dying;
	unsigned int pins;
	struct ib_event_handler event_handler;
};

/**
 * struct vrdma_quota - per-vdevice object limits and usage
 * @limit: the limit per resource, VRDMA_LIMIT_MAX for the parent's
 *	capacity; written under vrdma_mutex, read locklessly
 * @used: the current use per resource
 */
struct vrdma_quota {
	u64 limit[VRDMA_NR_RES];
	atomic64_t used[VRDMA_NR_RES];
};

/**
 * struct vrdma_acl_entry - one address prefix of an ACL
 * @addr: the prefix, bits past @plen cleared; IPv4 as ::ffff:a.b.c.d
 * @plen: its length in bits, 0..128
 */
struct vrdma_acl_entry {
	struct in6_addr addr;
	u8 plen;
};

/**
 * struct vrdma_acl - an immutable list of address prefixes
 * @rcu: for kfree_rcu() once replaced
 * @n: number of entries
 * @entry: the prefixes
 */
struct vrdma_acl {
	struct rcu_head rcu;
	unsigned int n;
	struct vrdma_acl_entry entry[];
};

/* Which address of an address vector an ACL restricts */
enum vrdma_acl_kind {
	VRDMA_ACL_SGID,		/* the source GID (VRDMA_ATTR_SGIDS) */
	VRDMA_ACL_PEER,		/* the destination GID (VRDMA_ATTR_PEERS) */
	VRDMA_NR_ACL
};

struct vrdma_gsi;
struct seq_file;
struct vrdma_dev;
struct vrdma_gsi_mad;

/* Connections a vdevice may have through the CM proxy at once */
#define VRDMA_CM_CONN_MAX	64

/**
 * struct vrdma_gsi_ops - where a software QP1 hands what it is sent
 * @sent: sees each MAD as it is posted; true drops it.  Any context, under
 *	the MAD layer's spinlocks: must not sleep.
 * @send: takes each MAD not dropped, in process context (the QP's work
 *	item); may sleep.
 *
 * The software QP1 (cm_gsi.c) is the lower layer: it knows nothing of what
 * carries its MADs; the CM proxy (cm_proxy.c) installs these.
 */
struct vrdma_gsi_ops {
	bool (*sent)(struct vrdma_dev *vdev, const struct vrdma_gsi_mad *mad);
	void (*send)(struct vrdma_dev *vdev, const struct vrdma_gsi_mad *mad);
};

/**
 * struct vrdma_dev_cm - a vdevice's part of the RDMA CM (cm_gsi.c,
 *	cm_proxy.c)
 * @lock: protects @gsi; taken in any context, outside the QP's own lock
 * @gsi: its software QP1, or NULL
 * @ops: where @gsi hands its sends; set before registration
 * @kobjs: kernel PDs, CQs and AHs it has, bounded
 * @conn_lock: protects @conns and @nconns; never held across
 *	ib_destroy_cm_id(), which waits for handlers that take it
 * @conns: its connections carried on the parent (struct vrdma_cm_conn)
 * @nconns: their number, bounded
 * @tid_known: @hi_tid is known (@lock)
 * @hi_tid: the number of the vdevice's ib_cm's MAD agent, the upper half
 *	of the TID of every request it sends (@lock)
 * @probe_id: the request ID of the SIDR request that learns it (@lock)
 * @probe_sid: its service ID, random (@lock)
 * @probe_done: completed when the probe is seen; NULL when none is
 *	awaited (@lock)
 * @ports: the RDMA CM ports the operator publishes on it (cm_publish.c;
 *	vrdma_mutex)
 * @nports: their number (vrdma_mutex)
 * @publish_closed: the vdevice is going: it publishes nothing more
 *	(vrdma_mutex)
 */
struct vrdma_dev_cm {
	spinlock_t lock;	/* @gsi, @tid_known, @hi_tid, @probe_* */
	struct vrdma_gsi *gsi;
	const struct vrdma_gsi_ops *ops;
	bool tid_known;
	u32 hi_tid;
	u32 probe_id;
	u64 probe_sid;
	struct completion *probe_done;
	atomic_t kobjs;
	struct mutex conn_lock;	/* @conns, @nconns */
	struct list_head conns;
	unsigned int nconns;
	u16 ports[VRDMA_CM_PORTS_MAX];
	unsigned int nports;
	bool publish_closed;
};

/**
 * struct vrdma_dev - a virtual RDMA device
 * @ibdev: the registered device; must stay first (ib_alloc_device)
 * @parent: the parent state; valid while @ibdev is registered
 * @parent_ibdev: the parent ib_device, pinned (registration reference, device
 *	memory and driver module) until dealloc_driver
 * @list: entry in the global vdevice list (vrdma_mutex)
 * @name_node: entry in the reserved names (names.c; vrdma_mutex), from
 *	before registration until the vdevice is freed
 * @parent_node: entry in parent->vdevs
 * @quota: object limits and counters
 * @acl: address ACLs by enum vrdma_acl_kind, NULL when everything is
 *	allowed; replaced under vrdma_mutex, read under RCU
 * @gid_mode: enum vrdma_gid_mode, which of the parent's GIDs the vdevice
 *	sees (gid.c); set before registration, constant after
 */
struct vrdma_dev {
	struct ib_device ibdev;
	struct vrdma_parent *parent;
	struct ib_device *parent_ibdev;
	struct list_head list;
	struct list_head name_node;
	struct list_head parent_node;
	struct vrdma_quota quota;
	struct vrdma_acl __rcu *acl[VRDMA_NR_ACL];
	u8 gid_mode;
	/*
	 * Source GID indices of UD work requests (gid.c): @gid_moved counts
	 * the entries of the vdevice's GID table that the core put at
	 * another index than the parent's entry of the same GID, @ud_qps
	 * the vdevice's UD QPs.  A UD QP is made only while @gid_moved is
	 * 0, a moved entry is admitted only while @ud_qps is 0; atomics,
	 * each side increments its own counter before reading the other's.
	 */
	atomic_t gid_moved;
	atomic_t ud_qps;
	/*
	 * Where and under which name vrdma registered the vdevice; set
	 * before registration, constant after.  The RDMA core's netlink can
	 * move or rename it behind vrdma's back (vrdma_dev_check_home()).
	 * @home is not referenced: the vdevice dies before it (pernet.c).
	 * vrdma names the vdevice by @home_name, never by dev_name(): a
	 * rename frees the old dev_name() under the core's devices_rwsem,
	 * which vrdma cannot take.
	 */
	struct net *home;
	char home_name[IB_DEVICE_NAME_MAX];
	/* The parent's driver methods it forwards (fwd.c); constant */
	struct vrdma_fwd fwd;
	/*
	 * Its dev.parent, carrying the parent's modalias (alias.c), or NULL;
	 * set before registration, removed when the vdevice is freed.
	 */
	struct device *alias;
	/* VRDMA_DEV_F_*; set before registration, constant after */
	u32 flags;
	/* The RDMA CM's kernel objects (cm_gsi.c), with VRDMA_DEV_F_CM */
	struct vrdma_dev_cm cm;
};

/**
 * struct vrdma_ucontext - a vdevice user context
 * @ibuc: the core's part
 * @holder: holds the shadow ucontext on the parent
 * @stand_ufile: the stand-in uverbs file forwarded driver methods see, whose
 *	ucontext is the shadow (fwd.c); set up once, constant after
 */
struct vrdma_ucontext {
	struct ib_ucontext ibuc;
	struct vrdma_uctx_holder *holder;
	u8 stand_ufile[VRDMA_UFILE_SPAN] __aligned(8);
};

struct vrdma_qp {
	struct ib_qp ibqp;
	struct ib_qp *shadow;
	/* The software QP1 (cm_gsi.c) when this is it, else NULL */
	struct vrdma_gsi *gsi;
	/*
	 * The source GID index of the primary [0] and alternate [1] address
	 * vectors as modify_qp last set them: VRDMA_QP_SGID_SET | the
	 * parent's index << 32 | the vdevice's, or 0.  Written by
	 * modify_qp, read by query_qp, each with one access.
	 */
	u64 sgid[2];
};

#define VRDMA_QP_SGID_SET	BIT_ULL(63)

struct vrdma_srq {
	struct ib_srq ibsrq;
	struct ib_srq *shadow;
};

struct vrdma_ah {
	struct ib_ah ibah;
	/*
	 * NULL for a kernel AH (cm_gsi.c), whose destination is @kdgid and
	 * source @ksgid, the vdevice's GID entry at @ksgid_index (the core
	 * checked the index), with the rest of its GRH
	 */
	struct ib_ah *shadow;
	union ib_gid kdgid;
	union ib_gid ksgid;
	u32 ksgid_index;
	u8 kdmac[ETH_ALEN];
	u32 kflow_label;
	u8 khop_limit;
	u8 ktclass;
};

struct vrdma_mr {
	struct ib_mr ibmr;
	struct ib_mr *shadow;
	u64 pinned;
};

struct vrdma_mw {
	struct ib_mw ibmw;
	struct ib_mw *shadow;
};

static inline struct vrdma_dev *to_vdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vrdma_dev, ibdev);
}

#define VRDMA_TO(type, member, ptr) container_of(ptr, struct type, member)
#define to_vuctx(p)	VRDMA_TO(vrdma_ucontext, ibuc, p)
#define to_vqp(p)	VRDMA_TO(vrdma_qp, ibqp, p)
#define to_vsrq(p)	VRDMA_TO(vrdma_srq, ibsrq, p)
#define to_vah(p)	VRDMA_TO(vrdma_ah, ibah, p)
#define to_vmr(p)	VRDMA_TO(vrdma_mr, ibmr, p)
#define to_vmw(p)	VRDMA_TO(vrdma_mw, ibmw, p)

/*
 * The two views of a vdevice context that every verb reads.  Inline here,
 * beside the structure, so that the files which set them up (verbs_ctx.c,
 * fwd.c) and the verbs' helpers (udata.c) need not call one another.
 */

/**
 * vrdma_shadow_uctx() - the parent-side ucontext of a vdevice ucontext
 * @ibuc: the vdevice ucontext
 *
 * Return: the shadow ucontext.
 */
static inline struct ib_ucontext *vrdma_shadow_uctx(struct ib_ucontext *ibuc)
{
	return to_vuctx(ibuc)->holder->shadow;
}

/**
 * vrdma_fwd_ufile() - the stand-in uverbs file of a vdevice context
 * @vctx: the vdevice ucontext
 *
 * Return: a file whose ucontext, for ib_uverbs_get_ucontext(), is the
 * shadow (vrdma_fwd_ufile_init()); only those two fields are valid.
 */
static inline struct ib_uverbs_file *vrdma_fwd_ufile(struct ib_ucontext *vctx)
{
	return (struct ib_uverbs_file *)to_vuctx(vctx)->stand_ufile;
}

/*
 * A vdevice PD or CQ and its shadow on the parent are one allocation: the
 * core sizes the vdevice's PDs and CQs for its parent (vrdma_dev_set_ops()),
 * and the parent's object follows ours, aligned to the larger of a cache
 * line and kmalloc's minimum, as a kmalloc of its own would be.
 * Creating one then costs one allocation and one free.
 */
#define VRDMA_SHADOW_ALIGN \
	max_t(size_t, SMP_CACHE_BYTES, ARCH_KMALLOC_MINALIGN)
#define VRDMA_SHADOW_OFFSET(type)	ALIGN(sizeof(struct type), VRDMA_SHADOW_ALIGN)

static inline struct ib_pd *vrdma_shadow_pd(struct ib_pd *ibpd)
{
	return (void *)ibpd + VRDMA_SHADOW_OFFSET(ib_pd);
}

static inline struct ib_cq *vrdma_shadow_cq(struct ib_cq *ibcq)
{
	return (void *)ibcq + VRDMA_SHADOW_OFFSET(ib_cq);
}

/* main.c */
extern struct mutex vrdma_mutex;
extern struct list_head vrdma_devs;
extern unsigned int vrdma_generation;

/* vdev.c */
struct vrdma_dev_params {
	const char *name;
	const char *parent;
	struct net *net;
	u64 limit[VRDMA_NR_RES];
	struct vrdma_acl *acl[VRDMA_NR_ACL];
	u8 gid_mode;
	u32 flags;
};

int vrdma_dev_create(const struct vrdma_dev_params *params,
		     struct netlink_ext_ack *extack);
struct vrdma_dev *vrdma_dev_find(const char *name);
void vrdma_dev_unlink(struct vrdma_dev *vdev);
void vrdma_dev_destroy(struct vrdma_dev *vdev, enum vrdma_del_reason reason);
struct vrdma_dev_del;
struct vrdma_dev_del *vrdma_dev_del_alloc(void);
void vrdma_dev_del_free(struct vrdma_dev_del *del);
bool vrdma_dev_destroy_bounded(struct vrdma_dev *vdev,
			       enum vrdma_del_reason reason,
			       struct vrdma_dev_del *del, unsigned long timeout);
void vrdma_dev_del_close(void);
int vrdma_dev_init(void);
void vrdma_dev_exit(void);
struct vrdma_dev *vrdma_dev_unlink_next(bool (*match)(struct vrdma_dev *vdev,
						      void *arg),
					void *arg);
void vrdma_dev_destroy_all(void);
void vrdma_dev_wait_dying(struct net *net);
void vrdma_dev_wait_parent(struct vrdma_parent *parent);
void vrdma_dealloc_driver(struct ib_device *ibdev);
struct net *vrdma_dev_net(struct vrdma_dev *vdev);
bool vrdma_dev_in_net(struct vrdma_dev *vdev, struct net *net);
bool vrdma_dev_check_home(struct ib_device *ibdev);
void vrdma_dev_home_exit(void);
u32 vrdma_dev_port_state(struct vrdma_dev *vdev);

/* device.c: the vdevice's ib_device_ops */
void vrdma_dev_set_ops(struct vrdma_dev *vdev);

/* alias.c */
int vrdma_alias_add(struct vrdma_dev *vdev, const char *name,
		    struct netlink_ext_ack *extack);
void vrdma_alias_del(struct vrdma_dev *vdev);
int vrdma_alias_init(void);
void vrdma_alias_exit(void);

/* parent.c */
int vrdma_parent_init(void);
void vrdma_parent_exit(void);
struct vrdma_parent *vrdma_parent_get(struct ib_device *ibdev);
struct ib_device *vrdma_parent_find(const char *name);
int vrdma_parent_check(struct ib_device *parent_ibdev,
		       struct netlink_ext_ack *extack);
void vrdma_parent_pin(struct vrdma_parent *parent);
void vrdma_parent_unpin(struct vrdma_parent *parent);
bool vrdma_is_vdev(const struct ib_device *ibdev);
void vrdma_parent_for_each(void (*fn)(struct vrdma_parent *parent, void *arg),
			   void *arg);

/* names.c */
int vrdma_name_reserve(struct vrdma_dev *vdev, struct netlink_ext_ack *extack);
void vrdma_name_release(struct vrdma_dev *vdev);

/* pernet.c */
int vrdma_pernet_init(void);
void vrdma_pernet_exit(void);

/* quota.c */
void vrdma_quota_init(struct vrdma_dev *vdev, const u64 *limit);
int vrdma_quota_charge(struct vrdma_dev *vdev, enum vrdma_res res, u64 n);
void vrdma_quota_uncharge(struct vrdma_dev *vdev, enum vrdma_res res, u64 n);
void vrdma_quota_set(struct vrdma_dev *vdev, const u64 *limit);
u64 vrdma_quota_effective(struct vrdma_dev *vdev, enum vrdma_res res);
void vrdma_quota_clamp_attrs(struct vrdma_dev *vdev,
			     struct ib_device_attr *attr);

/* acl.c: source address and peer ACLs */
struct vrdma_acl *vrdma_acl_parse(const struct nlattr *nest,
				  enum vrdma_acl_kind kind,
				  struct netlink_ext_ack *extack);
int vrdma_acl_init(struct vrdma_dev *vdev, struct vrdma_acl *const *acl);
void vrdma_acl_replace(struct vrdma_dev *vdev, enum vrdma_acl_kind kind,
		       struct vrdma_acl *acl);
void vrdma_acl_free(struct vrdma_dev *vdev);
int vrdma_acl_fill(struct sk_buff *skb, struct vrdma_dev *vdev);
bool vrdma_acl_restricted(struct vrdma_dev *vdev);
bool vrdma_acl_gid_allowed(struct vrdma_dev *vdev,
			   const struct ib_gid_attr *attr);
int vrdma_acl_check_av(struct vrdma_dev *vdev,
		       const struct rdma_ah_attr *attr);

/* netlink.c */

/**
 * struct vrdma_event - a vdevice event, built while the vdevice exists and
 *	sent after it may be gone
 * @skb: the message for init_net listeners, or NULL
 * @net: the vdevice's namespace, referenced, when it is not init_net
 */
struct vrdma_event {
	struct sk_buff *skb;
	struct net *net;
};

int vrdma_netlink_init(void);
void vrdma_netlink_exit(void);
void vrdma_nl_event_prepare(struct vrdma_event *ev, struct vrdma_dev *vdev,
			    u8 cmd, enum vrdma_del_reason reason);
void vrdma_nl_event_send(struct vrdma_event *ev);

/* fwd.c: the parent's driver methods */
void vrdma_fwd_init(struct vrdma_dev *vdev);
int vrdma_fwd_check_uctx_req(struct vrdma_dev *vdev, struct ib_udata *udata);
void vrdma_fwd_ufile_init(struct ib_ucontext *ibuc);
struct ib_uobject *vrdma_shadow_uobject_new(struct ib_uobject *uobj,
					    void *shadow);

/* udata.c: what the parent sees of a forwarded call's bundle */
struct ib_udata *vrdma_shadow_udata(struct uverbs_attr_bundle *parent_bundle,
				    struct ib_udata *udata,
				    struct ib_ucontext *vctx);
struct ib_ucontext *vrdma_udata_vctx(struct ib_udata *udata);
int vrdma_parent_udata(struct uverbs_attr_bundle *parent_bundle,
		       struct ib_udata *udata);

/* The core methods whose buffer attributes a parent may read (udata.c) */
enum vrdma_bundle_method {
	VRDMA_BUNDLE_CREATE_CQ,
	VRDMA_BUNDLE_CREATE_QP,
	VRDMA_BUNDLE_CREATE_SRQ,
	VRDMA_BUNDLE_REG_MR,
	VRDMA_BUNDLE_QUERY_CONTEXT,
};

/**
 * struct vrdma_lent_bundle - the caller's bundle, lent to the parent for a call
 * @attrs: the core's bundle around the caller's udata; NULL when nothing
 *	is lent
 * @context: its ucontext before the loan
 * @ufile: its uverbs file before the loan
 * @present: its attribute bitmap before the loan
 *
 * On the caller's stack, for the length of one parent call: only the
 * calling thread uses the bundle.
 */
struct vrdma_lent_bundle {
	struct uverbs_attr_bundle *attrs;
	struct ib_ucontext *context;
	struct ib_uverbs_file *ufile;
	DECLARE_BITMAP(present, UVERBS_API_ATTR_BKEY_LEN);
};

void vrdma_lend_bundle(struct vrdma_lent_bundle *l,
		       struct uverbs_attr_bundle *attrs, struct ib_ucontext *vctx,
		       enum vrdma_bundle_method method);
int vrdma_lend(struct vrdma_lent_bundle *l, struct ib_udata *udata,
	       enum vrdma_bundle_method method);
void vrdma_lend_end(struct vrdma_lent_bundle *l);

/**
 * vrdma_lent_udata() - the driver data to pass to the parent
 * @l: a bundle vrdma_lend() lent
 *
 * Return: the caller's udata, inside the lent bundle.
 */
static inline struct ib_udata *vrdma_lent_udata(struct vrdma_lent_bundle *l)
{
	return &l->attrs->driver_udata;
}

/*
 * shadow.c: the shadow core.  Each kind of object a vdevice makes a shadow
 * of, or charges to its quota, has one row in vrdma_kinds[]; the enums of
 * its debugfs counter and fault point follow this one's order.
 */
enum vrdma_kind {
	VRDMA_KIND_UCTX,
	VRDMA_KIND_PD,
	VRDMA_KIND_CQ,
	VRDMA_KIND_QP,
	VRDMA_KIND_SRQ,
	VRDMA_KIND_MR,
	VRDMA_KIND_MW,
	VRDMA_KIND_AH,
	/* The kinds above have a fault point, the ones below none */
	VRDMA_NR_FAULT_KIND,
	VRDMA_KIND_DRV = VRDMA_NR_FAULT_KIND,	/* of the parent's own types */
	VRDMA_NR_KIND
};

/**
 * struct vrdma_kind_info - what is particular to one kind of object
 * @name: its name in debugfs, for its counter in "objects" and its fault
 *	point in "fail"
 * @res: the quota resource one object is charged to
 * @method: for the kinds vrdma_shadow_make() creates, the core method whose
 *	buffer attributes the parent may read
 */
struct vrdma_kind_info {
	const char *name;
	enum vrdma_res res;
	enum vrdma_bundle_method method;
};

extern const struct vrdma_kind_info vrdma_kinds[VRDMA_NR_KIND];

/* The parent's constructor of a shadow, with the caller's bundle lent */
typedef void *(*vrdma_make_fn)(void *obj, void *init,
			       struct uverbs_attr_bundle *attrs);

/* The parent's destructor of a shadow, given the driver data rewrapped */
typedef int (*vrdma_unmake_fn)(void *shadow, struct ib_udata *parent_udata);

int vrdma_shadow_charge(struct vrdma_dev *vdev, enum vrdma_kind kind);
int vrdma_shadow_fault(enum vrdma_kind kind);
void *vrdma_shadow_make(struct vrdma_dev *vdev, enum vrdma_kind kind,
			struct ib_udata *udata, vrdma_make_fn make, void *obj,
			void *init);
int vrdma_shadow_done(struct vrdma_dev *vdev, enum vrdma_kind kind, int ret);
void vrdma_shadow_gone(struct vrdma_dev *vdev, enum vrdma_kind kind);
int vrdma_shadow_unmake(struct vrdma_dev *vdev, enum vrdma_kind kind,
			struct ib_udata *udata, struct ib_ucontext *vctx,
			vrdma_unmake_fn unmake, void *shadow);
void vrdma_shadow_event(enum vrdma_kind kind, const struct ib_event *pev,
			void *obj, struct ib_device *ibdev,
			void (*handler)(struct ib_event *ev, void *context),
			void *context);

/* shadow.c: the RDMA core's setup of an object, for a shadow */
void vrdma_core_pd_init(struct ib_pd *shadow, struct ib_device *parent_ibdev);
void vrdma_core_cq_init(struct ib_cq *shadow, struct ib_device *parent_ibdev,
			struct ib_ucq_object *uobject);
struct ib_ucontext *vrdma_core_uctx_alloc(struct ib_device *parent_ibdev,
					  struct ib_uverbs_file *ufile);
void vrdma_core_mr_init(struct ib_mr *shadow, struct ib_pd *parent_pd,
			u64 iova, u64 length);
struct ib_mw *vrdma_core_mw_alloc(struct ib_pd *parent_pd,
				  enum ib_mw_type type);

/* verbs_ctx.c */
int vrdma_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void vrdma_dealloc_ucontext(struct ib_ucontext *ibuc);
int vrdma_query_ucontext(struct ib_ucontext *ibuc,
			 struct uverbs_attr_bundle *attrs);
void vrdma_disassociate_ucontext(struct ib_ucontext *ibuc);
int vrdma_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);

/* verbs_pd.c */
int vrdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int vrdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* verbs_cq.c */
int vrdma_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct vrdma_cq_create_arg *arg);
int vrdma_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int vrdma_resize_cq(struct ib_cq *ibcq, vrdma_resize_cqe cqe,
		    struct ib_udata *udata);
int vrdma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int vrdma_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* verbs_qp.c */
int vrdma_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int vrdma_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int vrdma_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int vrdma_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int vrdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int vrdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int vrdma_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int vrdma_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* verbs_srq.c */
int vrdma_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int vrdma_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int vrdma_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int vrdma_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int vrdma_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* verbs_mr.c */
struct ib_mr *vrdma_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access,
				VRDMA_REG_USER_MR_DMAH
				struct ib_udata *udata);
struct ib_mr *vrdma_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
				       u64 length, u64 iova, int fd,
				       int access,
				       VRDMA_REG_DMABUF_MR_DMAH
				       struct vrdma_dmabuf_mr_arg *arg);
int vrdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int vrdma_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int vrdma_dealloc_mw(struct ib_mw *ibmw);

/* verbs_ah.c */
int vrdma_create_user_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata);
int vrdma_destroy_ah(struct ib_ah *ibah, u32 flags);

/* cm_gsi.c: the kernel verbs of a vdevice that carries the RDMA CM */

/**
 * struct vrdma_gsi_mad - a MAD the vdevice's QP1 sent, for the proxy
 * @node: entry in the QP's queue of MADs for the proxy
 * @dgid: the destination GID of the send's AH
 * @sgid: its source GID, one of the vdevice's
 * @sgid_index: the index of @sgid's entry in the vdevice's GID table when
 *	the MAD was sent
 * @dmac: its destination MAC address
 * @flow_label: its GRH's flow label
 * @hop_limit: its GRH's hop limit
 * @tclass: its GRH's traffic class
 * @len: bytes in @data
 * @data: the MAD as the vdevice's MAD layer built it: untrusted
 */
struct vrdma_gsi_mad {
	struct list_head node;
	union ib_gid dgid;
	union ib_gid sgid;
	u32 sgid_index;
	u8 dmac[ETH_ALEN];
	u32 flow_label;
	u8 hop_limit;
	u8 tclass;
	u32 len;
	u8 data[IB_MGMT_MAD_SIZE];
};

int vrdma_cm_init(void);
void vrdma_cm_exit(void);
int vrdma_cm_check_parent(struct ib_device *parent_ibdev);
void vrdma_cm_set_ops(struct vrdma_dev *vdev);
int vrdma_kpd_alloc(struct ib_pd *ibpd);
int vrdma_kpd_dealloc(struct ib_pd *ibpd);
int vrdma_kcq_create(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr);
int vrdma_kcq_destroy(struct ib_cq *ibcq);
int vrdma_kcq_poll(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int vrdma_kcq_notify(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int vrdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
void vrdma_kah_destroy(struct ib_ah *ibah);
int vrdma_gsi_create(struct ib_qp *ibqp, struct ib_qp_init_attr *init);
void vrdma_gsi_destroy(struct ib_qp *ibqp);
int vrdma_gsi_modify(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask);
int vrdma_gsi_query(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		    struct ib_qp_init_attr *init);
int vrdma_gsi_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
int vrdma_gsi_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad_wr);
int vrdma_gsi_deliver(struct vrdma_dev *vdev, const struct ib_grh *grh,
		      const void *mad, size_t len, u8 net_type);

/* cm_proxy.c: the vdevice's CM conversation, carried on the parent */
void vrdma_cm_proxy_init(struct vrdma_dev *vdev);
void vrdma_cm_proxy_stop(struct vrdma_dev *vdev);
struct ib_cm_id;
struct ib_cm_event;
int vrdma_cm_proxy_sidr_accept(struct vrdma_dev *vdev, struct ib_cm_id *pid,
			       const struct ib_cm_event *ev);
int vrdma_cm_proxy_accept(struct vrdma_dev *vdev, struct ib_cm_id *pid,
			  const struct ib_cm_event *ev);
void vrdma_cm_debugfs_init(void);

/* cm_publish.c: the RDMA CM ports published on a vdevice */
int vrdma_cm_publish(struct vrdma_dev *vdev, const u16 *ports, unsigned int n,
		     struct netlink_ext_ack *extack);
void vrdma_cm_publish_stop(struct vrdma_dev *vdev);
void vrdma_cm_listens_reap(void);
void vrdma_cm_publish_debugfs_init(void);

/* gid.c: the vdevice's GID table and GID translation to its parent */
int vrdma_add_gid(const struct ib_gid_attr *attr, void **context);
int vrdma_del_gid(const struct ib_gid_attr *attr, void **context);
int vrdma_gid_ud_get(struct vrdma_dev *vdev);
void vrdma_gid_ud_put(struct vrdma_dev *vdev);
const struct ib_gid_attr *vrdma_gid_to_parent(struct vrdma_dev *vdev,
					      const struct ib_gid_attr *vattr);
int vrdma_ah_attr_to_parent(struct vrdma_dev *vdev,
			    struct rdma_ah_attr *attr);
void vrdma_ah_attr_put(struct rdma_ah_attr *attr);
int vrdma_ah_attr_from_parent(struct vrdma_dev *vdev,
			      struct rdma_ah_attr *attr);

/*
 * debugfs.c: live object counters for leak audits; shadow ucontext holders
 * and wrapped mappings, which may outlive this module, are counted by
 * vrdma_vma.ko (vrdma_vma_obj_count())
 */
enum vrdma_obj {
	VRDMA_OBJ_VDEV,
	/* one counter per enum vrdma_kind, in its order: VRDMA_OBJ_OF() */
	VRDMA_OBJ_KIND,
	VRDMA_OBJ_ALIAS = VRDMA_OBJ_KIND + VRDMA_NR_KIND, /* alias.c */
	VRDMA_OBJ_KOBJ,		/* kernel objects of the RDMA CM (cm_gsi.c) */
	VRDMA_OBJ_CMCONN,	/* connections the CM proxy carries (cm_proxy.c) */
	VRDMA_NR_OBJ
};

#define VRDMA_OBJ_OF(kind)	(VRDMA_OBJ_KIND + (kind))

extern atomic_t vrdma_obj_count[VRDMA_NR_OBJ];

static inline void vrdma_obj_inc(enum vrdma_obj obj)
{
	atomic_inc(&vrdma_obj_count[obj]);
}

static inline void vrdma_obj_dec(enum vrdma_obj obj)
{
	atomic_dec(&vrdma_obj_count[obj]);
}

/*
 * debugfs.c: fault injection.  Writing N to
 * /sys/kernel/debug/vrdma/fail/<point> makes the next N passes through that
 * point fail with -ENOMEM, so that every unwind path is run by a test.
 */
enum vrdma_fault {
	/* one point per kind of VRDMA_NR_FAULT_KIND, in its order */
	VRDMA_FAULT_KIND,
	VRDMA_FAULT_REGISTER = VRDMA_FAULT_KIND + VRDMA_NR_FAULT_KIND,
	VRDMA_FAULT_NETNS,
	VRDMA_FAULT_ALIAS,
	VRDMA_NR_FAULT
};

#define VRDMA_FAULT_OF(kind)	(VRDMA_FAULT_KIND + (kind))

int vrdma_fault(enum vrdma_fault point);

/*
 * debugfs.c: race windows held open.  Writing N to
 * /sys/kernel/debug/vrdma/delay/<point> makes the next pass through that
 * point sleep N milliseconds (at most 10 s), so that a test can act inside
 * a window that is otherwise too short to hit.
 */
enum vrdma_delay {
	VRDMA_DELAY_REGISTERED,	/* registered, not yet on vrdma_devs */
	VRDMA_DELAY_HOME,	/* moved or renamed, not yet undone */
	VRDMA_DELAY_QP_AV,	/* modify_qp: the shadow has the AV, its GID
				 * indices are not recorded yet
				 */
	VRDMA_DELAY_CM_EVENT,	/* the CM proxy's handler has its connection,
				 * has not yet locked the vdevice's list
				 */
	VRDMA_DELAY_RELEASED,	/* a vdevice left vrdma_dying: its parent's
				 * removal may go on
				 */
	VRDMA_DELAY_CM_LISTEN,	/* a request on a published port holds its
				 * listener, has not yet locked vrdma_mutex
				 */
	VRDMA_NR_DELAY
};

void vrdma_delay(enum vrdma_delay point);

extern struct dentry *vrdma_debugfs_root;
void vrdma_debugfs_init(void);
void vrdma_debugfs_exit(void);

#endif /* _VRDMA_H */
