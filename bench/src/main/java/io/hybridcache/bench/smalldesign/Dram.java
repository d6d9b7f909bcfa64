package io.hybridcache.bench.smalldesign;

/**
 * A design's DRAM at one instant, in bits, by part: membership filters, location index (Kangaroo's log
 * index, the page log's page pointers), eviction state (hit bits, counts) and write buffers (a DRAM set
 * group, open pages, the log's write buffer). Per-object figures divide by the objects on flash.
 */
record Dram(double filterBits, double indexBits, double evictionBits, double bufferBits) {
  double totalBits() {
    return filterBits + indexBits + evictionBits + bufferBits;
  }
}
