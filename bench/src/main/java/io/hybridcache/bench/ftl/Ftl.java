package io.hybridcache.bench.ftl;

import java.util.Arrays;

/**
 * A page-mapped flash translation layer that counts what garbage collection copies: the device side
 * of write amplification. Not thread-safe: one replay drives one instance.
 *
 * <p>Model: {@code blocks} erase blocks of {@code pagesPerBlock} pages; the host addresses
 * {@code logicalPages} pages (fewer than the physical ones: the rest is over-provisioning). Every
 * host write goes to the open block of its stream (one open block per stream, opened on the stream's
 * first write), so pages of different streams never share a block; a page overwritten or trimmed
 * becomes invalid. When no more than {@link #RESERVE_BLOCKS} blocks are free, garbage collection
 * picks a sealed victim ({@link Victim}), copies its valid pages to the GC open block (one, shared by
 * all streams, as in most FTLs: relocated pages are cold whatever their stream) and erases it.
 *
 * <p>Device write amplification = (host pages + GC copies) / host pages, over the pages written since
 * {@link #resetCounters()}.
 *
 * <p>Layout: primitive arrays only, no per-page objects: {@code l2p} (logical -> physical page),
 * {@code p2l} (physical -> logical, -1 when invalid or erased), valid pages and seal time per block,
 * a stack of free blocks. Victim choice scans the sealed blocks (O(blocks) per collection, deterministic:
 * ties go to the lowest block number); FIFO keeps a queue instead.
 */
public final class Ftl {
  /** Free blocks kept for garbage collection's own open block. */
  public static final int RESERVE_BLOCKS = 1;

  /** Victim selection of the garbage collector. */
  public enum Victim {
    /** Fewest valid pages. */
    GREEDY,
    /** LFS cost-benefit: highest (1 - u) * age / (1 + u), u the valid share, age since sealed. */
    COST_BENEFIT,
    /** Oldest sealed block, whatever it holds (the log-structured "LRW" of the closed form). */
    FIFO
  }

  private static final byte FREE = 0;
  private static final byte OPEN = 1;
  private static final byte SEALED = 2;

  private final int pagesPerBlock;
  private final int blocks;
  private final int logicalPages;
  private final Victim victim;
  private final int[] l2p;
  private final int[] p2l;
  private final int[] valid;
  private final long[] sealedAt;
  private final byte[] state;
  private final int[] free;
  private int freeTop;
  private int[] open = new int[0];
  private int[] openNext = new int[0];
  private int gcBlock = -1;
  private int gcNext;
  // FIFO: sealed blocks in seal order (a ring; each block is in it at most once)
  private final int[] fifo;
  private int fifoHead;
  private int fifoSize;
  private int fullVictims; // consecutive FIFO victims without an invalid page
  private long closedOpenBlocks;
  private long clock; // page programs so far (host + GC): seal times are unique

  private long hostPages;
  private long gcPages;
  private long erases;
  private long trimmedPages;

  /**
   * @param pagesPerBlock pages per erase block (>= 2)
   * @param blocks physical blocks
   * @param logicalPages pages the host may address; at most the physical pages less two blocks
   */
  public Ftl(int pagesPerBlock, int blocks, int logicalPages, Victim victim) {
    if (pagesPerBlock < 2 || blocks < 4) {
      throw new IllegalArgumentException("need >= 2 pages per block and >= 4 blocks: " + pagesPerBlock + " x " + blocks);
    }
    long physical = (long) pagesPerBlock * blocks;
    if (physical > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("too many pages: " + physical);
    }
    if (logicalPages < 1 || logicalPages > physical - 2L * pagesPerBlock) {
      throw new IllegalArgumentException("logical pages must be in [1, physical - 2 blocks]: " + logicalPages
          + " of " + physical);
    }
    this.pagesPerBlock = pagesPerBlock;
    this.blocks = blocks;
    this.logicalPages = logicalPages;
    this.victim = victim;
    this.l2p = new int[logicalPages];
    Arrays.fill(l2p, -1);
    this.p2l = new int[(int) physical];
    Arrays.fill(p2l, -1);
    this.valid = new int[blocks];
    this.sealedAt = new long[blocks];
    this.state = new byte[blocks];
    this.free = new int[blocks];
    for (int b = blocks - 1; b >= 0; b--) {
      free[freeTop++] = b; // block 0 on top
    }
    this.fifo = new int[blocks];
  }

  public int logicalPages() { return logicalPages; }
  public int pagesPerBlock() { return pagesPerBlock; }
  public int blocks() { return blocks; }

  /** Writes logical page {@code lpn} in {@code stream} (any int >= 0). */
  public void write(int lpn, int stream) {
    if (lpn < 0 || lpn >= logicalPages) {
      throw new IllegalArgumentException("logical page out of range: " + lpn);
    }
    if (stream < 0) {
      throw new IllegalArgumentException("stream must be >= 0: " + stream);
    }
    invalidate(lpn);
    if (stream >= open.length) {
      int n = open.length;
      open = Arrays.copyOf(open, stream + 1);
      openNext = Arrays.copyOf(openNext, stream + 1);
      Arrays.fill(open, n, open.length, -1);
    }
    if (open[stream] < 0 || openNext[stream] == pagesPerBlock) {
      if (open[stream] >= 0) {
        seal(open[stream]);
      }
      open[stream] = allocate();
      openNext[stream] = 0;
    }
    program(open[stream], openNext[stream]++, lpn);
    hostPages++;
  }

