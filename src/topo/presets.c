/* Built-in machines, written by hand from public facts, each cited below by its source
 * (kernel commit or mail, hwloc test topology, article, data set). Each preset is
 * a regular machine; its CPU numbering is the one Linux shows on that hardware, so that
 * CPU lists in reports can be compared with numactl/lscpu output from the real box. */
#include <stddef.h>
#include <string.h>

#include "topo_build.h"

/* Huawei Kunpeng 920-6426 2P (HiSilicon Hi1620, 64 cores per socket).
 * Topology: 2 dies (SCCL) per socket, each die one NUMA node with its own L3 (32 MB, spans
 * the die: shared_cpu_list 0-31); 8 clusters of 4 cores per die sharing an L3 tag
 * partition (ACPI PPTT -> cluster_cpus_list); no SMT (Barry Song / Jonathan
 * Cameron cluster series 2021, Message-Id <20210924085104.44806-1-21cnbao@gmail.com>; hwloc
 * test topology tests/hwloc/linux/128arm-2pa2n8cluster4co; plantegg blog lscpu output).
 * Numbering: consecutive (cluster = 4 consecutive CPUs, node = 32 consecutive CPUs).
 * SLIT: Huawei XA320 V2 firmware as captured in hwloc's 128arm-2pa2n8cluster4co tarball
 * (BIOS 0.86, 2019), so that this preset and an import of that tarball agree. The other
 * firmware variant (D06 chain, 10/12/20/22/24) is used by kunpeng920-48. */
static const int kunpeng920_slit[] = {
	10, 16, 32, 33, 16, 10, 25, 32, 32, 25, 10, 16, 33, 32, 16, 10,
};
static const char kunpeng920_desc[] =
	"Huawei Kunpeng 920-6426 2P: 2 sockets x 2 dies x 8 clusters x 4 cores, 128 CPUs, "
	"4 nodes (SLIT 10/16/25/32/33)";
static const struct ts_regular_machine kunpeng920 = {
	.name = "kunpeng920",
	.description = kunpeng920_desc,
	.packages = 2,
	.nodes_per_package = 2,
	.llcs_per_node = 1,
	.clusters_per_llc = 8,
	.cores_per_cluster = 4,
	.threads_per_core = 1,
	.smt_numbering = TS_SMT_ADJACENT,
	.distance = kunpeng920_slit,
	.llc_bytes = 32ull << 20,
};

/* Huawei Kunpeng 920-4826 2P (48 cores per socket): 24 cores per die = 6 clusters x 4,
 * L3 24 MB per die; no SMT (the cluster series above). Numbering: node0 0-23, node1 24-47, node2
 * 48-71, node3 72-95. SLIT: the D06 / most-2P-boards chain 1-0-2-3 (node1->node3 = 24) reported by
 * Valentin Schneider (2020), Barry Song (2020-21) and plantegg for 48- and 64-core parts; its four
 * distinct remote distances exercise NUMA-level collapsing. */
static const int kunpeng920_48_slit[] = {
	10, 12, 20, 22, 12, 10, 22, 24, 20, 22, 10, 12, 22, 24, 12, 10,
};
static const char kunpeng920_48_desc[] =
	"Huawei Kunpeng 920-4826 2P: 2 sockets x 2 dies x 6 clusters x 4 cores, 96 CPUs, "
	"4 nodes (SLIT 10/12/20/22/24)";
static const struct ts_regular_machine kunpeng920_48 = {
	.name = "kunpeng920-48",
	.description = kunpeng920_48_desc,
	.packages = 2,
	.nodes_per_package = 2,
	.llcs_per_node = 1,
	.clusters_per_llc = 6,
	.cores_per_cluster = 4,
	.threads_per_core = 1,
	.smt_numbering = TS_SMT_ADJACENT,
	.distance = kunpeng920_48_slit,
	.llc_bytes = 24ull << 20,
};

/* AMD EPYC 7601 2P (Naples, Zen 1): 4 Zeppelin dies per socket, each die a NUMA node;
 * 2 CCX per die of 4 cores, SMT2; the 8 MB L3 is per CCX (the LLC), L2 per core, so no
 * cluster level (AnandTech 11544, "Sizing Up Servers", 2017; the CCX mapping confirmed by
 * the 4-CPU blocks of KCORES "Dual AMD EPYC 7601 ... by-jstzwj.csv"). Numbering: x86 split,
 * node0 = 0-7,64-71, node4 = 32-39,96-103. SLIT: 10 own, 16 same socket, 32 other socket
 * (Matt Fleming, commit a55c7454a8c8 "sched/topology: Improve load balancing on AMD EPYC
 * systems", 2019); 32 > RECLAIM_DISTANCE (30), so the cross-socket level loses wake-affine. */
