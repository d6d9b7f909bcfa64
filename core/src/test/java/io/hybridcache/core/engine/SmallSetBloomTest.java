package io.hybridcache.core.engine;

import static io.hybridcache.core.engine.SmallTestKeys.key;
import static io.hybridcache.core.engine.SmallTestKeys.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.core.device.MemoryDevice;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The per-set Bloom filters: no false negatives, and the false-positive rate and DRAM per object of the
 * default sizing (160 bits and k = 4 per set; 31 objects of 100 B with 24 B keys fill a set), measured
 * on 100,000 keys and printed.
 */
class SmallSetBloomTest {
  /** The stated bound: theory gives 8.5% at 31 objects per set; measured must stay under 9.5%. */
  static final double FP_BOUND = 0.095;
  private static final int OBJECTS_PER_SET = SmallTestKeys.PER_PAGE_100;

  @Test
  void defaultSizingIsTheBestKFor31Objects() {
    SmallSets.Options o = SmallSets.Options.DEFAULT;
    assertEquals(o.bloomHashes(), SmallSetBloom.bestHashes(o.bloomBitsPerSet(), OBJECTS_PER_SET));
    double expected = SmallSetBloom.expectedFalsePositiveRate(o.bloomBitsPerSet(), o.bloomHashes(), OBJECTS_PER_SET);
    assertTrue(expected < FP_BOUND, "theory: " + expected);
  }

  /** Filters alone: 100,000 keys in 3,225 filters of 31, then 100,000 absent keys. */
  @Test
  void noFalseNegativesAndTheFalsePositiveRateIsWithinTheBound() {
    int sets = 100_000 / OBJECTS_PER_SET;
    SmallSets.Options o = SmallSets.Options.DEFAULT;
    SmallSetBloom bloom = new SmallSetBloom(sets, o.bloomBitsPerSet(), o.bloomHashes());
    SplittableRandom random = new SplittableRandom(27);
    long[][] members = new long[sets][OBJECTS_PER_SET];
    for (int s = 0; s < sets; s++) {
      for (int i = 0; i < OBJECTS_PER_SET; i++) {
        members[s][i] = random.nextLong();
      }
      bloom.rebuildLocked(s, members[s], OBJECTS_PER_SET);
    }
    for (int s = 0; s < sets; s++) {
      for (long h : members[s]) {
        assertTrue(bloom.mightContain(s, h), "false negative in set " + s);
      }
    }
    int positives = 0;
    int queries = 100_000;
    for (int q = 0; q < queries; q++) {
      positives += bloom.mightContain(random.nextInt(sets), random.nextLong()) ? 1 : 0;
    }
    double fp = (double) positives / queries;
    System.out.printf("small sets bloom alone: %d sets x %d objects, %d bits k=%d: false-positive rate %.4f"
        + " (theory %.4f), filter DRAM %.3f B/object%n", sets, OBJECTS_PER_SET, o.bloomBitsPerSet(), o.bloomHashes(),
        fp,
        SmallSetBloom.expectedFalsePositiveRate(o.bloomBitsPerSet(), o.bloomHashes(), OBJECTS_PER_SET),
        (double) bloom.bytes() / ((long) sets * OBJECTS_PER_SET));
    assertTrue(fp <= FP_BOUND, "false-positive rate " + fp);
  }

  /**
   * The region end to end: 100,000 objects of 100 B (24 B keys) put into 3,225 sets (as many as 31 a set
   * holds; overflowing sets evict by RRIP), then 100,000 lookups of absent keys. Prints the measured
   * false-positive rate, DRAM per stored object, objects per set and write amplification without a log.
   */
  @Test
  void aFilledRegionMeetsTheBoundAndPrintsItsFigures() {
    int sets = 100_000 / OBJECTS_PER_SET;
    SmallSets region = new SmallSets(new MemoryDevice(1, (long) sets * 4096), 0, 1, SmallSets.Options.DEFAULT);
    int n = 100_000;
    long admitted = 0;
    for (int i = 0; i < n; i++) {
      byte[] k = key(i);
      byte[] v = value(i, 1, 100);
      region.put(k, v, i, 0);
      admitted += k.length + v.length;
    }
    SmallSetCounters.Snapshot filled = region.stats();
    for (int i = 0; i < n; i++) {
      region.get(key("absent", i));
    }
    SmallSetCounters.Snapshot s = region.stats();
    double fp = s.bloomFalsePositiveRate();
    double dramPerObject = (double) region.dramBytes() / s.entries();
    System.out.printf("small sets region: %d objects put into %d sets: %d stored (%.1f per set), "
        + "bloom false-positive rate %.4f on %d absent keys, DRAM %.3f B/object (%d B/set), "
        + "%d evicted, app write amplification without a log %.1f%n",
        n, sets, s.entries(), (double) s.entries() / sets, fp, n, dramPerObject,
        region.dramBytes() / sets, s.evicted(), (double) s.pageBytesWritten() / admitted);
    assertEquals(filled.entries(), s.entries());
    assertEquals(n, s.bloomRejects() + s.bloomFalsePositiveReads(), "every absent lookup was counted once");
    assertTrue(fp <= FP_BOUND, "false-positive rate " + fp);
    assertTrue(dramPerObject <= 0.90, "DRAM per object " + dramPerObject); // 25 B a set, 28.8 objects a set

    for (int i = n; i < 2 * n; i++) { // as a cache runs: more objects than the sets hold, every set full
      region.put(key(i), value(i, 1, 100), i, 0);
    }
    s = region.stats();
    double steady = (double) region.dramBytes() / s.entries();
    System.out.printf("small sets region, steady state after %d more puts: %d stored (%.1f per set), "
        + "DRAM %.3f B/object%n", n, s.entries(), (double) s.entries() / sets, steady);
    assertTrue(steady <= 0.82, "DRAM per object at steady state " + steady);
  }
}
