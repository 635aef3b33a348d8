/* The simulator's memory model: address spaces of 2 MiB chunks, their placement, the
 * NUMA scanner's window walk, the pages' last_cpupid for the core's two-stage migration
 * filter and the cost of TOUCH sweeps (numa_memory.h). */
#include "numa_memory.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sim_mm_init(struct sim_mm *mm, int id, const struct ts_workload *w, int nr_nodes)
{
	memset(mm, 0, sizeof(*mm));
	mm->numa.id = id;
	mm->nr_nodes = nr_nodes;
	mm->nr_regions = w->nr_regions;
	mm->regions = calloc((size_t)w->nr_regions, sizeof(*mm->regions));
	mm->node_pages = calloc((size_t)nr_nodes, sizeof(*mm->node_pages));
	if (!mm->regions || !mm->node_pages)
		return -ENOMEM;
	uint64_t chunks = 0;
	for (int r = 0; r < w->nr_regions; r++) {
		struct sim_region *g = &mm->regions[r];
		g->desc = &w->regions[r];
		g->pages = (w->regions[r].bytes + (1u << SIM_PAGE_SHIFT) - 1) >> SIM_PAGE_SHIFT;
		g->first_chunk = (uint32_t)chunks;
		g->nr_chunks = (uint32_t)((g->pages + SIM_CHUNK_PAGES - 1) / SIM_CHUNK_PAGES);
		chunks += g->nr_chunks;
		mm->region_pages += g->pages;
	}
	mm->nr_chunks = (uint32_t)chunks;
	mm->chunks = calloc(chunks ? chunks : 1, sizeof(*mm->chunks));
	if (!mm->chunks)
		return -ENOMEM;
	for (int r = 0; r < w->nr_regions; r++) {
		const struct sim_region *g = &mm->regions[r];
		for (uint32_t i = 0; i < g->nr_chunks; i++) {
			struct sim_chunk *c = &mm->chunks[g->first_chunk + i];
			uint64_t left = g->pages - (uint64_t)i * SIM_CHUNK_PAGES;
			c->pages = (uint16_t)(left < SIM_CHUNK_PAGES ? left : SIM_CHUNK_PAGES);
			c->node = -1;
			c->last_task = -1; /* page_cpupid_reset_last() */
			c->last_cpu = -1;
		}
	}
	return 0;
}

void sim_mm_free(struct sim_mm *mm)
{
	free(mm->regions);
	free(mm->chunks);
	free(mm->node_pages);
	memset(mm, 0, sizeof(*mm));
}

void sim_chunk_place(struct sim_mm *mm, uint32_t chunk, int node)
{
	struct sim_chunk *c = &mm->chunks[chunk];
	c->node = (int16_t)node;
	mm->node_pages[node] += c->pages;
	mm->numa.rss_pages += c->pages; /* get_mm_rss() grows as pages are faulted in */
}

void sim_chunk_move(struct sim_mm *mm, uint32_t chunk, int node)
{
	struct sim_chunk *c = &mm->chunks[chunk];
	mm->node_pages[c->node] -= c->pages;
	mm->node_pages[node] += c->pages;
	c->node = (int16_t)node;
}

int sim_mm_check(const struct sim_mm *mm, char *why, size_t why_size)
{
	uint64_t placed = 0, total = 0;
	for (int n = 0; n < mm->nr_nodes; n++) {
		uint64_t sum = 0;
		for (uint32_t i = 0; i < mm->nr_chunks; i++)
			if (mm->chunks[i].node == n)
				sum += mm->chunks[i].pages;
		if (sum != mm->node_pages[n]) {
			snprintf(why, why_size,
				 "mm %d: node %d holds %llu pages by its chunks, %llu by its "
				 "counter",
				 mm->numa.id, n, (unsigned long long)sum,
				 (unsigned long long)mm->node_pages[n]);
			return -1;
		}
		placed += sum;
	}
	for (int r = 0; r < mm->nr_regions; r++) {
		const struct sim_region *g = &mm->regions[r];
		uint64_t pages = 0;
		for (uint32_t i = 0; i < g->nr_chunks; i++) {
			const struct sim_chunk *c = &mm->chunks[g->first_chunk + i];
			pages += c->pages;
			if (c->node < -1 || c->node >= mm->nr_nodes || (c->node < 0 && c->marked)) {
				snprintf(why, why_size,
					 "mm %d region %d chunk %u: node %d, marked %d",
					 mm->numa.id, r, i, c->node, c->marked);
				return -1;
			}
		}
		if (pages != g->pages) {
			snprintf(why, why_size,
				 "mm %d region %d: %llu pages in chunks, %llu in the region",
				 mm->numa.id, r, (unsigned long long)pages,
				 (unsigned long long)g->pages);
			return -1;
		}
		total += pages;
	}
	if (placed != mm->numa.rss_pages || placed > total || total != mm->region_pages) {
		snprintf(why, why_size, "mm %d: %llu pages placed, rss %lu, regions %llu",
			 mm->numa.id, (unsigned long long)placed, mm->numa.rss_pages,
			 (unsigned long long)total);
		return -1;
	}
	return 0;
}

/* ---- the scanner ---- */

static int region_of(const struct sim_mm *mm, uint32_t chunk)
{
	for (int r = 0; r < mm->nr_regions; r++)
		if (chunk < mm->regions[r].first_chunk + mm->regions[r].nr_chunks)
			return r;
	return mm->nr_regions;
}