static const int epyc_7601_slit[] = {
	10, 16, 16, 16, 32, 32, 32, 32, 16, 10, 16, 16, 32, 32, 32, 32, 16, 16, 10, 16, 32, 32,
	32, 32, 16, 16, 16, 10, 32, 32, 32, 32, 32, 32, 32, 32, 10, 16, 16, 16, 32, 32, 32, 32,
	16, 10, 16, 16, 32, 32, 32, 32, 16, 16, 10, 16, 32, 32, 32, 32, 16, 16, 16, 10,
};
static const char epyc_7601_desc[] =
	"AMD EPYC 7601 2P (Naples): 2 sockets x 4 dies x 2 CCX x 4 cores x SMT2, 128 CPUs, "
	"8 nodes (SLIT 10/16/32)";
static const struct ts_regular_machine epyc_7601 = {
	.name = "epyc-7601",
	.description = epyc_7601_desc,
	.packages = 2,
	.nodes_per_package = 4,
	.llcs_per_node = 2,
	.clusters_per_llc = 1,
	.cores_per_cluster = 4,
	.threads_per_core = 2,
	.smt_numbering = TS_SMT_SPLIT,
	.distance = epyc_7601_slit,
	.llc_bytes = 8ull << 20,
};

/* AMD EPYC 7742 2P (Rome, Zen 2), NPS1 (the default): 8 CCDs x 2 CCX of 4 cores per
 * socket, SMT2; the 16 MB L3 is per CCX (the LLC), L2 per core, no cluster level; one node
 * per socket (AnandTech 14694, the Rome review). Numbering: x86 split,
 * node0 = 0-63,128-191. SLIT 10/32 (ARCHER2's and other published numactl -H outputs). */
static const int epyc_7742_slit[] = {
	10,
	32,
	32,
	10,
};
static const char epyc_7742_desc[] =
	"AMD EPYC 7742 2P (Rome), NPS1: 2 sockets x 16 CCX x 4 cores x SMT2, 256 CPUs, "
	"2 nodes (SLIT 10/32)";
static const struct ts_regular_machine epyc_7742 = {
	.name = "epyc-7742",
	.description = epyc_7742_desc,
	.packages = 2,
	.nodes_per_package = 1,
	.llcs_per_node = 16,
	.clusters_per_llc = 1,
	.cores_per_cluster = 4,
	.threads_per_core = 2,
	.smt_numbering = TS_SMT_SPLIT,
	.distance = epyc_7742_slit,
	.llc_bytes = 16ull << 20,
};

/* The same machine in NPS4: 4 nodes per socket of 16 cores (4 CCX) each.
 * Numbering: ARCHER2 shows node0 = 0-15,128-143. SLIT 10 own, 12 same socket, 32 other
 * socket (ARCHER2 numactl: 10 12 12 12 32 32 32 32). */
static const int epyc_7742_nps4_slit[] = {
	10, 12, 12, 12, 32, 32, 32, 32, 12, 10, 12, 12, 32, 32, 32, 32, 12, 12, 10, 12, 32, 32,
	32, 32, 12, 12, 12, 10, 32, 32, 32, 32, 32, 32, 32, 32, 10, 12, 12, 12, 32, 32, 32, 32,
	12, 10, 12, 12, 32, 32, 32, 32, 12, 12, 10, 12, 32, 32, 32, 32, 12, 12, 12, 10,
};
static const char epyc_7742_nps4_desc[] =
	"AMD EPYC 7742 2P (Rome), NPS4: 2 sockets x 4 nodes x 4 CCX x 4 cores x SMT2, "
	"256 CPUs, 8 nodes (SLIT 10/12/32)";
static const struct ts_regular_machine epyc_7742_nps4 = {
	.name = "epyc-7742-nps4",
	.description = epyc_7742_nps4_desc,
	.packages = 2,
	.nodes_per_package = 4,
	.llcs_per_node = 4,
	.clusters_per_llc = 1,
	.cores_per_cluster = 4,
	.threads_per_core = 2,
	.smt_numbering = TS_SMT_SPLIT,
	.distance = epyc_7742_nps4_slit,
	.llc_bytes = 16ull << 20,
};

/* Intel Xeon E5-2698 v4 2P (Broadwell-EP): 20 cores per socket, SMT2, L2 per core, one
 * inclusive 50 MB L3 per socket, one node per socket (Cluster-on-Die off; vendor spec
 * knowledge, not checked against a primary source). Numbering: the usual x86 split,
 * node0 = 0-19,40-59 (some BIOSes interleave sockets instead, as hwloc's E5-2650L v4 dump
 * shows; not modelled). SLIT 10/21: what hwloc's 32intel64-2p8co2t+8ve capture (Xeon
 * Silver 4108) reports; other Intel BIOSes say 20. */