  /** Discards logical page {@code lpn} (no-op if unmapped). */
  public void trim(int lpn) {
    if (lpn < 0 || lpn >= logicalPages) {
      throw new IllegalArgumentException("logical page out of range: " + lpn);
    }
    if (l2p[lpn] >= 0) {
      trimmedPages++;
    }
    invalidate(lpn);
  }

  /** Host pages written since the last reset. */
  public long hostPages() { return hostPages; }
  /** Pages garbage collection copied since the last reset. */
  public long gcPages() { return gcPages; }
  public long erases() { return erases; }
  public long trimmedPages() { return trimmedPages; }
  /** Open blocks garbage collection had to close because no sealed block had an invalid page. */
  public long closedOpenBlocks() { return closedOpenBlocks; }

  /** (host + GC pages) / host pages since the last reset; NaN before any host write. */
  public double writeAmplification() {
    return hostPages == 0 ? Double.NaN : (double) (hostPages + gcPages) / hostPages;
  }

  /** Starts a new measurement window (the mapping state is kept). */
  public void resetCounters() {
    hostPages = 0;
    gcPages = 0;
    erases = 0;
    trimmedPages = 0;
  }

  /** Valid pages now (for tests: equals the mapped logical pages). */
  public long validPages() {
    long v = 0;
    for (int b = 0; b < blocks; b++) {
      v += valid[b];
    }
    return v;
  }

  private void invalidate(int lpn) {
    int old = l2p[lpn];
    if (old >= 0) {
      p2l[old] = -1;
      valid[old / pagesPerBlock]--;
      l2p[lpn] = -1;
    }
  }

  private void program(int block, int page, int lpn) {
    int ppn = block * pagesPerBlock + page;
    p2l[ppn] = lpn;
    l2p[lpn] = ppn;
    valid[block]++;
    clock++;
  }

  private void seal(int block) {
    state[block] = SEALED;
    sealedAt[block] = clock;
    if (victim == Victim.FIFO) {
      fifo[(fifoHead + fifoSize++) % blocks] = block;
    }
  }

  /** A free block for a host stream, collecting garbage first while the reserve is reached. */
  private int allocate() {
    while (freeTop <= RESERVE_BLOCKS) {
      collect();
    }
    return pop();
  }

  private int pop() {
    if (freeTop == 0) {
      throw new IllegalStateException("no free block: the open blocks leave no room (device too small for "
          + open.length + " streams)");
    }
    int b = free[--freeTop];
    state[b] = OPEN;
    return b;
  }

  private void collect() {
    int v = chooseVictim();
    if (v < 0 || (victim != Victim.FIFO && valid[v] == pagesPerBlock)) {
      v = closeOpenBlock(); // every sealed block is full: take back a stream's partly written block
    }
    // FIFO may copy a whole valid block (no gain, but the log moves on); a full round of those means
    // nothing can ever be freed
    fullVictims = v >= 0 && valid[v] == pagesPerBlock ? fullVictims + 1 : 0;
    if (v < 0 || (victim != Victim.FIFO && valid[v] == pagesPerBlock) || fullVictims > blocks) {
      throw new IllegalStateException("garbage collection found no block with invalid pages: utilization too high"
          + " for " + blocks + " blocks with " + open.length + " open streams");
    }
    int base = v * pagesPerBlock;
    for (int p = 0; p < pagesPerBlock && valid[v] > 0; p++) {
      int lpn = p2l[base + p];
      if (lpn < 0) {
        continue;
      }
      if (gcBlock < 0 || gcNext == pagesPerBlock) {
        if (gcBlock >= 0) {
          seal(gcBlock);
        }
        gcBlock = pop();
        gcNext = 0;
      }
      p2l[base + p] = -1;
      valid[v]--;
      program(gcBlock, gcNext++, lpn);
      gcPages++;
    }
    state[v] = FREE;
    erases++;
    free[freeTop++] = v;
  }

  /**
   * Closes the open host block with the fewest valid pages and returns it as the victim, or -1: with
   * many streams on a small device the partly written open blocks can hold the spare pages (a real
   * drive limits open streams for the same reason). The stream opens a new block on its next write;
   * the count of these is {@link #closedOpenBlocks()}.
   */
  private int closeOpenBlock() {
    int best = -1;
    int bestStream = -1;
    for (int s = 0; s < open.length; s++) {
      int b = open[s];
      // invalid and still unwritten pages both come back when the block is collected
      if (b >= 0 && pagesPerBlock - valid[b] > (best < 0 ? 0 : pagesPerBlock - valid[best])) {
        best = b;
        bestStream = s;
      }
    }
    if (best >= 0) {
      open[bestStream] = -1;
      state[best] = SEALED;
      sealedAt[best] = clock;
      closedOpenBlocks++;
    }
    return best;
  }

  private int chooseVictim() {
    if (victim == Victim.FIFO) {
      if (fifoSize == 0) {
        return -1;
      }
      int b = fifo[fifoHead];
      fifoHead = (fifoHead + 1) % blocks;
      fifoSize--;
      return b;
    }
    int best = -1;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int b = 0; b < blocks; b++) {
      if (state[b] != SEALED) {
        continue;
      }
      double score;
      if (victim == Victim.GREEDY) {
        score = -valid[b];
      } else {
        double u = (double) valid[b] / pagesPerBlock;
        score = (1 - u) * Math.max(1, clock - sealedAt[b]) / (1 + u);
      }
      if (score > bestScore) {
        bestScore = score;
        best = b;
      }
    }
    return best;
  }
}
