// SPDX-License-Identifier: GPL-2.0
/*
 * simbuf: a DMA-BUF exporter for the selftests only, on kernels without
 * udmabuf (Debian's 6.1).  SIMBUF_IOCTL_CREATE on /dev/simbuf returns a
 * DMA-BUF of kernel pages; an importer maps it for its own DMA device, as
 * it would a GPU's memory.  /sys/kernel/debug/simbuf/objects counts live
 * buffers, attachments and mappings, so that a test sees a buffer its
 * importer failed to release.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "simbuf-abi.h"
#include "sim-compat.h"

/* At most 256 MiB a buffer: a test double, not an allocator */
#define SIMBUF_MAX_PAGES	(SZ_256M >> PAGE_SHIFT)

static atomic_long_t simbuf_buffers;
static atomic_long_t simbuf_attachments;
static atomic_long_t simbuf_mappings;
static struct dentry *simbuf_debugfs;

struct simbuf {
	unsigned long nr_pages;
	struct page **pages;
};

static int simbuf_attach(struct dma_buf *dmabuf,
			 struct dma_buf_attachment *attach)
{
	atomic_long_inc(&simbuf_attachments);
	return 0;
}

static void simbuf_detach(struct dma_buf *dmabuf,
			  struct dma_buf_attachment *attach)
{
	atomic_long_dec(&simbuf_attachments);
}

static struct sg_table *simbuf_map(struct dma_buf_attachment *attach,
				   enum dma_data_direction dir)
{
	struct simbuf *sb = attach->dmabuf->priv;
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return ERR_PTR(-ENOMEM);
	ret = sg_alloc_table_from_pages(sgt, sb->pages, sb->nr_pages, 0,
					sb->nr_pages << PAGE_SHIFT,
					GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	if (ret)
		goto err_free_table;
	atomic_long_inc(&simbuf_mappings);
	return sgt;

err_free_table:
	sg_free_table(sgt);
err_free:
	kfree(sgt);
	return ERR_PTR(ret);
}

static void simbuf_unmap(struct dma_buf_attachment *attach,
			 struct sg_table *sgt, enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
	sg_free_table(sgt);
	kfree(sgt);
	atomic_long_dec(&simbuf_mappings);
}

static void simbuf_free(struct simbuf *sb)
{
	unsigned long i;

	for (i = 0; i < sb->nr_pages; i++)
		if (sb->pages[i])
			__free_page(sb->pages[i]);
	kvfree(sb->pages);
	kfree(sb);
}

static void simbuf_release(struct dma_buf *dmabuf)
{
	simbuf_free(dmabuf->priv);
	atomic_long_dec(&simbuf_buffers);
}

static const struct dma_buf_ops simbuf_ops = {
	.attach = simbuf_attach,
	.detach = simbuf_detach,
	.map_dma_buf = simbuf_map,
	.unmap_dma_buf = simbuf_unmap,
	.release = simbuf_release,
};

static long simbuf_create(struct simbuf_create __user *uarg)
{
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct simbuf_create arg;
	struct dma_buf *dmabuf;
	struct simbuf *sb;
	unsigned long i;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags || arg.reserved || !arg.size ||
	    !PAGE_ALIGNED(arg.size) ||
	    arg.size >> PAGE_SHIFT > SIMBUF_MAX_PAGES)
		return -EINVAL;

	sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	if (!sb)
		return -ENOMEM;
	sb->nr_pages = arg.size >> PAGE_SHIFT;
	sb->pages = kvcalloc(sb->nr_pages, sizeof(*sb->pages), GFP_KERNEL);
	if (!sb->pages) {
		ret = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < sb->nr_pages; i++) {
		sb->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!sb->pages[i]) {
			ret = -ENOMEM;
			goto err_free;
		}
	}

	exp_info.ops = &simbuf_ops;
	exp_info.size = arg.size;
	exp_info.flags = O_RDWR;
	exp_info.priv = sb;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto err_free;
	}
	/* From here the buffer's release frees @sb */
	atomic_long_inc(&simbuf_buffers);
	ret = dma_buf_fd(dmabuf, O_CLOEXEC);
	if (ret < 0)
		dma_buf_put(dmabuf);
	return ret;

err_free:
	simbuf_free(sb);
	return ret;
}

static long simbuf_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	if (cmd != SIMBUF_IOCTL_CREATE)
		return -ENOTTY;
	return simbuf_create((struct simbuf_create __user *)arg);
}

static const struct file_operations simbuf_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = simbuf_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice simbuf_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "simbuf",
	.fops = &simbuf_fops,
};

static int simbuf_objects_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "buffers %ld\n", atomic_long_read(&simbuf_buffers));
	seq_printf(s, "attachments %ld\n",
		   atomic_long_read(&simbuf_attachments));
	seq_printf(s, "mappings %ld\n", atomic_long_read(&simbuf_mappings));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(simbuf_objects);

static int __init simbuf_init(void)
{
	int ret;

	ret = misc_register(&simbuf_misc);
	if (ret)
		return ret;
	simbuf_debugfs = debugfs_create_dir("simbuf", NULL);
	debugfs_create_file("objects", 0444, simbuf_debugfs, NULL,
			    &simbuf_objects_fops);
	return 0;
}

/* A live buffer holds a module reference: none is left at exit */
static void __exit simbuf_exit(void)
{
	debugfs_remove_recursive(simbuf_debugfs);
	misc_deregister(&simbuf_misc);
}

module_init(simbuf_init);
module_exit(simbuf_exit);

MODULE_DESCRIPTION("simbuf: a DMA-BUF exporter for vrdma's selftests");
MODULE_LICENSE("GPL");
SIM_IMPORT_NS_DMA_BUF();