static const int broadwell_2s_slit[] = {
	10,
	21,
	21,
	10,
};
static const char broadwell_2s_desc[] =
	"Intel Xeon E5-2698 v4 2P (Broadwell-EP): 2 sockets x 20 cores x SMT2, 80 CPUs, "
	"LLC per socket, 2 nodes (SLIT 10/21)";
static const struct ts_regular_machine broadwell_2s = {
	.name = "broadwell-2s",
	.description = broadwell_2s_desc,
	.packages = 2,
	.nodes_per_package = 1,
	.llcs_per_node = 1,
	.clusters_per_llc = 1,
	.cores_per_cluster = 20,
	.threads_per_core = 2,
	.smt_numbering = TS_SMT_SPLIT,
	.distance = broadwell_2s_slit,
	.llc_bytes = 50ull << 20,
};

/* Intel Xeon Platinum 8380 2P (Ice Lake-SP): 40 cores per socket on a monolithic XCC
 * mesh, SMT2, L2 per core, one 60 MB L3 per socket, one node per socket (SNC off)
 * (vendor spec knowledge). Numbering: x86 split, node0 = 0-39,80-119.
 * SLIT: published two-socket Intel captures show 10/20 or 10/21 depending on BIOS, neither
 * confirmed for this SKU. 20 is chosen because it is Linux's REMOTE_DISTANCE, i.e. what the kernel
 * itself assumes without a SLIT; for the scheduler the two are equivalent (two nodes give one NUMA
 * level, NUMA_DIRECT, below RECLAIM_DISTANCE either way). */
static const int icelake_2s_slit[] = {
	10,
	20,
	20,
	10,
};
static const char icelake_2s_desc[] =
	"Intel Xeon Platinum 8380 2P (Ice Lake-SP): 2 sockets x 40 cores x SMT2, 160 CPUs, "
	"LLC per socket, 2 nodes (SLIT 10/20)";
static const struct ts_regular_machine icelake_2s = {
	.name = "icelake-2s",
	.description = icelake_2s_desc,
	.packages = 2,
	.nodes_per_package = 1,
	.llcs_per_node = 1,
	.clusters_per_llc = 1,
	.cores_per_cluster = 40,
	.threads_per_core = 2,
	.smt_numbering = TS_SMT_SPLIT,
	.distance = icelake_2s_slit,
	.llc_bytes = 60ull << 20,
};

/* Intel Xeon Platinum 8480+ 2P (Sapphire Rapids), SNC off: 56 cores per socket as 4 tiles
 * of 14 joined by EMIB, SMT2, L2 per core, one 105 MB L3 per socket (112 CPUs in one LLC,
 * as on Chen Yu's 2022 SIS_UTIL test box), one node per socket, SLIT 10/21 (0-day LKP
 * robot reports and HPC sites' published numactl -H outputs). Numbering: x86 split, node0 =
 * 0-55,112-167. */
static const int spr_2s_slit[] = {
	10,
	21,
	21,
	10,
};
static const char spr_2s_desc[] =
	"Intel Xeon Platinum 8480+ 2P (Sapphire Rapids), SNC off: 2 sockets x 56 cores x SMT2, "
	"224 CPUs, LLC per socket, 2 nodes (SLIT 10/21)";
static const struct ts_regular_machine spr_2s = {
	.name = "spr-2s",
	.description = spr_2s_desc,
	.packages = 2,
	.nodes_per_package = 1,
	.llcs_per_node = 1,
	.clusters_per_llc = 1,
	.cores_per_cluster = 56,
	.threads_per_core = 2,
	.smt_numbering = TS_SMT_SPLIT,
	.distance = spr_2s_slit,
	.llc_bytes = 105ull << 20,
};

/* The same machine with SNC4: 8 nodes of 14 cores, SLIT 10 own, 12 same socket, 21 other
 * socket (published SNC4 numactl -H outputs, HT off: node0 = 0-13); with HT on and x86 split
 * numbering node0 = 0-13,112-125. The L3 is physically per socket, but Linux splits it at
 * node boundaries on SNC parts (arch/x86/kernel/smpboot.c, match_llc(): CPUs of one
 * package on different nodes do not share the LLC), so the scheduler's MC level is the
 * node: one LLC per node (28 CPUs) here. */
