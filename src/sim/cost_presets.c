/* The cost model's data: per built-in machine the figures the terms are built from, each
 * with its published source (data set, article, kernel file) or a labelled estimate, and
 * the generic model's ranges (cost_presets.h). A data table; the rules are in
 * cost_model.c. */
#include "cost_presets.h"

#include <stddef.h>
#include <string.h>

#define KCORES_KUNPENG                                                                             \
	"KCORES core-to-core-latency-plus 'HiSilicon Kunpeng 920-6426 @ 2.6GHz by-Concyclics.csv'" \
	" (one socket, 64 CPUs)"
#define KCORES_7601   "KCORES 'Dual AMD EPYC 7601 32-Core Processor by-jstzwj.csv'"
#define NVIENNOT_7742 "nviennot/core-to-core-latency 'Dual AMD EPYC 7742 64-Core Processor.csv'"
#define KCORES_BDW    "nviennot/KCORES 'Dual Intel(R) Xeon(R) CPU E5-2680 v4 @ 2.40GHz.csv'"
#define KCORES_ICX    "KCORES 'Dual Intel Xeon Platinum 8358 CPU 2.60GHz by-leavelet.csv'"
#define KCORES_SPR    "KCORES 'Intel Xeon W9-3475X 2.2GHz 36Cores 2023-Q2 by-ReinForce-II.csv'"

/* The switch cost of a preset without a lat_pipe pair of its own: kunpeng920's, derived
 * from its pair, scaled by this figure against CTX_SWITCH_EST_NS (cost_model.c). */
#define CTX_SWITCH_EST                                                                             \
	{                                                                                          \
		CTX_SWITCH_EST_NS,                                                                 \
			"no published figure found; a 2-3 GHz server core runs the kernel's "      \
			"switch code (__schedule, switch_mm, register state) as fast as Kunpeng "  \
			"920's"                                                                    \
	}

#define HINT_FAULT_EST                                                                             \
	{                                                                                          \
		1000, "estimate: no published figure found; a NUMA hinting fault on a THP is a "   \
		      "minor fault (exception entry and exit, 0.3-0.5 us with current "            \
		      "mitigations) "                                                              \
		      "plus do_huge_pmd_numa_page (page-table lock, the PMD rewrite, "             \
		      "numa_migrate_check) and task_numa_fault's bookkeeping: 1 us on 2-3 GHz "    \
		      "server cores; the page copy is numa.migrate_per_kib"                        \
	}

#define IDLE_EXIT_AMD                                                                              \
	{                                                                                          \
		1000, "estimate: no published figure found; AMD's shallow state is C1 (MWAIT) "    \
		      "via "                                                                       \
		      "ACPI _CST, comparable to Intel's C1 of the same years, which Linux "        \
		      "declares "                                                                  \
		      "1-2 us (intel_idle icx/bdw tables); 1 us"                                   \
	}

#define IDLE_EXIT_WFI                                                                              \
	{                                                                                          \
		1000, "declared: Linux ARM_CPUIDLE_WFI_STATE (WFI, exit_latency 1 us); the "       \
		      "shallow state of arm64 cpuidle; we found no published copy of Kunpeng's "   \
		      "own ACPI LPI table"                                                         \
	}

#define SMT_INTEL_EST(dataset)                                                                     \
	{                                                                                          \
		8.3, "estimate: " dataset " has SMT off; Intel SMT siblings share L1/L2 on every " \
		     "generation, so Broadwell's measured sibling figure is used: 8.3 ns "         \
		     "(E5-2680 v4, KCORES data set)"                                               \
	}

#define MEM_CLX_LOCAL                                                                              \
	{                                                                                          \
		70, "estimate: no published figure found; proxy: Cascade Lake 8269CY 2S local "    \
		    "70 ns (plantegg blog, lmbench lat_mem_rd 64M), the preceding Xeon-SP "        \
		    "generation"                                                                   \
	}

