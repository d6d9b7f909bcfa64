package io.hybridcache.bench.smalldesign;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.hybridcache.bench.smalldesign.Simulation.Config;
import io.hybridcache.bench.smalldesign.Simulation.Settings;
import io.hybridcache.bench.smalldesign.Workload.Distribution;
import org.junit.jupiter.api.Test;

/**
 * Review of small-design.md's lower bound: "By assumption (1), every moved object was written twice, so
 * WA >= (1 + (1 - rho)) x 1.066 / fill; WA <= 1.6 forces rho >= 0.5", rho the share of the RESIDENT objects
 * placed by time (1 - rho moved to a place their hash names). The write cost is paid per INSERTED object moved;
 * under a uniform workload a design may keep its moved objects much longer than its unmoved ones at no
 * miss-ratio cost, so the resident share moved is not bounded by WA. The page's own simulator shows it:
 * Kangaroo (log share 0.1) with a higher move threshold, steady state (40 N warm-up), gets only (assumption 5:
 * uniform keys; no overwrites).
 */
class SmallDesignBoundReviewTest {
  private static final int OBJECTS = 40_000;

  private static Result kangaroo(int threshold) {
    Settings s = new Settings(OBJECTS, 2, Keys.KEY_BYTES, 100, 7, 0.9, 1.0, 0.9, 40, 2, 16, 7, threshold, 26, true);
    Geometry geo = s.geometry();
    return Simulation.run(s, new Config("kangaroo", Distribution.UNIFORM, 0, 160.0 / 31, 0.1, "bloom"), geo,
        new Keys(geo.universe()), null);
  }

  @Test
  void theBoundsWriteAmplificationFloorHoldsInThePagesOwnSimulator() {
    Result base = kangaroo(2);
    Result r = kangaroo(10);
    double rho = r.indexBits() / 26; // log objects (placed by time) per flash object: the model charges 26 bits each
    double floor = (1 + (1 - rho)) * 1.066 / r.fillAtFlush();
    assertTrue(r.appWa() >= floor, String.format(java.util.Locale.ROOT,
        "small-design.md: WA >= (1 + (1 - rho)) x 1.066 / fill = %.3f at rho = %.3f; the simulator's Kangaroo L=0.1"
            + " threshold 10 writes WA %.3f with %.0f%% of its resident flash objects moved to sets, miss ratio %.3f"
            + " (threshold 2: WA %.3f, miss ratio %.3f)",
        floor, rho, r.appWa(), 100 * (1 - rho), r.missRatio(), base.appWa(), base.missRatio()));
  }
}