uint32_t sim_mm_scan(struct sim_mm *mm, const bool *scan, const struct ts_numa_scan *win,
		     uint64_t *next, int *resets, uint32_t *lo, uint32_t *hi)
{
	int64_t pages = win->pages, virtpages = win->virtpages;
	uint32_t o = win->start < mm->nr_chunks ? (uint32_t)win->start : mm->nr_chunks, marked = 0;
	*lo = UINT32_MAX;
	*hi = 0;
	*next = win->start;
	if (pages <= 0 || virtpages <= 0)
		return 0;
	if (o >= mm->nr_chunks) { /* find_vma() found nothing: start over */
		(*resets)++;
		o = 0;
	}
	for (int r = region_of(mm, o); r < mm->nr_regions; r++) {
		const struct sim_region *g = &mm->regions[r];
		uint32_t end = g->first_chunk + g->nr_chunks;
		if (!scan[r]) {
			o = end;
			continue;
		}
		if (o < g->first_chunk)
			o = g->first_chunk;
		while (o < end) {
			/* end = ALIGN(start + (pages << PAGE_SHIFT), HPAGE_SIZE): what is left
			 * of the budget, in whole chunks */
			uint64_t range = ((uint64_t)pages + SIM_CHUNK_PAGES - 1) / SIM_CHUNK_PAGES;
			uint32_t n = end - o < range ? end - o : (uint32_t)range;
			int64_t range_pages = 0;
			bool updated = false;
			for (uint32_t i = o; i < o + n; i++) {
				struct sim_chunk *c = &mm->chunks[i];
				range_pages += c->pages;
				if (c->node >= 0 && !c->marked) {
					c->marked = true;
					updated = true;
					marked++;
					if (i < *lo)
						*lo = i;
					if (i + 1 > *hi)
						*hi = i + 1;
				}
			}
			if (updated)
				pages -= range_pages;
			virtpages -= range_pages;
			o += n;
			if (pages <= 0 || virtpages <= 0) {
				*next = o;
				return marked;
			}
		}
	}
	(*resets)++; /* the walk ran off the last VMA: reset_ptenuma_scan() */
	*next = 0;
	return marked;
}

/* ---- should_numa_migrate_memory() ---- */

bool sim_should_migrate_memory(const struct ts_topology *t, struct ts_task *p, int p_index,
			       struct sim_chunk *c, int src_nid, int dst_cpu)
{
	struct ts_numa_cpupid last = {c->last_task, c->last_cpu};
	bool migrate = ts_should_numa_migrate_memory(t, p, p_index, &last, src_nid, dst_cpu);
	c->last_task = last.pid;
	c->last_cpu = last.cpu;
	return migrate;
}

/* ---- TOUCH sweeps ---- */

/* Pages from integer position kp that share a chunk, stay within the slice without
 * wrapping and within the execution; *chunk is their chunk. */
static uint64_t run_at(const struct sim_sweep *sw, uint64_t kp, uint32_t *chunk)
{
	uint64_t off = (sw->start + kp) % sw->slice_len;
	uint64_t page = sw->slice_lo + off;
	uint64_t in_region = page / SIM_CHUNK_PAGES;
	*chunk = sw->r->first_chunk + (uint32_t)in_region;
	uint64_t chunk_end = (in_region + 1) * SIM_CHUNK_PAGES;
	if (chunk_end > sw->r->pages)
		chunk_end = sw->r->pages;
	uint64_t n = chunk_end - page;
	if (sw->slice_len - off < n)
		n = sw->slice_len - off;
	if (sw->len - kp < n)
		n = sw->len - kp;
	return n;
}

uint32_t sim_sweep_chunk(const struct sim_sweep *sw, double k)
{
	uint32_t chunk;
	run_at(sw, (uint64_t)k, &chunk);
	return chunk;
}

double sim_sweep_plan(const struct sim_sweep *sw, double k, const double *lat, double *end)
{
	double cost = 0, pos = k, len = (double)sw->len;
	while (pos < len) {
		uint64_t kp = (uint64_t)pos;
		uint32_t ci;
		uint64_t n = run_at(sw, kp, &ci);
		const struct sim_chunk *c = &sw->mm->chunks[ci];
		if (c->node < 0 || c->marked)
			break;
		double next = (double)(kp + n);
		cost += (next - pos) * (sw->page_ns + sw->accesses * lat[c->node]);
		pos = next;
	}
	*end = pos;
	return cost;
}

double sim_sweep_advance(const struct sim_sweep *sw, double k, double end, const double *lat,
			 double ns)
{
	double pos = k;
	while (pos < end && ns > 0) {
		uint64_t kp = (uint64_t)pos;
		uint32_t ci;
		uint64_t n = run_at(sw, kp, &ci);
		const struct sim_chunk *c = &sw->mm->chunks[ci];
		if (c->node < 0)
			break; /* cannot happen inside a planned segment */
		double next = (double)(kp + n);
		if (next > end)
			next = end;
		double per = sw->page_ns + sw->accesses * lat[c->node];
		double need = (next - pos) * per;
		if (need <= ns) {
			ns -= need;
			pos = next;
		} else {
			pos += ns / per;
			ns = 0;
		}
	}
	return pos < end ? pos : end;
}