static const int spr_2s_snc4_slit[] = {
	10, 12, 12, 12, 21, 21, 21, 21, 12, 10, 12, 12, 21, 21, 21, 21, 12, 12, 10, 12, 21, 21,
	21, 21, 12, 12, 12, 10, 21, 21, 21, 21, 21, 21, 21, 21, 10, 12, 12, 12, 21, 21, 21, 21,
	12, 10, 12, 12, 21, 21, 21, 21, 12, 12, 10, 12, 21, 21, 21, 21, 12, 12, 12, 10,
};
static const char spr_2s_snc4_desc[] =
	"Intel Xeon Platinum 8480+ 2P (Sapphire Rapids), SNC4: 2 sockets x 4 nodes x 14 cores "
	"x SMT2, 224 CPUs, LLC per node, 8 nodes (SLIT 10/12/21)";
static const struct ts_regular_machine spr_2s_snc4 = {
	.name = "spr-2s-snc4",
	.description = spr_2s_snc4_desc,
	.packages = 2,
	.nodes_per_package = 4,
	.llcs_per_node = 1,
	.clusters_per_llc = 1,
	.cores_per_cluster = 14,
	.threads_per_core = 2,
	.smt_numbering = TS_SMT_SPLIT,
	.distance = spr_2s_snc4_slit,
	.llc_bytes = 105ull << 20, /* the socket's L3 as sysfs reports it for each CPU */
};

/* Intel Jacobsville (Atom P5900 family, Tremont), P5962B-class: 24 cores in 6 clusters of
 * 4, each cluster sharing one L2 (x86 Linux derives cluster_cpus from L2 sharing), all 24
 * sharing the L3; no SMT, one socket, one node (Tim Chen, "sched: Add cluster
 * scheduler level for x86", commit 66558b730f25; Barry Song's cover letter, Message-Id
 * <20210924085104.44806-1-21cnbao@gmail.com>). Numbering:
 * consecutive, cluster k = CPUs 4k..4k+3 (assumed; the sources give no CPU lists). */
static const char jacobsville_desc[] =
	"Intel Atom P5962B-class (Jacobsville): 6 clusters x 4 cores sharing an L2, 24 CPUs, "
	"1 LLC, 1 node";
static const struct ts_regular_machine jacobsville = {
	.name = "jacobsville",
	.description = jacobsville_desc,
	.packages = 1,
	.nodes_per_package = 1,
	.llcs_per_node = 1,
	.clusters_per_llc = 6,
	.cores_per_cluster = 4,
	.threads_per_core = 1,
	.smt_numbering = TS_SMT_ADJACENT,
	.distance = NULL,
	.llc_bytes = 0, /* unknown: the sources give no L3 size for this class */
};

#define PRESET_BUILDER(fn, machine)                                                                \
	static struct ts_topology *fn(struct ts_error *err)                                        \
	{                                                                                          \
		return ts_topology_build_regular(&(machine), err);                                 \
	}

PRESET_BUILDER(build_kunpeng920, kunpeng920)
PRESET_BUILDER(build_kunpeng920_48, kunpeng920_48)
PRESET_BUILDER(build_epyc_7601, epyc_7601)
PRESET_BUILDER(build_epyc_7742, epyc_7742)
PRESET_BUILDER(build_epyc_7742_nps4, epyc_7742_nps4)
PRESET_BUILDER(build_broadwell_2s, broadwell_2s)
PRESET_BUILDER(build_icelake_2s, icelake_2s)
PRESET_BUILDER(build_spr_2s, spr_2s)
PRESET_BUILDER(build_spr_2s_snc4, spr_2s_snc4)
PRESET_BUILDER(build_jacobsville, jacobsville)

/* Order is the order `toposched machines` lists them in. */
static const struct ts_preset presets[] = {
	{"kunpeng920", kunpeng920_desc, build_kunpeng920},
	{"kunpeng920-48", kunpeng920_48_desc, build_kunpeng920_48},
	{"epyc-7601", epyc_7601_desc, build_epyc_7601},
	{"epyc-7742", epyc_7742_desc, build_epyc_7742},
	{"epyc-7742-nps4", epyc_7742_nps4_desc, build_epyc_7742_nps4},
	{"broadwell-2s", broadwell_2s_desc, build_broadwell_2s},
	{"icelake-2s", icelake_2s_desc, build_icelake_2s},
	{"spr-2s", spr_2s_desc, build_spr_2s},
	{"spr-2s-snc4", spr_2s_snc4_desc, build_spr_2s_snc4},
	{"jacobsville", jacobsville_desc, build_jacobsville},
};

const struct ts_preset *ts_preset_list(int *count)
{
	if (count)
		*count = (int)(sizeof(presets) / sizeof(presets[0]));
	return presets;
}

const struct ts_preset *ts_preset_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (strcmp(presets[i].name, name) == 0)
			return &presets[i];
	return NULL;
}
