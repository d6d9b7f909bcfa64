package io.hybridcache.bench.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.hybridcache.bench.StatsJson;
import org.junit.jupiter.api.Test;

class PairedRatiosTest {
  @Test
  void medianAndSpreadOfThePairs() {
    PairedRatios r = new PairedRatios();
    assertNull(r.median());
    assertEquals("-", r.spread());
    r.add(0.66);
    r.add(null); // a pair that measured nothing
    r.add(1.13);
    r.add(0.95);
    assertEquals(0.95, r.median(), 1e-12);
    assertEquals("0.660-1.130 over 3", r.spread());
    r.add(1.0);
    assertEquals(0.975, r.median(), 1e-12, "even count: mean of the middle two");
    ObjectNode out = StatsJson.MAPPER.createObjectNode();
    r.put(out, "ratio_x");
    assertEquals(0.975, out.get("ratio_x").asDouble(), 1e-12);
    assertEquals(0.66, out.get("ratio_x_min").asDouble(), 1e-12);
    assertEquals(1.13, out.get("ratio_x_max").asDouble(), 1e-12);
    assertEquals(4, out.get("ratio_x_pairs").size());
  }
}