/* CPU speed (docs/model.md, "SMT and frequency"). */
#define SMT_YIELD_LINUX                                                                            \
	{                                                                                          \
		1.15, "declared: Linux's SMT capacity gain, smt_gain = 1178 / 1024 = 1.15 "        \
		      "('15%', include/linux/topology.h SD_SIBLING_INIT, later sd_init() in "      \
		      "kernel/sched/topology.c): the throughput of a core running two busy "       \
		      "siblings, relative to one thread alone; we found no published "             \
		      "per-microarchitecture measurement of a syscall-heavy load"                  \
	}
#define FIXED_STEP(why)                                                                            \
	{                                                                                          \
		0, "measured: " why ": the clock does not depend on the number of active cores"    \
	}
/* Intel turbo: one 100 MHz bin less per extra active core, down to the all-core bin (Intel
 * support article 000056901, "What Is the Meaning of Available Bins of Intel Turbo Boost
 * Technology": E5-2667 v2 bins 7/6/5/4/3/3/3/3, one bin per core from 1 to 4 active cores,
 * then the all-core bin). */
#define INTEL_STEP                                                                                 \
	{                                                                                          \
		100, "estimate: Intel's bin rule (support article 000056901, the E5-2667 v2 "      \
		     "example: one 100 MHz bin less per extra active core down to the "            \
		     "all-core bin); this SKU's per-count bins between the two published "         \
		     "points were not found"                                                       \
	}

/* The clocks of the parts two presets share (both NPS modes; SNC off and on). */
#define EPYC_7742_FREQ_MAX_MHZ                                                                     \
	{                                                                                          \
		3400, "measured: AMD EPYC 7742 product page "                                      \
		      "(amd.com/en/products/cpu/amd-epyc-7742), "                                  \
		      "Max Boost Clock 3.4 GHz"                                                    \
	}
#define EPYC_7742_FREQ_ALL_CORE_MHZ                                                                \
	{                                                                                          \
		3200, "measured: the same page, All Core Boost Speed 3.2 GHz"                      \
	}
#define EPYC_7742_FREQ_STEP_MHZ                                                                    \
	{                                                                                          \
		3.17, "estimate: AMD publishes no per-count table (Precision Boost); linear "      \
		      "between "                                                                   \
		      "the two published points: (3400 - 3200) / (64 - 1) cores"                   \
	}
#define XEON_8480_FREQ_MAX_MHZ                                                                     \
	{                                                                                          \
		3800, "measured: Intel ARK, Xeon Platinum 8480+, Max Turbo Frequency 3.80 GHz"     \
	}
#define XEON_8480_FREQ_ALL_CORE_MHZ                                                                \
	{                                                                                          \
		3000, "measured: Intel ARK, Xeon Platinum 8480+, All-core Turbo Frequency 3.00 "   \
		      "GHz"                                                                        \
	}

static const struct preset_costs preset_costs[] = {
	{
		.name = "kunpeng920",
		.smt_pair_yield = {2, NULL},
		.freq_max_mhz = {2600, "measured: Huawei Kunpeng 920-6426, 2.6 GHz (Huawei "
				       "Kunpeng 920 product page); no turbo"},
		.freq_all_core_mhz = {2600, "measured: the same fixed 2.6 GHz with every core "
					    "active (no turbo)"},
		.freq_step_mhz = FIXED_STEP("Kunpeng 920 runs at a fixed clock"),
		.c2c =
			{
				[TS_REL_CLUSTER] = {34.5,
						    "measured: " KCORES_KUNPENG ", same cluster, "
						    "median (p10-p90 30.0-37.9)"},
				[TS_REL_LLC] = {35.7,
						"measured: " KCORES_KUNPENG ", same die, other "
						"cluster, median (33.4-38.0)"},
				[TS_REL_PACKAGE] = {80.5,
						    "measured: " KCORES_KUNPENG ", other die of "
						    "the socket, median (72.2-84.5)"},
				[TS_REL_REMOTE] =
					{165,
					 "estimate: no cross-socket figure (the data set "
					 "is one socket); the midpoint of our estimate "
					 "150-180 ns, made from the plantegg memory "
					 "latencies (other socket 198/219 ns vs other die 135)"},
			},
		.bulk_line =
			{
				[TS_REL_CLUSTER] =
					{30.0,
					 "no published figure for coherence-heavy "
					 "transfers; a pipelined multi-line copy "
					 "is taken at the uncontended line latency, the p10 "
					 "of " KCORES_KUNPENG ", the one statistic of it that "
					 "separates the clusters: same cluster p10 30.0 ns"},
				[TS_REL_LLC] = {33.4, "as bulk_per_kib.cluster: other cluster p10 "
						      "33.4 ns of the same data set"},
			},
		.remote_distance = {32, "estimate: the distance the c2c.remote estimate is "
					"taken at: node 0 to the near die of the other socket "
					"(XA320 V2 SLIT 10/16/32/33)"},
		.idle_exit = IDLE_EXIT_WFI,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {512, "measured: TaiShan v110 core, private L2 512 KiB per "
					    "core, no SMT (Huawei Kunpeng 920 product page; "
					    "WikiChip hisilicon/microarchitectures/taishan_v110); "
					    "L1D 64 KiB is inside that budget"},
		.kunpeng_lat_pipe = true,
		.pipe_same_cluster = {5797, "lmbench lat_pipe, CPU 1 <-> 0, 5,807 and 5,787 ns "
					    "(openeuler-mirror/wayca-scheduler tools/"
					    "kp920.2P.8CCL.type2/"
					    "log.pipe.lock.0420.8ccl.filtered.txt)"},
		.mem_local = {117, "measured: plantegg 'Intel AMD 鲲鹏 海光 飞腾性能PK' (2021), "
				   "lmbench lat_mem_rd -t 64M, 920-4826 2P, local"},
		.mem_per_distance = {4.04,
				     "derived: the 920-4826 latencies (other die 135, "
				     "other socket 198 / 219 ns) put on this preset's SLIT "
				     "(16, 32, 33): least-squares slope through (10, 117 ns); "
				     "measured on a 920-4826 board with another SLIT"},
	},
	{
		.name = "kunpeng920-48",
		.smt_pair_yield = {2, NULL},
		.freq_max_mhz = {2600, "measured: Huawei Kunpeng 920-4826, 2.6 GHz (Huawei "
				       "Kunpeng 920 product page); no turbo"},
		.freq_all_core_mhz = {2600, "measured: the same fixed 2.6 GHz with every core "
					    "active (no turbo)"},
		.freq_step_mhz = FIXED_STEP("Kunpeng 920 runs at a fixed clock"),
		.c2c =
			{
				[TS_REL_CLUSTER] =
					{34.5, "measured: " KCORES_KUNPENG ", on the 920-6426 "
					       "(same TaiShan v110 die and 4-core clusters; no "
					       "920-4826 data set), same cluster, median"},
				[TS_REL_LLC] = {35.7,
						"measured: " KCORES_KUNPENG ", on the 920-6426, "
						"same die, other cluster, median"},
				[TS_REL_PACKAGE] = {80.5, "measured: " KCORES_KUNPENG ", on the "
							  "920-6426, other die, median"},
				[TS_REL_REMOTE] =
					{165,
					 "estimate: no cross-socket figure (the data set is "
					 "one socket); the midpoint of our estimate 150-180 ns"},
			},
		.bulk_line =
			{
				[TS_REL_CLUSTER] =
					{30.0,
					 "no published figure for coherence-heavy "
					 "transfers; the uncontended (p10) line "
					 "latency of the 920-6426 data set, as for kunpeng920: "
					 "same cluster 30.0 ns"},
				[TS_REL_LLC] = {33.4, "as bulk_per_kib.cluster: other cluster p10 "
						      "33.4 ns"},
			},
		.remote_distance = {20, "estimate: node 0 to the near die of the other socket "
					"(D06 SLIT 10/12/20/22)"},
		.idle_exit = IDLE_EXIT_WFI,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib =
			{512, "measured: TaiShan v110 core, private L2 512 KiB per core, no SMT "
			      "(WikiChip hisilicon/microarchitectures/taishan_v110)"},
		.kunpeng_lat_pipe = true,
		.pipe_same_cluster = {10180, "lmbench lat_pipe, two CPUs of one cluster, 6 pairs "
					     "9,952-10,358 ns, mean 10,180 (openeuler-mirror/"
					     "wayca-scheduler tools/kp920.2P.6CCL/"
					     "log.pipe-latency.0404.filtered.txt)"},
		.mem_local = {117, "measured: plantegg (2021), lmbench lat_mem_rd -t 64M, "
				   "920-4826 2P, local"},
		.mem_per_distance = {8.35,
				     "derived: plantegg lat_mem_rd (920-4826): other die "
				     "135 ns at SLIT 12, other socket 198 at 20 and 219 at 22; "
				     "least-squares slope through (10, 117 ns)"},
	},
	{
		.name = "epyc-7601",
		.smt_pair_yield = SMT_YIELD_LINUX,
		.freq_max_mhz = {3200, "measured: AMD EPYC 7601 product page "
				       "(amd.com/en/products/cpu/amd-epyc-7601), Max Boost Clock "
				       "3.2 GHz"},
		.freq_all_core_mhz = {2700,
				      "measured: the same page, All Core Boost Speed 2.7 GHz"},
		.freq_step_mhz = {16.13, "estimate: AMD publishes no per-count table (Precision "
					 "Boost); linear between the two published points: "
					 "(3200 - 2700) / (32 - 1) cores"},
		.c2c =
			{
				[TS_REL_SMT] = {12.0, "measured: " KCORES_7601 ", SMT sibling"},
				[TS_REL_LLC] = {38, "measured: " KCORES_7601
						    ", same CCX (the L3 is per "
						    "CCX), median (35-47)"},
				[TS_REL_NODE] =
					{216,
					 "measured: " KCORES_7601 ", other CCX of the die, "
					 "socket 1 median (130-226); socket 0 reads 334 and is "
					 "treated as the slow outlier"},
				[TS_REL_PACKAGE] =
					{244, "measured: " KCORES_7601 ", other die of the "
					      "socket, socket 1 median (209-264); socket 0: 374, "
					      "outlier"},
				[TS_REL_REMOTE] =
					{367, "measured: " KCORES_7601 ", other socket, median "
					      "(334-408); the slow socket 0 is in every such pair, "
					      "so this may read high"},
			},
		.refill_line =
			{
				[TS_REL_LLC] =
					{16, "measured: AnandTech 11544 'Sizing Up Servers' (2017, "
					     "www.anandtech.com/show/11544; lmbench), L3 in own "
					     "CCX 13-19 ns, midpoint"},
				[TS_REL_NODE] = {92, "measured: AnandTech 11544, L3 of another CCX "
						     "89-95 ns, midpoint"},
			},
		.remote_distance = {32, "measured: SLIT other socket (Matt Fleming, commit "
					"a55c7454a8c8 'sched/topology: Improve load balancing "
					"on AMD EPYC systems', 2019); the distance of every "
					"c2c.remote pair"},
		.idle_exit = IDLE_EXIT_AMD,
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {512,
				       "measured: Zen L2 512 KiB per core (AMD, WikiChip "
				       "amd/microarchitectures/zen), shared by its 2 SMT threads"},
		.mem_local = {97, "measured: AnandTech 11544 (lmbench), local DRAM 96-98 ns, "
				  "DDR4-2400"},
		.mem_per_distance = {6.66,
				     "derived: no EPYC 7601 remote figure; the Hygon 7280 "
				     "proxy (same Zen 1 MCM; plantegg lat_mem_rd: local 107, "
				     "same socket 164-169, other socket 237-292 ns) as ratios "
				     "applied to 97 ns: 151 at SLIT 16, 240 at 32; "
				     "least-squares slope through (10, 97)"},
	},
	{
		.name = "epyc-7742",
		.smt_pair_yield = SMT_YIELD_LINUX,
		.freq_max_mhz = EPYC_7742_FREQ_MAX_MHZ,
		.freq_all_core_mhz = EPYC_7742_FREQ_ALL_CORE_MHZ,
		.freq_step_mhz = EPYC_7742_FREQ_STEP_MHZ,
		.c2c =
			{
				[TS_REL_SMT] = {8.0, "measured: " NVIENNOT_7742 ", SMT sibling"},
				[TS_REL_LLC] = {25, "measured: " NVIENNOT_7742
						    ", same CCX (the L3 is per "
						    "CCX), median (25-26)"},
				[TS_REL_NODE] = {130,
						 "derived: " NVIENNOT_7742 ", other CCX of the "
						 "socket (one node in NPS1), socket 1: same CCD "
						 "114, "
						 "same quadrant 113, other quadrant 134, weighted "
						 "by a "
						 "core's partners 4/8/48; socket 0 (249/269) is "
						 "the slow "
						 "outlier"},
				[TS_REL_REMOTE] = {267,
						   "measured: " NVIENNOT_7742 ", other socket, "
						   "median (255-275)"},
			},
		.refill_line =
			{
				[TS_REL_LLC] = {10, "measured: AnandTech 14694 (Rome review, "
						    "www.anandtech.com/show/14694), L3 ~34 "
						    "cycles, about 10 ns"},
			},
		.remote_distance = {32, "measured: SLIT NPS1 10/32 (ARCHER2 and other published "
					"numactl -H outputs)"},
		.idle_exit = IDLE_EXIT_AMD,
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib =
			{512, "measured: Zen 2 L2 512 KiB per core (AMD EPYC 7742 spec; "
			      "WikiChip amd/microarchitectures/zen_2), shared by its 2 SMT "
			      "threads"},
		.mem_local = {122, "measured: AnandTech 14694, DRAM full random 128 MB, NPS1"},
		.mem_per_distance = {4.09, "estimate: no published cross-socket figure found; "
					   "our estimate +80-100 ns, +90 at SLIT 32"},
	},
	{
		.name = "epyc-7742-nps4",
		.smt_pair_yield = SMT_YIELD_LINUX,
		.freq_max_mhz = EPYC_7742_FREQ_MAX_MHZ,
		.freq_all_core_mhz = EPYC_7742_FREQ_ALL_CORE_MHZ,
		.freq_step_mhz = EPYC_7742_FREQ_STEP_MHZ,
		.c2c =
			{
				[TS_REL_SMT] = {8.0, "measured: " NVIENNOT_7742 ", SMT sibling"},
				[TS_REL_LLC] = {25, "measured: " NVIENNOT_7742 ", same CCX, median "
						    "(25-26)"},
				[TS_REL_NODE] = {113.3,
						 "derived: " NVIENNOT_7742 ", other CCX of the "
						 "quadrant (the node in NPS4), socket 1: same CCD "
						 "114, "
						 "other CCD 113, weighted by partners 4/8"},
				[TS_REL_PACKAGE] = {134,
						    "measured: " NVIENNOT_7742 ", other quadrant "
						    "of the socket, socket 1 median (110-140)"},
				[TS_REL_REMOTE] = {267,
						   "measured: " NVIENNOT_7742 ", other socket, "
						   "median (255-275)"},
			},
		.refill_line =
			{
				[TS_REL_LLC] = {10, "measured: AnandTech 14694, L3 about 10 ns"},
			},
		.remote_distance = {32, "measured: SLIT NPS4 10/12/32 (ARCHER2's published "
					"numactl -H output)"},
		.idle_exit = IDLE_EXIT_AMD,
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib =
			{512, "measured: Zen 2 L2 512 KiB per core (AMD EPYC 7742 spec), shared by "
			      "its 2 SMT threads"},
		.mem_local = {113, "measured: AnandTech 14694, DRAM full random 128 MB, NPS4"},
		.mem_per_distance = {4.09,
				     "estimate: no published remote figure found; +90 ns "
				     "at SLIT 32 as for NPS1, so the same-socket step (SLIT 12) "
				     "is +8 ns"},
	},
	{
		.name = "broadwell-2s",
		.smt_pair_yield = SMT_YIELD_LINUX,
		.freq_max_mhz = {3600, "measured: Intel ARK, Xeon E5-2698 v4, Max Turbo Frequency "
				       "3.60 GHz"},
		.freq_all_core_mhz = {2700,
				      "measured: Intel Xeon Processor E5-2600 v4 Product "
				      "Family Specification Update (document 333811), turbo "
				      "bins of the E5-2698 v4 with all 20 cores active (non-AVX): "
				      "base 2.2 GHz + 5 bins = 2.7 GHz"},
		.freq_step_mhz = INTEL_STEP,
		.c2c =
			{
				[TS_REL_SMT] = {8.3,
						"measured: " KCORES_BDW " (2x14C proxy for the "
						"E5-2698 v4), SMT sibling, median (8.0-8.9)"},
				[TS_REL_LLC] =
					{45.2,
					 "measured: " KCORES_BDW ", same socket, median "
					 "(39.4-50.4); the 20-core part may read slightly higher"},
				[TS_REL_REMOTE] = {127.5, "measured: " KCORES_BDW ", other socket, "
							  "median (121.5-133.4)"},
			},
		.refill_line =
			{
				[TS_REL_LLC] =
					{34.5, "measured: AnandTech 11544, E5-2699 v4 L3 27-42 ns, "
					       "midpoint (the inclusive L3 holds the footprint)"},
			},
		.remote_distance = {21, "measured: SLIT 10/21 as two-socket Intel firmware "
					"reports it (hwloc test topology 32intel64-2p8co2t+8ve, "
					"2x Xeon Silver 4108; other BIOSes say 20)"},
		.idle_exit = {2000, "declared: Linux drivers/idle/intel_idle.c bdw_cstates C1 "
				    "exit_latency 2 us (vendor-declared, not measured)"},
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib =
			{256, "measured: Broadwell-EP L2 256 KiB per core (Intel Xeon E5 v4 "
			      "datasheet; WikiChip intel/microarchitectures/broadwell_(client)), "
			      "shared by its 2 SMT threads"},
		.mem_local = {95, "measured: AnandTech 11544, E5-2699 v4 DRAM local"},
		.mem_per_distance = {4.09, "estimate: no published remote figure found; "
					   "our estimate 135-145 ns: 140 at SLIT 21"},
	},
	{
		.name = "icelake-2s",
		.smt_pair_yield = SMT_YIELD_LINUX,
		.freq_max_mhz = {3400, "measured: Intel ARK, Xeon Platinum 8380, Max Turbo "
				       "Frequency 3.40 GHz"},
		.freq_all_core_mhz = {3000, "measured: Intel's 3rd Gen Xeon Scalable launch "
					    "specifications (April 2021), Platinum 8380 all-core "
					    "turbo 3.0 GHz"},
		.freq_step_mhz = INTEL_STEP,
		.c2c =
			{
				[TS_REL_SMT] = SMT_INTEL_EST("the Ice Lake data set (8358)"),
				[TS_REL_LLC] = {51.1,
						"measured: " KCORES_ICX " (2x32C proxy for the "
						"8380), same socket, median (45.6-56.2)"},
				[TS_REL_REMOTE] = {110.9, "measured: " KCORES_ICX ", other socket, "
							  "median (105.3-117.2)"},
			},
		.remote_distance = {20, "estimate: the preset's SLIT 10/20 (10/20 or 10/21 by "
					"BIOS; the data set's SLIT is not stated)"},
		.idle_exit = {1000, "declared: Linux drivers/idle/intel_idle.c icx_cstates C1 "
				    "exit_latency 1 us (vendor-declared, not measured)"},
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {1280,
				       "measured: Sunny Cove server core L2 1.25 MiB per "
				       "core (Intel Xeon Scalable 3rd gen; WikiChip "
				       "intel/microarchitectures/sunny_cove), shared by its 2 "
				       "SMT threads"},
		.mem_local = MEM_CLX_LOCAL,
		.mem_per_distance = {2.3,
				     "estimate: proxy Cascade Lake 8269CY 2S, 70 local / "
				     "93 ns remote (plantegg lat_mem_rd), the step put on this "
				     "preset's SLIT 20"},
	},
	{
		.name = "spr-2s",
		.smt_pair_yield = SMT_YIELD_LINUX,
		.freq_max_mhz = XEON_8480_FREQ_MAX_MHZ,
		.freq_all_core_mhz = XEON_8480_FREQ_ALL_CORE_MHZ,
		.freq_step_mhz = INTEL_STEP,
		.c2c =
			{
				[TS_REL_SMT] = SMT_INTEL_EST("the SPR data set (W9-3475X)"),
				[TS_REL_LLC] = {55.3,
						"measured: " KCORES_SPR " (one socket, 36C proxy "
						"for the 8480+), median over all pairs (46.4-64.1, "
						"same tile to cross tile)"},
				[TS_REL_REMOTE] =
					{125, "estimate: no dual-socket SPR data set; the "
					      "midpoint of our estimate 110-140 ns (measured Intel "
					      "2S: Ice Lake 110.9, Broadwell 127.5)"},
			},
		.remote_distance = {21, "measured: SLIT 10/21 (0-day LKP robot reports and HPC "
					"sites' published numactl -H outputs)"},
		.idle_exit = {1000, "declared: Linux drivers/idle/intel_idle.c spr_cstates C1 "
				    "exit_latency 1 us (vendor-declared, not measured)"},
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {2048,
				       "measured: Golden Cove server core L2 2 MiB per core (Intel "
				       "Xeon Scalable 4th gen; WikiChip "
				       "intel/microarchitectures/sapphire_rapids), shared by its 2 "
				       "SMT threads"},
		.mem_local = MEM_CLX_LOCAL,
		.mem_per_distance = {2.09, "estimate: proxy Cascade Lake 8269CY 2S, 70 local / "
					   "93 ns remote (plantegg lat_mem_rd), on SLIT 21"},
	},
	{
		.name = "spr-2s-snc4",
		.smt_pair_yield = SMT_YIELD_LINUX,
		.freq_max_mhz = XEON_8480_FREQ_MAX_MHZ,
		.freq_all_core_mhz = XEON_8480_FREQ_ALL_CORE_MHZ,
		.freq_step_mhz = INTEL_STEP,
		.c2c =
			{
				[TS_REL_SMT] = SMT_INTEL_EST("the SPR data set (W9-3475X)"),
				[TS_REL_LLC] =
					{46.4,
					 "estimate: no per-tile figure; the p10 of " KCORES_SPR
					 ", the low end of the spread, which we put "
					 "down to same-tile pairs (an SNC4 node is one tile)"},
				[TS_REL_PACKAGE] = {55.3, "estimate: the median of " KCORES_SPR
							  ", most of "
							  "whose pairs are cross-tile"},
				[TS_REL_REMOTE] =
					{125, "estimate: no dual-socket SPR data set; the "
					      "midpoint of our estimate 110-140 ns (measured Intel "
					      "2S: Ice Lake 110.9, Broadwell 127.5)"},
			},
		.remote_distance = {21, "measured: SLIT 10/12/21 (published SNC4 numactl -H "
					"outputs)"},
		.idle_exit = {1000, "declared: Linux drivers/idle/intel_idle.c spr_cstates C1 "
				    "exit_latency 1 us (vendor-declared, not measured)"},
		.ctx_switch = CTX_SWITCH_EST,
		.numa_hint_fault = HINT_FAULT_EST,
		.cache_capacity_kib = {2048, "measured: Golden Cove server core L2 2 MiB per core "
					     "(Intel Xeon Scalable 4th gen), shared by its 2 SMT "
					     "threads"},
		.mem_local = MEM_CLX_LOCAL,
		.mem_per_distance = {2.09,
				     "estimate: proxy Cascade Lake 8269CY 2S, 70 local / "
				     "93 ns remote (plantegg lat_mem_rd), on SLIT 21; the SNC "
				     "step (SLIT 12) is then +4 ns"},
	},
	{
		.name = "jacobsville",
		.smt_pair_yield = {2, NULL},
		.freq_max_mhz = {2200, "measured: Intel ARK, Atom P5962B, base 2.2 GHz; no Turbo "
				       "Boost"},
		.freq_all_core_mhz = {2200, "measured: the same fixed 2.2 GHz with every core "
					    "active (no turbo)"},
		.freq_step_mhz = FIXED_STEP("Atom P5900 parts have no Turbo Boost"),
		.c2c =
			{
				[TS_REL_CLUSTER] =
					{25, "estimate: no published c2c data found; a cluster "
					     "shares one L2, so a line moves through that L2: the "
					     "low end of the other presets' measured cluster/CCX "
					     "figures 25-38 ns"},
				[TS_REL_LLC] = {50,
						"estimate: no published c2c data found; the middle "
						"of the other presets' measured monolithic-LLC "
						"figures 45.2-55.3 ns"},
			},
		.remote_distance = {20, "n/a: one node; Linux's REMOTE_DISTANCE"},
		.idle_exit = {2000, "declared: Linux drivers/idle/intel_idle.c snr_cstates "
				    "(Snow Ridge, the Atom P5900 SoC) C1 exit_latency 2 us"},
		.ctx_switch = {2500,
			       "no published figure found; Tremont cores at about 2.2 GHz with "
			       "lower IPC than the big cores: 2.5 / 1.5 of their switch time"},
		.mem_local = {100, "estimate: no published figure found; DDR4 server DRAM as on "
				   "the other presets (95-122 ns)"},
		.numa_hint_fault = {1700, "estimate: the 1 us of the big cores' estimate "
					  "scaled as ctx_switch is (2.5 / 1.5) for the slower "
					  "Tremont cores"},
		.cache_capacity_kib =
			{1152,
			 "derived: Tremont L2 4.5 MiB shared by a 4-core module (Intel Atom P5900 "
			 "family; WikiChip intel/microarchitectures/tremont) / 4 cores, no SMT"},
		.mem_per_distance = {4.5, "n/a: one node; the generic model's value"},
	},
};

/* ---- the generic model ------------------------------------------------------------------ */

const struct preset_costs ts_cost_generic_costs = {
	.name = "generic",
	.smt_pair_yield = SMT_YIELD_LINUX,
	.freq_max_mhz = {3000, "estimate (generic): the presets' single-core clocks are "
			       "2.2-3.8 GHz; only ratios of clocks matter"},
	.freq_all_core_mhz = {3000, "estimate (generic): no data for this machine: a fixed "
				    "clock (turbo off)"},
	.freq_step_mhz = {0, "estimate (generic): no data for this machine: a fixed clock"},
	.c2c =
		{
			[TS_REL_SMT] = {10, "estimate (generic): SMT siblings share L1/L2; the "
					    "presets' measured SMT figures are 8.0-12.0 ns"},
			[TS_REL_CLUSTER] = {32, "estimate (generic): the middle of the presets' "
						"measured cluster/CCX figures 25-38 ns"},
			[TS_REL_LLC] = {50, "estimate (generic): the middle of the presets' "
					    "measured monolithic-LLC figures 45.2-55.3 ns"},
			[TS_REL_NODE] = {110,
					 "estimate (generic): another LLC of the node goes over "
					 "the die's fabric: AMD other-CCX figures 113-216 ns (EPYC "
					 "7742, 7601), "
					 "the low end"},
			[TS_REL_PACKAGE] =
				{120, "estimate (generic): another node of the package: "
				      "55 (SPR SNC4) to 244 ns (EPYC 7601), about the presets' "
				      "median"},
			[TS_REL_REMOTE] = {140,
					   "estimate (generic): another package: 110-130 ns "
					   "(Intel, measured 110.9-127.5) to 267-367 (AMD); 140"},
		},
	.remote_distance = {20, "estimate (generic): the topology's smallest distance between "
				"nodes of different packages (20, Linux's REMOTE_DISTANCE, when it "
				"has one package)"},
	.idle_exit = {1000, "estimate (generic): Linux declares the shallow state's exit "
			    "latency 1-2 us on every machine here (intel_idle C1, arm64 WFI)"},
	.ctx_switch = CTX_SWITCH_EST,
	.mem_local = {100, "estimate (generic): the presets' local DRAM figures are 70-122 ns"},
	.mem_per_distance = {4.5, "estimate (generic): the presets' figures are 2.1-8.4 "
				  "ns per SLIT unit; 4.5 (SLIT 20 -> +45 ns, about 1.45x local)"},
	.numa_hint_fault = {1000, "estimate (generic): the presets' estimate for 2-3 GHz "
				  "server cores, 1 us"},
	.cache_capacity_kib =
		{512,
		 "estimate (generic): the presets' private cache per CPU is 128-1152 KiB; 512 KiB"},
};

const struct preset_costs *ts_cost_find_preset(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(preset_costs) / sizeof(preset_costs[0]); i++)
		if (strcmp(preset_costs[i].name, name) == 0)
			return &preset_costs[i];
	return NULL;
}
